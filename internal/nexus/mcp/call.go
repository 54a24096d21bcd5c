package mcp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/nexus-run/nexus/internal/nexus/jsonrpc"
	"github.com/nexus-run/nexus/internal/nexus/tool"
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

// boundCall is a call ready to run: its tool, and its arguments bound.
type boundCall struct {
	t    *tool.Tool
	call tool.Call
}

// bind is all of a call that comes before anything runs: finding tool
// name, and binding named to its arguments. A bad call, on which nothing
// runs (an unknown tool, a missing, unknown or ill-typed argument), fails
// with a *jsonrpc.Error of CodeInvalidParams.
func (s *Server) bind(name string, named map[string]json.RawMessage) (boundCall, *jsonrpc.Error) {
	t := s.tools.Tool(name)
	if t == nil {
		return boundCall{}, callError(tool.UnknownTool(name))
	}
	c, err := t.Bind(named)
	if err != nil {
		return boundCall{}, callError(err)
	}
	return boundCall{t: t, call: c}, nil
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

// toolResult encodes a CallToolResult: one text block, the structured
// content when there is some, and isError.
func toolResult(text string, structured []byte, isError bool) []byte {
	b := make([]byte, 0, len(text)+len(structured)+64)
	b = append(b, `{"content":[{"type":"text","text":`...)
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
