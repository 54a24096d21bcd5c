package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/tracing"
	"github.com/nexus-run/nexus/manifest/types"
)

// DefaultCallTimeout bounds a tool call when Options leave it zero. Long
// enough for real scientific work, short enough that a function stuck in a
// loop does not keep an agent waiting forever.
const DefaultCallTimeout = 10 * time.Minute

// Options configure a Set. The zero value works.
type Options struct {
	// CallTimeout bounds each call: zero means DefaultCallTimeout, a
	// negative value no bound.
	CallTimeout time.Duration
}

// Set is the tools a server offers, by name, and the bound on each call.
// It holds no state beyond them: any number of calls may run at once.
type Set struct {
	tools   []*Tool
	byName  map[string]*Tool
	timeout time.Duration // 0: no bound
}

// NewSet returns the set of tools, whose names must differ.
func NewSet(tools []*Tool, opts Options) *Set {
	s := &Set{tools: tools, byName: make(map[string]*Tool, len(tools))}
	for _, t := range tools {
		s.byName[t.Name] = t
	}
	switch {
	case opts.CallTimeout == 0:
		s.timeout = DefaultCallTimeout
	case opts.CallTimeout > 0:
		s.timeout = opts.CallTimeout
	}
	return s
}

// Tools are the tools of the set, in order.
func (s *Set) Tools() []*Tool { return s.tools }

// Tool returns the tool called name, or nil.
func (s *Set) Tool(name string) *Tool { return s.byName[name] }

// Result is the outcome of a tool call that succeeded.
type Result struct {
	// Value is the result as compact JSON: the command's, or its output
	// action's (a render action's text as a JSON string).
	Value []byte
	// Text is what MCP's text block shows: Value, but a render action's
	// text as it is.
	Text string
	// Own is the command's own result as JSON, before any output action:
	// the structured content, for a client that sees the tool's output
	// schema (Tool.Structured).
	Own []byte
	// Mime is the media type of a media result (the command's mime:, when
	// no output action applied), whose bytes are Media; "" otherwise.
	Mime  string
	Media []byte
	// Rendered says Text is a render action's text.
	Rendered bool
}

// Call calls tool name with named arguments: Bind, then Run. A bad call,
// on which nothing ran (an unknown tool, a missing, unknown or ill-typed
// argument), fails with an *ArgError; otherwise see Run.
func (s *Set) Call(ctx context.Context, name string, named map[string]json.RawMessage) (Result, error) {
	t := s.byName[name]
	if t == nil {
		return Result{}, UnknownTool(name)
	}
	_, bind := tracing.Bind(ctx, name)
	c, err := t.Bind(named)
	bind.End(err)
	if err != nil {
		return Result{}, err
	}
	return s.Run(ctx, t, c)
}

// Run runs the bound call c of tool t, within the set's bound on a call.
// A failure of the command is an error whose message is fit to show the
// user; it wraps the cause (a pool.FunctionError, a dispatch.ThrowError,
// a context error).
func (s *Set) Run(ctx context.Context, t *Tool, c Call) (Result, error) {
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	res, err := t.run(ctx, c)
	if err != nil {
		return Result{}, s.failure(ctx, t, err)
	}
	return res, nil
}

// run runs the tool's command with c's arguments, then c's action if any.
func (t *Tool) run(ctx context.Context, c Call) (Result, error) {
	v, err := t.d.Run(ctx, t.cmd, c.Args)
	if err != nil {
		return Result{}, err
	}
	out, err := types.ToJSON(t.cmd.Return, v)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", t.cmd.Name, err)
	}
	res := Result{Own: out}
	action := c.Action
	if action == nil {
		res.Value, res.Text = out, string(out)
		if s, ok := v.(string); ok && t.cmd.Mime != "" {
			res.Mime, res.Media = t.cmd.Mime, []byte(s)
		}
		return res, nil
	}
	v, err = t.d.RunAction(ctx, action, v)
	if err != nil {
		return Result{}, err
	}
	if res.Value, err = types.ToJSON(action.Return, v); err != nil {
		return Result{}, fmt.Errorf("%s: %w", t.cmd.Name, err)
	}
	res.Text = string(res.Value)
	if s, ok := v.(string); ok && action.Kind == "render" {
		res.Text, res.Rendered = s, true
	}
	return res, nil
}

// failure is the error of a failed call, with a message that says what
// happened when the call was cut short: one message for a timeout and one
// for a cancellation, whichever layer noticed first (the wait for a pool's
// place, the wait for its start, or the call itself, whose errors wrap the
// context's).
func (s *Set) failure(ctx context.Context, t *Tool, err error) error {
	cause := ctx.Err()
	if cause == nil {
		// The error can be seen a moment before the context says so.
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			cause = context.DeadlineExceeded
		case errors.Is(err, context.Canceled):
			cause = context.Canceled
		}
	}
	switch {
	case errors.Is(cause, context.DeadlineExceeded) && s.timeout > 0:
		return &cutShort{fmt.Sprintf("%s timed out after %v", t.Name, s.timeout), cause}
	case cause != nil:
		return &cutShort{fmt.Sprintf("%s was cancelled", t.Name), cause}
	}
	return err
}

// cutShort is a call ended by its context: a timeout or a cancellation.
type cutShort struct {
	msg   string
	cause error
}

func (e *cutShort) Error() string { return e.msg }
func (e *cutShort) Unwrap() error { return e.cause }
