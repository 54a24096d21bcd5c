"""Chemistry in Python: molecular formulas and their weights."""

import re

# Standard atomic weights (IUPAC, abridged) of the elements most formulas use.
ATOMIC_WEIGHT = {
    "H": 1.008, "He": 4.0026, "Li": 6.94, "B": 10.81, "C": 12.011, "N": 14.007,
    "O": 15.999, "F": 18.998, "Na": 22.990, "Mg": 24.305, "Al": 26.982,
    "Si": 28.085, "P": 30.974, "S": 32.06, "Cl": 35.45, "K": 39.098,
    "Ca": 40.078, "Fe": 55.845, "Cu": 63.546, "Zn": 65.38, "Br": 79.904,
    "I": 126.90,
}

_TOKEN = re.compile(r"([A-Z][a-z]?)(\d*)|(\()|(\))(\d*)")


def atom_counts(formula: str) -> dict:
    """Counts atoms in a formula such as C6H12O6 or Ca(OH)2."""
    stack = [{}]
    pos = 0
    while pos < len(formula):
        m = _TOKEN.match(formula, pos)
        if not m:
            raise ValueError(f"cannot read formula {formula!r} at position {pos + 1}")
        element, count, open_, close, group_count = m.groups()
        if element:
            if element not in ATOMIC_WEIGHT:
                raise ValueError(f"unknown element {element!r} in {formula!r}")
            stack[-1][element] = stack[-1].get(element, 0) + int(count or 1)
        elif open_:
            stack.append({})
        else:
            if len(stack) == 1:
                raise ValueError(f"unbalanced ')' in {formula!r}")
            group = stack.pop()
            for el, n in group.items():
                stack[-1][el] = stack[-1].get(el, 0) + n * int(group_count or 1)
        pos = m.end()
    if len(stack) != 1:
        raise ValueError(f"unbalanced '(' in {formula!r}")
    return stack[0]


def molecular_weight(formula: str) -> float:
    return sum(ATOMIC_WEIGHT[el] * n for el, n in atom_counts(formula).items())


def describe_config(settings: dict) -> str:
    flag = "with" if settings["hydrogens"] else "without"
    return f"{settings['precision']} digits, {flag} hydrogens"
