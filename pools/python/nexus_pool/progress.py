"""Progress reports and cancellation: what a user's function imports as
``nexus``.

The pool registers this module's public part as the module ``nexus``
(module()), so that a function reports its progress with::

    import nexus

    def crunch(n: int) -> int:
        for i in range(n):
            nexus.progress(i + 1, n, "crunching")
            ...

A report reaches the caller only when the caller asked for progress (an MCP
client that sent a progressToken) and is made on the thread that runs the
call; otherwise nexus.progress does nothing.

Python cannot stop a thread, so a cancelled call runs on; a function that
can stop early asks ``nexus.cancelled()`` now and then (between items, say)
and returns or raises when it says True. The caller was answered already;
what the function returns then is discarded.
"""

from __future__ import annotations

import math
import threading
import types
from typing import Callable, Optional

from . import wire

_current = threading.local()


def progress(done: float, total: Optional[float] = None, message: Optional[str] = None) -> None:
    """Reports that done of total (None: not known) is done, and what the
    function is doing (message). Reports should grow: the nexus drops one
    whose done is not above the last one's. Does nothing outside a call,
    on another thread than the call's, or when the caller wants no
    progress."""
    if isinstance(done, bool) or not isinstance(done, (int, float)):
        raise TypeError(f"nexus.progress: done must be a number, got {done!r}")
    if total is not None and (isinstance(total, bool) or not isinstance(total, (int, float))):
        raise TypeError(f"nexus.progress: total must be a number or None, got {total!r}")
    if message is not None and not isinstance(message, str):
        raise TypeError(f"nexus.progress: message must be a str or None, got {message!r}")
    send: Optional[Callable[[bytes], None]] = getattr(_current, "send", None)
    if send is None:
        return
    try:
        done_f = float(done)
        total_f = None if total is None else float(total)
    except OverflowError:
        raise ValueError(f"nexus.progress: {done if total is None or abs(done) > abs(total) else total} is too large for a float") from None
    if math.isnan(done_f):
        return
    # A total that is not finite or not above 0 is sent as it is: the
    # nexus leaves it out (one rule for the three languages).
    send(wire.encode_progress(done_f, total_f, message or ""))


class Cancel:
    """Whether the nexus has cancelled one call: set by the call's stream
    (from another thread), read by nexus.cancelled(). A plain attribute,
    as a threading.Event would cost each call more than the rest of its
    bookkeeping."""

    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False


def cancelled() -> bool:
    """Reports whether the nexus has cancelled the call this thread runs
    (its caller gave up: a timeout, an MCP cancellation). Always False
    outside a call, on another thread than the call's, and for calls the
    nexus sent without a way to cancel them (a pool called with Call)."""
    flag: Optional[Cancel] = getattr(_current, "cancel", None)
    return flag is not None and flag.cancelled


class reporting:
    """Makes nexus.progress on this thread send its reports (encoded
    Progress messages) to send, when send is not None, and
    nexus.cancelled() follow cancel, when not None, for the length of a
    with block: one call."""

    def __init__(
        self,
        send: Optional[Callable[[bytes], None]],
        cancel: Optional[Cancel] = None,
    ) -> None:
        self._send = send
        self._cancel = cancel

    def __enter__(self) -> None:
        _current.send = self._send
        _current.cancel = self._cancel

    def __exit__(self, *_: object) -> None:
        _current.send = None
        _current.cancel = None


def module() -> types.ModuleType:
    """The module ``nexus`` a user's code imports."""
    m = types.ModuleType("nexus", "What a function running in a nexus pool may call.")
    m.progress = progress  # type: ignore[attr-defined]
    m.cancelled = cancelled  # type: ignore[attr-defined]
    return m
