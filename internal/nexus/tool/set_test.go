package tool

import (
	"context"
	"errors"
	"testing"
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
	if got, want := string(res.Value), `{"x":1.5,"y":2.0}`; got != want {
		t.Errorf("value: got %s, want %s", got, want)
	}
	if string(res.Record) != string(res.Value) || res.Text != string(res.Value) {
		t.Errorf("a record result is its own structured content and text: got record %s, text %s", res.Record, res.Text)
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
