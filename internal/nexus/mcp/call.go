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

// readCallParams reads the params of tools/call, which are valid JSON (the
// whole message was checked): split, not decoded, so that large arguments
// are read once, by their own types, in bind.
func readCallParams(params []byte) (callParams, *jsonrpc.Error) {
	var p callParams
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
			out = failChecked(m, internal("tools/call: %v", p))
		}
	}()
	if len(m.Params) == 0 {
		return failChecked(m, invalidParams("tools/call needs params with the tool's name"))
	}
	p, perr := readCallParams(m.Params)
	if perr != nil {
		return failChecked(m, perr)
	}
	if p.Name == "" {
		return failChecked(m, invalidParams("tools/call params have no tool name"))
	}
	res, err := s.callTool(ctx, p.Name, p.Arguments, m.Check)
	var bad *jsonrpc.Error
	switch {
	case errors.As(err, &bad):
		return failChecked(m, bad)
	case err != nil:
		return jsonrpc.ResultJSON(m.ID, toolResult(err.Error(), nil, true))
	}
	record := res.Record
	if !structured {
		record = nil
	}
	return jsonrpc.ResultJSON(m.ID, toolResult(res.Text, record, false))
}

// failChecked answers m with err, or with the parse error when m turns
// out not to be JSON (see jsonrpc.Message.Check).
func failChecked(m *jsonrpc.Message, err *jsonrpc.Error) []byte {
	if perr := m.Check(); perr != nil {
		return jsonrpc.Fail(jsonrpc.Null, perr)
	}
	return jsonrpc.Fail(m.ID, err)
}

// callTool calls tool name with named arguments. It calls check after
// binding the arguments and before anything runs: a failed check fails
// the call. A bad call, on which nothing ran (an unknown tool, a missing,
// unknown or ill-typed argument), fails with a *jsonrpc.Error of
// CodeInvalidParams; a failure of the command is an error whose message is
// fit to show the user (see tool.Set.Run).
func (s *Server) callTool(ctx context.Context, name string, named map[string]json.RawMessage, check func() *jsonrpc.Error) (tool.Result, error) {
	t := s.tools.Tool(name)
	if t == nil {
		return tool.Result{}, callError(tool.UnknownTool(name))
	}
	c, bad := t.Bind(named)
	if err := check(); err != nil {
		return tool.Result{}, err
	}
	if bad != nil {
		return tool.Result{}, callError(bad)
	}
	return s.tools.Run(ctx, t, c)
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
