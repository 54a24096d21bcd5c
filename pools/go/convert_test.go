package gopool

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

func decoder(t *testing.T, v any) *msgpack.Decoder {
	t.Helper()
	data, err := msgpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return msgpack.NewDecoder(bytes.NewReader(data))
}

func TestDecodeInt(t *testing.T) {
	type small int8
	if v, err := DecodeInt[small](decoder(t, -128)); err != nil || v != -128 {
		t.Errorf("-128 into int8: %v, %v", v, err)
	}
	for _, c := range []struct {
		v    int64
		want string
	}{
		{300, "300 does not fit in gopool.small"},
		{-129, "-129 does not fit in gopool.small"},
	} {
		if _, err := DecodeInt[small](decoder(t, c.v)); err == nil || err.Error() != c.want {
			t.Errorf("%d into int8: %v, want %q", c.v, err, c.want)
		}
	}
	if _, err := DecodeInt[uint](decoder(t, -1)); err == nil {
		t.Error("-1 into uint: no error")
	}
	if v, err := DecodeInt[int64](decoder(t, int64(math.MinInt64))); err != nil || v != math.MinInt64 {
		t.Errorf("MinInt64: %v, %v", v, err)
	}
	if v, err := DecodeInt[uint64](decoder(t, int64(math.MaxInt64))); err != nil || v != math.MaxInt64 {
		t.Errorf("MaxInt64 into uint64: %v, %v", v, err)
	}
}

func TestEncodeInt(t *testing.T) {
	var buf bytes.Buffer
	e := msgpack.NewEncoder(&buf)
	if err := EncodeInt(e, uint64(math.MaxUint64)); err == nil {
		t.Error("MaxUint64 encoded")
	}
	if err := EncodeInt(e, uint64(7)); err != nil {
		t.Error(err)
	}
	var got int64
	if err := msgpack.Unmarshal(buf.Bytes(), &got); err != nil || got != 7 {
		t.Errorf("got %v, %v", got, err)
	}
}

func TestDecodeRealAcceptsIntegers(t *testing.T) {
	if v, err := DecodeReal[float32](decoder(t, 3)); err != nil || v != 3 {
		t.Errorf("3 as float32: %v, %v", v, err)
	}
}

func TestDecodeNone(t *testing.T) {
	d := decoder(t, []any{nil, 1})
	if _, err := d.DecodeArrayLen(); err != nil {
		t.Fatal(err)
	}
	if none, err := DecodeNone(d); !none || err != nil {
		t.Errorf("nil: %v, %v", none, err)
	}
	if none, err := DecodeNone(d); none || err != nil {
		t.Errorf("1: %v, %v", none, err)
	}
	if v, err := DecodeInt[int](d); v != 1 || err != nil {
		t.Errorf("the 1 after: %v, %v", v, err)
	}
}

func TestDecodeLen(t *testing.T) {
	if _, err := DecodeLen(decoder(t, []int{1, 2}), false, 3); err == nil || err.Error() != "expected 3 items, got 2" {
		t.Errorf("tuple length: %v", err)
	}
	if n, err := DecodeLen(decoder(t, map[string]int{"a": 1}), true, -1); n != 1 || err != nil {
		t.Errorf("map: %v, %v", n, err)
	}
	if _, err := DecodeLen(decoder(t, nil), false, -1); err == nil {
		t.Error("nil list accepted")
	}
}

func TestSortedKeys(t *testing.T) {
	if got := SortedKeys(map[string]int{"b": 1, "a": 2, "c": 3}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("got %v", got)
	}
	type pair struct {
		A int
		B string
	}
	enc := func(e *msgpack.Encoder, p pair) error {
		if err := e.EncodeInt(int64(p.A)); err != nil {
			return err
		}
		return e.EncodeString(p.B)
	}
	got, err := SortedKeysFunc(map[pair]bool{{2, "x"}: true, {1, "y"}: true, {1, "x"}: false}, enc)
	if err != nil || !slices.Equal(got, []pair{{1, "x"}, {1, "y"}, {2, "x"}}) {
		t.Errorf("got %v, %v", got, err)
	}
}

func TestPathError(t *testing.T) {
	err := ArgError(1, Index(At(errors.New("300 does not fit in int8"), ".count"), 2))
	if got, want := err.Error(), "argument 2: at [2].count: 300 does not fit in int8"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestJSON(t *testing.T) {
	v, err := DecodeJSON(decoder(t, `{"b":[1,2.5,"é"],"a":null,"n":9007199254740992}`))
	want := map[string]any{"b": []any{1.0, 2.5, "é"}, "a": nil, "n": 9007199254740992.0}
	if err != nil || !reflect.DeepEqual(v, want) {
		t.Errorf("DecodeJSON: %#v, %v", v, err)
	}
	if _, err := DecodeJSON(decoder(t, `{"a":`)); err == nil || !strings.HasPrefix(err.Error(), "Json text: ") {
		t.Errorf("DecodeJSON of broken text: %v", err)
	}

	var buf bytes.Buffer
	if err := EncodeJSON(msgpack.NewEncoder(&buf), map[string]any{"z": []any{"<&>", 1.5}, "a": true}); err != nil {
		t.Fatal(err)
	}
	var text string
	if err := msgpack.Unmarshal(buf.Bytes(), &text); err != nil || text != `{"a":true,"z":["<&>",1.5]}` {
		t.Errorf("EncodeJSON wrote %q, %v", text, err)
	}
	err = EncodeJSON(msgpack.NewEncoder(&buf), []any{math.NaN()})
	if err == nil || !strings.Contains(err.Error(), "the Json result cannot be written as JSON: json: unsupported value: NaN") {
		t.Errorf("EncodeJSON of a NaN: %v", err)
	}
}
