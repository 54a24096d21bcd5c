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
	r := rand.New(rand.NewPCG(6, 6))
	xs := make([]float64, 100_000)
	for i := range xs {
		xs[i] = r.Float64() * 1000
	}
	data, _ := json.Marshal(xs)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromJSON(ListOf(RealType), data); err != nil {
			b.Fatal(err)
		}
	}
}
