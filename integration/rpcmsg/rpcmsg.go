// Package rpcmsg is MCP's JSON-RPC messages as the integration tests and
// the soak see them on the wire: encoded by hand, parsed strictly (Go's
// encoding/json, which refuses NaN, Infinity and every other extension),
// and posted to a Streamable HTTP endpoint with the headers a client
// sends.
package rpcmsg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Protocol is the MCP revision the clients here ask for.
const Protocol = "2025-06-18"

// Encode encodes one JSON-RPC message; a nil id makes a notification and
// nil params leaves them out. It panics on params that do not marshal:
// callers pass maps of plain values.
func Encode(id any, method string, params any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// Reply is one message from a server as it came: a response (an id and
// exactly one of Result and Error) or, with Method set, a notification or
// request of the server's.
type Reply struct {
	Line   string          `json:"-"` // the message as it came
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// ErrNotRPC marks what is not a JSON-RPC message where one must be.
var ErrNotRPC = errors.New("not a JSON-RPC message")

// Parse strictly parses data as one message from a server. The reply's
// ID is compacted, so that it compares byte for byte with an encoded id.
func Parse(data []byte) (*Reply, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, fmt.Errorf("%w: %v: %.200s", ErrNotRPC, err, data)
	}
	if string(members["jsonrpc"]) != `"2.0"` {
		return nil, fmt.Errorf("%w: no \"jsonrpc\":\"2.0\": %.200s", ErrNotRPC, data)
	}
	_, hasID := members["id"]
	_, hasResult := members["result"]
	_, hasError := members["error"]
	_, hasMethod := members["method"]
	if !hasMethod && (!hasID || hasResult == hasError) {
		return nil, fmt.Errorf("%w: neither a response (an id and one of result and error) nor a request: %.200s", ErrNotRPC, data)
	}
	r := &Reply{Line: string(data)}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("%w: %v: %.200s", ErrNotRPC, err, data)
	}
	var id bytes.Buffer
	if json.Compact(&id, r.ID) == nil {
		r.ID = id.Bytes()
	}
	return r, nil
}

// ToolResult is a tools/call result (CallToolResult) as it came.
type ToolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// NewPost makes a POST of body to a Streamable HTTP endpoint with the
// headers an MCP client sends: JSON content, both reply forms accepted,
// and, in session sid ("" for none), the session and protocol headers.
func NewPost(ctx context.Context, endpoint, sid string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", Protocol)
	}
	return req, nil
}
