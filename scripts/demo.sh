#!/bin/sh
# Builds the example program examples/seq with nexus and runs a few of its
# commands: what `make demo` shows.
set -eu
nexus=$1
cd "$(dirname "$0")/../examples/seq"
show() {
	echo "\$ $*"
	"$@"
	echo
}
show "$nexus" make main.loc
show ./seq --help
show ./seq gc ACGTGGCC
show ./seq revcomp ACGTTTGA
show ./seq kmers -k 3 ACGTACGT
show ./seq summary ACGT GGCCGG ATATATAT
show ./seq motif -i acg ACGTACGT
show ./seq gcrev AAAAC
show ./seq codons
