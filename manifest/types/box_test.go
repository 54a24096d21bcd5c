package types

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
)

// TestBoxedReals: a list of reals read from JSON holds values that behave
// as any(x) would in every way the nexus uses them, and that outlive
// collections with nothing else pointing at their array.
func TestBoxedReals(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	want := make([]any, 20_000)
	floats := make([]float64, len(want))
	for i := range want {
		floats[i] = r.NormFloat64() * 1e6
		want[i] = floats[i]
	}
	floats[7], want[7] = math.Copysign(0, -1), math.Copysign(0, -1)
	data, _ := json.Marshal(floats)
	v, err := FromJSON(ListOf(RealType), data)
	if err != nil {
		t.Fatal(err)
	}
	floats, data = nil, nil
	for range 3 {
		runtime.GC()
		garbage := make([]float64, 1<<20) // reuses what was freed, if anything was
		for i := range garbage {
			garbage[i] = -1
		}
	}
	got := v.([]any)
	if !reflect.DeepEqual(got, want) {
		t.Fatal("the reals read differ from any(x)")
	}
	for i, x := range got {
		f, ok := x.(float64)
		if !ok || math.Float64bits(f) != math.Float64bits(want[i].(float64)) || x != want[i] {
			t.Fatalf("[%d] = %#v, want %#v", i, x, want[i])
		}
		if s, w := fmt.Sprint(x), fmt.Sprint(want[i]); s != w {
			t.Fatalf("[%d] prints as %s, want %s", i, s, w)
		}
	}
	// Values copied out are independent of the list, as with any(x).
	first := got[0]
	got[0] = 1.5
	if first != want[0] || got[1] != want[1] {
		t.Fatalf("copy %v and [1] %v after replacing [0]", first, got[1])
	}
	got[0] = first
	// Encoded as the general reader's values are.
	list := []*Type{ListOf(RealType)}
	a, err1 := EncodeArgs(list, []any{got})
	b, err2 := EncodeArgs(list, []any{want})
	if err1 != nil || err2 != nil || string(a) != string(b) {
		t.Fatalf("msgpack differs (%v, %v)", err1, err2)
	}
	a, err1 = ToJSON(ListOf(RealType), got)
	b, err2 = ToJSON(ListOf(RealType), want)
	if err1 != nil || err2 != nil || string(a) != string(b) {
		t.Fatalf("JSON differs (%v, %v)", err1, err2)
	}
	// And inside a tuple, an optional and a list of lists.
	for _, tc := range []struct {
		typ  *Type
		json string
		want any
	}{
		{TupleOf(ListOf(RealType), IntType), `[[1.5, -2], 3]`, []any{[]any{1.5, -2.0}, int64(3)}},
		{OptionalOf(ListOf(RealType)), `[0.25]`, []any{0.25}},
		{ListOf(ListOf(RealType)), `[[], [1e3], [2, 3.5]]`, []any{[]any{}, []any{1000.0}, []any{2.0, 3.5}}},
	} {
		v, err := FromJSON(tc.typ, []byte(tc.json))
		if err != nil || !reflect.DeepEqual(v, tc.want) {
			t.Errorf("FromJSON(%s, %s) = %#v, %v; want %#v", tc.typ, tc.json, v, err, tc.want)
		}
	}
}
