package integration

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The JSON-RPC and lifecycle rules of mcp.md's stdio section, checked line
// by line with the raw client: every error code, id echo, what is answered
// before the handshake, and that notifications never are.

// TestMCPLifecycle: what may come before the handshake completes.
func TestMCPLifecycle(t *testing.T) {
	p := build(t, propsProgram)
	c := startMCPConn(t, p)

	// ping is answered at any time, with an empty object.
	if r := c.request(1, "ping", nil); string(r.Result) != "{}" {
		t.Errorf("ping before initialize: %s, want the result {}", r.Line)
	}
	c.request(2, "tools/list", nil).rpcError(t, -32600)
	c.callTool(3, "pos-args", map[string]any{"word": "a", "_2": 1}).rpcError(t, -32600)

	r := c.request(4, "initialize", map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}})
	want := `{"protocolVersion":"2025-03-26","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"props","version":`
	if !bytes.HasPrefix(r.Result, []byte(want)) {
		t.Errorf("initialize: %s, want a result starting %s", r.Line, want)
	}
	// Initialized is not ready: the handshake ends with the client's
	// notifications/initialized.
	c.request(5, "tools/list", nil).rpcError(t, -32600)
	c.send(rpcLine(nil, "notifications/initialized", nil))
	if r := c.request(6, "tools/list", nil); r.Error != nil {
		t.Errorf("tools/list after the handshake: %s", r.Line)
	}
	if r := c.request(7, "ping", nil); string(r.Result) != "{}" {
		t.Errorf("ping after initialize: %s, want the result {}", r.Line)
	}
	c.closeAll()

	// A version we speak is answered with itself, one we do not know
	// (older or newer) with the latest we speak.
	for asked, want := range map[string]string{
		"2025-11-25": "2025-11-25",
		"2025-06-18": "2025-06-18",
		"1999-01-01": "2025-11-25",
		"2025-12-01": "2025-11-25",
	} {
		c = startMCPConn(t, p)
		r = c.request(1, "initialize", map[string]any{"protocolVersion": asked})
		var info struct{ ProtocolVersion string }
		if err := json.Unmarshal(r.Result, &info); err != nil || info.ProtocolVersion != want {
			t.Errorf("initialize asking for %s: %s, want protocolVersion %s", asked, r.Line, want)
		}
		c.closeAll()
	}
}

// TestMCPErrors: every JSON-RPC error of mcp.md, each with the id it must
// carry and what its message must say. The server goes on after each.
func TestMCPErrors(t *testing.T) {
	p := build(t, propsProgram)
	c := startMCPConn(t, p)
	c.initialize("2025-06-18")

	// A request pretty-printed over several lines is several broken lines.
	pretty, err := json.MarshalIndent(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "ping"}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	prettyLines := strings.Split(string(pretty), "\n")

	call := func(id any, tool string, args any) string {
		return rpcLine(id, "tools/call", map[string]any{"name": tool, "arguments": args})
	}
	cases := []struct {
		name  string
		lines []string // sent in one write
		// badArgs marks a valid call of a known tool whose argument values
		// are wrong: from 2025-11-25 on a tool error, not a JSON-RPC one.
		badArgs bool
		// id is the id every reply must carry (nil: null), and replies how
		// many replies come (0 means 1).
		id      any
		replies int
		code    int
		want    []string // what each message must say
	}{
		{name: "not JSON", lines: []string{"this is not JSON"}, code: -32700},
		{name: "truncated object", lines: []string{`{"jsonrpc":"2.0","id":3,"method":"ping"`}, code: -32700},
		{name: "pretty-printed object", lines: prettyLines, replies: len(prettyLines), code: -32700},
		{name: "a batch", lines: []string{`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`}, code: -32600},
		{name: "a number", lines: []string{`42`}, code: -32600},
		{name: "a string", lines: []string{`"ping"`}, code: -32600},
		{name: "no jsonrpc member", lines: []string{`{"id":5,"method":"ping"}`}, id: 5, code: -32600},
		{name: "unknown method", lines: []string{rpcLine(10, "prompts/list", nil)}, id: 10, code: -32601, want: []string{"prompts/list"}},
		// A 2026-07-28 request is served on its own, in a legacy session's
		// process too, and its _meta must be whole; a discover without the
		// _meta version is a legacy one, answered as unknown.
		{name: "server/discover without capabilities", lines: []string{rpcLine(11, "server/discover", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})},
			id: 11, code: -32602, want: []string{"io.modelcontextprotocol/clientCapabilities"}},
		{name: "server/discover of a legacy client", lines: []string{rpcLine(12, "server/discover", nil)}, id: 12, code: -32601},
		{name: "tools/call without a name", lines: []string{rpcLine(20, "tools/call", map[string]any{})}, id: 20, code: -32602},
		{name: "unknown tool", lines: []string{call(21, "nope", map[string]any{})}, id: 21, code: -32602, want: []string{"unknown tool 'nope'"}},
		{badArgs: true, name: "unknown argument", lines: []string{call(22, "pos-args", map[string]any{"word": "a", "_2": 1, "colour": 1})}, id: 22, code: -32602, want: []string{"colour"}},
		{badArgs: true, name: "missing positional", lines: []string{call(23, "pos-args", map[string]any{"word": "a"})}, id: 23, code: -32602, want: []string{"missing", "_2"}},
		{badArgs: true, name: "missing record field", lines: []string{call(24, "unrolled", map[string]any{})}, id: 24, code: -32602, want: []string{"missing", "threads"}},
		{badArgs: true, name: "missing field, record given whole", lines: []string{call(25, "whole", map[string]any{"runconfig": map[string]any{"size": 1}})}, id: 25, code: -32602, want: []string{"missing", "name"}},
		{badArgs: true, name: "string expected", lines: []string{call(26, "pos-args", map[string]any{"word": 5, "_2": 1})}, id: 26, code: -32602, want: []string{"word", "expected a string"}},
		{badArgs: true, name: "integer expected", lines: []string{call(27, "pos-args", map[string]any{"word": "a", "_2": 1.5})}, id: 27, code: -32602, want: []string{"_2", "expected an integer"}},
		{badArgs: true, name: "null for a required value", lines: []string{call(28, "pos-args", map[string]any{"word": nil, "_2": 1})}, id: 28, code: -32602, want: []string{"word", "string"}},
		{badArgs: true, name: "boolean expected", lines: []string{call(29, "flags", map[string]any{"shout": "yes"})}, id: 29, code: -32602, want: []string{"shout", "true or false"}},
		{badArgs: true, name: "wrong list item", lines: []string{call(30, "shapes", map[string]any{"counts": map[string]any{}, "pair": []any{1, "x"}, "reals": []any{"x"}})}, id: 30, code: -32602, want: []string{"reals", "number"}},
		{badArgs: true, name: "short tuple", lines: []string{call(31, "shapes", map[string]any{"counts": map[string]any{}, "pair": []any{1}, "reals": []any{}})}, id: 31, code: -32602, want: []string{"pair"}},
		{badArgs: true, name: "wrong map value", lines: []string{call(32, "shapes", map[string]any{"counts": map[string]any{"a": "b"}, "pair": []any{1, "x"}, "reals": []any{}})}, id: 32, code: -32602, want: []string{"counts", "integer"}},
		{badArgs: true, name: "wrong field in a whole record", lines: []string{call(33, "whole", map[string]any{"runconfig": map[string]any{"size": "big", "name": "a"}})}, id: 33, code: -32602, want: []string{"runconfig", "size"}},
		{badArgs: true, name: "unknown field in a whole record", lines: []string{call(34, "whole", map[string]any{"runconfig": map[string]any{"bogus": 1}})}, id: 34, code: -32602, want: []string{"bogus"}},
		{badArgs: true, name: "unknown _render", lines: []string{call(35, "actions", map[string]any{"_render": "bogus"})}, id: 35, code: -32602, want: []string{"_render", "bogus"}},
		{badArgs: true, name: "_render not a string", lines: []string{call(36, "actions", map[string]any{"_render": 1})}, id: 36, code: -32602, want: []string{"_render"}},
		{badArgs: true, name: "_render of a tool without actions", lines: []string{call(37, "pos-args", map[string]any{"word": "a", "_2": 1, "_render": "raw"})}, id: 37, code: -32602, want: []string{"_render"}},
	}
	messages := map[string]string{} // each case's error message, in 2025-06-18
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.t = t
			c.send(tc.lines...)
			n := max(tc.replies, 1)
			wantID := marshalJSON(t, tc.id)
			for range n {
				r := c.next()
				if !bytes.Equal(r.ID, wantID) {
					t.Errorf("reply id %s, want %s: %s", r.ID, wantID, r.Line)
				}
				r.rpcError(t, tc.code, tc.want...)
				if r.Error != nil {
					messages[tc.name] = r.Error.Message
				}
			}
			// The server is still there, and still in order.
			if r := c.request("after "+tc.name, "ping", nil); string(r.Result) != "{}" {
				t.Errorf("ping after %s: %s", tc.name, r.Line)
			}
		})
	}
	c.t = t
	c.closeAll()

	// In a session of 2025-11-25, bad argument values are tool errors
	// with the same message, which a model can read and act on; what is
	// not a valid call of a known tool stays a JSON-RPC error.
	c = startMCPConn(t, p)
	c.initialize("2025-11-25")
	n := 0
	for _, tc := range cases {
		if tc.code != -32602 {
			continue
		}
		t.Run("2025-11-25/"+tc.name, func(t *testing.T) {
			c.t = t
			c.send(tc.lines...)
			r := c.next()
			if wantID := marshalJSON(t, tc.id); !bytes.Equal(r.ID, wantID) {
				t.Errorf("reply id %s, want %s: %s", r.ID, wantID, r.Line)
			}
			if !tc.badArgs {
				r.rpcError(t, tc.code, tc.want...)
				return
			}
			n++
			if msg := r.failure(t); msg != messages[tc.name] {
				t.Errorf("message %q, want the one of 2025-06-18, %q", msg, messages[tc.name])
			}
		})
	}
	c.t = t
	if n < 15 {
		t.Errorf("%d bad-argument cases checked in 2025-11-25, want every one of the table's", n)
	}
	c.closeAll()
}

// TestMCPIDs: a reply carries its request's id exactly, JSON type and all,
// and notifications and responses get no reply.
func TestMCPIDs(t *testing.T) {
	p := build(t, propsProgram)
	c := startMCPConn(t, p)
	c.initialize("2025-06-18")
	for _, id := range []string{`"7"`, `7`, `-1`, `0`, `9007199254740993`, `"a \"quoted\" id"`, `""`, `7.5`} {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if r := c.next(); string(r.ID) != id || string(r.Result) != "{}" {
			t.Errorf("ping with id %s: %s", id, r.Line)
		}
	}
	// The same for a tools/call, which is answered from another goroutine.
	for _, id := range []string{`"8"`, `8`} {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"point","arguments":{"x":1,"y":2}}}`)
		if r := c.next(); string(r.ID) != id || r.Error != nil {
			t.Errorf("tools/call with id %s: %s", id, r.Line)
		}
	}

	// None of these may be answered: the ping after them must be the next
	// message, and closeAll finds any other.
	c.send(
		rpcLine(nil, "notifications/initialized", nil),
		rpcLine(nil, "notifications/cancelled", map[string]any{"requestId": 12345, "reason": "no such request"}),
		rpcLine(nil, "notifications/progress", map[string]any{"progressToken": 1, "progress": 1}),
		rpcLine(nil, "notifications/no-such-thing", nil),
		// A tools/call without an id is a notification too: not run, not answered.
		rpcLine(nil, "tools/call", map[string]any{"name": "pos-args", "arguments": map[string]any{"word": "a", "_2": 1}}),
		// A response to a request of the server's (it sends none).
		`{"jsonrpc":"2.0","id":77,"result":{}}`,
		rpcLine("last", "ping", nil),
	)
	if r := c.next(); string(r.ID) != `"last"` {
		t.Errorf("a notification or response was answered: %s", r.Line)
	}
	c.closeAll()
}

// TestMCPEOF: the end of stdin stops the pools and the server, with status
// 0, even right after a call that started them.
func TestMCPEOF(t *testing.T) {
	p := build(t, propsProgram)
	c := startMCPConn(t, p)
	c.initialize("2025-06-18")
	if got := c.callTool(1, "pos-args", map[string]any{"word": "a", "_2": 1}).text(t); got != strJSON(`["a",1]`) {
		t.Errorf("pos-args = %s", got)
	}
	if len(processesMentioning(p.launcher+"-build")) == 0 {
		t.Fatal("no pool is running after a call: the test would prove nothing")
	}
	c.closeAll() // exit 0, pools gone, temp folder empty

	// Before any message at all.
	c = startMCPConn(t, p)
	c.closeAll()
}
