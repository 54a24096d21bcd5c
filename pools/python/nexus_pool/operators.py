"""Foreign operators: a Python operator a program sources, `(+)` or a
backtick name such as `and`, as a function of its two operands, so the
pool applies it infix, ``a + b``, rather than calling a function."""

from __future__ import annotations

import operator
from typing import Any, Callable

# The symbols the operator module has a function for; other operators
# (the keyword ones: and, or, in, not in, is, is not) become a lambda.
_FUNCTIONS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "@": operator.matmul,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


def infix(text: str, name: str) -> Callable[[Any, Any], Any]:
    """The function that applies the operator text between its operands;
    name is the program's name for it, for the error when text is no
    Python operator."""
    fn = _FUNCTIONS.get(text)
    if fn is not None:
        return fn
    try:
        code = compile(f"lambda a, b: a {text} b", f"<operator {text}>", "eval")
    except SyntaxError:
        raise SystemExit(f"{text!r} is not a Python operator (sourced as {name})") from None
    made: Callable[[Any, Any], Any] = eval(code, {"__builtins__": {}})
    return made
