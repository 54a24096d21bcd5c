package types

import "unsafe"

// boxReals returns xs as canonical values, a []any of float64, without an
// allocation per item: each interface value points at its item of xs. The
// caller gives xs up: nothing may write to it after.
//
// Boxing a float64 (any(x)) allocates eight bytes for it. For the hundred
// thousand reals of a large call, those allocations and the collector's
// work on them cost 13% of the call in the nexus (a sequential stdio call
// of the peer benchmark's sum went from 23–24 ms to 19–21 ms without them).
//
// An interface value holding a float64 is a type word and a pointer to the
// float; here the pointers point into one array. That is sound because:
// the array is never written again, so the values are as immutable as any(x)
// makes them; the collector keeps an allocation alive through a pointer to
// any byte of it, so the array lives as long as one of the values does;
// and the stores below are pointer stores into a []any, which the compiler
// gives write barriers as it does any pointer store. The layout of an
// interface value (eface) has been Go's since its first release;
// TestBoxedReals checks the values against any(x) in every use the nexus
// makes of them, after collections.
func boxReals(xs []float64) []any {
	out := make([]any, len(xs))
	for i := range xs {
		e := (*eface)(unsafe.Pointer(&out[i]))
		e.typ = float64Type
		e.data = unsafe.Pointer(&xs[i])
	}
	return out
}

// eface is the layout of an interface value without methods (the
// runtime's eface).
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// float64Type is the type word of an interface value holding a float64.
var float64Type = func() unsafe.Pointer {
	var v any = float64(1)
	return (*eface)(unsafe.Pointer(&v)).typ
}()
