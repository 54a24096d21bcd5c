"""The peer benchmark's three functions, as nexus's Python pool runs them."""


def trivial(x: int) -> int:
    return x


def shout(s: str) -> str:
    return s[::-1].upper()


def total(xs: list[float]) -> float:
    return sum(xs)
