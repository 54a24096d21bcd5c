"""Unit tests of the nexus_pool runtime's pure parts: the hand-written
protobuf encoding and the type-driven conversions. Run with
``python3 -m unittest test_nexus_pool`` in this folder (go test does)."""

import dataclasses
import unittest

from nexus_pool import convert, service, wire


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

    def test_truncated(self) -> None:
        with self.assertRaises(ValueError):
            wire.decode_call_request(b"\x12\x05ab")


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


if __name__ == "__main__":
    unittest.main()
