package gopool

import (
	"bytes"
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/proto"
)

// Function is one function a pool serves, as the generated code registers
// it.
type Function struct {
	// Name is the function's name in the program, for messages.
	Name string
	// Args is the number of arguments a call carries.
	Args int
	// Call decodes the arguments from args (positioned after the array
	// header, whose length the runtime has checked), calls the user's
	// function and encodes its result into result. An error it returns is
	// the call's failure message: a conversion error, or the error the
	// user's function returned. It may panic; the runtime recovers. ctx is
	// the call's, passed to a user's function whose first parameter is a
	// context.Context: it carries the call's progress reporting (Progress).
	Call func(ctx context.Context, args *msgpack.Decoder, result *msgpack.Encoder) error
}

// registry holds the functions by manifest id. Generated code fills it
// from init functions, before Serve reads it; it is read-only after.
var registry = map[uint32]Function{}

// Register makes f callable as function id. Generated code calls it once
// per function from an init function; a second registration of an id is a
// bug in the generator and panics.
func Register(id uint32, f Function) {
	if prev, dup := registry[id]; dup {
		panic(fmt.Sprintf("gopool: function id %d registered twice (%s and %s)", id, prev.Name, f.Name))
	}
	registry[id] = f
}

// server answers nexus.pool.Pool calls. Calls run concurrently, each on
// the goroutine gRPC gives it.
type server struct {
	proto.UnimplementedPoolServer
	fns map[uint32]Function
}

func (s *server) Call(ctx context.Context, req *proto.CallRequest) (*proto.CallReply, error) {
	return s.call(ctx, req), nil
}

// call runs the function req names, with ctx as the call's context.
func (s *server) call(ctx context.Context, req *proto.CallRequest) *proto.CallReply {
	f, ok := s.fns[req.Function]
	if !ok {
		return &proto.CallReply{Error: fmt.Sprintf("this Go pool has no function with id %d; rebuild the program with `nexus make`", req.Function)}
	}
	defer afterCall(allocated())
	result, err := run(withTrace(ctx, req.Traceparent, req.Tracestate), f, req.Args)
	if err != nil {
		return &proto.CallReply{Error: err.Error()}
	}
	return &proto.CallReply{Result: result}
}

// run calls f with the msgpack array args and returns its msgpack result.
// A panic in f is returned as a *PanicError, or as the *FuncError it
// panicked with (see FuncError).
func run(ctx context.Context, f Function, args []byte) (result []byte, err error) {
	dec := msgpack.GetDecoder()
	defer msgpack.PutDecoder(dec)
	dec.Reset(&input{data: args})
	n, err := dec.DecodeArrayLen()
	if err != nil {
		return nil, fmt.Errorf("%s: the arguments are not a msgpack array: %w", f.Name, err)
	}
	if n != f.Args {
		return nil, fmt.Errorf("%s takes %d arguments, the nexus sent %d", f.Name, f.Args, n)
	}
	var buf bytes.Buffer
	enc := msgpack.GetEncoder()
	defer msgpack.PutEncoder(enc)
	enc.Reset(&buf)
	defer func() {
		if v := recover(); v != nil {
			result, err = nil, recovered(v, debug.Stack())
		}
	}()
	if err := f.Call(ctx, dec, enc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PanicError is a panic in a user's function, recovered.
type PanicError struct {
	Value any
	// Stack is the stack trace from the panicking function down to the
	// user's function the pool called, as Go prints it.
	Stack string
}

// Error is "panicked: VALUE" on the first line, then the stack trace.
// (Not Go's own "panic: VALUE": that is how a crashed Go program, the
// nexus included, opens its last words, and this is not a crash.)
func (e *PanicError) Error() string {
	msg := "panicked: " + panicText(e.Value)
	if e.Stack != "" {
		msg += "\n\n" + e.Stack
	}
	return msg
}

func panicText(v any) string {
	switch v := v.(type) {
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
	case string:
		return v
	}
	return fmt.Sprintf("%#v", v)
}

// userStack cuts a stack trace taken in run's deferred recover down to the
// user's frames: it drops the goroutine line, the recovering frames, panic
// and the runtime frames that raised it (a division by zero, a nil map),
// and everything from the generated caller (or run) on: the pool's and
// gRPC's frames. User packages are named as the user knows them (mathx,
// not their import path inside the generated module).
func userStack(stack []byte) string {
	lines := strings.Split(strings.TrimRight(string(stack), "\n"), "\n")
	if len(lines) < 3 {
		return string(stack)
	}
	// Each frame is a function line and a "\tfile:line" line.
	frames := lines[1:]
	start := -1
	for i := 0; i+1 < len(frames); i += 2 {
		if strings.HasPrefix(frames[i], "panic(") {
			start = i + 2
			break
		}
	}
	if start < 0 {
		return string(stack)
	}
	for start+1 < len(frames) && strings.HasPrefix(frames[start], "runtime.") {
		start += 2
	}
	end := len(frames)
	for i := start; i+1 < len(frames); i += 2 {
		if strings.Contains(frames[i], "."+GeneratedPrefix) || strings.HasPrefix(frames[i], ImportPath+".run(") {
			end = i
			break
		}
	}
	kept := frames[start:end]
	for i := 0; i < len(kept); i += 2 {
		kept[i] = strings.TrimPrefix(kept[i], UserPackages)
	}
	return strings.Join(kept, "\n")
}

// UserPackages opens the import path codegen gives each user package in
// the generated module (nexuspool/user/mathx).
const UserPackages = "nexuspool/user/"

// GeneratedPrefix starts every name the generator declares in a user's
// package, so that they cannot clash with the user's own and so that stack
// traces can tell them apart.
const GeneratedPrefix = "nexus_"

// ArgError wraps the failure to convert argument Index (from 0).
func ArgError(index int, err error) error {
	return fmt.Errorf("argument %d: %w", index+1, err)
}

// ResultError wraps the failure to convert the result.
func ResultError(err error) error {
	return fmt.Errorf("result: %w", err)
}
