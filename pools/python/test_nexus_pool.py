"""Unit tests of the nexus_pool runtime: the hand-written protobuf
encoding, the type-driven conversions, and both gRPC servers over a real
socket. Run with ``python3 -m unittest test_nexus_pool`` in this folder (go
test does)."""

import dataclasses
import os
import queue
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import unittest
from typing import Any, Callable, Optional

import grpc

from nexus_pool import convert, operators, plugin, progress, server, service, wire


class Wire(unittest.TestCase):
    def test_call_request(self) -> None:
        # CallRequest{function: 300, args: 200 bytes}, as Go's protobuf
        # encodes it: a two-byte varint id and a two-byte length.
        args = bytes(range(200))
        data = b"\x08\xac\x02" + b"\x12\xc8\x01" + args
        fid, got = wire.decode_call_request(data)
        self.assertEqual(fid, 300)
        self.assertEqual(bytes(got), args)

    def test_call_request_trace_context(self) -> None:
        # A traced call's traceparent (3) and tracestate (4): skipped.
        data = b"\x08\x07\x12\x01\x90" + b"\x1a\x02tp" + b"\x22\x03k=v"
        fid, got = wire.decode_call_request(data)
        self.assertEqual((fid, bytes(got)), (7, b"\x90"))

    def test_call_request_defaults(self) -> None:
        fid, got = wire.decode_call_request(b"")
        self.assertEqual((fid, bytes(got)), (0, b""))

    def test_call_reply(self) -> None:
        self.assertEqual(wire.encode_call_reply(result=b"\x93\x01\x02\x03"), b"\x0a\x04\x93\x01\x02\x03")
        self.assertEqual(wire.encode_call_reply(error="é"), b"\x12\x02\xc3\xa9")

    def test_health(self) -> None:
        self.assertEqual(wire.decode_health_request(b"\x0a\x06plugin"), "plugin")
        self.assertEqual(wire.encode_health_response(wire.SERVING), b"\x08\x01")

    def test_progress_event(self) -> None:
        # CallEvent{progress: {done: 1, total: 3, message: "hi"}}, as Go's
        # protobuf encodes it.
        self.assertEqual(
            wire.encode_progress_event(wire.encode_progress(1.0, 3.0, "hi")).hex(),
            "0a1609000000000000f03f1100000000000008401a026869",
        )
        self.assertEqual(wire.encode_progress_event(wire.encode_progress(0.5, None, "")).hex(), "0a0909000000000000e03f")
        self.assertEqual(wire.encode_reply_event(b"\x0a\x01\xc0"), b"\x12\x03\x0a\x01\xc0")

    def test_call_message(self) -> None:
        # The bytes Go's protobuf encodes (github.com/nexus-run/nexus/proto,
        # proto.Marshal) for each CallMessage.
        cases = [
            # {id: 300, call: {request: {function: 7, args: 0x9101}, progress: true}}
            ("08ac02120a0a060807120291011001", (300, wire.CALL, 7, "9101", True)),
            # {id: 5, cancel: {}}
            ("08051a00", (5, wire.CANCEL, 0, "", False)),
            # {call: {request: {}}}: every field at its default
            ("12020a00", (0, wire.CALL, 0, "", False)),
            # {id: 9, call: {}}: no request
            ("08091200", (9, wire.CALL, 0, "", False)),
            # {id: 5}: neither a call nor a cancellation
            ("0805", (5, wire.UNKNOWN, 0, "", False)),
            # {id: 5, 4: {}}: a kind a newer nexus may send (field 4)
            ("08052200", (5, wire.UNKNOWN, 0, "", False)),
        ]
        for data, (id_, kind, fid, args, progress_) in cases:
            with self.subTest(data):
                m = wire.decode_call_message(bytes.fromhex(data))
                self.assertEqual((m.id, m.kind, m.function, bytes(m.args), m.progress), (id_, kind, fid, bytes.fromhex(args), progress_))
        # A truncated message, a call that is not a StreamCall, a request
        # that is not a CallRequest.
        for bad in ["08", "08071202ffff", "080712040a02ffff"]:
            with self.subTest(bad), self.assertRaises(ValueError):
                wire.decode_call_message(bytes.fromhex(bad))

    def test_call_answer(self) -> None:
        # The bytes Go's protobuf encodes for each CallAnswer.
        self.assertEqual(
            wire.encode_progress_answer(300, wire.encode_progress(1.0, 3.0, "hi")).hex(),
            "08ac02121609000000000000f03f1100000000000008401a026869",
        )
        self.assertEqual(wire.encode_reply_answer(0, wire.encode_call_reply(result=b"\xc0")).hex(), "1a030a01c0")
        self.assertEqual(
            wire.encode_reply_answer(2**64 - 1, wire.encode_call_reply(error="é")).hex(),
            "08ffffffffffffffffff011a041202c3a9",
        )

    def test_truncated(self) -> None:
        with self.assertRaises(ValueError):
            wire.decode_call_request(b"\x12\x05ab")


class Operators(unittest.TestCase):
    """A foreign operator applies its text between the operands."""

    def test_symbols_and_keywords(self) -> None:
        cases = [
            ("+", 2, 3, 5),
            ("+", "ab", "c", "abc"),
            ("//", -7, 2, -4),
            ("%", -7, 2, 1),
            ("**", 2, 10, 1024),
            ("<=", 3, 3, True),
            ("and", True, False, False),
            ("or", False, True, True),
            ("in", 2, [1, 2], True),
            ("not in", 2, [1, 2], False),
            ("is not", None, 1, True),
        ]
        for text, a, b, want in cases:
            with self.subTest(text=text):
                self.assertEqual(operators.infix(text, "op")(a, b), want)

    def test_not_an_operator(self) -> None:
        with self.assertRaises(SystemExit) as raised:
            operators.infix("===", "triple")
        self.assertIn("'===' is not a Python operator (sourced as triple)", str(raised.exception))


class Progress(unittest.TestCase):
    def test_outside_a_call_does_nothing(self) -> None:
        progress.progress(1, 2, "x")  # no call: no error, nothing sent

    def test_reports_go_to_the_call(self) -> None:
        sent: list = []
        with progress.reporting(sent.append):
            progress.progress(1, 3, "one")
            progress.progress(2)
            progress.progress(float("nan"))  # not a number: dropped
        progress.progress(3, 3)  # after the call: dropped
        self.assertEqual(sent, [wire.encode_progress(1.0, 3.0, "one"), wire.encode_progress(2.0, None, "")])

    def test_other_threads_report_nothing(self) -> None:
        sent: list = []
        with progress.reporting(sent.append):
            t = threading.Thread(target=progress.progress, args=(1,))
            t.start()
            t.join()
        self.assertEqual(sent, [])

    def test_bad_values(self) -> None:
        for args in [("1",), (True,), (1, "2"), (1, 2, 3)]:
            with self.subTest(args), self.assertRaises(TypeError) as caught:
                progress.progress(*args)
            self.assertIn("nexus.progress: ", str(caught.exception))
        # An int too large for a float is named as the function's own
        # error, in a call (outside one nothing is converted).
        with progress.reporting(lambda _: None):
            with self.assertRaises(ValueError) as caught:
                progress.progress(10**400)
        self.assertIn("nexus.progress: ", str(caught.exception))

    def test_cancelled(self) -> None:
        self.assertFalse(progress.cancelled())  # outside a call
        flag = progress.Cancel()
        seen: list = []
        with progress.reporting(None, flag):
            seen.append(progress.cancelled())
            flag.cancelled = True
            seen.append(progress.cancelled())
            other = threading.Thread(target=lambda: seen.append(progress.cancelled()))
            other.start()
            other.join()
        seen.append(progress.cancelled())
        # The call's own thread sees the cancellation; another thread and
        # the time after the call do not.
        self.assertEqual(seen, [False, True, False, False])
        self.assertIs(progress.module().cancelled, progress.cancelled)

    def test_total_not_known(self) -> None:
        # A total that is NaN, infinite or not above 0 is sent as it is, the
        # report kept: the nexus leaves such a total out, for every language.
        sent: list = []
        with progress.reporting(sent.append):
            progress.progress(1, float("nan"))
            progress.progress(2, -5)
        self.assertEqual(len(sent), 2)


@dataclasses.dataclass
class Point:
    x: float
    y: float


RECORDS = {
    "Point": ("Point", [("x", "real"), ("y", "real")]),
    "Plain": (None, [("p", ("record", "Point"))]),
    "Flat": ("dict", [("n", "int")]),
    # record Py => Generated = "struct": Python's own form, a dict.
    "Generated": ("struct", [("n", "int")]),
}


def lookup(name: str) -> type:
    return {"Point": Point}[name]


class FunctionRef(unittest.TestCase):
    """A "func" argument, [id, slots, captured], is the pool's function id
    called with the captured values (converted as its arguments) and the
    caller's arguments where its slots say."""

    def setUp(self) -> None:
        def scale(k: float, x: float) -> float:
            return k * x

        def pair(a: Any, b: Any) -> tuple:
            return (a, b)

        tuple_of_two = convert.to_python(("tuple", ["int", "int"]), {}, lambda n: object)
        convert.FUNCTIONS.clear()
        convert.FUNCTIONS.update(
            {
                1: service.Entry(name="scale", fn=scale, args=[None, None], result=None, pairs=False),
                2: service.Entry(name="pair", fn=pair, args=[tuple_of_two, None], result=None, pairs=False),
            }
        )
        self.scale = scale

    def tearDown(self) -> None:
        convert.FUNCTIONS.clear()

    def test_the_function_itself(self) -> None:
        f = convert.function_ref([1, [0, 1], []])
        self.assertIs(f, self.scale)

    def test_leading_values_given(self) -> None:
        f = convert.function_ref([1, [-1, 0], [2.5]])
        self.assertEqual(list(map(f, [1.0, 2.0])), [2.5, 5.0])

    def test_values_in_any_place_converted(self) -> None:
        f = convert.function_ref([2, [-1, 0], [[1, 2]]])
        self.assertEqual(f("x"), ((1, 2), "x"))
        g = convert.function_ref([2, [0, -1], ["y"]])
        self.assertEqual(g((3, 4)), ((3, 4), "y"))
        h = convert.function_ref([1, [1, 0], []])
        self.assertEqual(h(10.0, 3.0), 30.0)

    def test_unknown_function(self) -> None:
        with self.assertRaisesRegex(ValueError, "function 9, which this pool does not have"):
            convert.function_ref([9, [0], []])

    def test_prelude_loops(self) -> None:
        from nexus_pool import prelude

        f = convert.function_ref([1, [-1, 0], [2.0]])
        self.assertEqual(prelude.morloc_map(f, [1.0, 2.0]), [2.0, 4.0])
        self.assertEqual(prelude.morloc_filter(lambda x: x > 1, [0, 2, 3]), [2, 3])
        self.assertEqual(prelude.morloc_fold(lambda a, x: a * 10 + x, 0, [1, 2, 3]), 123)
        self.assertEqual(prelude.morloc_zipWith(lambda a, b: a - b, [5, 6, 7], [1, 2]), [4, 4])
        self.assertEqual((prelude.morloc_any(bool, [0, 1]), prelude.morloc_all(bool, [0, 1])), (True, False))
        self.assertEqual((prelude.morloc_find(lambda x: x > 1, [1, 2, 3]), prelude.morloc_find(bool, [0])), (2, None))
        self.assertEqual(prelude.morloc_concatMap(lambda x: [x, x], [1, 2]), [1, 1, 2, 2])
        self.assertEqual(prelude.morloc_partition(lambda x: x % 2, [1, 2, 3]), ([1, 3], [2]))
        self.assertEqual(prelude.morloc_takeWhile(lambda x: x < 3, [1, 2, 3, 1]), [1, 2])
        self.assertEqual(prelude.morloc_dropWhile(lambda x: x < 3, [1, 2, 3, 1]), [3, 1])
        self.assertEqual(prelude.morloc_scanl(lambda a, x: a + x, 0, [1, 2, 3]), [0, 1, 3, 6])
        self.assertEqual(prelude.morloc_sortBy(lambda a, b: a > b, [1, 3, 2]), [3, 2, 1])
        self.assertEqual(prelude.morloc_groupBy(lambda a, b: a == b, [1, 1, 2, 1]), [[1, 1], [2], [1]])


class Packed(unittest.TestCase):
    """A ("packed", t, pack, unpack) value is given to the function as
    pack(value), pack's own argument converted as t, and returned as
    unpack(result), unpack's result converted as t."""

    def setUp(self) -> None:
        pairs = convert.to_python(("list", ("tuple", ["str", "int"])), {}, lambda n: object)
        convert.FUNCTIONS.clear()
        convert.FUNCTIONS.update(
            {
                1: service.Entry(name="pack", fn=dict, args=[pairs], result=None, pairs=False),
                2: service.Entry(name="unpack", fn=lambda d: sorted(d.items()), args=[None], result=convert.from_python(("list", ("tuple", ["str", "int"])), {}), pairs=False),
            }
        )

    def tearDown(self) -> None:
        convert.FUNCTIONS.clear()

    def test_pack_and_unpack(self) -> None:
        t = ("packed", ("list", ("tuple", ["str", "int"])), 1, 2)
        native = convert.to_python(("list", t), RECORDS, lookup)([[["b", 2], ["a", 1]]])
        self.assertEqual(native, [{"b": 2, "a": 1}])
        self.assertEqual(convert.from_python(t, RECORDS)({"b": 2, "a": 1}), [("a", 1), ("b", 2)])

    def test_what_the_wire_form_holds(self) -> None:
        self.assertTrue(convert.may_pack(("packed", ("list", "real"), 1, 2), RECORDS))
        self.assertTrue(convert.needs_pairs(("packed", ("map", ("tuple", ["int"]), "str"), 1, 2), RECORDS))

    def test_unknown_function(self) -> None:
        with self.assertRaisesRegex(ValueError, "pack or unpack function 9 of a newtype is not in this pool"):
            convert.to_python(("packed", "str", 9, 2), RECORDS, lookup)("x")


class Convert(unittest.TestCase):
    def test_plain_types_pass_through(self) -> None:
        for t in ["int", ("list", "real"), ("map", "str", ("optional", "int")), ("record", "Flat"), ("record", "Generated")]:
            self.assertIsNone(convert.to_python(t, RECORDS, lookup), t)
            self.assertIsNone(convert.from_python(t, RECORDS), t)

    def test_tuples_become_tuples(self) -> None:
        c = convert.to_python(("list", ("tuple", ["int", "str"])), RECORDS, lookup)
        self.assertEqual(c([[1, "a"], [2, "b"]]), [(1, "a"), (2, "b")])

    def test_classes(self) -> None:
        t = ("map", "str", ("record", "Plain"))
        value = {"k": {"p": {"x": 1.0, "y": 2.0}}}
        converted = convert.to_python(t, RECORDS, lookup)(value)
        self.assertEqual(converted, {"k": {"p": Point(1.0, 2.0)}})
        self.assertEqual(convert.from_python(t, RECORDS)(converted), value)

    def test_json(self) -> None:
        t = ("list", ("optional", "json"))
        given = ['{"b":[1,2.5],"a":null}', None, '"é"', "9007199254740993"]
        value = convert.to_python(t, RECORDS, lookup)(given)
        self.assertEqual(value, [{"b": [1, 2.5], "a": None}, None, "é", 9007199254740993])
        self.assertEqual(convert.from_python(t, RECORDS)(value), given)
        self.assertEqual(convert.from_python("json", RECORDS)(Point(1.0, 2.0)), '{"x":1.0,"y":2.0}')
        with self.assertRaisesRegex(ValueError, "cannot be written as JSON.*NaN and infinities"):
            convert.from_python("json", RECORDS)({"x": [float("nan")]})
        with self.assertRaisesRegex(TypeError, "cannot send a value of type object"):
            convert.from_python("json", RECORDS)(object())

    def test_missing_field_is_left_out(self) -> None:
        class Half:
            x = 1.0

        self.assertEqual(convert.from_python(("record", "Point"), RECORDS)(Half()), {"x": 1.0})

    def test_tuple_keys(self) -> None:
        self.assertTrue(convert.needs_pairs(("map", ("tuple", ["int", "int"]), "str"), RECORDS))
        self.assertFalse(convert.needs_pairs(("map", "int", "str"), RECORDS))
        self.assertEqual(convert.pairs_to_dict([([1, [2, 3]], "v")]), {(1, (2, 3)): "v"})

    def test_plain_fallback(self) -> None:
        self.assertEqual(convert.plain(Point(1.0, 2.0)), {"x": 1.0, "y": 2.0})
        self.assertEqual(sorted(convert.plain({3, 1})), [1, 3])
        with self.assertRaises(TypeError):
            convert.plain(object())


def call_message(id_: int, fid: int, args: bytes, want_progress: bool = False) -> bytes:
    """An encoded CallMessage with a call, as the nexus sends it (the
    field layout the Wire tests check against Go's bytes)."""
    request = b"\x08" + bytes([fid]) + b"\x12" + bytes([len(args)]) + args
    call = b"\x0a" + bytes([len(request)]) + request + (b"\x10\x01" if want_progress else b"")
    return b"\x08" + bytes([id_]) + b"\x12" + bytes([len(call)]) + call


def cancel_message(id_: int) -> bytes:
    return b"\x08" + bytes([id_]) + b"\x1a\x00"


def decode_answer(data: bytes) -> tuple:
    """(id, "progress" or "reply", the inner message) of a CallAnswer."""
    f = wire._fields(data)
    if 2 in f:
        return f.get(1, 0), "progress", bytes(f[2])
    return f.get(1, 0), "reply", bytes(f[3])


class Calls(unittest.TestCase):
    """Pool.calls, the Calls stream's handler, driven directly."""

    def setUp(self) -> None:
        self.started = threading.Event()
        self.stop = threading.Event()

        def steps(n: int) -> int:
            for i in range(n):
                progress.progress(i + 1, n)
            return n

        def patient() -> str:
            self.started.set()
            for _ in range(1000):  # bounded: 10 s
                if progress.cancelled() or self.stop.wait(0.01):
                    break
            return "stopped" if progress.cancelled() else "ran on"

        def broken() -> None:
            raise ValueError("no good")

        table = {
            0: service.Entry("steps", steps, [None], None, False),
            1: service.Entry("patient", patient, [], None, False),
            2: service.Entry("broken", broken, [], None, False),
            3: service.Entry("total", lambda xs, ys: [sum(xs), sum(ys), type(xs).__name__], [None, None], None, False, packed=True),
        }
        self.sent: list = []
        self.lock = threading.Lock()

        def send(message: bytes, key: Any = None) -> None:
            with self.lock:
                self.sent.append(decode_answer(message))

        self.handle = service.Pool(table).calls(send)

    def run_message(self, message: bytes) -> None:
        work = self.handle(message)
        if work is not None:
            work()

    def test_progress_only_when_asked(self) -> None:
        self.run_message(call_message(1, 0, b"\x91\x02"))
        self.run_message(call_message(2, 0, b"\x91\x02", want_progress=True))
        self.assertEqual(self.sent, [
            (1, "reply", wire.encode_call_reply(result=b"\x02")),
            (2, "progress", wire.encode_progress(1.0, 2.0, "")),
            (2, "progress", wire.encode_progress(2.0, 2.0, "")),
            (2, "reply", wire.encode_call_reply(result=b"\x02")),
        ])

    def test_errors_are_replies(self) -> None:
        self.run_message(call_message(4, 2, b"\x90"))
        self.run_message(call_message(5, 9, b"\x90"))
        self.run_message(call_message(6, 0, b"\x90"))  # a wrong count
        (i4, k4, r4), (i5, _, r5), (i6, _, r6) = self.sent
        self.assertEqual((i4, k4, i5, i6), (4, "reply", 5, 6))
        self.assertIn(b"ValueError: no good", r4)
        self.assertIn(b"no function with id 9", r5)
        self.assertIn(b"steps takes 1 arguments, the nexus sent 0", r6)

    def test_cancel(self) -> None:
        work = self.handle(call_message(7, 1, b"\x90"))
        self.assertIsNotNone(work)
        runner = threading.Thread(target=work)
        runner.start()
        self.addCleanup(runner.join)
        self.addCleanup(self.stop.set)
        self.assertTrue(self.started.wait(10))
        self.assertIsNone(self.handle(cancel_message(8)))  # not in flight: ignored
        self.assertIsNone(self.handle(cancel_message(7)))
        runner.join(10)
        self.assertEqual(self.sent, [(7, "reply", wire.encode_call_reply(error=service.CANCELLED))])
        # The id is free again once answered; a cancel now changes nothing.
        self.assertIsNone(self.handle(cancel_message(7)))
        self.stop.set()
        self.run_message(call_message(7, 1, b"\x90"))
        self.assertEqual(self.sent[-1], (7, "reply", wire.encode_call_reply(result=b"\xa6ran on")))

    def test_an_id_in_flight_twice(self) -> None:
        # Call 3 is in flight (its work not run yet); a second call 3 is
        # answered with an error at once, and the first runs as sent.
        first = self.handle(call_message(3, 0, b"\x91\x01"))
        self.assertIsNotNone(first)
        self.assertIsNone(self.handle(call_message(3, 0, b"\x91\x02")))
        self.assertEqual(self.sent, [
            (3, "reply", wire.encode_call_reply(error="the nexus sent call 3 while a call with that id was running")),
        ])
        first()
        self.assertEqual(self.sent[1], (3, "reply", wire.encode_call_reply(result=b"\x01")))

    def test_unknown_kind_skipped(self) -> None:
        for message in [b"\x08\x01", b"", b"\x08\x01\x22\x00"]:  # {id: 1}, {}, {id: 1, 4: {}}
            self.assertIsNone(self.handle(message))
        self.assertEqual(self.sent, [])

    def test_undecodable(self) -> None:
        for message in [b"\x08", b"\x08\x02\x12\x02\xff\xff", b"\x08\x02\x12\x04\x0a\x02\xff\xff"]:
            with self.subTest(message), self.assertRaisesRegex(server.Abort, "CallMessage that cannot be decoded") as e:
                self.handle(message)
            self.assertEqual(e.exception.code, server.INTERNAL)
        self.assertEqual(self.sent, [])

    def test_packed_lists(self) -> None:
        import msgpack

        reals = [0.5, -2.25, 1e300]
        ints = [1, -(2**63), 2**63 - 1]
        args = msgpack.packb([
            msgpack.ExtType(convert.EXT_REALS, struct.pack("<3d", *reals)),
            msgpack.ExtType(convert.EXT_INTS, struct.pack("<3q", *ints)),
        ])
        self.run_message(call_message(1, 3, args))
        (_, kind, reply), = self.sent
        self.assertEqual(msgpack.unpackb(wire._fields(reply)[1]), [sum(reals), sum(ints), "list"])


class PackedLists(unittest.TestCase):
    def test_may_pack(self) -> None:
        records = {"R": (None, [("a", "str"), ("xs", ("optional", ("list", "int")))])}
        for t, want in [
            (("list", "real"), True),
            (("list", "int"), True),
            (("list", "str"), False),
            ("real", False),
            (("map", "str", ("tuple", ["str", ("list", "real")])), True),
            (("list", ("list", "real")), True),
            (("record", "R"), True),
            (("map", "int", "real"), False),
        ]:
            with self.subTest(t):
                self.assertEqual(convert.may_pack(t, records), want)

    def test_lists(self) -> None:
        got = convert.ext_list(convert.EXT_REALS, struct.pack("<2d", 1.5, float("inf")))
        self.assertEqual((got, type(got), type(got[0])), ([1.5, float("inf")], list, float))
        got = convert.ext_list(convert.EXT_INTS, struct.pack("<2q", -1, 2**62))
        self.assertEqual((got, type(got[0])), ([-1, 2**62], int))
        self.assertEqual(convert.ext_list(convert.EXT_INTS, b""), [])

    def test_bad(self) -> None:
        with self.assertRaisesRegex(ValueError, "holds 12 bytes"):
            convert.ext_list(convert.EXT_REALS, b"\x00" * 12)
        with self.assertRaisesRegex(ValueError, "extension type 9, which this pool does not know"):
            convert.ext_list(9, b"")


class Describe(unittest.TestCase):
    def test_message_then_traceback(self) -> None:
        def user_code() -> None:
            raise ValueError("bad input")

        try:
            user_code()
        except ValueError as e:
            text = service.describe(e)
        first, rest = text.split("\n", 1)
        self.assertEqual(first, "ValueError: bad input")
        self.assertIn("Traceback (most recent call last)", rest)
        self.assertIn("in user_code", rest)


# Raised by the "fail" method of the servers under test.
class Broken(Exception):
    pass


class ServerCases:
    """Cases both servers pass: a subclass says how to start one."""

    def start(self, methods: dict, address: str, options: list, ready: Callable[[], None]) -> None:
        raise NotImplementedError

    def setUp(self) -> None:
        folder = tempfile.mkdtemp(prefix="nexus-server-test-")
        self.addCleanup(shutil.rmtree, folder)
        address = "unix:" + os.path.join(folder, "pool.sock")
        self.release = threading.Event()
        self.addCleanup(self.release.set)
        self.barrier = threading.Barrier(8)

        def fail(_: bytes) -> bytes:
            raise Broken("bad state")

        def wait(_: bytes) -> bytes:
            self.release.wait(10)
            return b"released"

        def gather(_: bytes) -> bytes:
            # Only returns once 8 calls run at once.
            self.barrier.wait(10)
            return b"gathered"

        def abort(_: bytes) -> bytes:
            raise server.Abort(server.NOT_FOUND, "no such thing")

        def count(request: bytes, send: Callable[[bytes], None]) -> bytes:
            for i in range(1, int(request) + 1):
                send(b"%d" % i)
            return b"done"

        def count_then_fail(request: bytes, send: Callable[[bytes], None]) -> bytes:
            send(b"1")
            raise Broken("failed after a message")

        def duplex(send: Callable[..., None]) -> Callable[[bytes], Any]:
            # Messages are "op id arg"; answers "id what".
            def handle(message: bytes) -> Any:
                op, id_, arg = (message.split(b" ", 2) + [b"", b""])[:3]
                if op == b"abort":
                    raise server.Abort(server.NOT_FOUND, "no such stream thing")
                if op == b"ignore":
                    return None

                def work() -> None:
                    if op == b"rev":
                        send(id_ + b" " + arg[::-1])
                    elif op == b"wait":
                        self.release.wait(10)
                        send(id_ + b" released")
                    elif op == b"gather":
                        self.barrier.wait(10)
                        send(id_ + b" gathered")
                    elif op == b"count":
                        for i in range(1, int(arg) + 1):
                            send(id_ + b" %d" % i, id_)
                        send(id_ + b" done")
                    elif op == b"fail":
                        raise Broken("bad work")

                return work

            return handle

        methods = {
            "/test.S/Duplex": server.Duplex(duplex),
            "/test.S/Count": server.Streaming(count),
            "/test.S/CountThenFail": server.Streaming(count_then_fail),
            "/test.S/Reverse": lambda request: request[::-1],
            "/test.S/Fail": fail,
            "/test.S/Wait": wait,
            "/test.S/Gather": gather,
            "/test.S/Abort": abort,
        }
        # Lifting gRPC's default limit of 4 MB, as the pool does.
        large = [("grpc.max_receive_message_length", -1), ("grpc.max_send_message_length", -1)]
        ready = threading.Event()
        threading.Thread(target=self.start, args=(methods, address, large, ready.set), daemon=True).start()
        if not ready.wait(10):
            raise RuntimeError("the server did not start")
        self.channel = grpc.insecure_channel(address, options=large)
        self.addCleanup(self.channel.close)

    def method(self, name: str) -> Any:
        return self.channel.unary_unary("/test.S/" + name)

    def test_reply(self) -> None:
        self.assertEqual(self.method("Reverse")(b"abc", timeout=10), b"cba")
        self.assertEqual(self.method("Reverse")(b"", timeout=10), b"")

    def test_large_messages(self) -> None:
        data = bytes(range(256)) * 40_000
        self.assertEqual(self.method("Reverse")(data, timeout=30), data[::-1])

    def test_statuses(self) -> None:
        cases = [
            ("Abort", grpc.StatusCode.NOT_FOUND, "no such thing"),
            ("Fail", grpc.StatusCode.UNKNOWN, "bad state"),
            ("Missing", grpc.StatusCode.UNIMPLEMENTED, ""),
        ]
        for name, code, details in cases:
            with self.subTest(name), self.assertRaises(grpc.RpcError) as caught:
                self.method(name)(b"", timeout=10)
            self.assertEqual(caught.exception.code(), code)
            self.assertIn(details, caught.exception.details())

    def test_slow_call_does_not_hold_up_others(self) -> None:
        slow = self.method("Wait").future(b"", timeout=20)
        for _ in range(3):
            self.assertEqual(self.method("Reverse")(b"ab", timeout=5), b"ba")
        self.assertFalse(slow.done())
        self.release.set()
        self.assertEqual(slow.result(), b"released")

    def test_streaming(self) -> None:
        for n in [0, 1, 3, 200]:
            with self.subTest(n):
                got = list(self.channel.unary_stream("/test.S/Count")(b"%d" % n, timeout=10))
                self.assertEqual(got[-1], b"done")
                messages = [int(m) for m in got[:-1]]
                if not self.streams:
                    self.assertEqual(messages, [])
                    continue
                # A burst is coalesced, but the first and the latest go,
                # in order, before the reply.
                self.assertEqual(messages, sorted(set(messages)))
                if n > 0:
                    self.assertEqual((messages[0], messages[-1]), (1, n))

    def test_streaming_failure(self) -> None:
        with self.assertRaises(grpc.RpcError) as caught:
            list(self.channel.unary_stream("/test.S/CountThenFail")(b"", timeout=10))
        self.assertEqual(caught.exception.code(), grpc.StatusCode.UNKNOWN)
        self.assertIn("failed after a message", caught.exception.details())

    def test_calls_run_at_once(self) -> None:
        calls = [self.method("Gather").future(b"", timeout=20) for _ in range(8)]
        self.assertEqual([c.result() for c in calls], [b"gathered"] * 8)


    def duplex(self) -> tuple:
        """Opens a Duplex stream: returns put (None ends the client's
        side), and the stream's messages as an iterator."""
        outbox: "queue.Queue[Optional[bytes]]" = queue.Queue()

        def requests() -> Any:
            for _ in range(10_000):  # bounded: no test sends as many
                m = outbox.get(timeout=20)
                if m is None:
                    return
                yield m

        answers = self.channel.stream_stream("/test.S/Duplex")(requests(), timeout=30)
        self.addCleanup(answers.cancel)
        return outbox.put, answers

class CoreServer(ServerCases, unittest.TestCase):
    streams = True

    def start(self, methods: dict, address: str, options: list, ready: Callable[[], None]) -> None:
        # Constructed directly, not through serve, which would fall back
        # to grpc.server silently if grpcio's core bindings had changed.
        core = server.CoreServer(methods, address, options)
        ready()
        core.serve()

    def test_duplex_answers_in_any_order(self) -> None:
        put, answers = self.duplex()
        put(b"wait 1")
        put(b"ignore 2")
        put(b"rev 3 abc")
        self.assertEqual(next(answers), b"3 cba")  # while 1 still runs
        put(b"rev 4 " + bytes(range(256)) * 40_000)  # large, too
        self.assertEqual(next(answers), b"4 " + (bytes(range(256)) * 40_000)[::-1])
        self.release.set()
        self.assertEqual(next(answers), b"1 released")
        put(None)
        self.assertEqual(list(answers), [])
        self.assertEqual(answers.code(), grpc.StatusCode.OK)

    def test_duplex_works_run_at_once(self) -> None:
        put, answers = self.duplex()
        for i in range(8):
            put(b"gather %d" % i)
        put(None)
        self.assertEqual(sorted(answers), sorted(b"%d gathered" % i for i in range(8)))

    def test_duplex_the_client_end_waits_for_works(self) -> None:
        put, answers = self.duplex()
        put(b"wait 1")
        put(None)  # the client's last message, while 1 runs
        threading.Timer(0.2, self.release.set).start()
        self.assertEqual(list(answers), [b"1 released"])
        self.assertEqual(answers.code(), grpc.StatusCode.OK)

    def test_duplex_keyed_messages_keep_their_order(self) -> None:
        put, answers = self.duplex()
        put(b"count 7 300")
        put(b"count 8 0")
        put(None)
        got: dict = {}
        for m in answers:
            id_, what = m.split(b" ")
            got.setdefault(id_, []).append(what)
        self.assertEqual(got[b"8"], [b"done"])
        counts = [int(w) for w in got[b"7"][:-1]]
        # Some of a burst may be replaced while waiting (how many depends
        # on the socket's pace), but those that go are in order, the first
        # and the latest among them, then "done".
        self.assertEqual(got[b"7"][-1], b"done")
        self.assertEqual(counts, sorted(set(counts)))
        self.assertEqual((counts[0], counts[-1]), (1, 300))

    def test_duplex_statuses(self) -> None:
        for message, code, details in [
            (b"abort", grpc.StatusCode.NOT_FOUND, "no such stream thing"),
            (b"fail 1", grpc.StatusCode.UNKNOWN, "bad work"),
        ]:
            with self.subTest(message):
                put, answers = self.duplex()
                put(b"wait 0")  # running, and cut short for the client
                put(message)
                with self.assertRaises(grpc.RpcError) as caught:
                    list(answers)
                self.assertEqual(caught.exception.code(), code)
                self.assertIn(details, caught.exception.details())
        # The server serves on.
        self.release.set()
        self.assertEqual(self.method("Reverse")(b"ab", timeout=10), b"ba")

    def test_duplex_cancelled_by_the_client(self) -> None:
        put, answers = self.duplex()
        put(b"wait 1")
        put(b"rev 2 ab")
        self.assertEqual(next(answers), b"2 ba")
        answers.cancel()  # while 1 runs
        self.release.set()
        # The work's answer is dropped; the server serves on.
        put2, answers2 = self.duplex()
        put2(b"rev 1 xy")
        put2(None)
        self.assertEqual(list(answers2), [b"1 yx"])


class GrpcServer(ServerCases, unittest.TestCase):
    streams = False  # the fallback sends a Streaming method's reply only

    def start(self, methods: dict, address: str, options: list, ready: Callable[[], None]) -> None:
        server.serve_with_grpc(grpc, methods, address, options, ready)

    def test_duplex_unimplemented_by_the_fallback(self) -> None:
        put, answers = self.duplex()
        put(b"rev 1 ab")
        with self.assertRaises(grpc.RpcError) as caught:
            next(answers)
        self.assertEqual(caught.exception.code(), grpc.StatusCode.UNIMPLEMENTED)


if __name__ == "__main__":
    unittest.main()


class MissingPackages(unittest.TestCase):
    def test_names_the_interpreter(self) -> None:
        # The pool runs under the interpreter recorded at build time, not
        # necessarily python3 on PATH: the pip command must install into it.
        hide = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, hide)
        with open(os.path.join(hide, "grpc.py"), "w") as f:
            f.write("raise ImportError('hidden by the test')\n")
        here = os.path.dirname(os.path.abspath(__file__))
        env = dict(os.environ, PYTHONPATH=hide + os.pathsep + here, PYTHONDONTWRITEBYTECODE="1")
        env[plugin.COOKIE_KEY] = plugin.COOKIE_VALUE
        proc = subprocess.run(
            [sys.executable, "-c", "import nexus_pool; nexus_pool.run([], {}, {})"],
            env=env, capture_output=True, text=True, timeout=60,
        )
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(f"{sys.executable} -m pip install grpcio msgpack", proc.stderr)
