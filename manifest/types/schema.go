package types

import "fmt"

// Schema is Morloc's schema string of t: j for Int (as the digest
// has `aj` for [Int]), f8 Real, s Str, b Bool, z (), a list `a` and its
// element, an optional `?` and its element, a tuple `t`, its size and
// items, a map as the list of its (key, value) pairs (its wire form), a
// record `m`, its size and for each field the name's length, the name
// and the field's schema.
func Schema(t *Type) string {
	switch t.Kind {
	case Int:
		return "j"
	case Real:
		return "f8"
	case Str, JSON:
		return "s"
	case Bool:
		return "b"
	case Unit:
		return "z"
	case List:
		return "a" + Schema(t.Elem)
	case Optional:
		return "?" + Schema(t.Elem)
	case Map:
		return "a" + Schema(TupleOf(t.Key, t.Elem))
	case Tuple:
		out := fmt.Sprintf("t%d", len(t.Items))
		for _, it := range t.Items {
			out += Schema(it)
		}
		return out
	case Record:
		out := fmt.Sprintf("m%d", len(t.Fields))
		for _, f := range t.Fields {
			out += fmt.Sprintf("%d%s%s", len(f.Name), f.Name, Schema(f.Type))
		}
		return out
	}
	return string(t.Kind)
}
