package types

import (
	"fmt"
	"math"
	"strconv"
)

// Sized number types (Morloc's I8 ... I64, U8 ... U64, F32, F64) are Int
// and Real with a Width: one type to the checker and the evaluator, so a
// U8 adds to an Int, but a value of one is range-checked where it enters
// nexus (FromJSON: the command line, MCP, literals in a program) and a
// pool may hold it in its native sized type (int8_t, uint8_t, float).

// WidthRange is the range of a sized integer type.
type WidthRange struct{ Min, Max int64 }

// intWidths are the sized integer types. U64's values above the largest
// Int cannot be carried (Int is 64 bits, signed), so its range stops there.
var intWidths = map[string]WidthRange{
	"I8": {math.MinInt8, math.MaxInt8}, "I16": {math.MinInt16, math.MaxInt16},
	"I32": {math.MinInt32, math.MaxInt32}, "I64": {math.MinInt64, math.MaxInt64},
	"U8": {0, math.MaxUint8}, "U16": {0, math.MaxUint16},
	"U32": {0, math.MaxUint32}, "U64": {0, math.MaxInt64},
}

// realWidths are the sized real types and their largest finite value.
var realWidths = map[string]float64{"F32": math.MaxFloat32, "F64": math.MaxFloat64}

// Sized returns the type a sized number type's name stands for, or nil
// when name is none.
func Sized(name string) *Type {
	if _, ok := intWidths[name]; ok {
		return &Type{Kind: Int, Width: name}
	}
	if _, ok := realWidths[name]; ok {
		return &Type{Kind: Real, Width: name}
	}
	return nil
}

// IntRange is the range of the values of t, an Int, sized or not.
func IntRange(t *Type) WidthRange {
	if r, ok := intWidths[t.Width]; ok {
		return r
	}
	return WidthRange{math.MinInt64, math.MaxInt64}
}

// HasWidth reports whether t is or holds a sized number type.
func HasWidth(t *Type) bool {
	return t != nil && Holds(t, func(u *Type) bool { return u.Width != "" })
}

// CheckWidths checks that every sized number in v, a canonical value of
// t, is in its type's range; the error says where one is not.
func CheckWidths(t *Type, v any) error {
	if !HasWidth(t) || v == nil {
		return nil
	}
	switch t.Kind {
	case Int:
		if i, ok := v.(int64); ok {
			if r := IntRange(t); i < r.Min || i > r.Max {
				return &PathError{Msg: fmt.Sprintf("%d overflows %s, whose values are %d to %d", i, t.Width, r.Min, r.Max)}
			}
		}
	case Real:
		if f, ok := v.(float64); ok && math.Abs(f) > realWidths[t.Width] {
			return &PathError{Msg: fmt.Sprintf("%s overflows %s, whose values are within ±%g", strconv.FormatFloat(f, 'g', -1, 64), t.Width, realWidths[t.Width])}
		}
	case Optional:
		return CheckWidths(t.Elem, v)
	case List:
		return checkItems(t.Elem, v)
	case Tuple:
		xs, _ := v.([]any)
		for i, x := range xs {
			if i < len(t.Items) {
				if err := CheckWidths(t.Items[i], x); err != nil {
					return within(fmt.Sprintf("[%d]", i), err)
				}
			}
		}
	case Map:
		ps, _ := v.([]Pair)
		for _, p := range ps {
			if err := CheckWidths(t.Key, p.Key); err != nil {
				return err
			}
			if err := CheckWidths(t.Elem, p.Value); err != nil {
				return within(fmt.Sprintf("[%v]", p.Key), err)
			}
		}
	case Record:
		m, _ := v.(map[string]any)
		for _, f := range t.Fields {
			if err := CheckWidths(f.Type, m[f.Name]); err != nil {
				return within("."+f.Name, err)
			}
		}
	}
	return nil
}

// checkItems checks the items of a list value, of any canonical form.
func checkItems(elem *Type, v any) error {
	var items []any
	switch xs := v.(type) {
	case []int64:
		for _, x := range xs {
			items = append(items, x)
		}
	case []float64:
		for _, x := range xs {
			items = append(items, x)
		}
	case []any:
		items = xs
	}
	for i, x := range items {
		if err := CheckWidths(elem, x); err != nil {
			return within(fmt.Sprintf("[%d]", i), err)
		}
	}
	return nil
}
