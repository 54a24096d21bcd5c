package types

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// The msgpack form of values, shared by every pool: Int, Real, Str, Bool as
// themselves, Unit and an unset Optional as nil, lists and tuples as arrays,
// maps as maps, records as maps keyed by field name, Json as a str holding
// its compact JSON text.

// EncodeArgs encodes a call's arguments as one msgpack array.
func EncodeArgs(ts []*Type, vs []any) ([]byte, error) {
	return encodeArgs(ts, vs, false)
}

// EncodePackedArgs is EncodeArgs for a pool that reads packed lists
// (docs/pool-protocol.md, "Packed lists"): a [Real] or [Int] held as its
// typed slice (list.go), at any depth, is written as one msgpack extension
// of little-endian 8-byte numbers (extReals, extInts) instead of an array.
// Only the Python runtime reads them, which then makes the list with
// array.frombytes rather than looking at each element.
func EncodePackedArgs(ts []*Type, vs []any) ([]byte, error) {
	return encodeArgs(ts, vs, true)
}

func encodeArgs(ts []*Type, vs []any, packed bool) ([]byte, error) {
	if len(ts) != len(vs) {
		return nil, fmt.Errorf("%d arguments for %d parameters", len(vs), len(ts))
	}
	var buf bytes.Buffer
	size := 8
	for _, v := range vs {
		size += sizeHint(v)
	}
	buf.Grow(size)
	enc := msgpack.NewEncoder(&buf)
	if err := enc.EncodeArrayLen(len(vs)); err != nil {
		return nil, err
	}
	for i, v := range vs {
		if err := encodeValue(enc, ts[i], v, packed); err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
	}
	return buf.Bytes(), nil
}

// sizeHint estimates the msgpack size of a canonical value from its list
// lengths, so that a large argument is encoded into one buffer of about
// the right size rather than one grown by doubling. Nested values count
// nine bytes an item (a float64 and its tag).
func sizeHint(v any) int {
	if n, ok := Len(v); ok {
		return 5 + 9*n
	}
	return 9
}

// DecodeArgs reads a call's arguments, one msgpack array, as EncodeArgs
// writes them.
func DecodeArgs(ts []*Type, data []byte) ([]any, error) {
	dec := msgpack.NewDecoder(bytes.NewReader(data))
	n, err := dec.DecodeArrayLen()
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	if n != len(ts) {
		return nil, fmt.Errorf("%d arguments for %d parameters", n, len(ts))
	}
	vs := make([]any, n)
	for i, t := range ts {
		if vs[i], err = DecodeMsgpack(dec, t); err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
	}
	return vs, nil
}

// EncodeMsgpack writes v, a canonical value of type t.
func EncodeMsgpack(enc *msgpack.Encoder, t *Type, v any) error {
	return encodeValue(enc, t, v, false)
}

// encodeValue is EncodeMsgpack, writing lists packed when packed is true
// (EncodePackedArgs).
func encodeValue(enc *msgpack.Encoder, t *Type, v any, packed bool) error {
	switch t.Kind {
	case Int:
		if i, ok := v.(int64); ok {
			return enc.EncodeInt(i)
		}
	case Real:
		if f, ok := v.(float64); ok {
			return enc.EncodeFloat64(f)
		}
	case Str:
		if s, ok := v.(string); ok {
			return enc.EncodeString(s)
		}
	case Bool:
		if b, ok := v.(bool); ok {
			return enc.EncodeBool(b)
		}
	case Unit:
		return enc.EncodeNil()
	case JSON:
		if s, ok := v.(JSONText); ok {
			return enc.EncodeString(string(s))
		}
	case Optional:
		if v == nil {
			return enc.EncodeNil()
		}
		return encodeValue(enc, t.Elem, v, packed)
	case Func:
		if f, ok := v.(*FuncRef); ok {
			return encodeFuncRef(enc, f)
		}
	case Handle:
		if h, ok := v.(*HandleValue); ok {
			return enc.EncodeString(h.Path)
		}
	case List, Tuple:
		n, ok := Len(v)
		if !ok || (t.Kind == Tuple && n != len(t.Items)) {
			break
		}
		if packed && t.Kind == List {
			if done, err := encodePacked(enc, t.Elem, v); done {
				return err
			}
		}
		if err := enc.EncodeArrayLen(n); err != nil {
			return err
		}
		if t.Kind == List {
			if done, err := encodeTyped(enc, t.Elem, v); done {
				return err
			}
		}
		for i := range n {
			et := t.Elem
			if t.Kind == Tuple {
				et = t.Items[i]
			}
			if err := encodeValue(enc, et, Index(v, i), packed); err != nil {
				return within(fmt.Sprintf("[%d]", i), err)
			}
		}
		return nil
	case Map:
		ps, ok := v.([]Pair)
		if !ok {
			break
		}
		if err := enc.EncodeMapLen(len(ps)); err != nil {
			return err
		}
		for i, p := range ps {
			if err := encodeValue(enc, t.Key, p.Key, packed); err != nil {
				return within(fmt.Sprintf("[%d][0]", i), err)
			}
			if err := encodeValue(enc, t.Elem, p.Value, packed); err != nil {
				return within(fmt.Sprintf("[%d][1]", i), err)
			}
		}
		return nil
	case Record:
		m, ok := v.(map[string]any)
		if !ok {
			break
		}
		if err := enc.EncodeMapLen(len(t.Fields)); err != nil {
			return err
		}
		for _, f := range t.Fields {
			if err := enc.EncodeString(f.Name); err != nil {
				return err
			}
			if err := encodeValue(enc, f.Type, m[f.Name], packed); err != nil {
				return within("."+f.Name, err)
			}
		}
		return nil
	}
	return &PathError{Msg: fmt.Sprintf("value %#v is not of type %s", v, t)}
}

// encodeTyped writes the items of v, a list of elem whose header is
// written, when v is the typed slice of elem (list.go); done is false, and
// nothing is written, for any other list value.
func encodeTyped(enc *msgpack.Encoder, elem *Type, v any) (done bool, err error) {
	switch xs := v.(type) {
	case []float64:
		if elem.Kind == Real {
			if buf, ok := enc.Writer().(*bytes.Buffer); ok {
				appendReals(buf, xs)
				return true, nil
			}
			return true, encodeItems(enc, xs, (*msgpack.Encoder).EncodeFloat64)
		}
	case []int64:
		if elem.Kind == Int {
			return true, encodeItems(enc, xs, (*msgpack.Encoder).EncodeInt)
		}
	case []string:
		if elem.Kind == Str {
			return true, encodeItems(enc, xs, (*msgpack.Encoder).EncodeString)
		}
	case []bool:
		if elem.Kind == Bool {
			return true, encodeItems(enc, xs, (*msgpack.Encoder).EncodeBool)
		}
	}
	return false, nil
}

// encodeItems writes each of xs with encode.
func encodeItems[T any](enc *msgpack.Encoder, xs []T, encode func(*msgpack.Encoder, T) error) error {
	for _, x := range xs {
		if err := encode(enc, x); err != nil {
			return err
		}
	}
	return nil
}

// appendReals writes xs, the items of a list of reals, straight into buf,
// the encoder's own output, each as msgpack's float 64 (what EncodeFloat64
// writes): a hundred thousand of them cost a third of what two calls
// through the encoder each do.
func appendReals(buf *bytes.Buffer, xs []float64) {
	buf.Grow(9 * len(xs))
	b := buf.AvailableBuffer()
	for _, f := range xs {
		b = append(b, msgpcode.Double)
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(f))
	}
	buf.Write(b)
}

// The msgpack extension types of packed lists (EncodePackedArgs), as
// pools/python/nexus_pool/convert.py reads them.
const (
	extReals = 1 // [Real]: IEEE 754 binary64, little-endian
	extInts  = 2 // [Int]: two's complement int64, little-endian
)

// encodePacked writes v, a list of elem, as one extension when it is the
// typed slice of a [Real] or an [Int]; done is false, and nothing is
// written, for any other list value.
func encodePacked(enc *msgpack.Encoder, elem *Type, v any) (done bool, err error) {
	reals, isReals := v.([]float64)
	ints, isInts := v.([]int64)
	var b []byte
	switch {
	case isReals && elem.Kind == Real:
		b = appendExtHeader(packBuffer(enc, len(reals)), extReals, 8*len(reals))
		for _, f := range reals {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
		}
	case isInts && elem.Kind == Int:
		b = appendExtHeader(packBuffer(enc, len(ints)), extInts, 8*len(ints))
		for _, i := range ints {
			b = binary.LittleEndian.AppendUint64(b, uint64(i))
		}
	default:
		return false, nil
	}
	_, err = enc.Writer().Write(b)
	return true, err
}

// packBuffer is an empty slice with room for a packed list of n numbers:
// the free end of the encoder's own buffer when it writes to one (as
// EncodeArgs's does), so the numbers are written in place.
func packBuffer(enc *msgpack.Encoder, n int) []byte {
	size := 6 + 8*n
	if buf, ok := enc.Writer().(*bytes.Buffer); ok {
		buf.Grow(size)
		return buf.AvailableBuffer()
	}
	return make([]byte, 0, size)
}

// appendExtHeader writes the header of a msgpack extension of type code
// holding size bytes: fixext 8 for one number, else ext 8, 16 or 32 (an
// empty list is an ext 8 of length 0), as the protocol states it.
func appendExtHeader(b []byte, code byte, size int) []byte {
	switch {
	case size == 8:
		return append(b, msgpcode.FixExt8, code)
	case size <= math.MaxUint8:
		return append(b, msgpcode.Ext8, byte(size), code)
	case size <= math.MaxUint16:
		b = append(b, msgpcode.Ext16)
		b = binary.BigEndian.AppendUint16(b, uint16(size))
	default:
		b = append(b, msgpcode.Ext32)
		b = binary.BigEndian.AppendUint32(b, uint32(size))
	}
	return append(b, code)
}

// prealloc is how many of the n items an array or map header announces to
// make room for up front. A corrupt 5-byte header may claim 4 billion items,
// and reserving them would kill the nexus. Every item takes at least one
// byte, so the bytes left bound n when the input is in memory (as with
// DecodeMsgpackBytes); otherwise honest data grows past maxPrealloc.
func prealloc(dec *msgpack.Decoder, n int) int {
	if r, ok := dec.Buffered().(interface{ Len() int }); ok {
		return min(n, r.Len())
	}
	return min(n, maxPrealloc)
}

const maxPrealloc = 1 << 12

// DecodeMsgpackBytes decodes one value of type t from data.
func DecodeMsgpackBytes(t *Type, data []byte) (any, error) {
	dec := msgpack.NewDecoder(bytes.NewReader(data))
	v, err := DecodeMsgpack(dec, t)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// DecodeMsgpack reads one value of type t, as a pool wrote it, and returns it
// in canonical form. It is lenient where languages differ harmlessly (an
// integer where a Real is expected, an array for a tuple) and strict where
// data would be lost (a fractional number for an Int, a missing field).
func DecodeMsgpack(dec *msgpack.Decoder, t *Type) (any, error) {
	code, err := dec.PeekCode()
	if err != nil {
		return nil, err
	}
	if code == msgpcode.Nil {
		switch t.Kind {
		case Unit, Optional:
			return nil, dec.DecodeNil()
		}
		return nil, unexpected(t, code)
	}
	switch t.Kind {
	case Int:
		return decodeInt(dec)
	case Real:
		return decodeReal(dec)
	case Str:
		return decodeStr(dec)
	case Bool:
		return decodeBool(dec)
	case JSON:
		return decodeJSONText(dec)
	case Unit:
		// A function declared to return () may still return something;
		// the value is dropped, as the type says there is none.
		return nil, dec.Skip()
	case Optional:
		return DecodeMsgpack(dec, t.Elem)
	case List, Tuple:
		if !isArray(code) {
			break
		}
		n, err := dec.DecodeArrayLen()
		if err != nil {
			return nil, err
		}
		if t.Kind == Tuple {
			if n != len(t.Items) {
				return nil, &PathError{Msg: fmt.Sprintf("expected %s, got a list of %d items", t, n)}
			}
			i := 0
			return decodeItems(dec, n, func(dec *msgpack.Decoder) (any, error) {
				i++
				return DecodeMsgpack(dec, t.Items[i-1])
			})
		}
		switch t.Elem.Kind {
		case Int:
			return decodeItems(dec, n, decodeInt)
		case Real:
			if r, ok := dec.Buffered().(*bytes.Reader); ok {
				return decodeReals(dec, r, n)
			}
			return decodeItems(dec, n, decodeReal)
		case Str:
			return decodeItems(dec, n, decodeStr)
		case Bool:
			return decodeItems(dec, n, decodeBool)
		}
		return decodeItems(dec, n, func(dec *msgpack.Decoder) (any, error) { return DecodeMsgpack(dec, t.Elem) })
	case Map:
		if isArray(code) {
			return decodePairs(dec, t)
		}
		if !isMap(code) {
			break
		}
		n, err := dec.DecodeMapLen()
		if err != nil {
			return nil, err
		}
		out := make([]Pair, 0, prealloc(dec, n))
		for i := 0; i < n; i++ {
			var p Pair
			if p.Key, err = DecodeMsgpack(dec, t.Key); err != nil {
				return nil, within(fmt.Sprintf("[%d][0]", i), err)
			}
			if p.Value, err = DecodeMsgpack(dec, t.Elem); err != nil {
				return nil, within(fmt.Sprintf("[%d][1]", i), err)
			}
			out = append(out, p)
		}
		return out, nil
	case Record:
		if !isMap(code) {
			break
		}
		return decodeRecord(dec, t)
	}
	return nil, unexpected(t, code)
}

// decodeItems reads the n items of an array whose header is read, each
// with decode.
func decodeItems[T any](dec *msgpack.Decoder, n int, decode func(*msgpack.Decoder) (T, error)) ([]T, error) {
	out := make([]T, 0, prealloc(dec, n))
	for i := 0; i < n; i++ {
		x, err := decode(dec)
		if err != nil {
			return nil, within(fmt.Sprintf("[%d]", i), err)
		}
		out = append(out, x)
	}
	return out, nil
}

// decodeReals reads the n items of a list of reals from r, the bytes
// under dec (as in DecodeMsgpackBytes), taking the float 64s that every
// pool writes for a Real straight from the bytes, a block at a time, and
// any other item with decodeReal. Through the decoder, each item costs
// two calls and a copy: a million of them took 20 ms, about what the whole
// Go pool takes to answer.
func decodeReals(dec *msgpack.Decoder, r *bytes.Reader, n int) ([]float64, error) {
	out := make([]float64, 0, prealloc(dec, n))
	var block [9 * 512]byte
	for len(out) < n {
		got, _ := r.Read(block[:9*min(n-len(out), 512)])
		i := 0
		for ; i+9 <= got && block[i] == msgpcode.Double; i += 9 {
			out = append(out, math.Float64frombits(binary.BigEndian.Uint64(block[i+1:])))
		}
		if _, err := r.Seek(int64(i-got), io.SeekCurrent); err != nil {
			return nil, err
		}
		if i < got || got == 0 {
			// An item of another form (or the end of the data, which
			// decodeReal reports).
			x, err := decodeReal(dec)
			if err != nil {
				return nil, within(fmt.Sprintf("[%d]", len(out)), err)
			}
			out = append(out, x)
		}
	}
	return out, nil
}

// decodeInt reads an Int: any msgpack integer within 64 signed bits, or a
// float that is a whole number.
func decodeInt(dec *msgpack.Decoder) (int64, error) {
	code, err := dec.PeekCode()
	if err != nil {
		return 0, err
	}
	switch {
	case isInt(code):
		return dec.DecodeInt64()
	case code == msgpcode.Uint64:
		u, err := dec.DecodeUint64()
		if err != nil {
			return 0, err
		}
		if u > math.MaxInt64 {
			return 0, &PathError{Msg: fmt.Sprintf("integer %d does not fit in 64 bits", u)}
		}
		return int64(u), nil
	case code == msgpcode.Float, code == msgpcode.Double:
		f, err := dec.DecodeFloat64()
		if err != nil {
			return 0, err
		}
		if f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
			return 0, &PathError{Msg: fmt.Sprintf("expected Int, got the number %v", f)}
		}
		return int64(f), nil
	}
	return 0, unexpected(IntType, code)
}

// decodeReal reads a Real: a msgpack float or any integer.
func decodeReal(dec *msgpack.Decoder) (float64, error) {
	code, err := dec.PeekCode()
	if err != nil {
		return 0, err
	}
	switch {
	case code == msgpcode.Float, code == msgpcode.Double:
		return dec.DecodeFloat64()
	case code == msgpcode.Uint64:
		// DecodeInt64 would wrap integers above MaxInt64 to negatives.
		u, err := dec.DecodeUint64()
		return float64(u), err
	case isInt(code):
		i, err := dec.DecodeInt64()
		return float64(i), err
	}
	return 0, unexpected(RealType, code)
}

// decodeStr reads a Str: a msgpack str or bin.
func decodeStr(dec *msgpack.Decoder) (string, error) {
	code, err := dec.PeekCode()
	if err != nil {
		return "", err
	}
	if msgpcode.IsString(code) || msgpcode.IsBin(code) {
		return dec.DecodeString()
	}
	return "", unexpected(StrType, code)
}

// decodeJSONText reads a Json: a msgpack str (or bin) holding JSON text,
// which must parse, so that a pool's NaN or stray text fails the call here
// rather than reaching a client as broken JSON.
func decodeJSONText(dec *msgpack.Decoder) (JSONText, error) {
	code, err := dec.PeekCode()
	if err != nil {
		return "", err
	}
	if !msgpcode.IsString(code) && !msgpcode.IsBin(code) {
		return "", &PathError{Msg: fmt.Sprintf("expected Json, a string of JSON text, got msgpack type 0x%02x", code)}
	}
	s, err := dec.DecodeString()
	if err != nil {
		return "", err
	}
	v, err := ParseJSONText([]byte(s))
	if err != nil {
		return "", &PathError{Msg: fmt.Sprintf("expected Json text, got %s: %v", jsonKind(s), err)}
	}
	return v, nil
}

func decodeBool(dec *msgpack.Decoder) (bool, error) {
	code, err := dec.PeekCode()
	if err != nil {
		return false, err
	}
	if code == msgpcode.True || code == msgpcode.False {
		return dec.DecodeBool()
	}
	return false, unexpected(BoolType, code)
}

// isInt reports whether c starts a msgpack integer that DecodeInt64 reads
// as it is: every integer but a uint 64.
func isInt(c byte) bool {
	switch c {
	case msgpcode.Int8, msgpcode.Int16, msgpcode.Int32, msgpcode.Int64,
		msgpcode.Uint8, msgpcode.Uint16, msgpcode.Uint32:
		return true
	}
	return msgpcode.IsFixedNum(c)
}

// unexpected is the error for a value of type t that starts with code.
func unexpected(t *Type, code byte) error {
	if code == msgpcode.Nil {
		return &PathError{Msg: fmt.Sprintf("expected %s, got nil", t)}
	}
	return &PathError{Msg: fmt.Sprintf("expected %s, got msgpack type 0x%02x", t, code)}
}

func decodePairs(dec *msgpack.Decoder, t *Type) (any, error) {
	n, err := dec.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	pair := TupleOf(t.Key, t.Elem)
	out := make([]Pair, 0, prealloc(dec, n))
	for i := 0; i < n; i++ {
		kv, err := DecodeMsgpack(dec, pair)
		if err != nil {
			return nil, within(fmt.Sprintf("[%d]", i), err)
		}
		xs := kv.([]any)
		out = append(out, Pair{Key: xs[0], Value: xs[1]})
	}
	return out, nil
}

func decodeRecord(dec *msgpack.Decoder, t *Type) (any, error) {
	n, err := dec.DecodeMapLen()
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(t.Fields))
	for i := 0; i < n; i++ {
		key, err := dec.DecodeString()
		if err != nil {
			return nil, &PathError{Msg: fmt.Sprintf("record %s: field name is not a string", t.Name)}
		}
		f := t.Field(key)
		if f == nil {
			// Mapped classes may carry more attributes than the record
			// declares; those are not part of the value.
			if err := dec.Skip(); err != nil {
				return nil, err
			}
			continue
		}
		if out[key], err = DecodeMsgpack(dec, f.Type); err != nil {
			return nil, within("."+key, err)
		}
	}
	for _, f := range t.Fields {
		if _, ok := out[f.Name]; ok {
			continue
		}
		if f.Type.Kind != Optional {
			return nil, &PathError{Msg: fmt.Sprintf("record %s is missing field %q", t.Name, f.Name)}
		}
		out[f.Name] = nil
	}
	return out, nil
}

func isArray(c byte) bool {
	return msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32
}

func isMap(c byte) bool {
	return msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32
}

// encodeFuncRef writes f as [id, [slots...], [captured...]], each
// captured value encoded already.
func encodeFuncRef(enc *msgpack.Encoder, f *FuncRef) error {
	if err := enc.EncodeArrayLen(3); err != nil {
		return err
	}
	if err := enc.EncodeInt(int64(f.ID)); err != nil {
		return err
	}
	if err := enc.EncodeArrayLen(len(f.Slots)); err != nil {
		return err
	}
	if err := encodeItems(enc, f.Slots, func(enc *msgpack.Encoder, s int) error { return enc.EncodeInt(int64(s)) }); err != nil {
		return err
	}
	if err := enc.EncodeArrayLen(len(f.Captured)); err != nil {
		return err
	}
	return encodeItems(enc, f.Captured, func(enc *msgpack.Encoder, raw msgpack.RawMessage) error { return enc.Encode(raw) })
}
