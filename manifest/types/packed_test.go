package types

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// le is the little-endian bytes of xs, 8 each: the data of a packed list.
func le[T float64 | int64](xs ...T) []byte {
	var b []byte
	for _, x := range xs {
		switch v := any(x).(type) {
		case float64:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		case int64:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestEncodePackedArgs(t *testing.T) {
	negZero := math.Copysign(0, -1)
	reals40 := make([]float64, 40) // 320 bytes: ext 16
	for i := range reals40 {
		reals40[i] = float64(i) / 3
	}
	point := &Type{Kind: Record, Name: "P", Fields: []Field{{Name: "xs", Type: ListOf(RealType)}, {Name: "n", Type: IntType}}}
	tests := []struct {
		name string
		t    *Type
		v    any
		want []byte
	}{
		{"empty reals", ListOf(RealType), []float64{}, []byte{0xc7, 0, 1}},
		{"empty ints", ListOf(IntType), []int64{}, []byte{0xc7, 0, 2}},
		{"one real", ListOf(RealType), []float64{negZero}, cat([]byte{0xd7, 1}, le(negZero))},
		{"two reals", ListOf(RealType), []float64{1e308, -1e308}, cat([]byte{0xc7, 16, 1}, le(1e308, -1e308))},
		{"int bounds", ListOf(IntType), []int64{math.MinInt64, math.MaxInt64, 0, -1}, cat([]byte{0xc7, 32, 2}, le[int64](math.MinInt64, math.MaxInt64, 0, -1))},
		{"ext 16", ListOf(RealType), reals40, cat([]byte{0xc8, 1, 64, 1}, le(reals40...))},
		{"optional", &Type{Kind: Optional, Elem: ListOf(IntType)}, []int64{7}, cat([]byte{0xd7, 2}, le[int64](7))},
		{"record field", point, map[string]any{"xs": []float64{0.5}, "n": int64(3)},
			cat([]byte{0x82, 0xa2, 'x', 's', 0xd7, 1}, le(0.5), []byte{0xa1, 'n', 3})},
		{"tuple item", TupleOf(StrType, ListOf(IntType)), []any{"a", []int64{1}},
			cat([]byte{0x92, 0xa1, 'a', 0xd7, 2}, le[int64](1))},
		{"list of lists", ListOf(ListOf(RealType)), []any{[]float64{2}, []float64{}},
			cat([]byte{0x92, 0xd7, 1}, le(2.0), []byte{0xc7, 0, 1})},
		// Lists built item by item (a body's literal) and lists of other
		// types stay arrays; the runtime reads both forms.
		{"reals as []any", ListOf(RealType), []any{1.5}, []byte{0x91, 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0}},
		{"strings", ListOf(StrType), []string{"a"}, []byte{0x91, 0xa1, 'a'}},
		{"bools", ListOf(BoolType), []bool{true}, []byte{0x91, 0xc3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodePackedArgs([]*Type{tt.t}, []any{tt.v})
			if err != nil {
				t.Fatal(err)
			}
			want := append([]byte{0x91}, tt.want...)
			if !bytes.Equal(got, want) {
				t.Errorf("got  % x\nwant % x", got, want)
			}
			plain, err := EncodeArgs([]*Type{tt.t}, []any{tt.v})
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(plain, []byte{0xd7}) || bytes.Contains(plain, []byte{0xc7}) {
				t.Errorf("EncodeArgs wrote an extension: % x", plain)
			}
		})
	}
}

// TestEncodePackedArgsWriter checks the extension written through an
// encoder that does not write to a bytes.Buffer.
func TestEncodePackedArgsWriter(t *testing.T) {
	var out bytes.Buffer
	w := struct{ *bytes.Buffer }{&out} // hides the Buffer type
	if err := encodeValue(msgpack.NewEncoder(w), ListOf(IntType), []int64{-2}, true); err != nil {
		t.Fatal(err)
	}
	if want := cat([]byte{0xd7, 2}, le[int64](-2)); !bytes.Equal(out.Bytes(), want) {
		t.Errorf("got % x, want % x", out.Bytes(), want)
	}
}
