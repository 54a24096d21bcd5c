package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/jsonrpc"
	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/internal/nexus/tracing"
)

// callParams are the params of tools/call.
type callParams struct {
	Name      string
	Arguments map[string]json.RawMessage
	Meta      json.RawMessage // _meta, unread
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
			// Into a variable of its own: &p.Name would put all of p on
			// the heap.
			var name string
			if err := json.Unmarshal(m.Value, &name); err != nil {
				return p, invalidParams("invalid tools/call params: name must be a string")
			}
			p.Name = name
		case "_meta":
			p.Meta = m.Value
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

// call runs one tools/call request of a client of protocol version
// version and returns its encoded reply. A request that is not a valid
// tools/call, or names an unknown tool, is a JSON-RPC error; so are bad
// arguments before 2025-11-25, and a result with isError from then on
// (see argErrorsAreResults). A failure of the command (an exception,
// @throw, a pool that died, a timeout) is a result with isError set, and
// so is a call of a tool the client's credential (in ctx, see
// guard.CredentialOf) may not call. Each call writes a line to the audit
// log.
func (s *Server) call(ctx context.Context, m *jsonrpc.Message, version string) (out []byte) {
	start := time.Now()
	s.observe.Begin(s.transport)
	cred := guard.CredentialOf(ctx)
	var name string
	outcome := guard.OutcomeError
	// seen is the call's outcome as the observers count it (observe), and
	// failure the message of a failed command.
	seen, failure := observe.BadArguments, ""
	var span *tracing.Span // the call's, once its name is known
	defer func() {
		// A bug in the server must not kill it: it ends this call only.
		if p := recover(); p != nil {
			out, outcome = m.Fail(internal("tools/call: %v", p)), guard.OutcomeError
			seen, failure = observe.ToolError, "internal error"
		}
		s.audit.Call(cred.String(), s.prog(name), name, start, outcome)
		s.observe.Done(observe.Call{Program: s.prog(name), Tool: name, Transport: s.transport, Protocol: version,
			Start: start, Duration: time.Since(start), Outcome: seen, Error: failure})
		span.EndCall(seen, failure)
	}()
	// Binding reads the arguments while a large message's check runs; the
	// call runs only once the message is known to be JSON.
	var badArgs error
	var denied string
	c, bad := jsonrpc.ReadParams(m, func(params json.RawMessage) (boundCall, *jsonrpc.Error) {
		p, err := readCallParams(params)
		if err != nil {
			return boundCall{}, err
		}
		name = p.Name
		ctx, span = s.traceCall(ctx, p, start, version)
		t, err := s.find(p.Name)
		if err != nil {
			return boundCall{}, err
		}
		if cred != nil && !cred.MayCall(t.Name) {
			// Nothing to bind: the arguments of a call that will not run
			// are nobody's business.
			denied = cred.Denied(t.Name)
			return boundCall{t: t}, nil
		}
		_, bind := tracing.Bind(ctx, t.Name)
		call, bindErr := t.Bind(p.Arguments)
		bind.End(bindErr)
		badArgs = bindErr
		return boundCall{t: t, call: call, meta: p.Meta}, nil
	})
	switch {
	case bad != nil:
		return m.Fail(bad)
	case denied != "":
		outcome, seen = guard.OutcomeIsError, observe.Denied
		return m.ResultJSON(toolResult(version, denied, nil, true))
	case badArgs != nil:
		out, isResult := argsFailure(m, badArgs, version)
		if isResult {
			outcome = guard.OutcomeIsError
		}
		return out
	}
	ctx, endProgress := startProgress(observe.WithTool(ctx, name), progressToken(c.meta), version)
	// Deferred, so that it runs on a panic too, and before the caller
	// sends the reply: nothing of the call may follow it.
	defer endProgress()
	res, err := s.run(ctx, c)
	if err != nil {
		outcome = guard.OutcomeIsError
		seen, failure = observe.FailureOutcome(err), err.Error()
		return m.ResultJSON(toolResult(version, err.Error(), nil, true))
	}
	outcome, seen = guard.OutcomeOK, observe.OK
	if res.Mime != "" {
		return m.ResultJSON(mediaResult(version, c.t.Name, res))
	}
	var structured []byte
	if c.t.Structured(listForm(version)) {
		structured = res.Own
	}
	return m.ResultJSON(toolResult(version, res.Text, structured, false))
}

// traceCall starts the span of call p, which began at start, when
// tracing is on. Its parent is the trace context of the request's _meta
// over stdio, whatever the revision, and in the stateless revision, where
// every request carries its own _meta; else, and when _meta has none, that
// of the HTTP request's headers, which ctx carries (see HTTPHandler).
func (s *Server) traceCall(ctx context.Context, p callParams, start time.Time, version string) (context.Context, *tracing.Span) {
	if !tracing.On() {
		return ctx, nil
	}
	if s.transport == observe.Stdio || stateless(version) {
		ctx, _ = tracing.FromMeta(ctx, p.Meta)
	}
	return tracing.ToolCall(ctx, start, s.prog(p.Name), p.Name, s.transport, version)
}

// boundCall is a call ready to run: its tool, and its arguments bound.
type boundCall struct {
	t    *tool.Tool
	call tool.Call
	meta json.RawMessage // the request's _meta, for its progressToken
}

// find finds the tool called name: a call of an unknown one fails with a
// *jsonrpc.Error of CodeInvalidParams in every protocol version, since
// there is nothing a model could correct in its arguments.
func (s *Server) find(name string) (*tool.Tool, *jsonrpc.Error) {
	t := s.tools.Tool(name)
	if t == nil {
		return nil, callError(tool.UnknownTool(name))
	}
	return t, nil
}

// argsFailure is the reply to m, whose arguments could not be bound (err,
// an *tool.ArgError when they are missing, unknown or ill-typed), for a
// client of protocol version version, and whether it is a result (with
// isError) rather than a JSON-RPC error.
func argsFailure(m *jsonrpc.Message, err error, version string) (reply []byte, isResult bool) {
	var bad *tool.ArgError
	if errors.As(err, &bad) && argErrorsAreResults(version) {
		return m.ResultJSON(toolResult(version, bad.Msg, nil, true)), true
	}
	return m.Fail(callError(err)), false
}

// run runs a bound call, within the server's timeout. A failure of the
// command is an error whose message is fit to show the user (see
// tool.Set.Run).
func (s *Server) run(ctx context.Context, c boundCall) (tool.Result, error) {
	return s.tools.Run(ctx, c.t, c.call)
}

// callError is the JSON-RPC error of a call that could not bind its
// arguments: invalid params, else a fault of the server's own.
func callError(err error) *jsonrpc.Error {
	var bad *tool.ArgError
	if errors.As(err, &bad) {
		return invalidParams("%s", bad.Msg)
	}
	return internal("%v", err)
}

// toolResult encodes a CallToolResult of protocol version version: one
// text block, the structured content when there is some (any JSON value,
// null included), isError, and in the stateless revision its resultType.
func toolResult(version, text string, structured []byte, isError bool) []byte {
	b := make([]byte, 0, len(text)+len(structured)+96)
	b = append(b, '{')
	if stateless(version) {
		b = append(b, `"resultType":"complete",`...)
	}
	b = append(b, `"content":[{"type":"text","text":`...)
	b = tool.AppendString(b, text)
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

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, format, args...)
}

func internal(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: "+format, args...)
}
