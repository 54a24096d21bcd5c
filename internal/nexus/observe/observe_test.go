package observe

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestHubFansOut(t *testing.T) {
	var nilHub *Hub
	nilHub.Done(Call{Tool: "x"}) // must not panic

	h := NewHub()
	var a, b []string
	h.Watch(func(c Call) { a = append(a, c.Tool) })
	h.Done(Call{Tool: "one"})
	h.Watch(func(c Call) { b = append(b, c.Tool) })
	h.Done(Call{Tool: "two"})
	if fmt.Sprint(a) != "[one two]" || fmt.Sprint(b) != "[two]" {
		t.Fatalf("watchers saw %v and %v, want [one two] and [two]", a, b)
	}
}

func TestRecentKeepsTheLast(t *testing.T) {
	r := NewRecent(3)
	if got := r.List(); len(got) != 0 {
		t.Fatalf("empty ring lists %v", got)
	}
	for i := 1; i <= 5; i++ {
		r.Add(Call{Tool: fmt.Sprint(i)})
		var names []string
		for _, c := range r.List() {
			names = append(names, c.Tool)
		}
		want := map[int]string{1: "[1]", 2: "[2 1]", 3: "[3 2 1]", 4: "[4 3 2]", 5: "[5 4 3]"}[i]
		if fmt.Sprint(names) != want {
			t.Fatalf("after %d adds: %v, want %s", i, names, want)
		}
	}
}

func TestFailureOutcome(t *testing.T) {
	cases := []struct {
		err  error
		want Outcome
	}{
		{errors.New("boom"), ToolError},
		{fmt.Errorf("f: %w", context.DeadlineExceeded), Timeout},
		{fmt.Errorf("f: %w", context.Canceled), Cancelled},
	}
	for _, c := range cases {
		if got := FailureOutcome(c.err); got != c.want {
			t.Errorf("FailureOutcome(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}

func TestInFlight(t *testing.T) {
	var nilHub *Hub
	nilHub.Begin(HTTP) // must not panic

	h := NewHub()
	h.Begin(HTTP)
	h.Begin(HTTP)
	h.Begin(Stdio)
	h.Done(Call{Transport: HTTP})
	if got := [2]int{h.InFlight(HTTP), h.InFlight(Stdio)}; got != [2]int{1, 1} {
		t.Fatalf("in flight (http, stdio) = %v, want [1 1]", got)
	}
	h.Done(Call{Transport: HTTP})
	h.Done(Call{Transport: HTTP}) // a Done without its Begin does not go below zero
	if got := h.InFlight(HTTP); got != 0 {
		t.Fatalf("in flight over http = %d, want 0", got)
	}
}
