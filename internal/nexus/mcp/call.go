package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nexus-run/nexus/internal/nexus/jsonrpc"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// callParams are the params of tools/call.
type callParams struct {
	Name      string
	Arguments map[string]json.RawMessage
}

// readCallParams reads the params of tools/call, split, not decoded, so
// that large arguments are read once, by their own types, in bind. They
// may not be JSON: the check of a large message may still run (see
// jsonrpc.ReadParams).
func readCallParams(params []byte) (callParams, *jsonrpc.Error) {
	var p callParams
	if len(params) == 0 {
		return p, invalidParams("tools/call needs params with the tool's name")
	}
	members, err := jsonrpc.Members(params)
	if err != nil {
		return p, invalidParams("invalid tools/call params: %v", err)
	}
	for _, m := range members {
		switch m.Key {
		case "name":
			if err := json.Unmarshal(m.Value, &p.Name); err != nil {
				return p, invalidParams("invalid tools/call params: name must be a string")
			}
		case "arguments":
			if string(m.Value) == "null" {
				continue
			}
			args, err := jsonrpc.Members(m.Value)
			if err != nil {
				return p, invalidParams("invalid tools/call params: arguments must be an object")
			}
			p.Arguments = make(map[string]json.RawMessage, len(args))
			for _, a := range args {
				p.Arguments[a.Key] = a.Value
			}
		}
	}
	if p.Name == "" {
		return p, invalidParams("tools/call params have no tool name")
	}
	return p, nil
}

// call runs one tools/call request and returns its encoded reply. A bad
// request is a JSON-RPC error; a failure of the command (an exception,
// @throw, a pool that died, a timeout) is a result with isError set.
// structured says whether the client's version has structured results.
func (s *Server) call(ctx context.Context, m *jsonrpc.Message, structured bool) (out []byte) {
	defer func() {
		// A bug in the server must not kill it: it ends this call only.
		if p := recover(); p != nil {
			out = m.Fail(internal("tools/call: %v", p))
		}
	}()
	// Binding reads the arguments while a large message's check runs; the
	// call runs only once the message is known to be JSON.
	c, bad := jsonrpc.ReadParams(m, func(params json.RawMessage) (boundCall, *jsonrpc.Error) {
		p, err := readCallParams(params)
		if err != nil {
			return boundCall{}, err
		}
		return s.bind(p.Name, p.Arguments)
	})
	if bad != nil {
		return m.Fail(bad)
	}
	res, err := s.run(ctx, c)
	if err != nil {
		return m.ResultJSON(toolResult(err.Error(), nil, true))
	}
	record := res.Record
	if !structured {
		record = nil
	}
	return m.ResultJSON(toolResult(res.Text, record, false))
}

// Result is the outcome of a tool call that succeeded.
type Result struct {
	// Value is the result as compact JSON: the command's, or its output
	// action's (a render action's text as a JSON string).
	Value []byte
	// Text is what MCP's text block shows: Value, but a render action's
	// text as it is.
	Text string
	// Record is the command's own result as JSON when it is a record (the
	// structured content), else nil.
	Record []byte
}

// Call calls tool name with named arguments, as tools/call does (and the
// JSON API of nexus serve). A bad call, on which nothing ran (an unknown
// tool, a missing, unknown or ill-typed argument), fails with a
// *jsonrpc.Error of CodeInvalidParams. A failure of the command is an
// error whose message is fit to show the user; it wraps the cause (a
// pool.FunctionError, a dispatch.ThrowError, a context error).
func (s *Server) Call(ctx context.Context, name string, named map[string]json.RawMessage) (Result, error) {
	c, bad := s.bind(name, named)
	if bad != nil {
		return Result{}, bad
	}
	return s.run(ctx, c)
}

// boundCall is a call ready to run: its tool, and its arguments bound.
type boundCall struct {
	t      *Tool
	args   []any
	action *manifest.Action
}

// bind is all of a call that comes before anything runs: finding tool
// name, and binding named to its arguments.
func (s *Server) bind(name string, named map[string]json.RawMessage) (boundCall, *jsonrpc.Error) {
	t := s.byName[name]
	if t == nil {
		return boundCall{}, invalidParams("unknown tool '%s'", name)
	}
	args, action, bad := t.bind(named)
	if bad != nil {
		return boundCall{}, bad
	}
	return boundCall{t: t, args: args, action: action}, nil
}

// run runs a bound call, within the server's timeout.
func (s *Server) run(ctx context.Context, c boundCall) (Result, error) {
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	res, err := c.t.run(ctx, c.args, c.action)
	if err != nil {
		return Result{}, s.failure(ctx, c.t, err)
	}
	return res, nil
}

// Tool returns the tool called name, or nil.
func (s *Server) Tool(name string) *Tool { return s.byName[name] }

// run runs the tool's command with args, then action if not nil.
func (t *Tool) run(ctx context.Context, args []any, action *manifest.Action) (Result, error) {
	v, err := t.d.Run(ctx, t.cmd, args)
	if err != nil {
		return Result{}, err
	}
	out, err := types.ToJSON(t.cmd.Return, v)
	if err != nil {
		return Result{}, fmt.Errorf("result of %s: %w", t.cmd.Name, err)
	}
	var res Result
	if t.cmd.Return.Kind == types.Record {
		res.Record = out
	}
	if action == nil {
		res.Value, res.Text = out, string(out)
		return res, nil
	}
	v, err = t.d.RunAction(ctx, action, v)
	if err != nil {
		return Result{}, err
	}
	if res.Value, err = types.ToJSON(action.Return, v); err != nil {
		return Result{}, fmt.Errorf("result of %s: %w", t.cmd.Name, err)
	}
	res.Text = string(res.Value)
	if s, ok := v.(string); ok && action.Kind == "render" {
		res.Text = s
	}
	return res, nil
}

// failure is the error of a failed call, with a message that says what
// happened when the call was cut short.
func (s *Server) failure(ctx context.Context, t *Tool, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &cutShort{fmt.Sprintf("%s timed out after %v", t.Name, s.timeout), ctx.Err()}
	case ctx.Err() != nil:
		return &cutShort{fmt.Sprintf("%s was cancelled", t.Name), ctx.Err()}
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

// toolResult encodes a CallToolResult: one text block, the structured
// content when there is some, and isError.
func toolResult(text string, structured []byte, isError bool) []byte {
	b := make([]byte, 0, len(text)+len(structured)+64)
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = appendString(b, text)
	b = append(b, "}]"...)
	if structured != nil {
		b = append(b, `,"structuredContent":`...)
		b = append(b, structured...)
	}
	if isError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}')
}
