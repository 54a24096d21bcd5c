package types

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// BenchmarkBigReals measures the typed codec on the payload of the README's
// throughput benchmark; BenchmarkNativeReals is the library alone.
func BenchmarkBigReals(b *testing.B) {
	xs := make([]float64, 1000000)
	for i := range xs {
		xs[i] = float64(i) * 0.5
	}
	t := ListOf(RealType)
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		if err := EncodeMsgpack(msgpack.NewEncoder(&buf), t, xs); err != nil {
			b.Fatal(err)
		}
		if _, err := DecodeMsgpackBytes(t, buf.Bytes()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNativeReals(b *testing.B) {
	xs := make([]float64, 1000000)
	for i := range xs {
		xs[i] = float64(i) * 0.5
	}
	for i := 0; i < b.N; i++ {
		data, err := msgpack.Marshal(xs)
		if err != nil {
			b.Fatal(err)
		}
		var ys []float64
		if err := msgpack.Unmarshal(data, &ys); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFromJSONReals reads the arguments of the peer benchmark's large
// call: a hundred thousand reals, printed shortest.
func BenchmarkFromJSONReals(b *testing.B) {
	xs := randomReals()
	benchFromJSON(b, ListOf(RealType), xs)
}

// randomReals are the hundred thousand reals of the large call.
func randomReals() []float64 {
	r := rand.New(rand.NewPCG(6, 6))
	xs := make([]float64, 100_000)
	for i := range xs {
		xs[i] = r.Float64() * 1000
	}
	return xs
}

// benchFromJSON times FromJSON of v's JSON as a t.
func benchFromJSON(b *testing.B, t *Type, v any) {
	data, _ := json.Marshal(v)
	b.SetBytes(int64(len(data)))
	loop(b, func() error { _, err := FromJSON(t, data); return err })
}

// loop times f, which must not fail, counting its allocations.
func loop(b *testing.B, f func() error) {
	b.ReportAllocs()
	for b.Loop() {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkArgsReals is the rest of the nexus's work on that call's
// argument: encoding it for the pool, as an array and packed (ext 1, for
// Python pools); and BenchmarkArgsInts the same for a hundred thousand
// integers.
func BenchmarkArgsReals(b *testing.B) {
	benchEncodeArgs(b, ListOf(RealType), randomReals())
}

func BenchmarkArgsInts(b *testing.B) {
	r := rand.New(rand.NewPCG(6, 6))
	xs := make([]int64, 100_000)
	for i := range xs {
		xs[i] = r.Int64N(1 << 40)
	}
	benchEncodeArgs(b, ListOf(IntType), xs)
}

func benchEncodeArgs(b *testing.B, t *Type, v any) {
	for _, enc := range []struct {
		name   string
		encode func([]*Type, []any) ([]byte, error)
	}{{"array", EncodeArgs}, {"packed", EncodePackedArgs}} {
		b.Run(enc.name, func(b *testing.B) {
			loop(b, func() error { _, err := enc.encode([]*Type{t}, []any{v}); return err })
		})
	}
}

// BenchmarkResultReals is the way back for a [Real] result of a hundred
// thousand items: the pool's msgpack array read, then written as JSON.
func BenchmarkResultReals(b *testing.B) {
	xs := randomReals()
	data, _ := msgpack.Marshal(xs)
	t := ListOf(RealType)
	b.Run("decode", func(b *testing.B) {
		loop(b, func() error { _, err := DecodeMsgpackBytes(t, data); return err })
	})
	b.Run("json", func(b *testing.B) {
		loop(b, func() error { _, err := ToJSON(t, xs); return err })
	})
}

// BenchmarkFromJSONRecordReals reads the hundred thousand reals of
// BenchmarkFromJSONReals as a field of a record given whole.
func BenchmarkFromJSONRecordReals(b *testing.B) {
	benchFromJSON(b, samples, map[string]any{"xs": randomReals(), "ns": []int{}})
}
