"""The few protobuf messages a pool exchanges, encoded by hand.

The messages are tiny (an id, a byte string, a string, an enum), so a
hundred lines here spare every pool the protobuf runtime and its import
time. Field numbers follow proto/pool.proto, grpc.health.v1 and go-plugin's
plugin.Empty.
"""

from __future__ import annotations

import struct
from typing import NamedTuple, Optional

# Wire types of the protobuf encoding.
_VARINT = 0
_FIXED64 = 1
_BYTES = 2
_FIXED32 = 5

# grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING
SERVING = 1

# plugin.Empty, the request and reply of GRPCController/Shutdown.
EMPTY = b""


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _read_varint(data: memoryview, i: int) -> tuple[int, int]:
    n = 0
    shift = 0
    while True:
        if i >= len(data):
            raise ValueError("truncated protobuf varint")
        b = data[i]
        i += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            return n, i
        shift += 7
        if shift > 63:
            raise ValueError("protobuf varint longer than 64 bits")


def _fields(data: bytes) -> dict[int, object]:
    """Parses a message into {field number: last value}: an int for
    varints, a memoryview for length-delimited fields (no copy, as the
    arguments of a call may be megabytes). Fixed-width fields are skipped;
    none of our messages have them."""
    view = memoryview(data)
    out: dict[int, object] = {}
    i = 0
    while i < len(view):
        key, i = _read_varint(view, i)
        number, kind = key >> 3, key & 7
        if kind == _VARINT:
            out[number], i = _read_varint(view, i)
        elif kind == _BYTES:
            size, i = _read_varint(view, i)
            if i + size > len(view):
                raise ValueError("truncated protobuf field")
            out[number] = view[i : i + size]
            i += size
        elif kind == _FIXED64:
            i += 8
        elif kind == _FIXED32:
            i += 4
        else:
            raise ValueError(f"unsupported protobuf wire type {kind}")
    return out


def decode_call_request(data: bytes) -> tuple[int, memoryview]:
    """nexus.pool.CallRequest → (function id, msgpack args)."""
    f = _fields(data)
    fid = f.get(1, 0)
    args = f.get(2, memoryview(b""))
    if not isinstance(fid, int) or not isinstance(args, memoryview):
        raise ValueError("malformed CallRequest")
    return fid, args


def encode_call_reply(result: bytes = b"", error: str = "") -> bytes:
    """nexus.pool.CallReply{result, error}."""
    parts = []
    if result:
        parts += [b"\x0a", _varint(len(result)), result]
    if error:
        e = error.encode("utf-8", "backslashreplace")
        parts += [b"\x12", _varint(len(e)), e]
    return b"".join(parts)


def encode_progress(done: float, total: Optional[float], message: str) -> bytes:
    """nexus.pool.Progress{done, total, message}."""
    p = [b"\x09", struct.pack("<d", done)]
    if total is not None:
        p += [b"\x11", struct.pack("<d", total)]
    if message:
        m = message.encode("utf-8", "backslashreplace")
        p += [b"\x1a", _varint(len(m)), m]
    return b"".join(p)


def encode_progress_event(progress: bytes) -> bytes:
    """nexus.pool.CallEvent{progress}, progress an encoded Progress."""
    return b"\x0a" + _varint(len(progress)) + progress


def encode_reply_event(reply: bytes) -> bytes:
    """nexus.pool.CallEvent{reply}, reply an encoded CallReply."""
    return b"\x12" + _varint(len(reply)) + reply


# The kinds of a CallMessage; UNKNOWN is neither a call nor a
# cancellation, a kind a newer nexus may send.
CALL = "call"
CANCEL = "cancel"
UNKNOWN = "unknown"


class CallMessage(NamedTuple):
    """A decoded nexus.pool.CallMessage: a call (kind CALL, with its
    function, arguments and whether it wants progress), a cancellation
    (CANCEL) or a kind this pool does not know (UNKNOWN)."""

    id: int
    kind: str
    function: int  # for a call
    args: memoryview  # for a call: a msgpack array
    progress: bool


def decode_call_message(data: bytes) -> CallMessage:
    """nexus.pool.CallMessage → CallMessage, the call's CallRequest decoded
    too (as a protobuf library decodes every nested message). ValueError
    when the bytes cannot be decoded."""
    f = _fields(data)
    id_ = f.get(1, 0)
    if not isinstance(id_, int):
        raise ValueError("malformed CallMessage id")
    call = f.get(2)
    if isinstance(call, memoryview):
        c = _fields(call)
        request = c.get(1, memoryview(b""))
        progress = c.get(2, 0)
        if not isinstance(request, memoryview) or not isinstance(progress, int):
            raise ValueError("malformed StreamCall")
        fid, args = decode_call_request(request)
        return CallMessage(id_, CALL, fid, args, progress != 0)
    if isinstance(f.get(3), memoryview):
        return CallMessage(id_, CANCEL, 0, memoryview(b""), False)
    return CallMessage(id_, UNKNOWN, 0, memoryview(b""), False)


def encode_progress_answer(id_: int, progress: bytes) -> bytes:
    """nexus.pool.CallAnswer{id, progress}, progress an encoded Progress."""
    return _answer_id(id_) + b"\x12" + _varint(len(progress)) + progress


def encode_reply_answer(id_: int, reply: bytes) -> bytes:
    """nexus.pool.CallAnswer{id, reply}, reply an encoded CallReply."""
    return _answer_id(id_) + b"\x1a" + _varint(len(reply)) + reply


def _answer_id(id_: int) -> bytes:
    # proto3 leaves out a field at its default: id 0 has no bytes.
    return b"\x08" + _varint(id_) if id_ else b""


def decode_health_request(data: bytes) -> str:
    """grpc.health.v1.HealthCheckRequest → the service name."""
    service = _fields(data).get(1, memoryview(b""))
    if not isinstance(service, memoryview):
        raise ValueError("malformed HealthCheckRequest")
    return bytes(service).decode("utf-8", "replace")


def encode_health_response(status: int) -> bytes:
    """grpc.health.v1.HealthCheckResponse{status}."""
    return b"\x08" + _varint(status)

