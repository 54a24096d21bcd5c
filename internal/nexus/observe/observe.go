// Package observe carries what happens in a running nexus to whoever
// watches it: the end of each tool call, with its outcome, goes to the
// metrics, the call log and the status page's list of recent calls alike,
// so that all three count the same calls the same way. The call paths (an
// MCP tools/call, a JSON API call) report to a Hub; the watchers register
// on it. A nil *Hub watches nothing, so code that reports needs no check.
package observe

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Outcome is how a tool call ended. The set is closed: metrics label
// calls by it.
type Outcome string

const (
	// OK: the command ran and answered.
	OK Outcome = "ok"
	// ToolError: the command failed (an exception, @throw, a pool that
	// died or could not start, a result that does not fit its type).
	ToolError Outcome = "tool_error"
	// BadArguments: nothing ran, the call was wrong (unknown tool or
	// argument, a missing or ill-typed one, a malformed request).
	BadArguments Outcome = "bad_arguments"
	// Denied: nothing ran, the caller's credential may not call the tool.
	Denied Outcome = "denied"
	// Timeout: the call ran past its bound.
	Timeout Outcome = "timeout"
	// Cancelled: the client cancelled the call or went away.
	Cancelled Outcome = "cancelled"
)

// Outcomes are all outcomes, in a fixed order.
var Outcomes = []Outcome{OK, ToolError, BadArguments, Denied, Timeout, Cancelled}

// FailureOutcome is the outcome of a call whose command failed with err:
// Timeout or Cancelled when the call's context ended it, else ToolError.
func FailureOutcome(err error) Outcome {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout
	case errors.Is(err, context.Canceled):
		return Cancelled
	}
	return ToolError
}

// Transports a call arrives by.
const (
	Stdio   = "stdio" // MCP over standard input and output
	HTTP    = "http"  // MCP over Streamable HTTP
	JSONAPI = "api"   // nexus serve's JSON API (POST /call/...)
)

// Call is one finished tool call.
type Call struct {
	// Program is the program's module name; Tool the tool's name as the
	// client called it ("" when the request named none).
	Program, Tool string
	// Transport is Stdio, HTTP or JSONAPI; Protocol the MCP revision the
	// client speaks ("" for the JSON API).
	Transport, Protocol string
	Start               time.Time
	Duration            time.Duration
	Outcome             Outcome
	// Error is the failure's message for a ToolError, Timeout or
	// Cancelled call, else "". Never the arguments: they may hold
	// anything a user would not have logged.
	Error string
}

// Hub fans each finished call out to its watchers, in the order they
// were added, on the caller's goroutine: a watcher must be quick and must
// not block (count, append to a ring, write a line).
type Hub struct {
	mu       sync.RWMutex
	watchers []func(Call)
	// inFlight counts the calls begun and not done, by transport: one
	// counter for each of the three, made by NewHub and never changed,
	// so that Begin and Done, on every call's path, take no lock for it.
	inFlight map[string]*atomic.Int64
}

// NewHub returns a hub without watchers.
func NewHub() *Hub {
	return &Hub{inFlight: map[string]*atomic.Int64{Stdio: {}, HTTP: {}, JSONAPI: {}}}
}

// Watch adds f, called with every call that ends from now on.
func (h *Hub) Watch(f func(Call)) {
	h.mu.Lock()
	h.watchers = append(h.watchers, f)
	h.mu.Unlock()
}

// Begin reports that a call came by transport, before anything else is
// known of it: each Begin is followed by one Done of the same transport,
// and InFlight counts the calls between the two. On a nil Hub it does
// nothing.
func (h *Hub) Begin(transport string) {
	if h == nil {
		return
	}
	if n := h.inFlight[transport]; n != nil {
		n.Add(1)
	}
}

// InFlight is the number of calls that came by transport, begun and not
// done yet.
func (h *Hub) InFlight(transport string) int {
	if h == nil {
		return 0
	}
	if n := h.inFlight[transport]; n != nil {
		return int(n.Load())
	}
	return 0
}

// Done reports a finished call, begun by Begin. On a nil Hub it does
// nothing.
func (h *Hub) Done(c Call) {
	if h == nil {
		return
	}
	if n := h.inFlight[c.Transport]; n != nil {
		// Never below zero, should a Done come without its Begin.
		for v := n.Load(); v > 0 && !n.CompareAndSwap(v, v-1); v = n.Load() {
		}
	}
	h.mu.RLock()
	ws := h.watchers
	h.mu.RUnlock()
	for _, f := range ws {
		f(c)
	}
}

// Recent keeps the last calls, for the status page.
type Recent struct {
	mu    sync.Mutex
	calls []Call // a ring of cap(calls) entries once full
	next  int
}

// NewRecent keeps the last n calls (n at least 1).
func NewRecent(n int) *Recent {
	return &Recent{calls: make([]Call, 0, max(n, 1))}
}

// Add records c, dropping the oldest call when full.
func (r *Recent) Add(c Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) < cap(r.calls) {
		r.calls = append(r.calls, c)
		return
	}
	r.calls[r.next] = c
	r.next = (r.next + 1) % len(r.calls)
}

// List returns the calls kept, newest first.
func (r *Recent) List() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Call, 0, len(r.calls))
	for i := len(r.calls) - 1; i >= 0; i-- {
		out = append(out, r.calls[(r.next+i)%len(r.calls)])
	}
	return out
}

// toolKey is the context key of the tool a call runs.
type toolKey struct{}

// WithTool returns ctx marked as running the tool called name, so that
// what happens below it (a pool's output while it is the pool's only
// call) can be told apart by tool.
func WithTool(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, toolKey{}, name)
}

// ToolOf returns the tool ctx runs (WithTool), "" when none is known.
func ToolOf(ctx context.Context) string {
	name, _ := ctx.Value(toolKey{}).(string)
	return name
}
