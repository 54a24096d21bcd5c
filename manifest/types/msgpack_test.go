package types

import (
	"bytes"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// step writes one piece of hand-built msgpack.
type step = func(e *msgpack.Encoder) error

// foreign builds msgpack bytes the way another language's library might,
// one encoder call at a time.
func foreign(t *testing.T, write step) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := write(msgpack.NewEncoder(&buf)); err != nil {
		t.Fatalf("building msgpack: %v", err)
	}
	return buf.Bytes()
}

// seq runs steps in order.
func seq(steps ...step) step {
	return func(e *msgpack.Encoder) error {
		for _, s := range steps {
			if err := s(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// Steps for the common pieces; ints are written in their shortest form.
func arr(n int) step                { return func(e *msgpack.Encoder) error { return e.EncodeArrayLen(n) } }
func mapn(n int) step               { return func(e *msgpack.Encoder) error { return e.EncodeMapLen(n) } }
func str(s string) step             { return func(e *msgpack.Encoder) error { return e.EncodeString(s) } }
func i64(n int64) step              { return func(e *msgpack.Encoder) error { return e.EncodeInt(n) } }
func nilv(e *msgpack.Encoder) error { return e.EncodeNil() }

// roundTripValues has a canonical value of every kind.
var roundTripValues = []struct {
	typ *Type
	v   any
}{
	{IntType, int64(0)},
	{IntType, int64(-1)},
	{IntType, int64(127)},
	{IntType, int64(-33)},
	{IntType, int64(300)},
	{IntType, int64(-70000)},
	{IntType, int64(math.MaxInt64)},
	{IntType, int64(math.MinInt64)},
	{RealType, 1.5},
	{RealType, 3.0},
	{RealType, math.Copysign(0, -1)},
	{RealType, math.Inf(-1)},
	{RealType, 1e300},
	{StrType, ""},
	{StrType, "héllo ✓"},
	{StrType, strings.Repeat("x", 300)},
	{BoolType, true},
	{BoolType, false},
	{UnitType, nil},
	{OptionalOf(IntType), nil},
	{OptionalOf(IntType), int64(4)},
	{OptionalOf(OptionalOf(StrType)), "s"},
	{ListOf(IntType), []int64{}},
	{ListOf(IntType), []int64{1, -2, 1 << 40}},
	{ListOf(RealType), []float64{1.0, 2.5, -0.5}},
	{ListOf(ListOf(StrType)), []any{[]string{"a"}, []string{}}},
	{ListOf(BoolType), []bool{true, false}},
	{ListOf(OptionalOf(RealType)), []any{nil, 2.0}},
	{TupleOf(IntType, StrType), []any{int64(1), "x"}},
	{TupleOf(BoolType, ListOf(IntType), UnitType), []any{true, []int64{2}, nil}},
	{MapOf(StrType, IntType), []Pair{}},
	{MapOf(StrType, IntType), []Pair{{"b", int64(1)}, {"a", int64(2)}}},
	{MapOf(IntType, StrType), []Pair{{int64(2), "two"}, {int64(-1), "minus one"}}},
	{MapOf(StrType, MapOf(IntType, StrType)), []Pair{{"x", []Pair{{int64(1), "one"}}}}},
	{MapOf(TupleOf(IntType, IntType), RealType), []Pair{{[]any{int64(1), int64(2)}, 0.5}}},
	{point, map[string]any{"x": int64(1), "y": int64(-2)}},
	{entry, map[string]any{"name": "n", "score": 2.0, "tags": []string{"a"}, "note": nil,
		"at": map[string]any{"x": int64(1), "y": int64(2)}}},
	{ListOf(point), []any{map[string]any{"x": int64(1), "y": int64(2)}}},
}

func TestMsgpackRoundTrip(t *testing.T) {
	for _, c := range roundTripValues {
		var buf bytes.Buffer
		if err := EncodeMsgpack(msgpack.NewEncoder(&buf), c.typ, c.v); err != nil {
			t.Fatalf("EncodeMsgpack(%s, %#v): %v", c.typ, c.v, err)
		}
		got, err := DecodeMsgpackBytes(c.typ, buf.Bytes())
		if err != nil {
			t.Fatalf("DecodeMsgpackBytes(%s) of %#v: %v", c.typ, c.v, err)
		}
		if !reflect.DeepEqual(got, c.v) {
			t.Errorf("%s: %#v came back as %#v", c.typ, c.v, got)
		}
		if f, ok := c.v.(float64); ok && math.Signbit(f) != math.Signbit(got.(float64)) {
			t.Errorf("%s: sign of %v lost", c.typ, f)
		}
	}
}

func TestEncodeArgs(t *testing.T) {
	ts := make([]*Type, len(roundTripValues))
	vs := make([]any, len(roundTripValues))
	for i, c := range roundTripValues {
		ts[i], vs[i] = c.typ, c.v
	}
	data, err := EncodeArgs(ts, vs)
	if err != nil {
		t.Fatal(err)
	}
	dec := msgpack.NewDecoder(bytes.NewReader(data))
	n, err := dec.DecodeArrayLen()
	if err != nil || n != len(ts) {
		t.Fatalf("argument array of %d (%v), want %d", n, err, len(ts))
	}
	for i := range ts {
		got, err := DecodeMsgpack(dec, ts[i])
		if err != nil {
			t.Fatalf("argument %d (%s): %v", i+1, ts[i], err)
		}
		if !reflect.DeepEqual(got, vs[i]) {
			t.Errorf("argument %d (%s): %#v came back as %#v", i+1, ts[i], vs[i], got)
		}
	}
	if _, err := dec.PeekCode(); err == nil {
		t.Error("bytes left over after the last argument")
	}

	empty, err := EncodeArgs(nil, nil)
	if err != nil || !bytes.Equal(empty, []byte{0x90}) {
		t.Errorf("EncodeArgs() = %x, %v; want an empty array 90", empty, err)
	}
}

func TestDecodeArgs(t *testing.T) {
	ts := make([]*Type, len(roundTripValues))
	vs := make([]any, len(roundTripValues))
	for i, c := range roundTripValues {
		ts[i], vs[i] = c.typ, c.v
	}
	data, err := EncodeArgs(ts, vs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeArgs(ts, data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, vs) {
		t.Errorf("DecodeArgs(EncodeArgs(vs)) = %#v, want %#v", got, vs)
	}

	two, err := EncodeArgs([]*Type{IntType, StrType}, []any{int64(1), "x"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ts   []*Type
		data []byte
		want string
	}{
		{[]*Type{IntType}, two, "2 arguments for 1 parameters"},
		{[]*Type{IntType, IntType}, two, `argument 2: expected Int, got msgpack type 0xa1`},
		{[]*Type{IntType}, []byte{0x01}, "arguments: "},
	} {
		_, err := DecodeArgs(c.ts, c.data)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("DecodeArgs(%v, %x) error %v, want one starting %q", c.ts, c.data, err, c.want)
		}
	}
}

func TestEncodeArgsErrors(t *testing.T) {
	cases := []struct {
		ts   []*Type
		vs   []any
		want string
	}{
		{[]*Type{IntType}, []any{int64(1), int64(2)}, "2 arguments for 1 parameters"},
		{[]*Type{IntType, IntType}, nil, "0 arguments for 2 parameters"},
		{[]*Type{IntType, IntType}, []any{int64(1), "x"}, `argument 2: value "x" is not of type Int`},
		{[]*Type{ListOf(point)}, []any{[]any{map[string]any{"x": int64(1)}}}, "argument 1: at [0].y: value <nil> is not of type Int"},
	}
	for _, c := range cases {
		data, err := EncodeArgs(c.ts, c.vs)
		if err == nil || err.Error() != c.want {
			t.Errorf("EncodeArgs(%v, %#v) = %x, %v; want error %q", c.ts, c.vs, data, err, c.want)
		}
	}
}

// The wire form pools rely on: compact ints, Reals always as float64 (so
// Python sees a float even for 1.0), maps as maps, records as maps keyed by
// field name in field order.
func TestEncodeMsgpackWireForm(t *testing.T) {
	cases := []struct {
		typ  *Type
		v    any
		want []byte
	}{
		{IntType, int64(1), []byte{0x01}},
		{IntType, int64(-1), []byte{0xff}},
		{IntType, int64(200), []byte{0xcc, 200}},
		{RealType, 1.0, []byte{0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0}},
		{ListOf(RealType), []any{1.0}, []byte{0x91, 0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0}},
		{ListOf(RealType), []any{-2.0, 0.5}, []byte{0x92, 0xcb, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0xcb, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0}},
		{ListOf(RealType), []float64{-2.0, 0.5}, []byte{0x92, 0xcb, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0xcb, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0}},
		{ListOf(RealType), []float64{}, []byte{0x90}},
		{ListOf(IntType), []int64{1, 200}, []byte{0x92, 0x01, 0xcc, 200}},
		{ListOf(StrType), []string{"a"}, []byte{0x91, 0xa1, 'a'}},
		{ListOf(BoolType), []bool{true, false}, []byte{0x92, 0xc3, 0xc2}},
		{StrType, "a", []byte{0xa1, 'a'}},
		{BoolType, true, []byte{0xc3}},
		{UnitType, "ignored", []byte{0xc0}},
		{OptionalOf(IntType), nil, []byte{0xc0}},
		{TupleOf(IntType, BoolType), []any{int64(1), false}, []byte{0x92, 0x01, 0xc2}},
		{MapOf(IntType, BoolType), []Pair{{int64(1), true}}, []byte{0x81, 0x01, 0xc3}},
		{point, map[string]any{"y": int64(2), "x": int64(1)}, []byte{0x82, 0xa1, 'x', 0x01, 0xa1, 'y', 0x02}},
		{entry, map[string]any{"name": "n", "score": 0.0, "tags": []any{}},
			append(append([]byte{0x85, 0xa4, 'n', 'a', 'm', 'e', 0xa1, 'n', 0xa5, 's', 'c', 'o', 'r', 'e', 0xcb}, make([]byte, 8)...),
				0xa4, 't', 'a', 'g', 's', 0x90, 0xa4, 'n', 'o', 't', 'e', 0xc0, 0xa2, 'a', 't', 0xc0)},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		if err := EncodeMsgpack(msgpack.NewEncoder(&buf), c.typ, c.v); err != nil {
			t.Fatalf("EncodeMsgpack(%s, %#v): %v", c.typ, c.v, err)
		}
		if !bytes.Equal(buf.Bytes(), c.want) {
			t.Errorf("EncodeMsgpack(%s, %#v) = % x, want % x", c.typ, c.v, buf.Bytes(), c.want)
		}
		// Lists of reals are appended straight to a bytes.Buffer; any
		// other writer gets the same bytes through the encoder.
		var other bytes.Buffer
		if err := EncodeMsgpack(msgpack.NewEncoder(struct{ io.Writer }{&other}), c.typ, c.v); err != nil || !bytes.Equal(other.Bytes(), c.want) {
			t.Errorf("EncodeMsgpack(%s, %#v) to another writer = % x, %v; want % x", c.typ, c.v, other.Bytes(), err, c.want)
		}
	}
}

func TestEncodeMsgpackWrongShape(t *testing.T) {
	cases := []struct {
		typ  *Type
		v    any
		want string
	}{
		{IntType, 1, "value 1 is not of type Int"},
		{IntType, nil, "value <nil> is not of type Int"},
		{RealType, int64(1), "value 1 is not of type Real"},
		{StrType, []byte("x"), "value []byte{0x78} is not of type Str"},
		{BoolType, 0, "value 0 is not of type Bool"},
		{OptionalOf(BoolType), "yes", `value "yes" is not of type Bool`},
		{ListOf(IntType), []int{1}, "value []int{1} is not of type [Int]"},
		{ListOf(IntType), []float64{1}, "at [0]: value 1 is not of type Int"},
		{ListOf(IntType), []any{int64(1), 2.0}, "at [1]: value 2 is not of type Int"},
		{ListOf(RealType), []any{1.0, int64(1)}, "at [1]: value 1 is not of type Real"},
		{TupleOf(IntType, StrType), []any{int64(1), "a", "b"}, `value []interface {}{1, "a", "b"} is not of type (Int, Str)`},
		{TupleOf(IntType, StrType), []any{int64(1), 1}, "at [1]: value 1 is not of type Str"},
		{MapOf(StrType, IntType), map[string]any{}, "value map[string]interface {}{} is not of type Map Str Int"},
		{MapOf(StrType, IntType), []Pair{{1, int64(1)}}, "at [0][0]: value 1 is not of type Str"},
		{MapOf(StrType, IntType), []Pair{{"a", int64(1)}, {"b", "x"}}, `at [1][1]: value "x" is not of type Int`},
		{point, []any{}, "value []interface {}{} is not of type Point"},
		{point, map[string]any{"x": int64(1), "y": "2"}, `at .y: value "2" is not of type Int`},
		{entry, map[string]any{"name": "n", "score": 1.0, "tags": []any{}, "at": map[string]any{"x": int64(1)}},
			"at .at.y: value <nil> is not of type Int"},
		{&Type{Kind: "x"}, 1, "value 1 is not of type x"},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		err := EncodeMsgpack(msgpack.NewEncoder(&buf), c.typ, c.v)
		if err == nil || err.Error() != c.want {
			t.Errorf("EncodeMsgpack(%s, %#v) = %v, want %q", c.typ, c.v, err, c.want)
		}
	}
}

// Pools in other languages write what their msgpack library chooses: any
// integer width, float32, bin for strings, arrays for tuples and maps, and
// records with more attributes than declared.
func TestDecodeMsgpackForeign(t *testing.T) {
	cases := []struct {
		name  string
		typ   *Type
		write step
		code  byte // the first byte written, to prove the width tested
		want  any
	}{
		{"int positive fixnum", IntType, i64(5), 0x05, int64(5)},
		{"int negative fixnum", IntType, i64(-3), 0xfd, int64(-3)},
		{"int uint8", IntType, func(e *msgpack.Encoder) error { return e.EncodeUint8(200) }, msgpcode.Uint8, int64(200)},
		{"int uint16", IntType, func(e *msgpack.Encoder) error { return e.EncodeUint16(60000) }, msgpcode.Uint16, int64(60000)},
		{"int uint32", IntType, func(e *msgpack.Encoder) error { return e.EncodeUint32(4e9) }, msgpcode.Uint32, int64(4e9)},
		{"int small uint64", IntType, func(e *msgpack.Encoder) error { return e.EncodeUint64(7) }, msgpcode.Uint64, int64(7)},
		{"int max uint64 that fits", IntType, func(e *msgpack.Encoder) error { return e.EncodeUint64(math.MaxInt64) }, msgpcode.Uint64, int64(math.MaxInt64)},
		{"int int8", IntType, func(e *msgpack.Encoder) error { return e.EncodeInt8(-100) }, msgpcode.Int8, int64(-100)},
		{"int positive int8", IntType, func(e *msgpack.Encoder) error { return e.EncodeInt8(5) }, msgpcode.Int8, int64(5)},
		{"int int16", IntType, func(e *msgpack.Encoder) error { return e.EncodeInt16(-30000) }, msgpcode.Int16, int64(-30000)},
		{"int int32", IntType, func(e *msgpack.Encoder) error { return e.EncodeInt32(-2e9) }, msgpcode.Int32, int64(-2e9)},
		{"int int64 min", IntType, func(e *msgpack.Encoder) error { return e.EncodeInt64(math.MinInt64) }, msgpcode.Int64, int64(math.MinInt64)},
		{"int small int64", IntType, func(e *msgpack.Encoder) error { return e.EncodeInt64(9) }, msgpcode.Int64, int64(9)},
		{"int from integral double", IntType, func(e *msgpack.Encoder) error { return e.EncodeFloat64(3) }, msgpcode.Double, int64(3)},
		{"int from integral float32", IntType, func(e *msgpack.Encoder) error { return e.EncodeFloat32(-2) }, msgpcode.Float, int64(-2)},
		{"int from large integral double", IntType, func(e *msgpack.Encoder) error { return e.EncodeFloat64(1e18) }, msgpcode.Double, int64(1e18)},

		{"real double", RealType, func(e *msgpack.Encoder) error { return e.EncodeFloat64(1.5) }, msgpcode.Double, 1.5},
		{"real float32", RealType, func(e *msgpack.Encoder) error { return e.EncodeFloat32(0.25) }, msgpcode.Float, 0.25},
		{"real inexact float32", RealType, func(e *msgpack.Encoder) error { return e.EncodeFloat32(0.1) }, msgpcode.Float, float64(float32(0.1))},
		{"real from fixnum", RealType, i64(3), 0x03, 3.0},
		{"real from negative fixnum", RealType, i64(-1), 0xff, -1.0},
		{"real from int8", RealType, func(e *msgpack.Encoder) error { return e.EncodeInt8(-100) }, msgpcode.Int8, -100.0},
		{"real from uint16", RealType, func(e *msgpack.Encoder) error { return e.EncodeUint16(1000) }, msgpcode.Uint16, 1000.0},
		{"real from uint32", RealType, func(e *msgpack.Encoder) error { return e.EncodeUint32(4e9) }, msgpcode.Uint32, 4e9},
		{"real from int64 min", RealType, func(e *msgpack.Encoder) error { return e.EncodeInt64(math.MinInt64) }, msgpcode.Int64, -9223372036854775808.0},
		// Python's msgpack writes 2**63 and above as uint64.
		{"real from uint64 above int64", RealType, func(e *msgpack.Encoder) error { return e.EncodeUint64(1 << 63) }, msgpcode.Uint64, 9223372036854775808.0},
		{"real from max uint64", RealType, func(e *msgpack.Encoder) error { return e.EncodeUint64(math.MaxUint64) }, msgpcode.Uint64, 18446744073709551615.0},

		{"str fixstr", StrType, str("héllo"), 0xa6, "héllo"},
		{"str str8", StrType, str(strings.Repeat("s", 40)), msgpcode.Str8, strings.Repeat("s", 40)},
		{"str from bin", StrType, func(e *msgpack.Encoder) error { return e.EncodeBytes([]byte("bytes")) }, msgpcode.Bin8, "bytes"},
		{"str from empty bin", StrType, func(e *msgpack.Encoder) error { return e.EncodeBytes([]byte{}) }, msgpcode.Bin8, ""},
		{"str from bin16", StrType, func(e *msgpack.Encoder) error { return e.EncodeBytes(bytes.Repeat([]byte("b"), 300)) }, msgpcode.Bin16, strings.Repeat("b", 300)},

		{"bool true", BoolType, func(e *msgpack.Encoder) error { return e.EncodeBool(true) }, msgpcode.True, true},
		{"bool false", BoolType, func(e *msgpack.Encoder) error { return e.EncodeBool(false) }, msgpcode.False, false},

		{"unit nil", UnitType, nilv, msgpcode.Nil, nil},
		{"unit drops a value", UnitType, seq(arr(2), i64(1), str("x")), 0x92, nil},
		{"optional nil", OptionalOf(IntType), nilv, msgpcode.Nil, nil},
		{"optional uint8", OptionalOf(IntType), func(e *msgpack.Encoder) error { return e.EncodeUint8(9) }, msgpcode.Uint8, int64(9)},

		{"list empty", ListOf(IntType), arr(0), 0x90, []int64{}},
		{"list array16", ListOf(IntType), func(e *msgpack.Encoder) error {
			if err := e.EncodeArrayLen(20); err != nil {
				return err
			}
			for i := 0; i < 20; i++ {
				if err := e.EncodeInt(int64(i)); err != nil {
					return err
				}
			}
			return nil
		}, msgpcode.Array16, func() any {
			out := make([]int64, 20)
			for i := range out {
				out[i] = int64(i)
			}
			return out
		}()},
		{"list of reals from ints", ListOf(RealType), seq(arr(2), i64(1), func(e *msgpack.Encoder) error { return e.EncodeFloat32(2.5) }), 0x92, []float64{1.0, 2.5}},
		{"tuple from array", TupleOf(IntType, StrType), seq(arr(2), i64(1), str("a")), 0x92, []any{int64(1), "a"}},

		{"map keeps order", MapOf(StrType, IntType), seq(mapn(2), str("b"), i64(1), str("a"), i64(2)), 0x82,
			[]Pair{{"b", int64(1)}, {"a", int64(2)}}},
		{"map with int keys", MapOf(IntType, StrType), seq(mapn(1), func(e *msgpack.Encoder) error { return e.EncodeUint8(200) }, str("x")), 0x81,
			[]Pair{{int64(200), "x"}}},
		{"map from array of pairs", MapOf(IntType, StrType), seq(arr(2), arr(2), i64(1), str("one"), arr(2), i64(2), str("two")), 0x92,
			[]Pair{{int64(1), "one"}, {int64(2), "two"}}},
		{"map from empty array", MapOf(IntType, StrType), arr(0), 0x90, []Pair{}},
		{"map empty", MapOf(StrType, IntType), mapn(0), 0x80, []Pair{}},

		{"record in any order", point, seq(mapn(2), str("y"), i64(2), str("x"), i64(1)), 0x82,
			map[string]any{"x": int64(1), "y": int64(2)}},
		{"record with extra keys skipped", point, seq(mapn(4),
			str("extra"), seq(arr(2), mapn(1), str("k"), nilv, i64(3)),
			str("x"), i64(1),
			str("__dict__"), mapn(0),
			str("y"), i64(2)), 0x84,
			map[string]any{"x": int64(1), "y": int64(2)}},
		{"record with bin field names", point, seq(mapn(2),
			func(e *msgpack.Encoder) error { return e.EncodeBytes([]byte("x")) }, i64(1),
			func(e *msgpack.Encoder) error { return e.EncodeBytes([]byte("y")) }, i64(2)), 0x82,
			map[string]any{"x": int64(1), "y": int64(2)}},
		{"record missing optional fields", entry, seq(mapn(3), str("name"), str("n"), str("score"), i64(1), str("tags"), arr(0)), 0x83,
			map[string]any{"name": "n", "score": 1.0, "tags": []string{}, "note": nil, "at": nil}},
		{"record with nil optional", entry, seq(mapn(4), str("at"), nilv, str("name"), str("n"), str("score"), i64(1), str("tags"), arr(0)), 0x84,
			map[string]any{"name": "n", "score": 1.0, "tags": []string{}, "note": nil, "at": nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := foreign(t, c.write)
			if data[0] != c.code {
				t.Fatalf("test data starts with 0x%02x, want 0x%02x", data[0], c.code)
			}
			got, err := DecodeMsgpackBytes(c.typ, data)
			if err != nil {
				t.Fatalf("DecodeMsgpackBytes(%s, % x): %v", c.typ, data, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("DecodeMsgpackBytes(%s, % x) = %#v, want %#v", c.typ, data, got, c.want)
			}
		})
	}
}

func TestDecodeMsgpackErrors(t *testing.T) {
	cases := []struct {
		name  string
		typ   *Type
		write step
		want  string // the whole message
	}{
		{"int from uint64 above int64", IntType, func(e *msgpack.Encoder) error { return e.EncodeUint64(1 << 63) },
			"integer 9223372036854775808 does not fit in 64 bits"},
		{"int from max uint64", IntType, func(e *msgpack.Encoder) error { return e.EncodeUint64(math.MaxUint64) },
			"integer 18446744073709551615 does not fit in 64 bits"},
		{"int from fractional double", IntType, func(e *msgpack.Encoder) error { return e.EncodeFloat64(2.5) },
			"expected Int, got the number 2.5"},
		{"int from fractional float32", IntType, func(e *msgpack.Encoder) error { return e.EncodeFloat32(0.5) },
			"expected Int, got the number 0.5"},
		{"int from huge double", IntType, func(e *msgpack.Encoder) error { return e.EncodeFloat64(1e19) },
			"expected Int, got the number 1e+19"},
		{"int from NaN", IntType, func(e *msgpack.Encoder) error { return e.EncodeFloat64(math.NaN()) },
			"expected Int, got the number NaN"},
		{"int from infinity", IntType, func(e *msgpack.Encoder) error { return e.EncodeFloat64(math.Inf(1)) },
			"expected Int, got the number +Inf"},
		{"int from string", IntType, str("1"), "expected Int, got msgpack type 0xa1"},
		{"int from bool", IntType, func(e *msgpack.Encoder) error { return e.EncodeBool(true) }, "expected Int, got msgpack type 0xc3"},
		{"int from nil", IntType, nilv, "expected Int, got nil"},
		{"real from string", RealType, str("1.5"), "expected Real, got msgpack type 0xa3"},
		{"real from nil", RealType, nilv, "expected Real, got nil"},
		{"str from int", StrType, i64(5), "expected Str, got msgpack type 0x05"},
		{"str from nil", StrType, nilv, "expected Str, got nil"},
		{"str from array", StrType, arr(0), "expected Str, got msgpack type 0x90"},
		{"bool from int", BoolType, i64(1), "expected Bool, got msgpack type 0x01"},
		{"bool from nil", BoolType, nilv, "expected Bool, got nil"},
		{"optional with wrong value", OptionalOf(IntType), str("x"), "expected Int, got msgpack type 0xa1"},
		{"list from map", ListOf(IntType), mapn(0), "expected [Int], got msgpack type 0x80"},
		{"list from nil", ListOf(IntType), nilv, "expected [Int], got nil"},
		{"list bad element", ListOf(IntType), seq(arr(2), i64(1), str("x")), "at [1]: expected Int, got msgpack type 0xa1"},
		{"list nested bad element", ListOf(ListOf(IntType)), seq(arr(1), arr(2), i64(1), nilv), "at [0][1]: expected Int, got nil"},
		{"tuple too long", TupleOf(IntType, StrType), seq(arr(3), i64(1), str("a"), i64(2)), "expected (Int, Str), got a list of 3 items"},
		{"tuple too short", TupleOf(IntType, StrType), seq(arr(1), i64(1)), "expected (Int, Str), got a list of 1 items"},
		{"tuple bad item", TupleOf(IntType, StrType), seq(arr(2), i64(1), i64(2)), "at [1]: expected Str, got msgpack type 0x02"},
		{"tuple from map", TupleOf(IntType, StrType), mapn(0), "expected (Int, Str), got msgpack type 0x80"},
		{"map from string", MapOf(StrType, IntType), str("m"), "expected Map Str Int, got msgpack type 0xa1"},
		{"map bad key", MapOf(StrType, IntType), seq(mapn(1), i64(1), i64(1)), "at [0][0]: expected Str, got msgpack type 0x01"},
		{"map bad value", MapOf(StrType, IntType), seq(mapn(2), str("a"), i64(1), str("b"), nilv), "at [1][1]: expected Int, got nil"},
		{"map pair too long", MapOf(StrType, IntType), seq(arr(1), arr(3), str("a"), i64(1), i64(2)), "at [0]: expected (Str, Int), got a list of 3 items"},
		{"map pair not an array", MapOf(StrType, IntType), seq(arr(1), str("a")), "at [0]: expected (Str, Int), got msgpack type 0xa1"},
		{"map pair bad value", MapOf(IntType, StrType), seq(arr(1), arr(2), i64(1), i64(2)), "at [0][1]: expected Str, got msgpack type 0x02"},
		{"record from array", point, seq(arr(2), i64(1), i64(2)), "expected Point, got msgpack type 0x92"},
		{"record from nil", point, nilv, "expected Point, got nil"},
		{"record missing required field", point, seq(mapn(1), str("x"), i64(1)), `record Point is missing field "y"`},
		{"record missing required field with extras", entry, seq(mapn(1), str("score"), i64(1)), `record Entry is missing field "name"`},
		{"record field name not a string", point, seq(mapn(1), i64(1), i64(1)), "record Point: field name is not a string"},
		{"record bad field", point, seq(mapn(2), str("x"), func(e *msgpack.Encoder) error { return e.EncodeBool(true) }, str("y"), i64(1)),
			"at .x: expected Int, got msgpack type 0xc3"},
		{"record required field nil", point, seq(mapn(2), str("x"), nilv, str("y"), i64(1)), "at .x: expected Int, got nil"},
		{"record path", ListOf(entry), seq(arr(1), mapn(2), str("name"), str("n"), str("tags"), seq(arr(2), str("a"), i64(1))),
			"at [0].tags[1]: expected Str, got msgpack type 0x01"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := foreign(t, c.write)
			got, err := DecodeMsgpackBytes(c.typ, data)
			if err == nil {
				t.Fatalf("DecodeMsgpackBytes(%s, % x) = %#v, want error %q", c.typ, data, got, c.want)
			}
			if err.Error() != c.want {
				t.Errorf("DecodeMsgpackBytes(%s, % x) error:\n got %q\nwant %q", c.typ, data, err, c.want)
			}
		})
	}
}

// Broken input from a pool must give an error: not a panic, and not a
// huge allocation because a header claims billions of items.
func TestDecodeMsgpackTruncated(t *testing.T) {
	cases := []struct {
		name string
		typ  *Type
		data []byte
	}{
		{"empty", IntType, nil},
		{"empty for unit", UnitType, nil},
		{"truncated uint32", IntType, []byte{msgpcode.Uint32, 1, 2}},
		{"truncated double", RealType, []byte{msgpcode.Double, 1, 2, 3}},
		{"truncated string", StrType, []byte{0xa5, 'a', 'b'}},
		{"truncated bin", StrType, []byte{msgpcode.Bin8, 10, 'a'}},
		{"array shorter than its header", ListOf(IntType), []byte{0x93, 0x01}},
		{"huge array", ListOf(IntType), []byte{msgpcode.Array32, 0xff, 0xff, 0xff, 0xff}},
		{"huge array of pairs", MapOf(IntType, IntType), []byte{msgpcode.Array32, 0xff, 0xff, 0xff, 0xff}},
		{"huge map", MapOf(StrType, IntType), []byte{msgpcode.Map32, 0xff, 0xff, 0xff, 0xff}},
		{"huge record", point, []byte{msgpcode.Map32, 0xff, 0xff, 0xff, 0xff}},
		{"map missing value", MapOf(StrType, IntType), []byte{0x81, 0xa1, 'a'}},
		{"record missing value", point, []byte{0x81, 0xa1, 'x'}},
		{"record extra key without value", point, []byte{0x81, 0xa1, 'z'}},
		{"unit with truncated value", UnitType, []byte{0x92, 0x01}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			got, err := DecodeMsgpackBytes(c.typ, c.data)
			if err == nil {
				t.Errorf("DecodeMsgpackBytes(%s, % x) = %#v, want an error", c.typ, c.data, got)
			}
			// A reader of unknown length takes the other allocation path.
			got, err = DecodeMsgpack(msgpack.NewDecoder(io.MultiReader(bytes.NewReader(c.data))), c.typ)
			if err == nil {
				t.Errorf("DecodeMsgpack(%s, % x) from a stream = %#v, want an error", c.typ, c.data, got)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("decoding %s from % x took %v", c.typ, c.data, d)
			}
		})
	}
}

// Lists and maps longer than the up-front allocation limit decode in full,
// from memory and from a stream.
func TestDecodeMsgpackLong(t *testing.T) {
	const n = 3*maxPrealloc + 7
	list := make([]int64, n)
	pairs := make([]Pair, n)
	for i := range list {
		list[i] = int64(i)
		pairs[i] = Pair{int64(i), float64(i) / 2}
	}
	cases := []struct {
		typ *Type
		v   any
	}{
		{ListOf(IntType), list},
		{MapOf(IntType, RealType), pairs},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		if err := EncodeMsgpack(msgpack.NewEncoder(&buf), c.typ, c.v); err != nil {
			t.Fatal(err)
		}
		got, err := DecodeMsgpackBytes(c.typ, buf.Bytes())
		if err != nil || !reflect.DeepEqual(got, c.v) {
			t.Errorf("DecodeMsgpackBytes(%s) of %d items: %v", c.typ, n, err)
		}
		got, err = DecodeMsgpack(msgpack.NewDecoder(io.MultiReader(&buf)), c.typ)
		if err != nil || !reflect.DeepEqual(got, c.v) {
			t.Errorf("DecodeMsgpack(%s) of %d items from a stream: %v", c.typ, n, err)
		}
	}
	// The same as an array of pairs.
	data := foreign(t, func(e *msgpack.Encoder) error {
		if err := e.EncodeArrayLen(n); err != nil {
			return err
		}
		for _, p := range pairs {
			if err := seq(arr(2), i64(p.Key.(int64)), func(e *msgpack.Encoder) error { return e.EncodeFloat64(p.Value.(float64)) })(e); err != nil {
				return err
			}
		}
		return nil
	})
	got, err := DecodeMsgpack(msgpack.NewDecoder(io.MultiReader(bytes.NewReader(data))), MapOf(IntType, RealType))
	if err != nil || !reflect.DeepEqual(got, pairs) {
		t.Errorf("array of %d pairs from a stream: %v", n, err)
	}
}

// TestDecodeReals: a list of reals read from memory takes its float 64s
// a block at a time; an item of another form, anywhere (inside a block or
// at its edge, after the first block), is read as decodeReal reads it, and
// a bad or missing one fails with its index, as through the decoder.
func TestDecodeReals(t *testing.T) {
	const n = 1300 // more than two blocks
	want := make([]float64, n)
	for i := range want {
		want[i] = float64(i) / 3
	}
	want[0] = math.Copysign(0, -1)
	encode := func(odd map[int]func(*msgpack.Encoder) error, items int) []byte {
		return foreign(t, func(e *msgpack.Encoder) error {
			if err := e.EncodeArrayLen(n); err != nil {
				return err
			}
			for i := range items {
				var err error
				if f, ok := odd[i]; ok {
					err = f(e)
				} else {
					err = e.EncodeFloat64(want[i])
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
	}
	asInt := func(i int) func(*msgpack.Encoder) error {
		return func(e *msgpack.Encoder) error { return e.EncodeInt(int64(want[i])) }
	}
	for _, i := range []int{3, 511, 512, 1024, 1299} {
		want[i] = float64(int64(want[i])) // integral, so it can be sent as an integer
	}
	mixed := encode(map[int]func(*msgpack.Encoder) error{
		3: asInt(3), 511: asInt(511), 512: asInt(512), 1024: asInt(1024), 1299: asInt(1299),
		600: func(e *msgpack.Encoder) error { return e.EncodeFloat32(float32(want[600])) },
	}, n)
	want[600] = float64(float32(want[600]))
	for _, c := range []struct {
		name string
		data []byte
		err  string
	}{
		{"float 64s", encode(nil, n), ""},
		{"mixed forms", mixed, ""},
		{"a string", encode(map[int]func(*msgpack.Encoder) error{700: func(e *msgpack.Encoder) error { return e.EncodeString("x") }}, n), "at [700]: "},
		{"truncated", encode(nil, 900), "at [900]: "},
		{"truncated item", encode(nil, n)[:1+3+9*1000+4], "at [1000]: "},
	} {
		got, err := DecodeMsgpackBytes(ListOf(RealType), c.data)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err == "" && !reflect.DeepEqual(got, want):
			t.Errorf("%s: the reals came back changed", c.name)
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one starting %q", c.name, err, c.err)
		}
		if c.err == "" && err == nil && !math.Signbit(got.([]float64)[0]) {
			t.Errorf("%s: -0.0 lost its sign", c.name)
		}
	}
}
