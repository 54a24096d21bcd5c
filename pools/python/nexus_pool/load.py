"""Loading the user's modules and building the function table."""

from __future__ import annotations

import builtins
import importlib.util
import inspect
import os
import sys
from types import ModuleType
from typing import Any, Mapping, Optional, Sequence

from . import convert, operators
from .service import Entry


def functions(
    paths: Sequence[str],
    records: convert.Records,
    specs: Mapping[int, Any],
) -> dict[int, Entry]:
    """Imports every module, then returns the id → Entry table."""
    # Each module's folder goes on sys.path, after the pool's own folder, so
    # the module's own imports work as they would beside it.
    folders = []
    for p in paths:
        if p == "<builtins>":
            continue
        folder = os.path.dirname(p)
        if folder not in sys.path and folder not in folders:
            folders.append(folder)
    sys.path[1:1] = folders
    modules = [_import(i, p) for i, p in enumerate(paths)]
    table: dict[int, Entry] = {}
    for fid, (mi, source, name, args, result) in specs.items():
        module = modules[mi]
        if isinstance(source, tuple):  # ("infix", text): a foreign operator
            fn = operators.infix(source[1], name)
        else:
            fn = getattr(module, source, None)
        if not callable(fn):
            raise SystemExit(
                f"{paths[mi]} has no function {source} (sourced as {name})"
            )
        lookup = _classes(module, modules, paths[mi])
        table[fid] = Entry(
            name=name,
            fn=fn,
            args=[convert.to_python(a, records, lookup) for a in args],
            result=convert.from_python(result, records),
            pairs=any(convert.needs_pairs(a, records) for a in args),
            packed=any(convert.may_pack(a, records) for a in args),
            keep=_kept_arguments(fn, args),
        )
    convert.FUNCTIONS.update(table)
    return table


def _kept_arguments(fn: Any, args: Sequence[Any]) -> Optional[list[int]]:
    """The arguments to pass fn: all (None), unless some are `()` and fn
    cannot take them all, as the C++ and Go pools do for functions without
    a parameter for `()`."""
    if "unit" not in args:
        return None
    try:
        inspect.signature(fn).bind(*([None] * len(args)))
        return None
    except TypeError:
        return [i for i, a in enumerate(args) if a != "unit"]
    except ValueError:  # no signature (some builtins): pass everything
        return None


def _import(index: int, path: str) -> ModuleType:
    """Imports the file at path under a name of its own, so two sources
    with the same file name in different folders stay two modules."""
    if path == "<builtins>":  # nexus_pool.BUILTINS
        return builtins
    stem = os.path.splitext(os.path.basename(path))[0]
    name = f"_nexus_source{index}_{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as e:
        raise SystemExit(f"cannot import {path}:\n{_user_traceback(e)}") from None
    return module


def _user_traceback(e: BaseException) -> str:
    """The traceback of e from the user's code on, without the frames of
    the pool and of importlib that led there."""
    import traceback

    tb = e.__traceback__
    while tb is not None and _not_users(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(e), e, tb)).rstrip()


def _not_users(filename: str) -> bool:
    return filename.startswith("<frozen ") or os.path.dirname(filename) == os.path.dirname(__file__)


def _classes(
    home: ModuleType, modules: Sequence[ModuleType], path: str
) -> convert.ClassLookup:
    """Finds a record's Python class by name: in the function's module
    first, then the other sources, then the builtins. Dotted names walk
    attributes (``models.Settings``)."""

    def lookup(name: str) -> type:
        for m in [home, *modules, builtins]:
            obj: Any = m
            for part in name.split("."):
                obj = getattr(obj, part, None)
                if obj is None:
                    break
            if obj is not None:
                return obj
        raise SystemExit(
            f"record class {name} is not defined in {path} (nor in the other Python sources)"
        )

    return lookup
