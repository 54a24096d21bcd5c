"""The nexus.pool.Pool service: calls of the user's functions.

A call names a function by its manifest id and carries its arguments as a
msgpack array. The reply holds the msgpack result, or the error: whatever
the function raised, with its traceback. User code failing never takes the
pool down.
"""

from __future__ import annotations

import threading
import traceback
from typing import Any, Callable, Mapping, NamedTuple, Optional, Sequence

import msgpack

from . import convert, progress, server, wire


# The error of a call cancelled before its function ended.
CANCELLED = "cancelled: the call was cancelled by the nexus before the function ended"


class Entry(NamedTuple):
    """One function the pool serves."""

    name: str  # the function's name in the program, for messages
    fn: Callable[..., Any]
    args: Sequence[convert.Conv]  # one converter (or None) per argument
    result: convert.Conv
    pairs: bool  # unpack maps through convert.pairs_to_dict
    # The arguments hold a [Real] or [Int], which may come packed
    # (convert.ext_list); the others unpack without msgpack's ext_hook,
    # a tenth of a microsecond less.
    packed: bool = False
    # The indexes of the arguments to pass, or None for all: a `()`
    # argument is left out when the function takes no parameter for it
    # (`now :: () -> Int` sourced from `def now():`).
    keep: Optional[Sequence[int]] = None


class Pool:
    """The Pool service's methods over a table of functions."""

    def __init__(self, table: Mapping[int, Entry]) -> None:
        self._runs = {fid: _runner(entry) for fid, entry in table.items()}

    def call_with_progress(self, request: bytes, send: Callable[[bytes], None]) -> bytes:
        """nexus.pool.Pool/CallWithProgress: a CallRequest in; the
        function's progress reports (nexus.progress) go to send as
        CallEvents, and the CallReply comes back as the last CallEvent."""
        with progress.reporting(lambda p: send(wire.encode_progress_event(p))):
            reply = self.call(request)
        return wire.encode_reply_event(reply)

    def calls(self, send: Callable[..., None]) -> Callable[[bytes], Optional[Callable[[], None]]]:
        """nexus.pool.Pool/Calls: returns the handler of one stream's
        CallMessages (a server.Duplex's). A call's work runs its function
        and sends its progress (when asked) and then its reply as
        CallAnswers. A cancellation sets what nexus.cancelled() reports in
        the call; the function runs on (Python cannot stop a thread) unless
        it asks, and its reply, when it ends, is an error saying it was
        cancelled.

        Odd messages: one of a kind the pool does not know is skipped (a
        newer nexus may send more kinds); a call whose id is in flight is
        answered with an error reply, the running call left alone; a
        message that cannot be decoded ends the stream with INTERNAL, its
        calls in flight dropped."""
        cancels: dict[int, progress.Cancel] = {}  # the calls in flight
        lock = threading.Lock()

        def handle(message: bytes) -> Optional[Callable[[], None]]:
            try:
                m = wire.decode_call_message(message)
            except ValueError as e:
                raise server.Abort(server.INTERNAL, f"the nexus sent a CallMessage that cannot be decoded: {e}") from None
            if m.kind == wire.UNKNOWN:  # a newer nexus may send more kinds
                return None
            if m.kind == wire.CANCEL:
                with lock:
                    flag = cancels.get(m.id)
                if flag is not None:  # else the call has ended already
                    flag.cancelled = True
                return None
            flag = progress.Cancel()
            with lock:
                twice = m.id in cancels
                if not twice:
                    cancels[m.id] = flag
            if twice:
                error = f"the nexus sent call {m.id} while a call with that id was running"
                send(wire.encode_reply_answer(m.id, wire.encode_call_reply(error=error)))
                return None

            def work() -> None:
                report = None
                if m.progress:
                    report = lambda p: send(wire.encode_progress_answer(m.id, p), m.id)  # noqa: E731
                try:
                    with progress.reporting(report, flag):
                        reply = self._call(m.function, m.args)
                finally:
                    with lock:
                        del cancels[m.id]
                if flag.cancelled:
                    reply = wire.encode_call_reply(error=CANCELLED)
                send(wire.encode_reply_answer(m.id, reply))

            return work

        return handle

    def call(self, request: bytes) -> bytes:
        """nexus.pool.Pool/Call: a CallRequest in, a CallReply out."""
        try:
            fid, args = wire.decode_call_request(request)
        except ValueError as e:
            raise server.Abort(server.INTERNAL, f"malformed CallRequest: {e}") from None
        return self._call(fid, args)

    def _call(self, fid: int, args: memoryview) -> bytes:
        """Runs function fid with args, a msgpack array: its CallReply."""
        run = self._runs.get(fid)
        if run is None:
            return wire.encode_call_reply(
                error=f"this Python pool has no function with id {fid}; "
                "rebuild the program with `nexus make`"
            )
        try:
            return wire.encode_call_reply(result=run(args))
        except BaseException as e:  # SystemExit too: a call must not end the pool
            return wire.encode_call_reply(error=describe(e))


def _runner(entry: Entry) -> Callable[[memoryview], bytes]:
    """Returns the function that unpacks the arguments, calls entry's
    function and packs its result. What can be decided once is decided
    here: most functions take and return plain values, and their calls
    then convert nothing."""
    fn = entry.fn
    arity = len(entry.args)
    options: dict = {"raw": False, "strict_map_key": False}
    if entry.pairs:
        options["object_pairs_hook"] = convert.pairs_to_dict
    if entry.packed:
        options["ext_hook"] = convert.ext_list
    converters = entry.args if any(c is not None for c in entry.args) else None
    result_converter = entry.result
    keep = entry.keep

    def run(args: memoryview) -> bytes:
        argv = msgpack.unpackb(args, **options)
        if len(argv) != arity:
            raise TypeError(
                f"{entry.name} takes {arity} arguments, the nexus sent {len(argv)}"
            )
        if converters is not None:
            argv = [a if c is None else c(a) for c, a in zip(converters, argv)]
        if keep is not None:
            argv = [argv[i] for i in keep]
        result = fn(*argv)
        if result_converter is not None:
            result = result_converter(result)
        return msgpack.packb(result, use_bin_type=True, default=convert.plain)

    return run


def describe(e: BaseException) -> str:
    """The error text of a failed call: the exception on the first line,
    then the Python traceback from the user's code on."""
    summary = "".join(traceback.format_exception_only(type(e), e)).strip()
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None and _ours(tb):
        tb = tb.tb_next
    text = "".join(traceback.format_exception(type(e), e, tb)).rstrip()
    return f"{summary}\n{text}"


def _ours(tb: Any) -> bool:
    return tb.tb_frame.f_code.co_filename == __file__
