"""Type-driven conversion between msgpack values and a function's values.

Values arrive from msgpack in plain form: lists, dicts, str, int, float,
bool, None. Most functions take exactly that, so for most types no
converter is built at all (None means "pass the value through"). Work is
needed in two cases:

* tuples arrive as lists and are handed to the function as tuples;
* a Json arrives as a str of JSON text and is handed to the function
  decoded (``json.loads``); a result is encoded with ``json.dumps``,
  compact, UTF-8, and refusing NaN and infinities, which JSON has not;
* records mapped to a Python class (``record Py => Settings = "Settings"``)
  arrive as dicts and are built with ``cls(**fields)``; results of such
  records are read back attribute by attribute, field by field.

Types come from the generated pool.py in this compact form:

* ``"int"``, ``"real"``, ``"str"``, ``"bool"``, ``"unit"``, ``"json"``
* ``("list", t)``, ``("optional", t)``, ``("map", k, v)``,
  ``("tuple", (t1, t2, ...))``, ``("record", name)``
* ``"func"``: a function of this pool given as an argument, sent as
  ``[id, slots, captured]`` (function_ref)
* ``("packed", t, pack, unpack)``: a newtype with a Packable instance,
  sent in the form of t; the function gets ``pack(value)`` and returns a
  native value that ``unpack`` turns back into t's form. pack and unpack
  are functions of this pool, by id.

and records as ``{name: (python class name or None, ((field, t), ...))}``.
"""

from __future__ import annotations

import array
import functools
import json
import sys
from typing import Any, Callable, Mapping, Optional, Sequence, Tuple

Conv = Optional[Callable[[Any], Any]]
Records = Mapping[str, Tuple[Optional[str], Sequence[Tuple[str, Any]]]]
ClassLookup = Callable[[str], type]

# Python names of records that are plain dicts: no conversion. "struct"
# (Morloc's "generate the record's type") is Python's own form of a
# record, a dict.
_DICT_NAMES = ("", "dict", "Dict", "typing.Dict", "struct")


def _class_name(records: Records, name: str) -> Optional[str]:
    py = records[name][0]
    return None if py in _DICT_NAMES else py


def to_python(t: Any, records: Records, lookup: ClassLookup) -> Conv:
    """Returns the converter of a msgpack value of type t into the value the
    function takes, or None when the value is already right."""
    if t == "json":
        return json.loads
    if t == "func":
        return function_ref
    if isinstance(t, str):
        return None
    kind = t[0]
    if kind == "list":
        c = to_python(t[1], records, lookup)
        return None if c is None else (lambda v: [c(x) for x in v])
    if kind == "optional":
        c = to_python(t[1], records, lookup)
        return None if c is None else (lambda v: None if v is None else c(v))
    if kind == "map":
        ck = to_python(t[1], records, lookup) or _same
        cv = to_python(t[2], records, lookup)
        if ck is _same and cv is None:
            return None
        cv = cv or _same
        return lambda v: {ck(k): cv(x) for k, x in v.items()}
    if kind == "tuple":
        cs = [to_python(it, records, lookup) or _same for it in t[1]]
        return lambda v: tuple(c(x) for c, x in zip(cs, v))
    if kind == "record":
        return _record_to_python(t[1], records, lookup)
    if kind == "packed":
        return _packer(t[2], 0)
    raise ValueError(f"unknown type {t!r}")


def _record_to_python(name: str, records: Records, lookup: ClassLookup) -> Conv:
    py = _class_name(records, name)
    cls = lookup(py) if py else None
    fields = [(f, to_python(ft, records, lookup)) for f, ft in records[name][1]]
    fields = [(f, c) for f, c in fields if c is not None]
    if cls is None and not fields:
        return None

    def convert(v: dict) -> Any:
        if fields:
            v = dict(v)
            for f, c in fields:
                if f in v:
                    v[f] = c(v[f])
        return cls(**v) if cls is not None else v

    return convert


def from_python(t: Any, records: Records) -> Conv:
    """Returns the converter of a function's result of type t into a value
    msgpack can pack, or None when it packs as it is."""
    if t == "json":
        return json_text
    if isinstance(t, str):
        return None
    kind = t[0]
    if kind == "list":
        c = from_python(t[1], records)
        return None if c is None else (lambda v: [c(x) for x in v])
    if kind == "optional":
        c = from_python(t[1], records)
        return None if c is None else (lambda v: None if v is None else c(v))
    if kind == "map":
        ck = from_python(t[1], records) or _same
        cv = from_python(t[2], records) or _same
        if ck is _same and cv is _same:
            return None
        return lambda v: {ck(k): cv(x) for k, x in v.items()}
    if kind == "tuple":
        cs = [from_python(it, records) for it in t[1]]
        if all(c is None for c in cs):
            return None
        cs = [c or _same for c in cs]
        return lambda v: [c(x) for c, x in zip(cs, v)]
    if kind == "record":
        return _record_from_python(t[1], records)
    if kind == "packed":
        return _packer(t[3], None)
    raise ValueError(f"unknown type {t!r}")


def _packer(fid: int, arg: Optional[int]) -> Callable[[Any], Any]:
    """The converter that applies function fid of this pool: pack, whose
    argument (arg 0) is in the wire form and converted as the function
    converts it, or unpack (arg None), whose result is converted so. The
    function is looked up at the first call: it is loaded with the ones
    whose converters are being built."""
    entry = None

    def convert(v: Any) -> Any:
        nonlocal entry
        if entry is None:
            entry = FUNCTIONS.get(fid)
            if entry is None:
                raise ValueError(f"the pack or unpack function {fid} of a newtype is not in this pool; rebuild the program with `nexus make`")
        if arg is not None:
            c = entry.args[arg]
            return entry.fn(v if c is None else c(v))
        out = entry.fn(v)
        return out if entry.result is None else entry.result(out)

    return convert


def _record_from_python(name: str, records: Records) -> Conv:
    fields = [(f, from_python(ft, records) or _same) for f, ft in records[name][1]]
    if _class_name(records, name) is None and all(c is _same for _, c in fields):
        return None

    def convert(obj: Any) -> dict:
        # Read the declared fields only, from a dict or from attributes
        # (dataclasses, plain classes, named tuples, slotted classes alike).
        # A missing field is left out, so the nexus names it in its error.
        out = {}
        if isinstance(obj, dict):
            for f, c in fields:
                if f in obj:
                    out[f] = c(obj[f])
        else:
            for f, c in fields:
                v = getattr(obj, f, _MISSING)
                if v is not _MISSING:
                    out[f] = c(v)
        return out

    return convert


def json_text(v: Any) -> str:
    """The compact JSON text of v, a function's Json result. Objects JSON has
    no form for go through plain first, as they do for msgpack."""
    try:
        return json.dumps(v, separators=(",", ":"), allow_nan=False, ensure_ascii=False, default=plain)
    except ValueError as e:
        # allow_nan=False says "Out of range float values are not JSON
        # compliant", which does not say why.
        why = " (NaN and infinities have no JSON form)" if "Out of range" in str(e) else ""
        raise ValueError(f"the Json result cannot be written as JSON: {e}{why}") from None


def needs_pairs(t: Any, records: Records) -> bool:
    """Reports whether a value of type t holds a map whose keys msgpack
    would unpack as lists, which cannot be dict keys."""
    if isinstance(t, str):
        return False
    kind = t[0]
    if kind in ("list", "optional", "packed"):
        return needs_pairs(t[1], records)
    if kind == "map":
        return not isinstance(t[1], str) or needs_pairs(t[2], records)
    if kind == "tuple":
        return any(needs_pairs(it, records) for it in t[1])
    if kind == "record":
        return any(needs_pairs(ft, records) for _, ft in records[t[1]][1])
    return False


def may_pack(t: Any, records: Records) -> bool:
    """Reports whether a value of type t holds a [Real] or [Int], which
    the nexus may send packed (ext_list)."""
    if isinstance(t, str):
        return False
    kind = t[0]
    if kind == "list":
        return t[1] in ("real", "int") or may_pack(t[1], records)
    if kind in ("optional", "packed"):
        return may_pack(t[1], records)
    if kind == "map":
        return may_pack(t[1], records) or may_pack(t[2], records)
    if kind == "tuple":
        return any(may_pack(it, records) for it in t[1])
    if kind == "record":
        return any(may_pack(ft, records) for _, ft in records[t[1]][1])
    return False


def pairs_to_dict(pairs: list) -> dict:
    """An object_pairs_hook for msgpack that makes list keys hashable."""
    return {_hashable(k): v for k, v in pairs}


def _hashable(k: Any) -> Any:
    if isinstance(k, list):
        return tuple(_hashable(x) for x in k)
    return k


def plain(obj: Any) -> Any:
    """msgpack's fallback for objects it cannot pack: dataclasses and other
    objects become dicts of their attributes, sets become lists, and
    array-likes (numpy arrays and scalars) their Python values."""
    fields = getattr(obj, "__dataclass_fields__", None)
    if fields is not None:
        return {f: getattr(obj, f) for f in fields}
    if isinstance(obj, (set, frozenset)):
        return list(obj)
    tolist = getattr(obj, "tolist", None)
    if callable(tolist):
        return tolist()
    if hasattr(obj, "__dict__"):
        return vars(obj)
    raise TypeError(f"cannot send a value of type {type(obj).__name__} to the nexus")


# msgpack extension types of lists of numbers, packed: a [Real] or [Int]
# argument the nexus sends as one block of little-endian 8-byte numbers,
# which array turns into a list at C speed, where msgpack's own unpacking
# looks at every element's type byte (100,000 reals: 1.0 ms instead of
# 1.7 ms; ints: 1.1 instead of 2.1). Results go back as msgpack arrays:
# packing a list into an array first costs more than msgpack's packing.
EXT_REALS = 1  # IEEE 754 binary64, little-endian
EXT_INTS = 2  # two's complement int64, little-endian
_EXT_CODES = {EXT_REALS: "d", EXT_INTS: "q"}


def ext_list(code: int, data: bytes) -> list:
    """msgpack's ext_hook: the list of floats or ints that an EXT_REALS or
    EXT_INTS extension holds."""
    typecode = _EXT_CODES.get(code)
    if typecode is None:
        raise ValueError(f"the nexus sent msgpack extension type {code}, which this pool does not know; rebuild the program with `nexus make`")
    if len(data) % 8:
        raise ValueError(f"msgpack extension type {code} holds {len(data)} bytes, not a whole number of 8-byte numbers")
    a = array.array(typecode)
    a.frombytes(data)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tolist()


_MISSING = object()

# The pool's functions by id (load.functions fills it in), for
# function_ref.
FUNCTIONS: dict = {}


def function_ref(v: Any) -> Callable:
    """The Python function a ``"func"`` argument refers to: [id, slots,
    captured], where slots has one entry per argument of function id: -1
    for the next captured value (converted as that argument), else the
    index of the caller's argument that goes there."""
    fid, slots, captured = v
    entry = FUNCTIONS.get(fid)
    if entry is None:
        raise ValueError(f"the nexus passed function {fid}, which this pool does not have; rebuild the program with `nexus make`")
    fn = entry.fn
    given = []
    for i, s in enumerate(slots):
        if s < 0:
            x = captured[len(given)]
            c = entry.args[i]
            given.append(x if c is None else c(x))
    n = len(slots) - len(given)
    if slots[len(given):] == list(range(n)) and all(s < 0 for s in slots[: len(given)]):
        return functools.partial(fn, *given) if given else fn

    def call(*args: Any) -> Any:
        it = iter(given)
        return fn(*[next(it) if s < 0 else args[s] for s in slots])

    return call


def _same(v: Any) -> Any:
    return v
