package integration

import (
	"net/http"
	"strings"
	"testing"
)

// TestDeepJSON: JSON nested beyond the limit is answered "too deep", not
// "not JSON", over stdio and HTTP alike, for a message of any size, and
// the server goes on (mcp.md, "JSON-RPC rules").
func TestDeepJSON(t *testing.T) {
	p := build(t, nonFiniteProgram)
	nest := func(n int, inner string) string {
		return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
	}
	deepCall := func(id string, n int) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"mean","arguments":{"_1":` + nest(n, "1") + `}}}`
	}
	messages := []struct{ name, line string }{
		{"a million nested arrays", nest(1_000_000, "")},
		{"a million nested objects", strings.Repeat(`{"a":`, 1_000_000) + "1" + strings.Repeat("}", 1_000_000)},
		// Large calls are split while the check runs; small ones are
		// checked first.
		{"a large call nested too deep", deepCall("large", 1_000_000)},
		{"a small call nested too deep", deepCall("small", 10_000)},
	}
	const says = "nests arrays and objects deeper than 10000 levels"

	t.Run("stdio", func(t *testing.T) {
		c := startMCPConn(t, p.in(t))
		c.initialize("2025-06-18")
		for _, m := range messages {
			c.send(m.line)
			r := c.next()
			if string(r.ID) != "null" {
				t.Errorf("%s: reply id %s, want null", m.name, r.ID)
			}
			r.rpcError(t, -32700, says)
		}
		// Not JSON is still said as such; and the server goes on.
		c.send("[[[1,,]]]")
		c.next().rpcError(t, -32700, "not JSON")
		if got := c.callTool("after", "mean", map[string]any{"_1": []any{1, 2}}).text(t); got != "1.5" {
			t.Errorf("a call after the deep messages: %q", got)
		}
		c.closeAll() // fails on any stdout line that is not strict JSON-RPC
	})

	t.Run("http", func(t *testing.T) {
		p := p.in(t)
		s := startHTTP(t, p.tmp, nil, "mcp", p.launcher)
		sid := s.initialize()
		for _, m := range messages {
			r := s.do(http.MethodPost, "/mcp", m.line, "Mcp-Session-Id", sid)
			wantRPCError(t, m.name, r, http.StatusBadRequest, "null", -32700, says)
		}
		if r := s.rpc(sid, 1, "ping", nil); r.status != http.StatusOK {
			t.Errorf("ping after the deep messages: %v", r)
		}
		s.stop()
		p.checkClean()
	})
}
