package gopool

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/proto"
)

func args(t *testing.T, vs ...any) []byte {
	t.Helper()
	if vs == nil {
		vs = []any{}
	}
	data, err := msgpack.Marshal(vs)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func divide(a, b int) int { return helper(a, b) }

func helper(a, b int) int { return a / b }

func TestRun(t *testing.T) {
	div := Function{Name: "div", Args: 2, Call: func(_ context.Context, d *msgpack.Decoder, e *msgpack.Encoder) error {
		a, err := DecodeInt[int](d)
		if err != nil {
			return ArgError(0, err)
		}
		b, err := DecodeInt[int](d)
		if err != nil {
			return ArgError(1, err)
		}
		return EncodeInt(e, divide(a, b))
	}}
	res, err := run(context.Background(), div, args(t, 7, 2))
	if err != nil {
		t.Fatal(err)
	}
	var got int
	if err := msgpack.Unmarshal(res, &got); err != nil || got != 3 {
		t.Errorf("7/2 = %v, %v", got, err)
	}

	_, err = run(context.Background(), div, args(t, 1, 0))
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want a PanicError", err)
	}
	msg := err.Error()
	t.Log(msg)
	if first, _, _ := strings.Cut(msg, "\n"); first != "panicked: runtime error: integer divide by zero" {
		t.Errorf("first line %q", first)
	}
	for _, want := range []string{"pools/go.helper(", "pools/go.divide(", "call_test.go:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q", want)
		}
	}
	for _, unwanted := range []string{"goroutine ", "runtime/debug", "panic(", "pools/go.run(", "runtime.panicdivide"} {
		if strings.Contains(msg, unwanted) {
			t.Errorf("message has the runtime's frame %q", unwanted)
		}
	}

	if _, err := run(context.Background(), div, args(t, 1)); err == nil || err.Error() != "div takes 2 arguments, the nexus sent 1" {
		t.Errorf("one argument: %v", err)
	}
	if _, err := run(context.Background(), div, args(t, "x", 1)); err == nil || !strings.HasPrefix(err.Error(), "argument 1: ") {
		t.Errorf("a string argument: %v", err)
	}
}

func TestRunReturnsError(t *testing.T) {
	f := Function{Name: "f", Args: 0, Call: func(context.Context, *msgpack.Decoder, *msgpack.Encoder) error {
		return errors.New("no such file: x.txt")
	}}
	if _, err := run(context.Background(), f, args(t)); err == nil || err.Error() != "no such file: x.txt" {
		t.Errorf("got %v", err)
	}
}

func TestPanicText(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{"boom", "boom"},
		{errors.New("bad"), "bad"},
		{42, "42"},
		{struct{ A int }{1}, "struct { A int }{A:1}"},
	} {
		if got := panicText(c.v); got != c.want {
			t.Errorf("panicText(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestServerUnknownFunction(t *testing.T) {
	s := &server{fns: map[uint32]Function{}}
	reply, err := s.Call(t.Context(), &proto.CallRequest{Function: 9})
	if err != nil || !strings.Contains(reply.Error, "no function with id 9") {
		t.Errorf("got %v, %v", reply, err)
	}
}
