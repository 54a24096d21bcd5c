package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
)

// meta is the _meta of a 2026-07-28 request.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

// modern is a 2026-07-28 request line of method with id and params (an
// object's members, without braces; "" for none).
func modern(id, method, params string) string {
	p := meta
	if params != "" {
		p += "," + params
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{` + p + `}}`
}

// TestStatelessRequests: a 2026-07-28 request is served with no
// handshake, its _meta checked, every result complete, and each return
// type structured; what the revision dropped is an unknown method.
func TestStatelessRequests(t *testing.T) {
	srv, _ := callsServer(t, Options{})
	discover := `{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],` +
		`"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"calls","version":"` + manifest.NexusVersion + `"}},` +
		`"ttlMs":300000,"cacheScope":"public"}`
	noMeta := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	for _, tc := range []struct {
		name, line, want string
	}{
		{"discover", modern("1", "server/discover", ""), `{"jsonrpc":"2.0","id":1,"result":` + discover + `}`},
		{"scalar", modern("1", "tools/call", `"name":"add","arguments":{"_1":1,"_2":2}`),
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"3"}],"structuredContent":3}}`},
		{"record", modern("1", "tools/call", `"name":"point","arguments":{"_1":1}`),
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"{\"x\":1,\"y\":0.5}"}],"structuredContent":{"x":1,"y":0.5}}}`},
		{"tool error", modern("1", "tools/call", `"name":"boom","arguments":{"_1":1}`),
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"boom: ValueError: no good"}],"isError":true}}`},
		{"bad argument", modern("1", "tools/call", `"name":"add","arguments":{"_1":"x","_2":2}`),
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"invalid value for argument '_1': expected an integer, got the string \"x\""}],"isError":true}}`},
		{"no capabilities", noMeta,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"missing _meta \"io.modelcontextprotocol/clientCapabilities\": every 2026-07-28 request carries the client's capabilities ({} for none)"}}`},
		{"unsupported version", strings.Replace(modern("1", "tools/list", ""), "2026-07-28", "2099-01-01", 1),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported protocol version: 2099-01-01","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2099-01-01"}}}`},
		{"ping", modern("1", "ping", ""), `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: ping"}}`},
		{"initialize", modern("1", "initialize", `"protocolVersion":"2026-07-28"`), `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: initialize"}}`},
		{"listen", modern("1", "subscriptions/listen", `"notifications":{"toolsListChanged":true}`),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: subscriptions/listen"}}`},
		// Without the _meta version a request is a legacy one, which needs
		// its handshake; so is a discover probe of a legacy client.
		{"legacy", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: server/discover"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := exchange(srv, tc.line)
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("got  %v\nwant %s", got, tc.want)
			}
		})
	}
}

// TestStatelessList: tools/list of 2026-07-28 is complete, cacheable,
// and shows the output schema of every return type, where 2025-11-25
// shows that of records only.
func TestStatelessList(t *testing.T) {
	srv, _ := callsServer(t, Options{})
	got := exchange(srv, modern("1", "tools/list", ""))
	var list struct {
		Result struct {
			ResultType string `json:"resultType"`
			TTLMs      *int   `json:"ttlMs"`
			CacheScope string `json:"cacheScope"`
			Tools      []struct {
				Name         string          `json:"name"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if len(got) != 1 || json.Unmarshal([]byte(got[0]), &list) != nil {
		t.Fatalf("tools/list: %v", got)
	}
	r := list.Result
	if r.ResultType != "complete" || r.TTLMs == nil || *r.TTLMs != 300000 || r.CacheScope != "public" {
		t.Errorf("tools/list: resultType %q, ttlMs %v, cacheScope %q", r.ResultType, r.TTLMs, r.CacheScope)
	}
	want := map[string]string{"add": `{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`, "wait": `{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`, "boom": `{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`,
		"answer": `{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`,
		"point":  `{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"],"additionalProperties":false}`}
	var names []string
	for _, tl := range r.Tools {
		names = append(names, tl.Name)
		if w := want[tl.Name]; string(tl.OutputSchema) != w {
			t.Errorf("%s: outputSchema %s, want %s", tl.Name, tl.OutputSchema, w)
		}
	}
	if strings.Join(names, " ") != "add wait boom point answer" {
		t.Errorf("tools in the order %v, want the program's", names)
	}
	legacyList := exchange(srv, initLine2(V20251125), initializedLine, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if n := strings.Count(legacyList[1], "outputSchema"); n != 1 {
		t.Errorf("2025-11-25 lists %d output schemas, want point's only: %s", n, legacyList[1])
	}
}

func initLine2(v string) string { return strings.Replace(initLine, "2025-06-18", v, 1) }

// TestStdioBothEras: on one stdio process a legacy session and
// stateless requests are served side by side, and notifications/cancelled
// cancels a stateless call (ids are per process).
func TestStdioBothEras(t *testing.T) {
	srv, pools := callsServer(t, Options{})
	c := serveStdio(t, context.Background(), srv) // a legacy session, initialized
	c.send(modern(`"m"`, "tools/call", `"name":"wait","arguments":{"key":"never"}`))
	<-pools.started
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"_1":1,"_2":2}}}`)
	if got := c.next(); string(got["id"]) != "1" || string(got["result"]) != `{"content":[{"type":"text","text":"3"}]}` {
		t.Errorf("legacy call beside a stateless one: %s", got["result"])
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"m","reason":"user"}}`,
		modern("2", "tools/call", `"name":"add","arguments":{"_1":2,"_2":2}`))
	if got := c.next(); string(got["id"]) != "2" || !strings.Contains(string(got["result"]), `"resultType":"complete"`) {
		t.Errorf("stateless call in a legacy process: %s", got)
	}
	// EOF waits for the calls in flight: the fake pool's wait ends only
	// when its context does, so ServeStdio returns only if the
	// cancellation reached the call, and its reply must not be written.
	c.in.Close()
	if err := <-c.done; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
	for m := range c.replies {
		t.Errorf("reply after cancel: %v", m)
	}
}

// statelessPost posts a 2026-07-28 request with the headers a
// conforming client sends, but for those drop names, and those set adds.
func statelessPost(c *httpClient, ctx context.Context, line string, drop []string, set ...string) (int, string, http.Header) {
	c.t.Helper()
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal([]byte(line), &m)
	h := map[string]string{HeaderProtocolVersion: V20260728, HeaderMethod: m.Method}
	if m.Method == "tools/call" {
		h[HeaderName] = m.Params.Name
	}
	for _, d := range drop {
		delete(h, d)
	}
	var added []string // "+X" values come after X's own
	for i := 0; i+1 < len(set); i += 2 {
		if strings.HasPrefix(set[i], "+") {
			added = append(added, set[i], set[i+1])
		} else {
			h[set[i]] = set[i+1]
		}
	}
	var headers []string
	for k, v := range h {
		headers = append(headers, k, v)
	}
	headers = append(headers, added...)
	return c.post(ctx, "", line, headers...)
}

// TestHTTPStateless: each header and status rule of 2026-07-28 over
// Streamable HTTP, on the endpoint that serves the legacy sessions too.
func TestHTTPStateless(t *testing.T) {
	c, h, _ := serveHTTP(t, Options{}, HTTPOptions{})
	add := modern("1", "tools/call", `"name":"add","arguments":{"_1":1,"_2":2}`)
	addOK := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"3"}],"structuredContent":3}}`
	mismatch := func(msg string) string {
		return `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"` + msg + `"}}`
	}
	for _, tc := range []struct {
		name   string
		line   string
		drop   []string
		set    []string
		status int
		want   string
	}{
		{"call", add, nil, nil, 200, addOK},
		{"name in base64", add, nil, []string{HeaderName, "=?base64?YWRk?="}, 200, addOK},
		{"list", modern("1", "tools/list", ""), nil, nil, 200, ""},
		{"no Mcp-Method", add, []string{HeaderMethod}, nil, 400,
			mismatch("missing Mcp-Method header: a 2026-07-28 request names its method in it")},
		{"other Mcp-Method", add, nil, []string{HeaderMethod, "tools/list"}, 400,
			mismatch(`Mcp-Method header \"tools/list\" does not match the body's method \"tools/call\"`)},
		// Each header once (a proxy reading one copy and nexus another
		// would allow one thing and run another), in either order.
		{"Mcp-Name twice", add, nil, []string{"+" + HeaderName, "boom"}, 400,
			mismatch("Mcp-Name header given 2 times: a request names it once")},
		{"Mcp-Method twice", add, nil, []string{"+" + HeaderMethod, "tools/list"}, 400,
			mismatch("Mcp-Method header given 2 times: a request names it once")},
		{"MCP-Protocol-Version twice", add, nil, []string{"+" + HeaderProtocolVersion, "2025-06-18"}, 400,
			mismatch("Mcp-Protocol-Version header given 2 times: a request names it once")},
		// A tools/call whose body names no tool, or one without _meta,
		// is told so, not that its Mcp-Name differs from "".
		{"name not a string", strings.Replace(add, `"name":"add"`, `"name":5`, 1), nil, []string{HeaderName, "add"}, 400,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid tools/call params: \"name\" must be the name of a tool, a string"}}`},
		{"no _meta, call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"_1":1,"_2":2}}}`, nil, nil, 400,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"missing _meta \"io.modelcontextprotocol/protocolVersion\": every 2026-07-28 request names its protocol version"}}`},
		{"capabilities not an object", strings.Replace(add, `"io.modelcontextprotocol/clientCapabilities":{}`, `"io.modelcontextprotocol/clientCapabilities":[]`, 1), nil, nil, 400,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"_meta \"io.modelcontextprotocol/clientCapabilities\" must be an object ({} for none)"}}`},
		{"long Mcp-Name cut in the message", add, nil, []string{HeaderName, strings.Repeat("n", 5000)}, 400,
			mismatch(`Mcp-Name header \"` + strings.Repeat("n", 100) + `\" (5000 bytes in all) does not match the body's tool name \"add\"`)},
		{"notification by its _meta alone", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,` + meta + `}}`,
			[]string{HeaderProtocolVersion, HeaderMethod}, nil, 202, ""},
		{"no Mcp-Name", add, []string{HeaderName}, nil, 400,
			mismatch("missing Mcp-Name header: a 2026-07-28 tools/call names its tool in it")},
		{"other Mcp-Name", add, nil, []string{HeaderName, "boom"}, 400,
			mismatch(`Mcp-Name header \"boom\" does not match the body's tool name \"add\"`)},
		{"other Mcp-Name in base64", add, nil, []string{HeaderName, "=?base64?Ym9vbQ==?="}, 400,
			mismatch(`Mcp-Name header \"boom\" does not match the body's tool name \"add\"`)},
		{"no MCP-Protocol-Version", add, []string{HeaderProtocolVersion}, nil, 400,
			mismatch("missing Mcp-Protocol-Version header: a 2026-07-28 request repeats its _meta version in it")},
		{"other MCP-Protocol-Version", add, nil, []string{HeaderProtocolVersion, "2025-06-18"}, 400,
			mismatch(`Mcp-Protocol-Version header \"2025-06-18\" does not match the _meta version \"2026-07-28\"`)},
		{"no _meta version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, nil, nil, 400,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"missing _meta \"io.modelcontextprotocol/protocolVersion\": every 2026-07-28 request names its protocol version"}}`},
		{"unsupported version", strings.Replace(modern("1", "tools/list", ""), V20260728, "2099-01-01", 1), nil,
			[]string{HeaderProtocolVersion, "2099-01-01"}, 400,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported protocol version: 2099-01-01","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2099-01-01"}}}`},
		// The header is checked against the _meta version before the
		// version is judged (the conformance suite's
		// sep-2575-http-server-header-mismatch-400).
		{"unsupported version, other header", strings.Replace(modern("1", "tools/list", ""), V20260728, "v999.0.0", 1), nil, nil, 400,
			mismatch(`Mcp-Protocol-Version header \"2026-07-28\" does not match the _meta version \"v999.0.0\"`)},
		{"unknown method", modern("1", "resources/list", ""), nil, nil, 404,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: resources/list"}}`},
		{"ping", modern("1", "ping", ""), nil, nil, 404,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: ping"}}`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, nil, nil, 202, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body, hdr := statelessPost(c, context.Background(), tc.line, tc.drop, tc.set...)
			if status != tc.status || tc.want != "" && body != tc.want {
				t.Errorf("got %d %s\nwant %d %s", status, body, tc.status, tc.want)
			}
			if sid := hdr.Get(HeaderSessionID); sid != "" {
				t.Errorf("a stateless request got a session id %q", sid)
			}
		})
	}
	if n := h.Sessions(); n != 0 {
		t.Errorf("%d sessions after stateless requests, want none", n)
	}
	// A legacy session on the same endpoint is served as before.
	sid := c.open()
	if status, body, _ := c.post(context.Background(), sid, addLine); status != 200 || strings.Contains(body, "resultType") {
		t.Errorf("legacy call beside stateless ones: %d %s", status, body)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, c.url, nil)
		req.Header.Set(HeaderProtocolVersion, V20260728)
		req.Header.Set(HeaderSessionID, sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s at 2026-07-28: %d, Allow %q; want 405, POST", method, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
	if h.Sessions() != 1 {
		t.Errorf("a DELETE at 2026-07-28 ended the legacy session")
	}
}

// TestHTTPStatelessDisconnectCancelsCall: a stateless client that closes
// the response stream cancels its call; the fake pool's wait ends only
// when its context does, so the call's audit line comes only if it did.
func TestHTTPStatelessDisconnectCancelsCall(t *testing.T) {
	var audit pooltest.Buffer
	c, _, pools := serveHTTP(t, Options{Audit: guard.NewAudit(&audit)}, HTTPOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() {
		statelessPost(c, ctx, modern("1", "tools/call", `"name":"wait","arguments":{"key":"gone"}`), nil)
		close(ended)
	}()
	<-pools.started
	cancel()
	<-ended
	for deadline := time.Now().Add(time.Minute); !strings.Contains(audit.String(), `"tool":"wait"`); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call of the client that went away is still running")
		}
	}
}

// TestHTTPStatelessCredentials: a stateless request is authenticated on
// its own: a list-only credential lists every tool (privately cached)
// and gets isError on a call, a tool-restricted one lists its tools, and
// each call writes its audit line.
func TestHTTPStatelessCredentials(t *testing.T) {
	const viewer, adder = "viewer-secret-0123456789", "adder-secret-0123456789"
	file := filepath.Join(t.TempDir(), "credentials.json")
	creds := `{"credentials":[{"name":"viewer","secret":"` + viewer + `","list":true},{"name":"adder","secret":"` + adder + `","call":["add"]}]}`
	if err := os.WriteFile(file, []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := guard.OpenCredentials(file)
	if err != nil {
		t.Fatal(err)
	}
	var audit pooltest.Buffer
	srv, _ := callsServer(t, Options{Audit: guard.NewAudit(&audit)})
	c, _ := serveGuardedServer(t, srv, HTTPOptions{}, guard.Options{Credentials: store})

	list := modern("1", "tools/list", "")
	add := modern("2", "tools/call", `"name":"add","arguments":{"_1":1,"_2":2}`)
	for _, tc := range []struct {
		secret string
		line   string
		status int
		want   []string
	}{
		{"", list, 401, nil},
		{viewer, list, 200, []string{`"name":"add"`, `"name":"point"`, `"cacheScope":"private"`}},
		{viewer, add, 200, []string{`"isError":true`, `"resultType":"complete"`}},
		{adder, list, 200, []string{`"tools":[{"name":"add"`, `}],"ttlMs":300000,"cacheScope":"private"`}},
		{adder, add, 200, []string{`"structuredContent":3`}},
	} {
		c.auth = ""
		if tc.secret != "" {
			c.auth = "Bearer " + tc.secret
		}
		status, body, _ := statelessPost(c, context.Background(), tc.line, nil)
		if status != tc.status {
			t.Errorf("%q %s: got %d %s, want %d", tc.secret, tc.line, status, body, tc.status)
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%q %s: got %s, want it to contain %s", tc.secret, tc.line, body, w)
			}
		}
	}
	lines := strings.Split(strings.TrimSpace(audit.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"credential":"viewer"`) || !strings.Contains(lines[0], `"outcome":"isError"`) ||
		!strings.Contains(lines[1], `"credential":"adder"`) || !strings.Contains(lines[1], `"outcome":"ok"`) {
		t.Errorf("audit log:\n%s", audit.String())
	}
}
