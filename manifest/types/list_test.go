package types

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// TestListValues: Len, Index and Items agree on every list representation
// and refuse what is not a list.
func TestListValues(t *testing.T) {
	for _, v := range []any{
		[]any{int64(1), "a", nil},
		[]float64{1.5, math.Copysign(0, -1), math.Inf(1)},
		[]int64{-1, 0, math.MaxInt64},
		[]string{"a", "", "é"},
		[]bool{true, false},
		[]float64{},
	} {
		n, ok := Len(v)
		rv := reflect.ValueOf(v)
		if !ok || n != rv.Len() {
			t.Fatalf("Len(%#v) = %d, %v", v, n, ok)
		}
		items, ok := Items(v)
		if !ok || len(items) != n {
			t.Fatalf("Items(%#v) = %#v, %v", v, items, ok)
		}
		for i := range n {
			want := rv.Index(i).Interface()
			if got := Index(v, i); got != want {
				t.Errorf("Index(%#v, %d) = %#v, want %#v", v, i, got, want)
			}
			if items[i] != want {
				t.Errorf("Items(%#v)[%d] = %#v, want %#v", v, i, items[i], want)
			}
		}
	}
	for _, v := range []any{nil, "abc", int64(3), []Pair{}, map[string]any{}, []int{1}, []float32{1}} {
		if n, ok := Len(v); ok {
			t.Errorf("Len(%#v) = %d, true; want not a list", v, n)
		}
		if _, ok := Items(v); ok {
			t.Errorf("Items(%#v) is a list", v)
		}
	}
	xs := []any{1.0}
	if items, _ := Items(xs); &items[0] != &xs[0] {
		t.Error("Items copies a []any")
	}
}

// TestTypedLists: every reader gives a list of Int, Real, Str or Bool as
// its typed slice (other lists, and tuples, as []any), and every writer
// writes a typed slice exactly as the []any of the same items.
func TestTypedLists(t *testing.T) {
	for _, tc := range []struct {
		typ   *Type
		json  string
		want  any
		boxed any // the same value as []any
	}{
		{ListOf(RealType), `[1.5, -2, 1e3]`, []float64{1.5, -2, 1000}, []any{1.5, -2.0, 1000.0}},
		{ListOf(IntType), `[1, -2, 9223372036854775807]`, []int64{1, -2, math.MaxInt64}, []any{int64(1), int64(-2), int64(math.MaxInt64)}},
		{ListOf(IntType), `[3.0, 2e2]`, []int64{3, 200}, []any{int64(3), int64(200)}}, // not the fast reader
		{ListOf(StrType), `["a", "", "\u00e9\n"]`, []string{"a", "", "é\n"}, []any{"a", "", "é\n"}},
		{ListOf(BoolType), `[true, false]`, []bool{true, false}, []any{true, false}},
		{ListOf(RealType), `[]`, []float64{}, []any{}},
		{ListOf(StrType), `[]`, []string{}, []any{}},
		{ListOf(OptionalOf(IntType)), `[1, null]`, []any{int64(1), nil}, []any{int64(1), nil}},
		{ListOf(ListOf(RealType)), `[[], [1e3], [2, 3.5]]`, []any{[]float64{}, []float64{1000}, []float64{2, 3.5}},
			[]any{[]any{}, []any{1000.0}, []any{2.0, 3.5}}},
		{TupleOf(ListOf(RealType), IntType), `[[1.5, -2], 3]`, []any{[]float64{1.5, -2}, int64(3)}, []any{[]any{1.5, -2.0}, int64(3)}},
		{OptionalOf(ListOf(IntType)), `[7]`, []int64{7}, []any{int64(7)}},
		{MapOf(StrType, ListOf(StrType)), `{"k": ["v"]}`, []Pair{{"k", []string{"v"}}}, []Pair{{"k", []any{"v"}}}},
	} {
		v, err := FromJSON(tc.typ, []byte(tc.json))
		if err != nil || !reflect.DeepEqual(v, tc.want) {
			t.Errorf("FromJSON(%s, %s) = %#v, %v; want %#v", tc.typ, tc.json, v, err, tc.want)
			continue
		}
		raw, _ := DecodeJSON([]byte(tc.json))
		if v, err := FromJSONValue(tc.typ, raw); err != nil || !reflect.DeepEqual(v, tc.want) {
			t.Errorf("FromJSONValue(%s, %s) = %#v, %v; want %#v", tc.typ, tc.json, v, err, tc.want)
		}
		js, err1 := ToJSON(tc.typ, v)
		jsBoxed, err2 := ToJSON(tc.typ, tc.boxed)
		if err1 != nil || err2 != nil || string(js) != string(jsBoxed) {
			t.Errorf("%s: ToJSON = %s, %v; of []any %s, %v", tc.typ, js, err1, jsBoxed, err2)
		}
		mp, err1 := EncodeArgs([]*Type{tc.typ}, []any{v})
		mpBoxed, err2 := EncodeArgs([]*Type{tc.typ}, []any{tc.boxed})
		if err1 != nil || err2 != nil || !bytes.Equal(mp, mpBoxed) {
			t.Errorf("%s: msgpack %x, %v; of []any %x, %v", tc.typ, mp, err1, mpBoxed, err2)
		}
		// Through an encoder that does not write to a bytes.Buffer.
		var w strings.Builder
		if err := EncodeMsgpack(msgpack.NewEncoder(&w), tc.typ, v); err != nil || w.String() != string(mpBoxed[1:]) {
			t.Errorf("%s: msgpack through a writer %x, %v; want %x", tc.typ, w.String(), err, mpBoxed[1:])
		}
		back, err := DecodeArgs([]*Type{tc.typ}, mp)
		if err != nil || !reflect.DeepEqual(back[0], tc.want) {
			t.Errorf("%s: msgpack back %#v, %v; want %#v", tc.typ, back, err, tc.want)
		}
	}
}

// TestTypedListMismatch: a typed slice that is not of its list's element
// type is refused by both writers (msgpack's packed or not), at the first item, as a []any of the
// same items is.
func TestTypedListMismatch(t *testing.T) {
	for _, tc := range []struct {
		typ *Type
		v   any
	}{
		{ListOf(IntType), []float64{1.5}},
		{ListOf(RealType), []int64{1}},
		{ListOf(StrType), []bool{true}},
		{ListOf(BoolType), []string{"true"}},
		{ListOf(OptionalOf(RealType)), []string{"x"}},
		{TupleOf(IntType, IntType), []int64{1, 2, 3}},
	} {
		if out, err := ToJSON(tc.typ, tc.v); err == nil {
			t.Errorf("ToJSON(%s, %#v) = %s, want an error", tc.typ, tc.v, out)
		}
		// Packed, a [Real] or [Int] must not go as the other list.
		for _, packed := range []bool{false, true} {
			out, err := encodeArgs([]*Type{tc.typ}, []any{tc.v}, packed)
			if err == nil {
				t.Errorf("encodeArgs(%s, %#v, packed %v) = %x, want an error", tc.typ, tc.v, packed, out)
			} else if tc.typ.Kind == List && !strings.Contains(err.Error(), "at [0]") {
				t.Errorf("encodeArgs(%s, %#v, packed %v): %v, want the error at [0]", tc.typ, tc.v, packed, err)
			}
		}
	}
}

// TestTypedListErrors: a list read into a typed slice names the item that
// is wrong, as the []any readers do.
func TestTypedListErrors(t *testing.T) {
	for _, tc := range []struct {
		typ  *Type
		json string
		want string
	}{
		{ListOf(RealType), `[1, "x"]`, `at [1]: expected a number, got the string "x"`},
		{ListOf(IntType), `[1, 2, 2.5]`, `at [2]: expected an integer, got the number 2.5`},
		{ListOf(IntType), `[1, 9223372036854775808]`, `at [1]: integer 9223372036854775808 does not fit in 64 bits`},
		{ListOf(StrType), `["a", null]`, `at [1]: expected a string, got null`},
		{ListOf(BoolType), `[true, 1]`, `at [1]: expected true or false, got the number 1`},
	} {
		if v, err := FromJSON(tc.typ, []byte(tc.json)); err == nil || err.Error() != tc.want {
			t.Errorf("FromJSON(%s, %s) = %#v, %v; want %s", tc.typ, tc.json, v, err, tc.want)
		}
	}
	// msgpack: [1.5, nil] as [Real], and [1.5] as [Int].
	data := []byte{0x92, 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xc0}
	if v, err := DecodeMsgpackBytes(ListOf(RealType), data); err == nil || err.Error() != "at [1]: expected Real, got nil" {
		t.Errorf("decode [1.5, nil] as [Real] = %#v, %v", v, err)
	}
	if v, err := DecodeMsgpackBytes(ListOf(IntType), data[:10]); err == nil || err.Error() != "at [0]: expected Int, got the number 1.5" {
		t.Errorf("decode [1.5] as [Int] = %#v, %v", v, err)
	}
}

// TestLargeReals: a hundred thousand reals read from JSON are the floats
// written, bit for bit, and go to msgpack as the library writes a
// []float64.
func TestLargeReals(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	floats := make([]float64, 100_000)
	for i := range floats {
		floats[i] = r.NormFloat64() * 1e6
	}
	floats[7] = math.Copysign(0, -1)
	data, _ := json.Marshal(floats)
	v, err := FromJSON(ListOf(RealType), data)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := v.([]float64)
	if !ok || len(got) != len(floats) {
		t.Fatalf("read %T of %d items", v, len(got))
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(floats[i]) {
			t.Fatalf("[%d] = %v, want %v", i, got[i], floats[i])
		}
	}
	mine, err := EncodeArgs([]*Type{ListOf(RealType)}, []any{v})
	if err != nil {
		t.Fatal(err)
	}
	var lib bytes.Buffer
	enc := msgpack.NewEncoder(&lib)
	enc.UseCompactFloats(false)
	if err := enc.Encode([]any{floats}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mine, lib.Bytes()) {
		t.Fatal("the msgpack of the reals differs from the library's")
	}
}

func TestConcat(t *testing.T) {
	for _, c := range []struct {
		list, more, want any
	}{
		{nil, []float64{1, 2}, []float64{1, 2}},
		{[]any{}, []int64{1}, []int64{1}},
		{[]float64{}, []any{1.0}, []any{1.0}},
		{[]float64{1}, []float64{2, 3}, []float64{1, 2, 3}},
		{[]int64{1}, []int64{2}, []int64{1, 2}},
		{[]string{"a"}, []string{"b"}, []string{"a", "b"}},
		{[]bool{true}, []bool{false}, []bool{true, false}},
		{[]float64{1}, []any{2.0}, []any{1.0, 2.0}},
		{[]any{1.0}, []float64{2}, []any{1.0, 2.0}},
		{[]any{"a"}, []any{"b"}, []any{"a", "b"}},
	} {
		if got := Concat(c.list, c.more); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Concat(%#v, %#v) = %#v, want %#v", c.list, c.more, got, c.want)
		}
	}
}
