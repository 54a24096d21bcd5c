package integration

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What differs between the revisions nexus speaks (mcp.md, "Differences
// between revisions"), each rule checked in a session of 2025-11-25 and,
// unchanged, of 2025-06-18: by the Go SDK pinned to the revision, over
// stdio and Streamable HTTP, and with raw JSON-RPC over HTTP.

// revisionsProgram is httpProgram with a tool without arguments, answer.
func revisionsProgram() files {
	fs := maps.Clone(httpProgram)
	fs["main.loc"] = strings.Replace(fs["main.loc"], "module work (add, point, fail, hold)", "module work (add, point, fail, hold, answer)", 1) +
		"\n--' The answer.\nanswer :: Int\nanswer = 42\n"
	return fs
}

// badAdd is a call of revisionsProgram's add whose argument a has the wrong
// type, and addWrongType what nexus says of it in every revision.
var badAdd = map[string]any{"a": "one", "b": 2}

const addWrongType = `invalid value for argument 'a': expected an integer, got the string "one"`

// TestMCPRevisionsGoSDK: the Go SDK pinned to 2025-11-25 gets bad argument
// values as a tool error with nexus's message; pinned to 2025-06-18 as a
// JSON-RPC error with the same message. An unknown tool is a JSON-RPC
// error in both. Over stdio and over HTTP.
func TestMCPRevisionsGoSDK(t *testing.T) {
	p := build(t, revisionsProgram())
	for _, version := range []string{"2025-11-25", "2025-06-18"} {
		t.Run(version+"/stdio", func(t *testing.T) {
			p := p.in(t)
			s := startSDKSession(t, p, version)
			checkRevisionCalls(t, s.cs, version)
			if err := s.close(); err != nil {
				t.Errorf("close: %v\nstderr:\n%s", err, s.stderr.String())
			}
			p.checkClean()
		})
		t.Run(version+"/http", func(t *testing.T) {
			p := p.in(t)
			srv := startHTTP(t, p.tmp, nil, "mcp", p.launcher)
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "nexus-integration", Version: "0"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.base + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect at %s: %v", version, err)
			}
			checkRevisionCalls(t, cs, version)
			if err := cs.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			srv.stop()
			p.checkClean()
		})
	}
}

// checkRevisionCalls checks, in cs, a session asking for version, the
// negotiated version, a good call, a call with a bad argument value and
// one of an unknown tool.
func checkRevisionCalls(t *testing.T, cs *mcp.ClientSession, version string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Errorf("negotiated %q, want %q", got, version)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}}); err != nil || res.IsError || toolText(res) != "3" {
		t.Errorf("add 1 2: %v %v", res, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: badAdd})
	switch {
	case version >= "2025-11-25":
		if err != nil || res == nil || !res.IsError || toolText(res) != addWrongType {
			t.Errorf("a bad argument: %v %v, want a tool error saying %q", res, err, addWrongType)
		}
	case !isRPCError(err, -32602, addWrongType):
		t.Errorf("a bad argument: %v %v, want the JSON-RPC error -32602 saying %q", res, err, addWrongType)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}}); !isRPCError(err, -32602, "unknown tool 'nope'") {
		t.Errorf("an unknown tool: %v %v, want a JSON-RPC error", res, err)
	}
}

// isRPCError reports whether err, from the Go SDK, is the JSON-RPC error
// code with message msg.
func isRPCError(err error, code int64, msg string) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) && e.Code == code && e.Message == msg
}

// TestHTTPRevisions: the HTTP rules of both revisions with raw requests:
// the negotiated version, Mcp-Protocol-Version (missing is served, an
// invalid or unsupported one is 400), an Origin that is present and
// invalid is 403 (on initialize too), bad arguments answered per revision,
// and the list's schema of a tool without arguments.
func TestHTTPRevisions(t *testing.T) {
	p := build(t, revisionsProgram())
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher)
	call := func(tool string, args any) map[string]any { return map[string]any{"name": tool, "arguments": args} }
	for _, version := range []string{"2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			s.t = t
			init := map[string]any{"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "0"}}
			if r := s.rpc("", 0, "initialize", init, "Origin", "http://evil.example"); r.status != 403 || !jsonError(r, "Origin") || r.header.Get("Mcp-Session-Id") != "" {
				t.Errorf("initialize from another site: %v, want 403 and no session", r)
			}

			r := s.rpc("", 0, "initialize", init, "Origin", "http://localhost:"+s.port)
			sid := r.header.Get("Mcp-Session-Id")
			var result struct{ ProtocolVersion string }
			if m := rpcOf(t, r); r.status != 200 || sid == "" || json.Unmarshal(m.Result, &result) != nil || result.ProtocolVersion != version {
				t.Fatalf("initialize: %v, session %q", r, sid)
			}
			if r := s.rpc(sid, nil, "notifications/initialized", nil, "Mcp-Protocol-Version", version); r.status != http.StatusAccepted {
				t.Fatalf("notifications/initialized: %v", r)
			}

			good := call("add", map[string]any{"a": 1, "b": 2})
			for _, h := range [][]string{{"Mcp-Protocol-Version", version}, nil} {
				if r := s.rpc(sid, 1, "tools/call", good, h...); r.status != 200 || rpcOf(t, r).Error != nil {
					t.Errorf("a call with header %q: %v", h, r)
				}
			}
			for _, bad := range []string{"2025-13-01", "latest", "2026-07-28x"} {
				wantRPCError(t, "Mcp-Protocol-Version "+bad, s.rpc(sid, 2, "tools/call", good, "Mcp-Protocol-Version", bad), 400, "2", -32600, "unsupported Mcp-Protocol-Version", bad)
			}
			for _, origin := range []string{"http://evil.example", "null"} {
				if r := s.rpc(sid, 3, "tools/call", good, "Mcp-Protocol-Version", version, "Origin", origin); r.status != 403 || !jsonError(r, "Origin") {
					t.Errorf("Origin %s: %v, want 403", origin, r)
				}
			}

			badArgs := s.rpc(sid, 4, "tools/call", call("add", map[string]any{"a": 1.5, "b": 2}), "Mcp-Protocol-Version", version)
			const says = `invalid value for argument 'a': expected an integer`
			if version >= "2025-11-25" {
				var res struct {
					Content []struct{ Text string } `json:"content"`
					IsError bool                    `json:"isError"`
				}
				if m := rpcOf(t, badArgs); badArgs.status != 200 || m.Error != nil || json.Unmarshal(m.Result, &res) != nil ||
					!res.IsError || len(res.Content) != 1 || !strings.HasPrefix(res.Content[0].Text, says) {
					t.Errorf("a bad argument: %v, want a tool error saying %q", badArgs, says)
				}
			} else {
				wantRPCError(t, "a bad argument", badArgs, 200, "4", -32602, says)
			}
			wantRPCError(t, "an unknown tool", s.rpc(sid, 5, "tools/call", call("nope", map[string]any{}), "Mcp-Protocol-Version", version), 200, "5", -32602, "unknown tool 'nope'")

			var list struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
			}
			r = s.rpc(sid, 6, "tools/list", nil, "Mcp-Protocol-Version", version)
			if err := json.Unmarshal(rpcOf(t, r).Result, &list); err != nil {
				t.Fatalf("tools/list: %v: %v", r, err)
			}
			want := `{"type":"object","properties":{},"required":[],"additionalProperties":false}`
			if version >= "2025-11-25" {
				want = `{"type":"object","additionalProperties":false}`
			}
			found := false
			for _, tool := range list.Tools {
				if tool.Name == "answer" {
					found = true
					if string(tool.InputSchema) != want {
						t.Errorf("answer's input schema %s, want %s", tool.InputSchema, want)
					}
				}
			}
			if !found {
				t.Errorf("no tool answer in %v", r)
			}
		})
	}
	s.t = t
	s.stop()
	p.checkClean()
}
