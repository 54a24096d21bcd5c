package gopool

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// The helpers below are what generated conversion code calls: one per
// kind of leaf value, generic over the Go types that can hold it (a user's
// `type Celsius float64` included), and the few steps of containers that
// are the same for every element type. Values arrive in the msgpack form
// of manifest/types: the nexus has already checked them against the
// program's types, so the decoders trust the shape and check only what Go
// adds (an Int that does not fit in an int8).

// Integer is every Go integer type an Int converts to.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// Float is every Go type a Real converts to.
type Float interface {
	~float32 | ~float64
}

// DecodeInt reads an Int into T, failing when it does not fit.
func DecodeInt[T Integer](d *msgpack.Decoder) (T, error) {
	i, err := d.DecodeInt64()
	if err != nil {
		return 0, err
	}
	v := T(i)
	if int64(v) != i || (v < 0) != (i < 0) {
		return 0, fmt.Errorf("%d does not fit in %T", i, v)
	}
	return v, nil
}

// EncodeInt writes v as an Int, failing for an unsigned value past the
// 64-bit signed range.
func EncodeInt[T Integer](e *msgpack.Encoder, v T) error {
	if v > 0 && uint64(v) > math.MaxInt64 {
		return fmt.Errorf("%d does not fit in a 64-bit Int", uint64(v))
	}
	return e.EncodeInt(int64(v))
}

// DecodeReal reads a Real (or an integer) into T.
func DecodeReal[T Float](d *msgpack.Decoder) (T, error) {
	f, err := d.DecodeFloat64()
	return T(f), err
}

// EncodeReal writes v as a Real.
func EncodeReal[T Float](e *msgpack.Encoder, v T) error {
	return e.EncodeFloat64(float64(v))
}

// DecodeStr reads a Str into T.
func DecodeStr[T ~string](d *msgpack.Decoder) (T, error) {
	s, err := d.DecodeString()
	return T(s), err
}

// EncodeStr writes v as a Str.
func EncodeStr[T ~string](e *msgpack.Encoder, v T) error {
	return e.EncodeString(string(v))
}

// DecodeBytes reads a Str into T, a []byte: a Str holds any bytes (a
// media result's, such as an image), which a Go function may keep as
// bytes.
func DecodeBytes[T ~[]byte](d *msgpack.Decoder) (T, error) {
	b, err := d.DecodeBytes()
	return T(b), err
}

// EncodeBytes writes v, bytes, as a Str (msgpack bin, which the nexus
// reads as a Str as it reads str).
func EncodeBytes[T ~[]byte](e *msgpack.Encoder, v T) error {
	return e.EncodeBytes([]byte(v))
}

// DecodeBool reads a Bool into T.
func DecodeBool[T ~bool](d *msgpack.Decoder) (T, error) {
	b, err := d.DecodeBool()
	return T(b), err
}

// EncodeBool writes v as a Bool.
func EncodeBool[T ~bool](e *msgpack.Encoder, v T) error {
	return e.EncodeBool(bool(v))
}

// DecodeJSON reads a Json, a str of JSON text, as encoding/json decodes
// it into an any: map[string]any, []any, float64, string, bool or nil.
func DecodeJSON(d *msgpack.Decoder) (any, error) {
	s, err := d.DecodeString()
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("Json text: %w", err)
	}
	return v, nil
}

// EncodeJSON writes v as a Json: the compact text encoding/json writes for
// it, without its escaping of <, > and &, which JSON does not need. A value
// JSON has no form for (a NaN, a channel) fails the call.
func EncodeJSON(e *msgpack.Encoder, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("the Json result cannot be written as JSON: %w", err)
	}
	return e.EncodeString(string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))))
}

// DecodeUnit reads the () value, which is nil.
func DecodeUnit(d *msgpack.Decoder) error {
	return d.Skip()
}

// DecodeNone reports whether the next value is nil (an unset optional),
// and reads it if so.
func DecodeNone(d *msgpack.Decoder) (bool, error) {
	c, err := d.PeekCode()
	if err != nil {
		return false, err
	}
	if c != msgpcode.Nil {
		return false, nil
	}
	return true, d.DecodeNil()
}

// DecodeLen reads the header of a list or tuple (an array) or of a map
// or record (a map), and checks that a tuple has its want items (want < 0
// for any length).
func DecodeLen(d *msgpack.Decoder, isMap bool, want int) (int, error) {
	var n int
	var err error
	if isMap {
		n, err = d.DecodeMapLen()
	} else {
		n, err = d.DecodeArrayLen()
	}
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, errors.New("got nil")
	}
	if want >= 0 && n != want {
		return 0, fmt.Errorf("expected %d items, got %d", want, n)
	}
	return n, nil
}

// SortedKeys returns m's keys in order, so a Go map (whose order is
// random) crosses as the same value every time.
func SortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// SortedKeysFunc is SortedKeys for keys without a Go order (Bool, tuples,
// records): they are ordered by their msgpack form, written by enc.
func SortedKeysFunc[K comparable, V any](m map[K]V, enc func(*msgpack.Encoder, K) error) ([]K, error) {
	type keyed struct {
		key  K
		form []byte
	}
	all := make([]keyed, 0, len(m))
	var buf bytes.Buffer
	e := msgpack.NewEncoder(&buf)
	for k := range m {
		buf.Reset()
		if err := enc(e, k); err != nil {
			return nil, err
		}
		all = append(all, keyed{k, bytes.Clone(buf.Bytes())})
	}
	slices.SortFunc(all, func(a, b keyed) int { return bytes.Compare(a.form, b.form) })
	keys := make([]K, len(all))
	for i, a := range all {
		keys[i] = a.key
	}
	return keys, nil
}

// ErrNil is the error of a nil pointer result where the program's type has
// no none.
var ErrNil = errors.New("nil pointer for a value that is not optional")

// PathError is a conversion error inside a value: Path says where, as
// [2].mean.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string {
	return "at " + e.Path + ": " + e.Err.Error()
}

func (e *PathError) Unwrap() error { return e.Err }

// At puts a conversion error inside step: "[3]" for an item, ".mean" for
// a field, "[k]" for a map value.
func At(err error, step string) error {
	var pe *PathError
	if errors.As(err, &pe) {
		return &PathError{Path: step + pe.Path, Err: pe.Err}
	}
	return &PathError{Path: step, Err: err}
}

// Index is At for item i of a list or tuple.
func Index(err error, i int) error {
	return At(err, fmt.Sprintf("[%d]", i))
}
