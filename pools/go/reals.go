package gopool

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// Long lists of Reals are what numeric code sends, and going through the
// msgpack decoder an item at a time costs several interface calls per
// number. DecodeReals and EncodeReals read and write the call's bytes
// directly, which makes a list of a million Reals a few milliseconds of the
// pool's time instead of tens.

// input is the decoder's reader of a call's arguments: a byte slice that
// DecodeReals can read past the decoder.
type input struct {
	data []byte
	pos  int
}

func (r *input) Read(p []byte) (int, error) {
	if r.pos >= len(r.data) {
		return 0, io.EOF
	}
	n := copy(p, r.data[r.pos:])
	r.pos += n
	return n, nil
}

func (r *input) ReadByte() (byte, error) {
	if r.pos >= len(r.data) {
		return 0, io.EOF
	}
	r.pos++
	return r.data[r.pos-1], nil
}

func (r *input) UnreadByte() error {
	if r.pos == 0 {
		return io.ErrNoProgress
	}
	r.pos--
	return nil
}

// DecodeReals reads len(v) Reals into v: the items of a list whose header
// has been read.
func DecodeReals[T Float](d *msgpack.Decoder, v []T) error {
	in, direct := d.Buffered().(*input)
	for i := range v {
		if direct && in.pos+9 <= len(in.data) && in.data[in.pos] == msgpcode.Double {
			v[i] = T(math.Float64frombits(binary.BigEndian.Uint64(in.data[in.pos+1:])))
			in.pos += 9
			continue
		}
		x, err := d.DecodeFloat64()
		if err != nil {
			return Index(err, i)
		}
		v[i] = T(x)
	}
	return nil
}

// EncodeReals writes the items of v, a list whose header has been
// written.
func EncodeReals[T Float](e *msgpack.Encoder, v []T) error {
	if buf, ok := e.Writer().(*bytes.Buffer); ok {
		buf.Grow(9 * len(v))
		b := buf.AvailableBuffer()
		for _, x := range v {
			b = append(b, msgpcode.Double)
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(float64(x)))
		}
		_, err := buf.Write(b)
		return err
	}
	for i, x := range v {
		if err := e.EncodeFloat64(float64(x)); err != nil {
			return Index(err, i)
		}
	}
	return nil
}
