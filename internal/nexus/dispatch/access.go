package dispatch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"

	"github.com/nexus-run/nexus/manifest"
)

// evalAccess evaluates Morloc's getters and setters beyond a record's
// field: a tuple's item, a list's or string's index or slice (Python's
// rules), and a copy with one part replaced.
func (d *Dispatcher) evalAccess(ctx context.Context, e *manifest.Expr, vars []any) (any, error) {
	args, err := d.evalAll(ctx, e.Args, vars)
	if err != nil {
		return nil, err
	}
	switch e.Kind {
	case manifest.Item:
		t, ok := args[0].([]any)
		if !ok || e.Ref >= len(t) {
			return nil, fmt.Errorf("tuple item .%d of %T", e.Ref, args[0])
		}
		return t[e.Ref], nil
	case manifest.Index:
		i, ok := args[1].(int64)
		if !ok {
			return nil, fmt.Errorf("index of %T, not Int", args[1])
		}
		return index(args[0], i)
	case manifest.Slice:
		return slice(args[0], args[1], args[2], args[3])
	case manifest.Set:
		return set(e, args[0], args[1])
	}
	return nil, fmt.Errorf("unknown expression kind %q", e.Kind)
}

// index is item i of a list or string, a negative i counting from the end.
func index(v any, i int64) (any, error) {
	if s, ok := v.(string); ok {
		r := []rune(s)
		j, err := within(i, len(r))
		if err != nil {
			return nil, err
		}
		return string(r[j]), nil
	}
	l := reflect.ValueOf(v)
	if l.Kind() != reflect.Slice {
		return nil, fmt.Errorf("index of %T, not a list", v)
	}
	j, err := within(i, l.Len())
	if err != nil {
		return nil, err
	}
	return l.Index(j).Interface(), nil
}

func within(i int64, n int) (int, error) {
	j := i
	if j < 0 {
		j += int64(n)
	}
	if j < 0 || j >= int64(n) {
		return 0, fmt.Errorf("index %d out of range for a length of %d", i, n)
	}
	return int(j), nil
}

// slice is v[lo:hi:by] with Python's rules; a nil bound was not written.
func slice(v, lo, hi, by any) (any, error) {
	step := int64(1)
	if by != nil {
		step = by.(int64)
	}
	if step == 0 {
		return nil, errors.New("slice step cannot be zero")
	}
	if s, ok := v.(string); ok {
		r := []rune(s)
		picked := sliceIndexes(len(r), lo, hi, step)
		out := make([]rune, len(picked))
		for k, i := range picked {
			out[k] = r[i]
		}
		return string(out), nil
	}
	l := reflect.ValueOf(v)
	if l.Kind() != reflect.Slice {
		return nil, fmt.Errorf("slice of %T, not a list", v)
	}
	picked := sliceIndexes(l.Len(), lo, hi, step)
	out := reflect.MakeSlice(l.Type(), len(picked), len(picked))
	for k, i := range picked {
		out.Index(k).Set(l.Index(i))
	}
	return out.Interface(), nil
}

// sliceIndexes are the indexes a slice of a sequence of n picks, as in
// Python's slice.indices: bounds default to the whole sequence in the
// step's direction, count from the end when negative, and are clamped.
func sliceIndexes(n int, lo, hi any, step int64) []int {
	size := int64(n)
	bound := func(b any, dflt int64) int64 {
		if b == nil {
			return dflt
		}
		x := b.(int64)
		if x < 0 {
			x += size
		}
		lower, upper := int64(0), size
		if step < 0 {
			lower, upper = -1, size-1
		}
		return max(lower, min(x, upper))
	}
	var start, stop int64
	if step > 0 {
		start, stop = bound(lo, 0), bound(hi, size)
	} else {
		start, stop = bound(lo, size-1), bound(hi, -1)
	}
	var out []int
	for i := start; step > 0 && i < stop || step < 0 && i > stop; i += step {
		out = append(out, int(i))
	}
	return out
}

// set is a copy of v with the part e names replaced by part.
func set(e *manifest.Expr, v, part any) (any, error) {
	if e.Field != "" {
		rec, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("setting .%s of %T, not a record", e.Field, v)
		}
		out := maps.Clone(rec)
		out[e.Field] = part
		return out, nil
	}
	t, ok := v.([]any)
	if !ok || e.Ref >= len(t) {
		return nil, fmt.Errorf("setting item .%d of %T", e.Ref, v)
	}
	out := append([]any(nil), t...)
	out[e.Ref] = part
	return out, nil
}
