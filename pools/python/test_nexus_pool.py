"""Unit tests of the nexus_pool runtime: the hand-written protobuf
encoding, the type-driven conversions, and both gRPC servers over a real
socket. Run with ``python3 -m unittest test_nexus_pool`` in this folder (go
test does)."""

import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
from typing import Any, Callable

import grpc

from nexus_pool import convert, plugin, progress, server, service, wire


class Wire(unittest.TestCase):
    def test_call_request(self) -> None:
        # CallRequest{function: 300, args: 200 bytes}, as Go's protobuf
        # encodes it: a two-byte varint id and a two-byte length.
        args = bytes(range(200))
        data = b"\x08\xac\x02" + b"\x12\xc8\x01" + args
        fid, got = wire.decode_call_request(data)
        self.assertEqual(fid, 300)
        self.assertEqual(bytes(got), args)

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
            wire.encode_progress_event(1.0, 3.0, "hi").hex(),
            "0a1609000000000000f03f1100000000000008401a026869",
        )
        self.assertEqual(wire.encode_progress_event(0.5, None, "").hex(), "0a0909000000000000e03f")
        self.assertEqual(wire.encode_reply_event(b"\x0a\x01\xc0"), b"\x12\x03\x0a\x01\xc0")

    def test_truncated(self) -> None:
        with self.assertRaises(ValueError):
            wire.decode_call_request(b"\x12\x05ab")


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
        self.assertEqual(sent, [wire.encode_progress_event(1.0, 3.0, "one"), wire.encode_progress_event(2.0, None, "")])

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
}


def lookup(name: str) -> type:
    return {"Point": Point}[name]


class Convert(unittest.TestCase):
    def test_plain_types_pass_through(self) -> None:
        for t in ["int", ("list", "real"), ("map", "str", ("optional", "int")), ("record", "Flat")]:
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

        methods = {
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


class CoreServer(ServerCases, unittest.TestCase):
    streams = True

    def start(self, methods: dict, address: str, options: list, ready: Callable[[], None]) -> None:
        # Constructed directly, not through serve, which would fall back
        # to grpc.server silently if grpcio's core bindings had changed.
        core = server.CoreServer(methods, address, options)
        ready()
        core.serve()


class GrpcServer(ServerCases, unittest.TestCase):
    streams = False  # the fallback sends a Streaming method's reply only

    def start(self, methods: dict, address: str, options: list, ready: Callable[[], None]) -> None:
        server.serve_with_grpc(grpc, methods, address, options, ready)


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
