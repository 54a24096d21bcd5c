package types

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FromJSON parses data as one JSON value of type t and returns it in
// canonical form. The error names where in the value the mismatch is.
func FromJSON(t *Type, data []byte) (any, error) {
	if v, ok := parseFast(t, data); ok {
		if err := CheckWidths(t, v); err != nil {
			return nil, err
		}
		return v, nil
	}
	raw, err := DecodeJSON(data)
	if err != nil {
		return nil, err
	}
	return FromJSONValue(t, raw)
}

// DecodeJSON parses data as exactly one JSON value, untyped, with numbers
// as json.Number: the form FromJSONValue reads.
func DecodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not valid JSON: more than one value")
	}
	return raw, nil
}

// FromJSONValue converts a value decoded by encoding/json (with UseNumber, so
// numbers arrive as json.Number; float64 is accepted too) into canonical form
// for type t, checking it on the way.
func FromJSONValue(t *Type, v any) (any, error) {
	out, err := fromJSON(t, v)
	if err != nil {
		return nil, err
	}
	if err := CheckWidths(t, out); err != nil {
		return nil, err
	}
	return out, nil
}

// PathError says where inside a value a type mismatch was found.
type PathError struct {
	Path string // like .field[2]; empty at the top
	Msg  string
}

func (e *PathError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return "at " + e.Path + ": " + e.Msg
}

func mismatch(t *Type, v any) error {
	return &PathError{Msg: fmt.Sprintf("expected %s, got %s", describe(t), jsonKind(v))}
}

func describe(t *Type) string {
	switch t.Kind {
	case Int:
		return "an integer"
	case Real:
		return "a number"
	case Str:
		return "a string"
	case Bool:
		return "true or false"
	case Unit:
		return "null"
	case List:
		return "a list " + t.String()
	case Map:
		if t.Key.Kind == Str {
			return "an object " + t.String()
		}
		return "a list of [key, value] pairs " + t.String()
	case Tuple:
		return fmt.Sprintf("a list of %d items %s", len(t.Items), t.String())
	case Record:
		return "an object (record " + t.Name + ")"
	}
	return t.String()
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return "the number " + x.String()
	case float64:
		return "the number " + strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		if len(x) > 40 {
			x = x[:40] + "..."
		}
		return "the string " + strconv.Quote(x)
	case []any:
		return fmt.Sprintf("a list of %d items", len(x))
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// NonFiniteError is a NaN or an infinity met by ToJSON in a result: JSON
// has no way to write one, and writing Python's NaN or Infinity would make
// the whole message unreadable to a strict parser, so the value is refused
// instead, with where it was.
type NonFiniteError struct {
	Path  string // like .points[2].x, [3] or ["key"]; empty at the top
	Value float64
}

func (e *NonFiniteError) Error() string {
	name := "NaN"
	switch {
	case math.IsInf(e.Value, 1):
		name = "Infinity"
	case math.IsInf(e.Value, -1):
		name = "-Infinity"
	}
	return "result" + e.Path + " is " + name + ", which JSON cannot represent"
}

// within prefixes err's path with step.
func within(step string, err error) error {
	switch e := err.(type) {
	case *PathError:
		return &PathError{Path: step + e.Path, Msg: e.Msg}
	case *NonFiniteError:
		return &NonFiniteError{Path: step + e.Path, Value: e.Value}
	}
	return &PathError{Path: step, Msg: err.Error()}
}

func fromJSON(t *Type, v any) (any, error) {
	switch t.Kind {
	case Int:
		return intFromJSON(v)
	case Real:
		return realFromJSON(v)
	case Str:
		return strFromJSON(v)
	case Bool:
		return boolFromJSON(v)
	case Unit:
		if v == nil {
			return nil, nil
		}
	case Optional:
		if v == nil {
			return nil, nil
		}
		return fromJSON(t.Elem, v)
	case List:
		xs, ok := v.([]any)
		if !ok {
			break
		}
		switch t.Elem.Kind {
		case Int:
			return itemsFromJSON(xs, intFromJSON)
		case Real:
			return itemsFromJSON(xs, realFromJSON)
		case Str:
			return itemsFromJSON(xs, strFromJSON)
		case Bool:
			return itemsFromJSON(xs, boolFromJSON)
		}
		return itemsFromJSON(xs, func(x any) (any, error) { return fromJSON(t.Elem, x) })
	case Tuple:
		xs, ok := v.([]any)
		if !ok || len(xs) != len(t.Items) {
			break
		}
		i := 0
		return itemsFromJSON(xs, func(x any) (any, error) {
			i++
			return fromJSON(t.Items[i-1], x)
		})
	case Map:
		return mapFromJSON(t, v)
	case Record:
		return recordFromJSON(t, v)
	case JSON:
		return jsonTextFromValue(v)
	case Handle:
		return nil, handleFromJSON(t)
	default:
		return nil, fmt.Errorf("unknown type kind %q", t.Kind)
	}
	return nil, mismatch(t, v)
}

// itemsFromJSON converts the items of a JSON array, each with read.
func itemsFromJSON[T any](xs []any, read func(any) (T, error)) ([]T, error) {
	out := make([]T, len(xs))
	for i, x := range xs {
		e, err := read(x)
		if err != nil {
			return nil, within(fmt.Sprintf("[%d]", i), err)
		}
		out[i] = e
	}
	return out, nil
}

func intFromJSON(v any) (int64, error) {
	switch n := v.(type) {
	case json.Number:
		i, whole, err := intFromNumber(string(n))
		if err == nil {
			return i, nil
		}
		if whole {
			return 0, &PathError{Msg: fmt.Sprintf("integer %s does not fit in 64 bits", n)}
		}
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<63 {
			return int64(n), nil
		}
	}
	return 0, mismatch(IntType, v)
}

func realFromJSON(v any) (float64, error) {
	switch n := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		if err == nil {
			return f, nil
		}
		if errors.Is(err, strconv.ErrRange) {
			// ParseFloat would make it an infinity, which no result
			// could carry back either (NonFiniteError).
			return 0, &PathError{Msg: fmt.Sprintf("the number %s is beyond the range of a Real, ±1.8e308", n)}
		}
	case float64:
		if finite(n) {
			return n, nil
		}
	}
	return 0, mismatch(RealType, v)
}

func strFromJSON(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", mismatch(StrType, v)
}

func boolFromJSON(v any) (bool, error) {
	if b, ok := v.(bool); ok {
		return b, nil
	}
	return false, mismatch(BoolType, v)
}

// intFromNumber returns the integer the JSON number n spells, however it is
// written: 3, 3.0, 3e2, 300e-2. It works on the decimal digits, since going
// through float64 would quietly round 9007199254740993.0 to another integer.
// whole reports whether n is an integer at all, so the caller can tell a
// fraction (not whole) from an integer beyond 64 bits (whole, with an error).
func intFromNumber(n string) (i int64, whole bool, err error) {
	if i, err := strconv.ParseInt(n, 10, 64); err == nil {
		return i, true, nil
	}
	sign := ""
	if rest, ok := strings.CutPrefix(n, "-"); ok {
		sign, n = "-", rest
	}
	var exp int64
	if at := strings.IndexAny(n, "eE"); at >= 0 {
		// An exponent beyond 32 bits comes back clamped with ErrRange,
		// which still decides the answer for any digits of sane length.
		e, err := strconv.ParseInt(n[at+1:], 10, 32)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false, err
		}
		n, exp = n[:at], e
	}
	intPart, frac, _ := strings.Cut(n, ".")
	if !isDigits(intPart) || !isDigits(frac) || intPart == "" {
		return 0, false, fmt.Errorf("%q is not a number", n)
	}
	// The value is digits × 10^exp, with digits free of padding zeros.
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	digits = trimmed
	switch {
	case digits == "":
		return 0, true, nil
	case exp < 0:
		return 0, false, errors.New("not an integer")
	case int64(len(digits))+exp > 19:
		return 0, true, errors.New("out of range")
	}
	i, err = strconv.ParseInt(sign+digits+strings.Repeat("0", int(exp)), 10, 64)
	return i, true, err
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func mapFromJSON(t *Type, v any) (any, error) {
	switch m := v.(type) {
	case map[string]any:
		if t.Key.Kind != Str {
			break
		}
		// encoding/json loses object order; a map value's order only
		// matters for display, so sort keys to keep output stable.
		keys := slices.Sorted(maps.Keys(m))
		out := make([]Pair, 0, len(m))
		for _, k := range keys {
			val, err := fromJSON(t.Elem, m[k])
			if err != nil {
				return nil, within("."+k, err)
			}
			out = append(out, Pair{Key: k, Value: val})
		}
		return out, nil
	case []any:
		out := make([]Pair, 0, len(m))
		for i, x := range m {
			kv, ok := x.([]any)
			if !ok || len(kv) != 2 {
				return nil, within(fmt.Sprintf("[%d]", i), &PathError{Msg: "expected a [key, value] pair, got " + jsonKind(x)})
			}
			k, err := fromJSON(t.Key, kv[0])
			if err != nil {
				return nil, within(fmt.Sprintf("[%d][0]", i), err)
			}
			val, err := fromJSON(t.Elem, kv[1])
			if err != nil {
				return nil, within(fmt.Sprintf("[%d][1]", i), err)
			}
			out = append(out, Pair{Key: k, Value: val})
		}
		return out, nil
	}
	return nil, mismatch(t, v)
}

func recordFromJSON(t *Type, v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, mismatch(t, v)
	}
	out := make(map[string]any, len(t.Fields))
	for _, f := range t.Fields {
		x, present := m[f.Name]
		switch {
		case present:
			val, err := fromJSON(f.Type, x)
			if err != nil {
				return nil, within("."+f.Name, err)
			}
			out[f.Name] = val
		case len(f.Default) > 0:
			val, err := FromJSON(f.Type, f.Default)
			if err != nil {
				return nil, within("."+f.Name, fmt.Errorf("default: %w", err))
			}
			out[f.Name] = val
		case f.Type.Kind == Optional:
			out[f.Name] = nil
		default:
			return nil, &PathError{Msg: fmt.Sprintf("record %s is missing field %q", t.Name, f.Name)}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if t.Field(k) == nil {
			return nil, &PathError{Msg: fmt.Sprintf("record %s has no field %q", t.Name, k)}
		}
	}
	return out, nil
}

// ToJSON writes v, a canonical value of type t, as compact JSON: records in
// field order, maps in entry order, strings as UTF-8 without HTML escaping,
// reals as Morloc prints them (appendReal: 42, 0.5, 1e+15). A NaN or an infinity
// anywhere in v is a *NonFiniteError saying where: JSON cannot carry one.
func ToJSON(t *Type, v any) ([]byte, error) {
	return AppendJSON(nil, t, v)
}

// AppendJSON is ToJSON appending to buf.
func AppendJSON(buf []byte, t *Type, v any) ([]byte, error) {
	switch t.Kind {
	case Int:
		if i, ok := v.(int64); ok {
			return strconv.AppendInt(buf, i, 10), nil
		}
	case Real:
		if f, ok := v.(float64); ok {
			if !finite(f) {
				return nil, &NonFiniteError{Value: f}
			}
			return appendReal(buf, f), nil
		}
	case Str:
		if s, ok := v.(string); ok {
			return appendString(buf, s), nil
		}
	case Bool:
		if b, ok := v.(bool); ok {
			return strconv.AppendBool(buf, b), nil
		}
	case Unit:
		return append(buf, "null"...), nil
	case Handle:
		if h, ok := v.(*HandleValue); ok {
			return appendString(buf, h.Path), nil
		}
	case JSON:
		// Valid compact JSON already, by the definition of JSONText.
		if s, ok := v.(JSONText); ok && s != "" {
			return append(buf, s...), nil
		}
	case Optional:
		if v == nil {
			return append(buf, "null"...), nil
		}
		return AppendJSON(buf, t.Elem, v)
	case List, Tuple:
		n, ok := Len(v)
		if !ok || (t.Kind == Tuple && n != len(t.Items)) {
			break
		}
		if t.Kind == List {
			if out, ok, err := appendTypedJSON(buf, t.Elem, v); ok {
				return out, err
			}
		}
		buf = append(buf, '[')
		for i := range n {
			if i > 0 {
				buf = append(buf, ',')
			}
			et := t.Elem
			if t.Kind == Tuple {
				et = t.Items[i]
			}
			var err error
			if buf, err = AppendJSON(buf, et, Index(v, i)); err != nil {
				return nil, within(fmt.Sprintf("[%d]", i), err)
			}
		}
		return append(buf, ']'), nil
	case Map:
		ps, ok := v.([]Pair)
		if !ok {
			break
		}
		var err error
		if t.Key.Kind == Str {
			buf = append(buf, '{')
			for i, p := range ps {
				if i > 0 {
					buf = append(buf, ',')
				}
				k, ok := p.Key.(string)
				if !ok {
					return nil, &PathError{Msg: fmt.Sprintf("map key %v is not a string", p.Key)}
				}
				buf = append(appendString(buf, k), ':')
				if buf, err = AppendJSON(buf, t.Elem, p.Value); err != nil {
					// A key is any string: written as JSON, the path
					// stays readable (result["a b"], not result.a b).
					return nil, within("["+string(appendString(nil, k))+"]", err)
				}
			}
			return append(buf, '}'), nil
		}
		buf = append(buf, '[')
		for i, p := range ps {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '[')
			if buf, err = AppendJSON(buf, t.Key, p.Key); err != nil {
				return nil, within(fmt.Sprintf("[%d][0]", i), err)
			}
			buf = append(buf, ',')
			if buf, err = AppendJSON(buf, t.Elem, p.Value); err != nil {
				return nil, within(fmt.Sprintf("[%d][1]", i), err)
			}
			buf = append(buf, ']')
		}
		return append(buf, ']'), nil
	case Record:
		m, ok := v.(map[string]any)
		if !ok {
			break
		}
		buf = append(buf, '{')
		for i, f := range t.Fields {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(appendString(buf, f.Name), ':')
			var err error
			if buf, err = AppendJSON(buf, f.Type, m[f.Name]); err != nil {
				return nil, within("."+f.Name, err)
			}
		}
		return append(buf, '}'), nil
	}
	return nil, &PathError{Msg: fmt.Sprintf("value %#v is not of type %s", v, t)}
}

// appendTypedJSON writes v, a list of elem, when it is the typed slice of
// elem (list.go); ok is false for any other list value.
func appendTypedJSON(buf []byte, elem *Type, v any) (out []byte, ok bool, err error) {
	switch xs := v.(type) {
	case []float64:
		if elem.Kind == Real {
			for i, f := range xs {
				if !finite(f) {
					return nil, true, &NonFiniteError{Path: fmt.Sprintf("[%d]", i), Value: f}
				}
			}
			return appendJSONItems(buf, xs, 20, appendReal), true, nil
		}
	case []int64:
		if elem.Kind == Int {
			return appendJSONItems(buf, xs, 8, appendInt), true, nil
		}
	case []string:
		if elem.Kind == Str {
			return appendJSONItems(buf, xs, 16, appendString), true, nil
		}
	case []bool:
		if elem.Kind == Bool {
			return appendJSONItems(buf, xs, 6, strconv.AppendBool), true, nil
		}
	}
	return buf, false, nil
}

// appendJSONItems writes xs as a JSON array, each item with appendItem.
// Room for size bytes an item (about a real's shortest form, with its
// comma) is made first: a hundred thousand reals are then written into one
// array, where growing it by doubling copied and allocated five times as
// much, and writing them took nearly twice as long.
func appendJSONItems[T any](buf []byte, xs []T, size int, appendItem func([]byte, T) []byte) []byte {
	buf = slices.Grow(buf, 2+size*len(xs))
	buf = append(buf, '[')
	for i, x := range xs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendItem(buf, x)
	}
	return append(buf, ']')
}

func appendInt(buf []byte, i int64) []byte { return strconv.AppendInt(buf, i, 10) }

// finite reports whether f is neither NaN nor an infinity.
func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// maxWholeReal bounds the whole reals written as integers: Morloc prints a
// Real with C's %.15g, which writes every whole number below 1e15 as its
// digits and switches to an exponent at 1e15. Below it an integer-valued
// float64 is exact, so int64 conversion loses nothing.
const maxWholeReal = 1e15

// appendReal writes f, which is finite, as Morloc prints a Real (digest
// section 9): a whole real below 1e15 in magnitude as an integer (42, not
// 42.0; -0.0 as -0, as %.15g writes it); any other real in the shortest
// form that reads back exactly, in decimal unless its exponent is below -4
// or at least 15, then in %g's exponent layout (1e+15, 1.5e-07). The digits
// stay the shortest exact ones rather than %.15g's fifteen, so a value
// survives printing and reading (0.1+0.2 prints 0.30000000000000004).
// JSON still reads 42 as a Real where a Real is expected.
func appendReal(buf []byte, f float64) []byte {
	a := math.Abs(f)
	if a < maxWholeReal && f == math.Trunc(f) {
		if f == 0 && math.Signbit(f) {
			return append(buf, "-0"...)
		}
		return strconv.AppendInt(buf, int64(f), 10)
	}
	// Comparing the value decides the layout as the exponent of its
	// shortest digits would: parsing rounds monotonically, so those digits
	// are below 1e-4 (or 1e15) exactly when f is.
	if a < 1e-4 || a >= maxWholeReal {
		return strconv.AppendFloat(buf, f, 'e', -1, 64)
	}
	return strconv.AppendFloat(buf, f, 'f', -1, 64)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. Unlike encoding/json it leaves
// <, > and & alone, so text round-trips byte for byte; invalid UTF-8 becomes
// U+FFFD, as JSON cannot carry it.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c < 0x20 || c == 0x7f:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, "\ufffd"...)
		} else if r == '\u2028' || r == '\u2029' {
			buf = append(buf, `\u202`...)
			buf = append(buf, hexDigits[r&0xf])
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}
