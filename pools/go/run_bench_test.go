package gopool

import (
	"context"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

func BenchmarkRunMillionReals(b *testing.B) {
	xs := make([]float64, 1_000_000)
	for i := range xs {
		xs[i] = float64(i) * 0.25
	}
	data, _ := msgpack.Marshal([]any{xs})
	f := Function{Name: "double", Args: 1, Call: func(_ context.Context, d *msgpack.Decoder, e *msgpack.Encoder) error {
		n, err := DecodeLen(d, false, -1)
		if err != nil {
			return err
		}
		v := make([]float64, n)
		if err := DecodeReals(d, v); err != nil {
			return err
		}
		for i := range v {
			v[i] *= 2
		}
		if err := e.EncodeArrayLen(len(v)); err != nil {
			return err
		}
		return EncodeReals(e, v)
	}}
	b.SetBytes(8e6)
	for b.Loop() {
		if _, err := run(context.Background(), f, data); err != nil {
			b.Fatal(err)
		}
	}
}
