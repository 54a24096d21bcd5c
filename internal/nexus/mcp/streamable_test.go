package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/guard"
)

// httpClient talks to an HTTPHandler served on a real loopback port.
type httpClient struct {
	t    *testing.T
	url  string
	auth string
}

func serveHTTP(t *testing.T, opts Options, hopts HTTPOptions) (*httpClient, *HTTPHandler, *fakePools) {
	t.Helper()
	srv, pools := callsServer(t, opts)
	h := NewHTTPHandler(srv, hopts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return &httpClient{t: t, url: ts.URL}, h, pools
}

// post sends body in session sid ("" for none), with headers (name and
// value pairs; a name "+X" adds a value to X), and returns the status,
// the reply body and the headers.
func (c *httpClient) post(ctx context.Context, sid, body string, headers ...string) (int, string, http.Header) {
	c.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set(HeaderSessionID, sid)
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if name, ok := strings.CutPrefix(headers[i], "+"); ok {
			req.Header.Add(name, headers[i+1]) // a second value of it
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, "", nil
		}
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out), resp.Header
}

// open initializes a session of protocol version 2025-06-18 and returns
// its id.
func (c *httpClient) open() string {
	c.t.Helper()
	return c.openAt("2025-06-18")
}

// openAt initializes a session of protocol version v and returns its id.
func (c *httpClient) openAt(v string) string {
	c.t.Helper()
	status, body, h := c.post(context.Background(), "", strings.Replace(initLine, "2025-06-18", v, 1))
	if !strings.Contains(body, `"protocolVersion":"`+v+`"`) {
		c.t.Fatalf("initialize at %s: %s", v, body)
	}
	sid := h.Get(HeaderSessionID)
	if status != 200 || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(sid) {
		c.t.Fatalf("initialize: %d %q, session id %q", status, body, sid)
	}
	if status, _, _ := c.post(context.Background(), sid, initializedLine); status != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized: got %d, want 202", status)
	}
	return sid
}

func (c *httpClient) do(method, sid string) int {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.url, nil)
	if sid != "" {
		req.Header.Set(HeaderSessionID, sid)
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// largeAdd is addLine made large by what binding never reads.
var largeAdd = strings.Replace(addLine, `"arguments"`, `"_meta":{"pad":"`+strings.Repeat("p", 100_000)+`"},"arguments"`, 1)

const (
	listLine = `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`
	addLine  = `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"add","arguments":{"_1":1,"_2":2}}}`
)

func TestHTTPSession(t *testing.T) {
	c, h, _ := serveHTTP(t, Options{}, HTTPOptions{})
	sid := c.open()
	status, body, hdr := c.post(context.Background(), sid, addLine)
	if status != 200 || body != `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"3"}]}}` || hdr.Get("Content-Type") != "application/json" {
		t.Errorf("call: %d %s %q", status, body, hdr.Get("Content-Type"))
	}
	status, body, _ = c.post(context.Background(), sid, addLine, "Accept", "text/event-stream")
	if want := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":6,"; status != 200 || !strings.HasPrefix(body, want) || !strings.HasSuffix(body, "\n\n") {
		t.Errorf("event stream: %d %q", status, body)
	}
	if h.Sessions() != 1 {
		t.Errorf("sessions: %d, want 1", h.Sessions())
	}
	if got := c.do(http.MethodGet, sid); got != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d, want 405", got)
	}
	if got := c.do(http.MethodDelete, sid); got != http.StatusNoContent {
		t.Errorf("DELETE: %d, want 204", got)
	}
	if got := c.do(http.MethodDelete, sid); got != http.StatusNotFound {
		t.Errorf("DELETE again: %d, want 404", got)
	}
	if status, body, _ := c.post(context.Background(), sid, listLine); status != http.StatusNotFound || !strings.Contains(body, `"id":5`) {
		t.Errorf("after DELETE: %d %s, want 404", status, body)
	}
	if h.Sessions() != 0 {
		t.Errorf("sessions after DELETE: %d", h.Sessions())
	}
}

func TestHTTPErrors(t *testing.T) {
	c, _, _ := serveHTTP(t, Options{}, HTTPOptions{})
	sid := c.open()
	for _, tc := range []struct {
		name, sid, body string
		headers         []string
		status          int
		want            string
	}{
		{"no session id", "", listLine, nil, 400, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"missing Mcp-Session-Id header`},
		{"no session id, string id", "", `{"jsonrpc":"2.0","id":"s","method":"ping"}`, nil, 400, `{"jsonrpc":"2.0","id":"s","error":`},
		{"server/discover without a session", "", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, nil, 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: server/discover"}}`},
		{"ping without a session", "", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil, 400, `{"jsonrpc":"2.0","id":2,"error":`},
		{"unknown session", "00000000000000000000000000000000", listLine, nil, 404, `{"jsonrpc":"2.0","id":5,"error":`},
		{"not JSON", sid, `{"jsonrpc":`, nil, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700`},
		{"unsupported version header", sid, listLine, []string{HeaderProtocolVersion, "1999-01-01"}, 400, `"code":-32600`},
		{"supported version header", sid, listLine, []string{HeaderProtocolVersion, "2025-06-18"}, 200, `{"jsonrpc":"2.0","id":5,"result":{"tools":[`},
		{"initialize again", sid, initLine, nil, 200, `"message":"the session is already initialized"`},
		{"notification", sid, `{"jsonrpc":"2.0","method":"notifications/whatever"}`, nil, 202, ``},
		// A large message is checked as JSON while a call goes on; what is
		// not JSON is refused as such, whatever else is wrong with it.
		{"large call", sid, largeAdd, nil, 200, `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"3"}]}}`},
		{"large call, not JSON", sid, largeAdd + `]`, nil, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700`},
		{"large call, not JSON, no session id", "", largeAdd + `]`, nil, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700`},
		{"large call, not JSON, unknown session", "00000000000000000000000000000000", largeAdd + `]`, nil, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700`},
		{"large ping, not JSON", sid, `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"pad":"` + strings.Repeat("p", 100_000) + `"}}}}`, nil, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body, _ := c.post(context.Background(), tc.sid, tc.body, tc.headers...)
			if status != tc.status || !strings.HasPrefix(body, tc.want) && !strings.Contains(body, tc.want) {
				t.Errorf("got %d %s\nwant %d %s", status, body, tc.status, tc.want)
			}
		})
	}
}

// TestHTTPVersionHeader: in a session of either of the last two
// revisions, a supported Mcp-Protocol-Version or none is served (none
// may be taken as 2025-03-26, whose semantics for tools differ from
// neither's but for what the session negotiated), and an invalid or
// unsupported one is refused with 400; a bad call's arguments get each
// revision's answer over HTTP as over stdio.
func TestHTTPVersionHeader(t *testing.T) {
	c, _, _ := serveHTTP(t, Options{}, HTTPOptions{})
	badAdd := strings.Replace(addLine, `"_1":1`, `"_1":"two"`, 1)
	for _, v := range []string{"2025-11-25", "2025-06-18"} {
		sid := c.openAt(v)
		argsReply := `{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"` + addWrongType + `"}}`
		if v == "2025-11-25" {
			argsReply = `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"` + addWrongType + `"}],"isError":true}}`
		}
		for _, tc := range []struct {
			name, body string
			header     string // of Mcp-Protocol-Version, "" for none
			status     int
			want       string
		}{
			{"its own version", addLine, v, 200, `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"3"}]}}`},
			{"no header", addLine, "", 200, `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"3"}]}}`},
			{"unsupported", listLine, "2025-13-01", 400, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"unsupported Mcp-Protocol-Version: 2025-13-01 (a session speaks 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)"}}`},
			{"invalid", listLine, "latest", 400, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"unsupported Mcp-Protocol-Version: latest`},
			{"bad arguments", badAdd, v, 200, argsReply},
		} {
			t.Run(v+"/"+tc.name, func(t *testing.T) {
				var headers []string
				if tc.header != "" {
					headers = []string{HeaderProtocolVersion, tc.header}
				}
				status, body, _ := c.post(context.Background(), sid, tc.body, headers...)
				if status != tc.status || !strings.HasPrefix(body, tc.want) {
					t.Errorf("got %d %s\nwant %d %s", status, body, tc.status, tc.want)
				}
			})
		}
	}
}

func TestHTTPSessionBelongsToItsCredentials(t *testing.T) {
	c, _, _ := serveHTTP(t, Options{}, HTTPOptions{})
	c.auth = "Bearer alice"
	sid := c.open()
	c.auth = "Bearer mallory"
	if status, _, _ := c.post(context.Background(), sid, listLine); status != http.StatusNotFound {
		t.Errorf("another credential: %d, want 404", status)
	}
	if got := c.do(http.MethodDelete, sid); got != http.StatusNotFound {
		t.Errorf("another credential's DELETE: %d, want 404", got)
	}
	c.auth = "Bearer alice"
	if status, _, _ := c.post(context.Background(), sid, listLine); status != 200 {
		t.Errorf("own credential: %d, want 200", status)
	}
}

func TestHTTPSessionExpiry(t *testing.T) {
	c, _, pools := serveHTTP(t, Options{}, HTTPOptions{SessionIdle: 500 * time.Millisecond})
	idle := c.open()
	busy := c.open()
	done := make(chan int)
	go func() {
		status, _, _ := c.post(context.Background(), busy, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{"key":"busy"}}}`)
		done <- status
	}()
	<-pools.started
	time.Sleep(1200 * time.Millisecond) // well past the idle time
	if status, _, _ := c.post(context.Background(), idle, listLine); status != http.StatusNotFound {
		t.Errorf("idle session: %d, want 404", status)
	}
	// A session with a call in flight is not idle.
	pools.release("busy")
	if status := <-done; status != 200 {
		t.Errorf("the busy session's call: %d, want 200", status)
	}
	if status, _, _ := c.post(context.Background(), busy, listLine); status != 200 {
		t.Errorf("busy session: %d, want 200", status)
	}
}

func TestHTTPSessionCap(t *testing.T) {
	c, _, _ := serveHTTP(t, Options{}, HTTPOptions{MaxSessions: 2})
	c.open()
	c.open()
	status, body, hdr := c.post(context.Background(), "", initLine)
	if status != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" || !strings.Contains(body, `"id":0`) {
		t.Errorf("third session: %d %s", status, body)
	}
}

func TestHTTPDisconnectCancelsCall(t *testing.T) {
	c, h, pools := serveHTTP(t, Options{}, HTTPOptions{})
	sid := c.open()
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() {
		c.post(ctx, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{"key":"gone"}}}`)
		close(ended)
	}()
	<-pools.started
	cancel()
	<-ended
	// The fake pool returns only when the call's context ends, so the
	// session's calls drain only if the disconnect cancelled the call.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		h.mu.Lock()
		s := h.sessions[sid]
		busy := s != nil && s.Busy()
		h.mu.Unlock()
		if !busy {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the call of the client that went away is still running")
		}
	}
	if status, _, _ := c.post(context.Background(), sid, addLine); status != 200 {
		t.Errorf("the session after the disconnect: %d", status)
	}
}

func TestHTTPCancelledCallGetsNoReply(t *testing.T) {
	c, _, pools := serveHTTP(t, Options{}, HTTPOptions{})
	sid := c.open()
	got := make(chan string)
	go func() {
		status, body, _ := c.post(context.Background(), sid, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"wait","arguments":{"key":"x"}}}`)
		got <- http.StatusText(status) + " " + body
	}()
	<-pools.started
	if status, _, _ := c.post(context.Background(), sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`); status != 202 {
		t.Fatalf("cancel: %d", status)
	}
	if r := <-got; r != "Accepted " {
		t.Errorf("the cancelled call's POST: got %q, want 202 with no body", r)
	}
}

// serveGuarded is serveHTTP behind a guard.Policy, as the nexus commands
// serve it.
func serveGuarded(t *testing.T, hopts HTTPOptions, gopts guard.Options) (*httpClient, *HTTPHandler) {
	t.Helper()
	srv, _ := callsServer(t, Options{})
	return serveGuardedServer(t, srv, hopts, gopts)
}

// serveGuardedServer is serveGuarded serving srv.
func serveGuardedServer(t *testing.T, srv *Server, hopts HTTPOptions, gopts guard.Options) (*httpClient, *HTTPHandler) {
	t.Helper()
	h := NewHTTPHandler(srv, hopts)
	ts := httptest.NewUnstartedServer(nil)
	gopts.Addr = ts.Listener.Addr().String()
	p, err := guard.New(gopts)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = p.Wrap(h)
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return &httpClient{t: t, url: ts.URL}, h
}

// TestHTTPErrorsAreJSON: what the endpoint refuses before (or without) a
// JSON-RPC message is a JSON body {"error": ...}, as the guard's refusals
// are; a chunked body over the limit as much as one whose Content-Length
// says so.
func TestHTTPErrorsAreJSON(t *testing.T) {
	c, _ := serveGuarded(t, HTTPOptions{}, guard.Options{MaxBody: 1000})
	sid := c.open()
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"` + strings.Repeat("x", 5000) + `"}}}`
	for _, tc := range []struct {
		name   string
		method string
		body   io.Reader
		sid    string
		status int
		says   string
	}{
		{"Content-Length over the limit", http.MethodPost, strings.NewReader(big), sid, 413, "limit is 1000 bytes"},
		{"chunked over the limit", http.MethodPost, io.MultiReader(strings.NewReader(big)), sid, 413, "limit is 1000 bytes"},
		{"GET", http.MethodGet, nil, sid, 405, "method not allowed"},
		{"PUT", http.MethodPut, nil, sid, 405, "method not allowed"},
		{"DELETE without a session id", http.MethodDelete, nil, "", 400, "missing Mcp-Session-Id"},
		{"DELETE of an unknown session", http.MethodDelete, nil, "00000000000000000000000000000000", 404, "unknown or expired session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, c.url, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if tc.sid != "" {
				req.Header.Set(HeaderSessionID, tc.sid)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			var got struct {
				Error string `json:"error"`
			}
			if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" ||
				json.Unmarshal(body, &got) != nil || !strings.Contains(got.Error, tc.says) {
				t.Errorf("got %d %q %s, want %d and a JSON error saying %q", resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.status, tc.says)
			}
			if tc.status == 405 && resp.Header.Get("Allow") != "POST, DELETE" {
				t.Errorf("Allow: %q", resp.Header.Get("Allow"))
			}
		})
	}
}

// TestHTTPClientSessionCap: one client (here, one address) may hold
// MaxClientSessions; another client still gets its own, and an ended
// session makes room.
func TestHTTPClientSessionCap(t *testing.T) {
	c, _ := serveGuarded(t, HTTPOptions{MaxClientSessions: 2, MaxSessions: 10}, guard.Options{})
	first := c.open()
	c.open()
	status, body, hdr := c.post(context.Background(), "", initLine)
	if status != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" || !strings.Contains(body, "too many sessions from this client (2)") {
		t.Errorf("a third session from one client: %d %s", status, body)
	}

	// From 127.0.0.2, another client (Linux routes all of 127/8 to
	// loopback; elsewhere the address may not exist).
	other := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{
		LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}}
	req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(initLine))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := other.Do(req); err != nil {
		t.Logf("no second loopback address: %v", err)
	} else {
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get(HeaderSessionID) == "" {
			t.Errorf("a session from another client: %d", resp.StatusCode)
		}
	}

	if got := c.do(http.MethodDelete, first); got != http.StatusNoContent {
		t.Fatalf("DELETE: %d", got)
	}
	c.open()
}

// TestHTTPUnusedSessionExpires: a session that made no request after
// initialize ends after SessionUnused, long before SessionIdle; one that
// did stays.
func TestHTTPUnusedSessionExpires(t *testing.T) {
	c, h, _ := serveHTTP(t, Options{}, HTTPOptions{SessionUnused: 200 * time.Millisecond, SessionIdle: time.Hour})
	unused := c.open()
	used := c.open()
	if status, _, _ := c.post(context.Background(), used, listLine); status != 200 {
		t.Fatalf("tools/list: %d", status)
	}
	for deadline := time.Now().Add(30 * time.Second); h.Sessions() > 1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions after 30 s, want the unused one gone", h.Sessions())
		}
	}
	if status, _, _ := c.post(context.Background(), unused, listLine); status != http.StatusNotFound {
		t.Errorf("the unused session: %d, want 404", status)
	}
	if status, _, _ := c.post(context.Background(), used, listLine); status != 200 {
		t.Errorf("the used session: %d, want 200", status)
	}
}
