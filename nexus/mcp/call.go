package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
	"github.com/nexus-run/nexus/nexus/jsonrpc"
)

// callParams are the params of tools/call.
type callParams struct {
	Name      string                     `json:"name"`
	Arguments map[string]json.RawMessage `json:"arguments"`
}

// call runs one tools/call request and returns its encoded reply. A bad
// request is a JSON-RPC error; a failure of the command (an exception,
// @throw, a pool that died, a timeout) is a result with isError set.
// structured says whether the client's version has structured results.
func (s *Server) call(ctx context.Context, m *jsonrpc.Message, structured bool) (out []byte) {
	defer func() {
		// A bug in the server must not kill it: it ends this call only.
		if p := recover(); p != nil {
			out = jsonrpc.Fail(m.ID, internal("tools/call: %v", p))
		}
	}()
	var p callParams
	if len(m.Params) == 0 {
		return jsonrpc.Fail(m.ID, invalidParams("tools/call needs params with the tool's name"))
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return jsonrpc.Fail(m.ID, invalidParams("invalid tools/call params: %v", err))
	}
	if p.Name == "" {
		return jsonrpc.Fail(m.ID, invalidParams("tools/call params have no tool name"))
	}
	t := s.byName[p.Name]
	if t == nil {
		return jsonrpc.Fail(m.ID, invalidParams("unknown tool '%s'", p.Name))
	}
	args, action, err := t.bind(p.Arguments)
	if err != nil {
		return jsonrpc.Fail(m.ID, err)
	}
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	text, record, runErr := t.run(ctx, args, action)
	if runErr != nil {
		return jsonrpc.ResultJSON(m.ID, toolResult(s.failure(ctx, t, runErr), nil, true))
	}
	if !structured {
		record = nil
	}
	return jsonrpc.ResultJSON(m.ID, toolResult(text, record, false))
}

// run runs the tool's command with args, then action if not nil. text is
// what the result block shows: the result's compact JSON, or a render
// action's text as it is. record is the command's own result as JSON when
// it is a record (the structured content), else nil.
func (t *Tool) run(ctx context.Context, args []any, action *manifest.Action) (text string, record []byte, err error) {
	v, err := t.d.Run(ctx, t.cmd, args)
	if err != nil {
		return "", nil, err
	}
	out, err := types.ToJSON(t.cmd.Return, v)
	if err != nil {
		return "", nil, fmt.Errorf("result of %s: %w", t.cmd.Name, err)
	}
	if t.cmd.Return.Kind == types.Record {
		record = out
	}
	if action == nil {
		return string(out), record, nil
	}
	v, err = t.d.RunAction(ctx, action, v)
	if err != nil {
		return "", nil, err
	}
	if s, ok := v.(string); ok && action.Kind == "render" {
		return s, record, nil
	}
	out, err = types.ToJSON(action.Return, v)
	if err != nil {
		return "", nil, fmt.Errorf("result of %s: %w", t.cmd.Name, err)
	}
	return string(out), record, nil
}

// failure is the message of a failed call.
func (s *Server) failure(ctx context.Context, t *Tool, err error) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("%s timed out after %v", t.Name, s.timeout)
	case ctx.Err() != nil:
		return fmt.Sprintf("%s was cancelled", t.Name)
	}
	return err.Error()
}

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
