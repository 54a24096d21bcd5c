package gopool

import (
	"context"
	"fmt"
	"slices"

	"github.com/vmihailenco/msgpack/v5"
)

// The prelude's higher-order functions, run in the Go pool: when a program
// maps (filters, folds, ...) a Go function over a list, the nexus calls one
// of these once with a reference to that function (FuncRef), and the whole
// loop runs here instead of one pool call per element. The generated
// main.go registers each use (RegisterPrelude) under the name the checker
// gives it (check/prelude.go's poolPrelude), as the Python pool's
// prelude.py and the C++ pool's nexus_prelude.hpp do.
//
// The loops are generic; the pool runs them on msgpack values (Raw), which
// the function they are given decodes into the Go types it declares, so
// one loop serves every instance, records included. Their semantics are
// those of the nexus's own builtins.

// Raw is a value in its msgpack form.
type Raw = msgpack.RawMessage

// Map is [f(x) for x in xs].
func Map[A, B any](f func(A) (B, error), xs []A) ([]B, error) {
	out := make([]B, len(xs))
	for i, x := range xs {
		y, err := f(x)
		if err != nil {
			return nil, err
		}
		out[i] = y
	}
	return out, nil
}

// Filter keeps the items of xs for which keep is true.
func Filter[A any](keep func(A) (bool, error), xs []A) ([]A, error) {
	var out []A
	for _, x := range xs {
		ok, err := keep(x)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, x)
		}
	}
	return out, nil
}

// Fold is f(...f(f(acc, xs[0]), xs[1])..., xs[n-1]).
func Fold[A, B any](f func(B, A) (B, error), acc B, xs []A) (B, error) {
	for _, x := range xs {
		var err error
		if acc, err = f(acc, x); err != nil {
			return acc, err
		}
	}
	return acc, nil
}

// Scanl is acc and every step of Fold.
func Scanl[A, B any](f func(B, A) (B, error), acc B, xs []A) ([]B, error) {
	out := append(make([]B, 0, len(xs)+1), acc)
	for _, x := range xs {
		var err error
		if acc, err = f(acc, x); err != nil {
			return nil, err
		}
		out = append(out, acc)
	}
	return out, nil
}

// ZipWith is [f(x, y) for x, y in zip(xs, ys)], as long as the shorter.
func ZipWith[A, B, C any](f func(A, B) (C, error), xs []A, ys []B) ([]C, error) {
	n := min(len(xs), len(ys))
	out := make([]C, n)
	for i := range n {
		z, err := f(xs[i], ys[i])
		if err != nil {
			return nil, err
		}
		out[i] = z
	}
	return out, nil
}

// Any tells whether p holds for some item.
func Any[A any](p func(A) (bool, error), xs []A) (bool, error) {
	for _, x := range xs {
		if ok, err := p(x); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// All tells whether p holds for every item.
func All[A any](p func(A) (bool, error), xs []A) (bool, error) {
	for _, x := range xs {
		if ok, err := p(x); err != nil || !ok {
			return ok, err
		}
	}
	return true, nil
}

// Find is the first item for which p holds, or nil.
func Find[A any](p func(A) (bool, error), xs []A) (*A, error) {
	for i, x := range xs {
		ok, err := p(x)
		if err != nil {
			return nil, err
		}
		if ok {
			return &xs[i], nil
		}
	}
	return nil, nil
}

// ConcatMap is the items of f(x) for every x, in order.
func ConcatMap[A, B any](f func(A) ([]B, error), xs []A) ([]B, error) {
	var out []B
	for _, x := range xs {
		ys, err := f(x)
		if err != nil {
			return nil, err
		}
		out = append(out, ys...)
	}
	return out, nil
}

// Partition splits xs into the items for which p holds and the others.
func Partition[A any](p func(A) (bool, error), xs []A) (yes, no []A, err error) {
	for _, x := range xs {
		ok, err := p(x)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			yes = append(yes, x)
		} else {
			no = append(no, x)
		}
	}
	return yes, no, nil
}

// TakeWhile is the items before the first for which p does not hold.
func TakeWhile[A any](p func(A) (bool, error), xs []A) ([]A, error) {
	i, err := firstNot(p, xs)
	if err != nil {
		return nil, err
	}
	return xs[:i], nil
}

// DropWhile is the items from the first for which p does not hold.
func DropWhile[A any](p func(A) (bool, error), xs []A) ([]A, error) {
	i, err := firstNot(p, xs)
	if err != nil {
		return nil, err
	}
	return xs[i:], nil
}

// firstNot is the index of the first item for which p does not hold, or
// len(xs).
func firstNot[A any](p func(A) (bool, error), xs []A) (int, error) {
	for i, x := range xs {
		ok, err := p(x)
		if err != nil || !ok {
			return i, err
		}
	}
	return len(xs), nil
}

// SortBy sorts xs by lt, a "less than", keeping equal items in order.
func SortBy[A any](lt func(A, A) (bool, error), xs []A) ([]A, error) {
	out := slices.Clone(xs)
	var failed error
	less := func(a, b A) bool {
		if failed != nil {
			return false
		}
		ok, err := lt(a, b)
		if err != nil {
			failed = err
		}
		return ok
	}
	slices.SortStableFunc(out, func(a, b A) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
	if failed != nil {
		return nil, failed
	}
	return out, nil
}

// GroupBy puts each item in the group of the item before it when eq says
// they are equal, else starts a new group.
func GroupBy[A any](eq func(A, A) (bool, error), xs []A) ([][]A, error) {
	var out [][]A
	for _, x := range xs {
		if n := len(out); n > 0 {
			g := out[n-1]
			same, err := eq(g[len(g)-1], x)
			if err != nil {
				return nil, err
			}
			if same {
				out[n-1] = append(g, x)
				continue
			}
		}
		out = append(out, []A{x})
	}
	return out, nil
}

// preludeLoop is one loop as the pool serves it: its argument count and
// its call on msgpack values.
type preludeLoop struct {
	args int
	call func(d *msgpack.Decoder, e *msgpack.Encoder) error
}

// preludeLoops are the loops by their names in the pool.
var preludeLoops = map[string]preludeLoop{
	"morloc_map":       overList(func(f *FuncRef, xs []Raw) (any, error) { return Map(rawFn1(f), xs) }),
	"morloc_filter":    overList(func(f *FuncRef, xs []Raw) (any, error) { return Filter(rawPred1(f), xs) }),
	"morloc_any":       overList(func(f *FuncRef, xs []Raw) (any, error) { return Any(rawPred1(f), xs) }),
	"morloc_all":       overList(func(f *FuncRef, xs []Raw) (any, error) { return All(rawPred1(f), xs) }),
	"morloc_find":      overList(func(f *FuncRef, xs []Raw) (any, error) { return Find(rawPred1(f), xs) }),
	"morloc_takeWhile": overList(func(f *FuncRef, xs []Raw) (any, error) { return TakeWhile(rawPred1(f), xs) }),
	"morloc_dropWhile": overList(func(f *FuncRef, xs []Raw) (any, error) { return DropWhile(rawPred1(f), xs) }),
	"morloc_sortBy":    overList(func(f *FuncRef, xs []Raw) (any, error) { return SortBy(rawPred2(f), xs) }),
	"morloc_groupBy":   overList(func(f *FuncRef, xs []Raw) (any, error) { return GroupBy(rawPred2(f), xs) }),
	"morloc_concatMap": overList(func(f *FuncRef, xs []Raw) (any, error) { return ConcatMap(rawListFn(f), xs) }),
	"morloc_partition": overList(func(f *FuncRef, xs []Raw) (any, error) {
		yes, no, err := Partition(rawPred1(f), xs)
		return [2][]Raw{yes, no}, err
	}),
	"morloc_fold":    withStart(func(f *FuncRef, acc Raw, xs []Raw) (any, error) { return Fold(rawFn2(f), acc, xs) }),
	"morloc_scanl":   withStart(func(f *FuncRef, acc Raw, xs []Raw) (any, error) { return Scanl(rawFn2(f), acc, xs) }),
	"morloc_zipWith": {3, zipWithLoop},
}

// overList is a loop over a function and a list.
func overList(run func(*FuncRef, []Raw) (any, error)) preludeLoop {
	return preludeLoop{2, func(d *msgpack.Decoder, e *msgpack.Encoder) error {
		f, err := decodeLoopFunc(d)
		if err != nil {
			return err
		}
		xs, err := decodeRawArg(d, 2)
		if err != nil {
			return err
		}
		return encodeLoopResult(e)(run(f, xs))
	}}
}

// withStart is a loop over a function, a start value and a list.
func withStart(run func(*FuncRef, Raw, []Raw) (any, error)) preludeLoop {
	return preludeLoop{3, func(d *msgpack.Decoder, e *msgpack.Encoder) error {
		f, err := decodeLoopFunc(d)
		if err != nil {
			return err
		}
		acc, err := d.DecodeRaw()
		if err != nil {
			return ArgError(1, err)
		}
		xs, err := decodeRawArg(d, 3)
		if err != nil {
			return err
		}
		return encodeLoopResult(e)(run(f, acc, xs))
	}}
}

// zipWithLoop is zipWith: a function and two lists.
func zipWithLoop(d *msgpack.Decoder, e *msgpack.Encoder) error {
	f, err := decodeLoopFunc(d)
	if err != nil {
		return err
	}
	xs, err := decodeRawArg(d, 2)
	if err != nil {
		return err
	}
	ys, err := decodeRawArg(d, 3)
	if err != nil {
		return err
	}
	return encodeLoopResult(e)(ZipWith(rawFn2(f), xs, ys))
}

// HasPrelude tells whether the pool has the loop called name.
func HasPrelude(name string) bool {
	_, ok := preludeLoops[name]
	return ok
}

// RegisterPrelude makes the loop called name (morloc_map, ...) callable as
// function id; program names it as the program does, for messages.
// Generated code calls it once per loop from an init function; a name the
// runtime does not have is a bug in the generator and panics.
func RegisterPrelude(id uint32, name, program string) {
	l, ok := preludeLoops[name]
	if !ok {
		panic(fmt.Sprintf("gopool: no prelude loop %s", name))
	}
	Register(id, Function{Name: program, Args: l.args, Call: func(_ context.Context, d *msgpack.Decoder, e *msgpack.Encoder) error {
		return l.call(d, e)
	}})
}

// encodeLoopResult returns the writer of what a loop returns, or of its
// failure.
func encodeLoopResult(e *msgpack.Encoder) func(v any, err error) error {
	return func(v any, err error) error {
		if err != nil {
			return err
		}
		return encodeRaws(e, v)
	}
}

// encodeRaws writes a loop's result: a value, a Bool, an optional value, a
// list (nil is the empty list), a list of lists or a pair of lists.
func encodeRaws(e *msgpack.Encoder, v any) error {
	switch v := v.(type) {
	case Raw:
		return e.Encode(v)
	case bool:
		return e.EncodeBool(v)
	case *Raw:
		if v == nil {
			return e.EncodeNil()
		}
		return e.Encode(*v)
	case []Raw:
		if err := e.EncodeArrayLen(len(v)); err != nil {
			return err
		}
		for _, x := range v {
			if err := e.Encode(x); err != nil {
				return err
			}
		}
		return nil
	case [][]Raw:
		if err := e.EncodeArrayLen(len(v)); err != nil {
			return err
		}
		for _, xs := range v {
			if err := encodeRaws(e, xs); err != nil {
				return err
			}
		}
		return nil
	case [2][]Raw:
		return encodeRaws(e, v[:])
	}
	return fmt.Errorf("gopool: a prelude loop returned %T", v)
}

func decodeLoopFunc(d *msgpack.Decoder) (*FuncRef, error) {
	f, err := DecodeFuncRef(d)
	if err != nil {
		return nil, ArgError(0, err)
	}
	return f, nil
}

// decodeRawArg reads argument n (from 1), a list, item by item.
func decodeRawArg(d *msgpack.Decoder, n int) ([]Raw, error) {
	xs, err := decodeRawItems(d)
	if err != nil {
		return nil, ArgError(n-1, err)
	}
	return xs, nil
}

func decodeRawItems(d *msgpack.Decoder) ([]Raw, error) {
	n, err := DecodeLen(d, false, -1)
	if err != nil {
		return nil, err
	}
	xs := make([]Raw, n)
	for i := range xs {
		if xs[i], err = d.DecodeRaw(); err != nil {
			return nil, Index(err, i)
		}
	}
	return xs, nil
}

func decodeRawList(v Raw) ([]Raw, error) {
	d := msgpack.GetDecoder()
	defer msgpack.PutDecoder(d)
	d.Reset(&input{data: v})
	return decodeRawItems(d)
}

func rawFn1(f *FuncRef) func(Raw) (Raw, error) {
	return func(x Raw) (Raw, error) { return f.CallRaw(x) }
}

func rawFn2(f *FuncRef) func(Raw, Raw) (Raw, error) {
	return func(a, b Raw) (Raw, error) { return f.CallRaw(a, b) }
}

func rawListFn(f *FuncRef) func(Raw) ([]Raw, error) {
	return func(x Raw) ([]Raw, error) {
		y, err := f.CallRaw(x)
		if err != nil {
			return nil, err
		}
		return decodeRawList(y)
	}
}

func rawPred1(f *FuncRef) func(Raw) (bool, error) {
	return func(x Raw) (bool, error) { return f.CallBool(x) }
}

func rawPred2(f *FuncRef) func(Raw, Raw) (bool, error) {
	return func(a, b Raw) (bool, error) { return f.CallBool(a, b) }
}
