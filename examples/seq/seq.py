"""Small DNA sequence tools, plain Python: nexus calls these in a Python pool."""

_COMPLEMENT = str.maketrans("ACGTacgtNn", "TGCAtgcaNn")

_CODONS = {
    a + b + c: aa
    for (a, b, c), aa in zip(
        ((x, y, z) for x in "TCAG" for y in "TCAG" for z in "TCAG"),
        "FFLLSSSSYY**CC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG",
    )
}


def gc_content(seq: str) -> float:
    """Fraction of G and C bases in seq."""
    if not seq:
        raise ValueError("empty sequence")
    s = seq.upper()
    return (s.count("G") + s.count("C")) / len(s)


def reverse_complement(seq: str) -> str:
    return seq.translate(_COMPLEMENT)[::-1]


def count_kmers(k: int, seq: str) -> dict:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    counts: dict = {}
    s = seq.upper()
    for i in range(len(s) - k + 1):
        kmer = s[i : i + k]
        counts[kmer] = counts.get(kmer, 0) + 1
    return dict(sorted(counts.items()))


def translate(seq: str) -> str:
    s = seq.upper()
    return "".join(_CODONS.get(s[i : i + 3], "X") for i in range(0, len(s) - 2, 3))


def summarize(seqs: list) -> dict:
    total = sum(len(s) for s in seqs)
    gcs = [gc_content(s) for s in seqs if s]
    return {
        "count": len(seqs),
        "total_length": total,
        "mean_gc": sum(gcs) / len(gcs) if gcs else 0.0,
        "longest": max(seqs, key=len) if seqs else None,
    }


def find_motif(motif: str, seq: str, ignore_case: bool) -> list:
    if ignore_case:
        motif, seq = motif.upper(), seq.upper()
    return [i for i in range(len(seq) - len(motif) + 1) if seq.startswith(motif, i)]
