package integration

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP 2026-07-28, the stateless revision, served beside the legacy ones:
// the Go SDK unpinned lands on it over stdio and HTTP, calls the tools of
// a real program, gets every return type structured, and cancels.

// statelessSchemas are the output schemas revisionsProgram's tools show
// a client of 2026-07-28: every return type, not records only.
var statelessSchemas = map[string]string{
	"add":    `{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`,
	"fail":   `{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`,
	"hold":   `{"type":"string"}`,
	"answer": `{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`,
	"point":  `{"type":"object","description":"A point on the diagonal y = 2x.","properties":{"x":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"y":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},"required":["x","y"],"additionalProperties":false}`,
}

// TestMCPStatelessGoSDK: the Go SDK client, unpinned, speaks 2026-07-28
// with nexus over stdio and Streamable HTTP: server/discover and no
// initialize, no session id, the output schemas and structured content of
// every return type, bad arguments as tool errors, and a cancelled call
// that frees the pool's one place (--pool-calls 1), which it does only if
// the held function was stopped.
func TestMCPStatelessGoSDK(t *testing.T) {
	p := build(t, revisionsProgram())
	t.Run("stdio", func(t *testing.T) {
		p := p.in(t)
		s := startSDKSession(t, p, "", "--pool-calls", "1")
		checkStatelessCalls(t, s.cs, "hold", func(name string) {
			waitStderr(t, s.stderr.String, "hold started "+name)
		})
		log := s.log.String()
		if !strings.Contains(log, `"method":"server/discover"`) || strings.Contains(log, `"method":"initialize"`) {
			t.Errorf("the SDK should have sent server/discover and no initialize:\n%s", log)
		}
		if !strings.Contains(log, `"method":"notifications/cancelled"`) {
			t.Errorf("the SDK should have cancelled the held call with notifications/cancelled:\n%s", log)
		}
		if err := s.close(); err != nil {
			t.Errorf("close: %v\nstderr:\n%s", err, s.stderr.String())
		}
		p.checkClean()
	})
	t.Run("http", func(t *testing.T) {
		p := p.in(t)
		srv := startHTTP(t, p.tmp, nil, "mcp", p.launcher, "--pool-calls", "1")
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		rec := &recorder{}
		client := mcp.NewClient(&mcp.Implementation{Name: "nexus-integration", Version: "0"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.base + "/mcp", HTTPClient: &http.Client{Transport: rec}}, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		checkStatelessCalls(t, cs, "hold", func(name string) {
			srv.waitFor("hold "+name+" to begin", func() bool { return strings.Contains(srv.stderr.String(), poolLine("hold started "+name)) })
		})
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if sid := rec.sessionID(); sid != "" {
			t.Errorf("a session id %q was minted for a 2026-07-28 client", sid)
		}
		srv.stop()
		p.checkClean()
	})
}

// checkStatelessCalls checks, with cs, a client of 2026-07-28, the
// discover result, the tool list, calls of each return type, a bad
// argument, an unknown tool, and a call of hold cancelled once started
// (waitStarted waits for that), after which the pool's one place serves
// the next call.
func checkStatelessCalls(t *testing.T, cs *mcp.ClientSession, hold string, waitStarted func(name string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	info := cs.InitializeResult()
	if info.ProtocolVersion != "2026-07-28" || info.ServerInfo == nil || info.ServerInfo.Name != "work" ||
		info.Capabilities == nil || info.Capabilities.Tools == nil || info.Capabilities.Tools.ListChanged {
		t.Errorf("discover: %s, want 2026-07-28, server work, tools without listChanged", marshalJSON(t, info))
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if list.TTLMs != 300000 || list.CacheScope != "public" {
		t.Errorf("tools/list: ttlMs %d, cacheScope %q; want 300000, public", list.TTLMs, list.CacheScope)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if got := marshalJSON(t, tool.OutputSchema); !equalJSON(got, []byte(statelessSchemas[tool.Name])) {
			t.Errorf("%s: outputSchema %s, want %s", tool.Name, got, statelessSchemas[tool.Name])
		}
	}
	if strings.Join(names, " ") != "add point fail hold answer" {
		t.Errorf("tools %v, want the program's order", names)
	}
	for _, c := range []struct {
		tool       string
		args       map[string]any
		structured string
	}{
		{"add", map[string]any{"a": 1, "b": 2}, `3`},
		{"answer", map[string]any{}, `42`},
		{"point", map[string]any{"x": 2}, `{"x":2,"y":4}`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError || !equalJSON(marshalJSON(t, res.StructuredContent), []byte(c.structured)) || toolText(res) != c.structured {
			t.Errorf("%s %v: %v %v, want structuredContent and text %s", c.tool, c.args, marshalJSON(t, res), err, c.structured)
		}
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: badAdd}); err != nil || !res.IsError || toolText(res) != addWrongType || res.StructuredContent != nil {
		t.Errorf("a bad argument: %v %v, want a tool error saying %q", res, err, addWrongType)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}}); !isRPCError(err, -32602, "unknown tool 'nope'") {
		t.Errorf("an unknown tool: %v %v, want a JSON-RPC error", res, err)
	}

	h := newHolder(t)
	fifo := h.fifo("cancelled")
	callCtx, cancelCall := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: hold, Arguments: map[string]any{"path": fifo}})
		done <- err
	}()
	waitStarted("cancelled")
	cancelCall()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call ended with %v", err)
	}
	// One call in flight a pool: this one runs only once the held one
	// has stopped (the pool replaced, since Python cannot stop a call).
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 2}}); err != nil || toolText(res) != "4" {
		t.Errorf("the call after the cancelled one: %v %v", res, err)
	}
}

// waitStderr waits, up to hangGuard, until stderr() holds line, a line a
// pool printed, as the server logs it (poolLine).
func waitStderr(t *testing.T, stderr func() string, line string) {
	t.Helper()
	for deadline := time.Now().Add(hangGuard); !strings.Contains(stderr(), poolLine(line)); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on stderr after %v:\n%s", line, hangGuard, stderr())
		}
	}
}

// TestHTTPStatelessRaw: the 2026-07-28 rules over HTTP with raw requests,
// against `nexus serve` (the router in front of the MCP endpoint): the
// headers checked against the body, the statuses, no session id, an
// Origin from elsewhere refused, and legacy sessions served beside.
func TestHTTPStatelessRaw(t *testing.T) {
	p := build(t, revisionsProgram())
	s := startHTTP(t, p.tmp, nil, "serve", p.launcher)
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	call := map[string]any{"_meta": meta, "name": "work__add", "arguments": map[string]any{"a": 1, "b": 2}}
	headers := func(method string, extra ...string) []string {
		h := []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method}
		if method == "tools/call" {
			h = append(h, "Mcp-Name", "work__add")
		}
		return append(h, extra...)
	}
	r := s.rpc("", 1, "tools/call", call, headers("tools/call")...)
	if m := rpcOf(t, r); r.status != 200 || r.header.Get("Mcp-Session-Id") != "" ||
		!equalJSON(m.Result, []byte(`{"resultType":"complete","content":[{"type":"text","text":"3"}],"structuredContent":3}`)) {
		t.Errorf("a stateless call: %v", r)
	}
	r = s.rpc("", 2, "server/discover", map[string]any{"_meta": meta}, headers("server/discover")...)
	var disc struct {
		ResultType        string
		SupportedVersions []string
		TTLMs             int
		CacheScope        string
		Meta              map[string]struct{ Name string } `json:"_meta"`
	}
	if m := rpcOf(t, r); r.status != 200 || json.Unmarshal(m.Result, &disc) != nil || disc.ResultType != "complete" ||
		len(disc.SupportedVersions) != 5 || disc.SupportedVersions[0] != "2026-07-28" || disc.TTLMs != 300000 ||
		disc.CacheScope != "public" || disc.Meta["io.modelcontextprotocol/serverInfo"].Name != "nexus" {
		t.Errorf("server/discover: %v", r)
	}
	wantRPCError(t, "Mcp-Name of another tool", s.rpc("", 3, "tools/call", call, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "work__fail"),
		400, "3", -32020, "Mcp-Name", "work__fail")
	wantRPCError(t, "no Mcp-Method", s.rpc("", 4, "tools/call", call, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Name", "work__add"), 400, "4", -32020, "Mcp-Method")
	wantRPCError(t, "no MCP-Protocol-Version", s.rpc("", 5, "tools/call", call, "Mcp-Method", "tools/call", "Mcp-Name", "work__add"), 400, "5", -32020, "Mcp-Protocol-Version")
	wantRPCError(t, "no _meta", s.rpc("", 6, "tools/list", map[string]any{}, headers("tools/list")...), 400, "6", -32602, "protocolVersion")
	wantRPCError(t, "unknown method", s.rpc("", 7, "prompts/list", map[string]any{"_meta": meta}, headers("prompts/list")...), 404, "7", -32601, "prompts/list")
	newer := map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}}
	r = s.rpc("", 8, "tools/list", newer, "Mcp-Protocol-Version", "2099-01-01", "Mcp-Method", "tools/list")
	wantRPCError(t, "unsupported version", r, 400, "8", -32022, "2099-01-01")
	var unsupported struct {
		Error struct {
			Data struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			} `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(r.body, &unsupported) != nil || strings.Join(unsupported.Error.Data.Supported, " ") != "2026-07-28 2025-11-25 2025-06-18 2025-03-26 2024-11-05" ||
		unsupported.Error.Data.Requested != "2099-01-01" {
		t.Errorf("-32022 without the supported versions: %v", r)
	}
	if r := s.rpc("", nil, "notifications/cancelled", map[string]any{"requestId": 1}, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "notifications/cancelled"); r.status != http.StatusAccepted {
		t.Errorf("a notification: %v, want 202", r)
	}
	if r := s.rpc("", 9, "tools/call", call, headers("tools/call", "Origin", "http://evil.example")...); r.status != 403 {
		t.Errorf("Origin from elsewhere: %v, want 403", r)
	}
	sid := s.initialize()
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		if r := s.do(method, "/mcp", "", "Mcp-Protocol-Version", "2026-07-28", "Mcp-Session-Id", sid); r.status != http.StatusMethodNotAllowed {
			t.Errorf("%s at 2026-07-28: %v, want 405", method, r)
		}
	}
	if r := s.rpc(sid, 10, "tools/call", map[string]any{"name": "work__add", "arguments": map[string]any{"a": 1, "b": 1}}); r.status != 200 || !equalJSON(rpcOf(t, r).Result, []byte(`{"content":[{"type":"text","text":"2"}]}`)) {
		t.Errorf("a legacy session beside: %v", r)
	}
	s.stop()
	p.checkClean()
}
