package types

import (
	"bytes"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// BenchmarkBigReals measures the typed codec on the payload of the README's
// throughput benchmark; BenchmarkNativeReals is the library alone.
func BenchmarkBigReals(b *testing.B) {
	xs := make([]any, 1000000)
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
