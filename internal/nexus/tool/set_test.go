package tool

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestSetCall(t *testing.T) {
	tools, _ := surfaceTools(t)
	s := NewSet(tools, Options{})
	ctx := context.Background()

	// point's body builds its record without a pool.
	res, err := s.Call(ctx, "point", named(t, `{"_1":1.5}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.Value), `{"x":1.5,"y":2}`; got != want {
		t.Errorf("value: got %s, want %s", got, want)
	}
	if string(res.Own) != string(res.Value) || res.Text != string(res.Value) {
		t.Errorf("a record result is its own structured content and text: got %s, text %s", res.Own, res.Text)
	}
	legacy, modern := ListForm{OutputSchema: true}, ListForm{OutputSchema: true, AnyOutput: true}
	if p := s.Tool("point"); !p.Structured(legacy) || !p.Structured(modern) || p.Structured(ListForm{}) {
		t.Errorf("a record result is structured from 2025-06-18 on and not before")
	}

	// A Json result is no record: structured only where any JSON value
	// may be (MCP 2026-07-28), its text as it came.
	res, err = s.Call(ctx, "anyjson", named(t, `{"data":[{"z": 1, "a": "é"}, null]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.Value), `[{"z":1,"a":"é"},null]`; got != want || res.Text != want || string(res.Own) != want {
		t.Errorf("Json result: value %s, text %s, own %s; want %s", got, res.Text, res.Own, want)
	}
	if j := s.Tool("anyjson"); j.Structured(legacy) || !j.Structured(modern) {
		t.Errorf("a Json result is structured in 2026-07-28 only")
	}

	for _, tc := range []struct{ name, args, want string }{
		{"nope", `{}`, "unknown tool 'nope'"},
		{"point", `{}`, "missing required argument '_1' for tool 'point'"},
	} {
		_, err := s.Call(ctx, tc.name, named(t, tc.args))
		var bad *ArgError
		if !errors.As(err, &bad) || bad.Msg != tc.want || bad.Tool != tc.name {
			t.Errorf("%s %s: got %v, want an ArgError %q", tc.name, tc.args, err, tc.want)
		}
	}
}

// TestFailureOfACallCutShort: one message for a timeout and one for a
// cancellation, whether the context says so already or only the error
// does (it can come a moment before the context's own timer fires).
func TestFailureOfACallCutShort(t *testing.T) {
	s := NewSet(nil, Options{CallTimeout: 2 * time.Second})
	tl := &Tool{Name: "nap"}
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	live := context.Background()
	wrapped := func(err error) error { return fmt.Errorf("call nap: waiting for the c++ pool: %w", err) }
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"deadline passed", expired, wrapped(context.DeadlineExceeded), "nap timed out after 2s"},
		{"deadline in the error only", live, wrapped(context.DeadlineExceeded), "nap timed out after 2s"},
		{"cancelled", cancelled, wrapped(context.Canceled), "nap was cancelled"},
		{"cancellation in the error only", live, wrapped(context.Canceled), "nap was cancelled"},
		{"another failure", live, errors.New("c++ pool died while running nap (killed by signal SIGKILL)"), "c++ pool died while running nap (killed by signal SIGKILL)"},
	} {
		if got := s.failure(c.ctx, tl, c.err).Error(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
