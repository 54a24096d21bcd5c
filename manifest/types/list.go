package types

// A value of a List type is a []any, or, when its element type is one of
// Int, Real, Str and Bool, a slice of that element's canonical Go type:
// []int64, []float64, []string, []bool. The readers of this package
// (FromJSON, FromJSONValue, DecodeMsgpack) always give the typed slice for
// those element types, so a list of a hundred thousand reals is one array
// of float64, without an interface value (and an allocation) per item.
// Values built elsewhere, such as a list written in a command's body, may
// be a []any of the same items; every reader of values accepts both. A
// Tuple value is a []any.
//
// Len, Index and Items are the one statement of that rule: code that reads
// list values goes through them rather than a type switch of its own.

// Len is the number of items of the list value v; ok is false when v is
// not a list value.
func Len(v any) (n int, ok bool) {
	switch xs := v.(type) {
	case []any:
		return len(xs), true
	case []float64:
		return len(xs), true
	case []int64:
		return len(xs), true
	case []string:
		return len(xs), true
	case []bool:
		return len(xs), true
	}
	return 0, false
}

// Index is item i of the list value v, for 0 <= i < n where n, true =
// Len(v). Like indexing a slice, it panics when i is out of range or v is
// not a list value: callers check with Len first.
func Index(v any, i int) any {
	switch xs := v.(type) {
	case []any:
		return xs[i]
	case []float64:
		return xs[i]
	case []int64:
		return xs[i]
	case []string:
		return xs[i]
	case []bool:
		return xs[i]
	}
	panic("types.Index of a value that is not a list")
}

// Items is the list value v as a []any: v itself when it is one (shared,
// not copied), otherwise a new slice of its items. ok is false when v is
// not a list value.
func Items(v any) (items []any, ok bool) {
	if xs, ok := v.([]any); ok {
		return xs, true
	}
	n, ok := Len(v)
	if !ok {
		return nil, false
	}
	items = make([]any, n)
	for i := range items {
		items[i] = Index(v, i)
	}
	return items, true
}

// typedElem reports whether a list of elem is read as a typed slice
// rather than a []any.
func typedElem(elem *Type) bool {
	switch elem.Kind {
	case Int, Real, Str, Bool:
		return true
	}
	return false
}

// Concat is the list value of list's items followed by more's; list may
// be nil (no items yet). When both are typed slices of one element type,
// or list has no items, the result keeps more's form: a hundred thousand
// reals read from a file and added to a variadic argument stay one
// []float64. Otherwise the result is a []any. Like append, it may reuse
// list's array.
func Concat(list, more any) any {
	if n, _ := Len(list); n == 0 {
		return more
	}
	var out any
	var same bool
	switch xs := list.(type) {
	case []float64:
		out, same = appendSame(xs, more)
	case []int64:
		out, same = appendSame(xs, more)
	case []string:
		out, same = appendSame(xs, more)
	case []bool:
		out, same = appendSame(xs, more)
	}
	if same {
		return out
	}
	a, _ := Items(list)
	b, _ := Items(more)
	return append(a, b...)
}

// appendSame appends more to xs when more is a []T too.
func appendSame[T any](xs []T, more any) (any, bool) {
	ys, ok := more.([]T)
	if !ok {
		return nil, false
	}
	return append(xs, ys...), true
}
