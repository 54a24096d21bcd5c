"""The prelude's higher-order functions, run in the pool: when a program
maps (filters, folds, ...) a Python function over a list, the nexus calls
one of these once with a reference to that function (convert.function_ref),
and the whole loop runs here instead of one call per element."""

from __future__ import annotations

import functools
import itertools
from typing import Any, Callable, Iterable, List


def morloc_map(f: Callable, xs: Iterable) -> list:
    return list(map(f, xs))


def morloc_filter(f: Callable, xs: Iterable) -> list:
    return [x for x in xs if f(x)]


def morloc_fold(f: Callable, acc: Any, xs: Iterable) -> Any:
    for x in xs:
        acc = f(acc, x)
    return acc


def morloc_zipWith(f: Callable, xs: Iterable, ys: Iterable) -> list:
    return list(map(f, xs, ys))


def morloc_any(f: Callable, xs: Iterable) -> bool:
    return any(map(f, xs))


def morloc_all(f: Callable, xs: Iterable) -> bool:
    return all(map(f, xs))


def morloc_find(f: Callable, xs: Iterable) -> Any:
    for x in xs:
        if f(x):
            return x
    return None


def morloc_concatMap(f: Callable, xs: Iterable) -> list:
    return [y for x in xs for y in f(x)]


def morloc_partition(f: Callable, xs: Iterable) -> tuple:
    yes: List[Any] = []
    no: List[Any] = []
    for x in xs:
        (yes if f(x) else no).append(x)
    return (yes, no)


def morloc_takeWhile(f: Callable, xs: Iterable) -> list:
    return list(itertools.takewhile(f, xs))


def morloc_dropWhile(f: Callable, xs: Iterable) -> list:
    return list(itertools.dropwhile(f, xs))


def morloc_scanl(f: Callable, acc: Any, xs: Iterable) -> list:
    out = [acc]
    for x in xs:
        acc = f(acc, x)
        out.append(acc)
    return out


def morloc_sortBy(lt: Callable, xs: Iterable) -> list:
    return sorted(xs, key=functools.cmp_to_key(lambda a, b: -1 if lt(a, b) else (1 if lt(b, a) else 0)))


def morloc_groupBy(eq: Callable, xs: Iterable) -> list:
    out: List[list] = []
    for x in xs:
        if out and eq(out[-1][-1], x):
            out[-1].append(x)
        else:
            out.append([x])
    return out
