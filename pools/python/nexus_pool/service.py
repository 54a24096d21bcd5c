"""The nexus.pool.Pool service: calls of the user's functions.

A call names a function by its manifest id and carries its arguments as a
msgpack array. The reply holds the msgpack result, or the error: whatever
the function raised, with its traceback. User code failing never takes the
pool down.
"""

from __future__ import annotations

import traceback
from typing import Any, Callable, Mapping, NamedTuple, Optional, Sequence, Tuple

import msgpack

from . import convert, wire


class Entry(NamedTuple):
    """One function the pool serves."""

    name: str  # the function's name in the program, for messages
    fn: Callable[..., Any]
    args: Sequence[convert.Conv]  # one converter (or None) per argument
    result: convert.Conv
    pairs: bool  # unpack maps through convert.pairs_to_dict


class Pool:
    """The Call handler over a table of functions."""

    def __init__(self, table: Mapping[int, Entry]) -> None:
        self.table = table

    def call(self, request: Tuple[int, memoryview], context: Any) -> Reply:
        fid, args = request
        entry = self.table.get(fid)
        if entry is None:
            return Reply(
                error=f"this Python pool has no function with id {fid}; "
                "rebuild the program with `nexus make`"
            )
        try:
            return Reply(result=run(entry, args))
        except BaseException as e:  # SystemExit too: a call must not end the pool
            return Reply(error=describe(e))


class Reply(NamedTuple):
    """A CallReply: the msgpack result, or the error."""

    result: bytes = b""
    error: str = ""


def run(entry: Entry, args: memoryview) -> bytes:
    """Unpacks the arguments, calls the function and packs its result."""
    hook: Optional[Callable[[list], dict]] = (
        convert.pairs_to_dict if entry.pairs else None
    )
    argv = msgpack.unpackb(
        args, raw=False, strict_map_key=False, object_pairs_hook=hook
    )
    if len(argv) != len(entry.args):
        raise TypeError(
            f"{entry.name} takes {len(entry.args)} arguments, the nexus sent {len(argv)}"
        )
    argv = [a if c is None else c(a) for c, a in zip(entry.args, argv)]
    result = entry.fn(*argv)
    if entry.result is not None:
        result = entry.result(result)
    return msgpack.packb(result, use_bin_type=True, default=convert.plain)


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


def handler(grpc: Any, pool: Pool) -> Any:
    """The generic handler of nexus.pool.Pool."""
    return grpc.method_handlers_generic_handler(
        "nexus.pool.Pool",
        {
            "Call": grpc.unary_unary_rpc_method_handler(
                pool.call,
                request_deserializer=wire.decode_call_request,
                response_serializer=_encode_reply,
            )
        },
    )


def _encode_reply(reply: Reply) -> bytes:
    return wire.encode_call_reply(reply.result, reply.error)
