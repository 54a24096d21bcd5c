package gopool

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// FuncRef is a function of this pool given as an argument (a program's
// function type; types.FuncRef in the nexus): function ID, called with its
// arguments laid out by Slots, one per argument: -1 for the next of
// Captured (a value the nexus computed, msgpack-encoded as that argument),
// else the index of the caller's argument that goes there. `map (add 3)
// xs` passes add as {ID, [-1, 0], [3]}.
//
// Generated code turns a FuncRef into a Go func value of the type the
// user's function declares; the prelude's loops (prelude.go) call it on
// msgpack values directly. Either way the call stays in the process: its
// arguments and result cross as msgpack, as they do from the nexus, so any
// function of the pool can be passed, whatever Go types it declares.
type FuncRef struct {
	ID       uint32
	Slots    []int
	Captured []msgpack.RawMessage
	fn       Function
}

// DecodeFuncRef reads a function reference, [id, [slots], [captured]], of
// a function this pool serves.
func DecodeFuncRef(d *msgpack.Decoder) (*FuncRef, error) {
	if _, err := DecodeLen(d, false, 3); err != nil {
		return nil, fmt.Errorf("a function reference [id, slots, captured]: %w", err)
	}
	id, err := d.DecodeUint32()
	if err != nil {
		return nil, err
	}
	ref := &FuncRef{ID: id}
	n, err := DecodeLen(d, false, -1)
	if err != nil {
		return nil, err
	}
	ref.Slots = make([]int, n)
	for i := range ref.Slots {
		if ref.Slots[i], err = d.DecodeInt(); err != nil {
			return nil, err
		}
	}
	if n, err = DecodeLen(d, false, -1); err != nil {
		return nil, err
	}
	ref.Captured = make([]msgpack.RawMessage, n)
	for i := range ref.Captured {
		if ref.Captured[i], err = d.DecodeRaw(); err != nil {
			return nil, err
		}
	}
	f, ok := registry[id]
	if !ok {
		return nil, fmt.Errorf("the nexus passed function %d, which this Go pool does not have; rebuild the program with `nexus make`", id)
	}
	if f.Args != len(ref.Slots) {
		return nil, fmt.Errorf("%s takes %d arguments, the function reference gives %d", f.Name, f.Args, len(ref.Slots))
	}
	ref.fn = f
	return ref, nil
}

// Call calls the function with the caller's arguments, each written by one
// of args, and reads its result with result. Its error is a *FuncError.
func (r *FuncRef) Call(args []func(*msgpack.Encoder) error, result func(*msgpack.Decoder) error) error {
	if err := r.call(args, result); err != nil {
		return &FuncError{Name: r.fn.Name, Err: err}
	}
	return nil
}

func (r *FuncRef) call(args []func(*msgpack.Encoder) error, result func(*msgpack.Decoder) error) error {
	var buf bytes.Buffer
	enc := msgpack.GetEncoder()
	defer msgpack.PutEncoder(enc)
	enc.Reset(&buf)
	if err := enc.EncodeArrayLen(len(r.Slots)); err != nil {
		return err
	}
	next := 0
	for _, s := range r.Slots {
		var err error
		switch {
		case s < 0 && next < len(r.Captured):
			err = enc.Encode(r.Captured[next])
			next++
		case s >= 0 && s < len(args):
			err = args[s](enc)
		default:
			return fmt.Errorf("a malformed reference to %s: slot %d of %d arguments and %d captured", r.fn.Name, s, len(args), len(r.Captured))
		}
		if err != nil {
			return err
		}
	}
	// Progress and cancellation belong to the call the nexus made, not to
	// the functions it runs inside.
	out, err := run(context.Background(), r.fn, buf.Bytes())
	if err != nil {
		return err
	}
	dec := msgpack.GetDecoder()
	defer msgpack.PutDecoder(dec)
	dec.Reset(&input{data: out})
	if err := result(dec); err != nil {
		return ResultError(err)
	}
	return nil
}

// CallRaw calls the function with the caller's arguments already encoded,
// and returns its result encoded.
func (r *FuncRef) CallRaw(args ...msgpack.RawMessage) (msgpack.RawMessage, error) {
	enc := make([]func(*msgpack.Encoder) error, len(args))
	for i, a := range args {
		enc[i] = func(e *msgpack.Encoder) error { return e.Encode(a) }
	}
	var out msgpack.RawMessage
	err := r.Call(enc, func(d *msgpack.Decoder) (err error) {
		out, err = d.DecodeRaw()
		return err
	})
	return out, err
}

// FuncError is the failure of a function called through a function
// argument. Generated code panics with it when the Go func type has no
// error result; the runtime then reports the error itself, not a panic.
type FuncError struct {
	Name string // the function's name in the program
	Err  error
}

func (e *FuncError) Error() string {
	return fmt.Sprintf("%s, given as a function argument: %s", e.Name, e.Err)
}

func (e *FuncError) Unwrap() error { return e.Err }

// recovered is the error a call that panicked with v fails with: a
// *FuncError as it is, anything else as a *PanicError with the stack.
func recovered(v any, stack []byte) error {
	if err, ok := v.(error); ok {
		var fe *FuncError
		if errors.As(err, &fe) {
			return fe
		}
	}
	return &PanicError{Value: v, Stack: userStack(stack)}
}

// CallBool is CallRaw for a function that returns a Bool.
func (r *FuncRef) CallBool(args ...msgpack.RawMessage) (bool, error) {
	enc := make([]func(*msgpack.Encoder) error, len(args))
	for i, a := range args {
		enc[i] = func(e *msgpack.Encoder) error { return e.Encode(a) }
	}
	var out bool
	err := r.Call(enc, func(d *msgpack.Decoder) (err error) {
		out, err = d.DecodeBool()
		return err
	})
	return out, err
}
