package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nexus-run/nexus/integration/rpcmsg"
)

// The Streamable HTTP side of MCP (docs/mcp.md, "Streamable HTTP"), end to
// end: the official Go and TypeScript SDK clients against `nexus mcp
// --http-port` and `nexus serve`, and a plain net/http client for every
// status the transport and the guard in front of it answer.

// httpProgram is the Python program of the HTTP tests: quick commands, a
// record, a failure, and hold, which blocks until the test lets it go, so
// a test acts while a call is surely in flight without guessing how long
// anything takes. hold's argument is a FIFO: it says "hold started NAME"
// on stderr, then waits for a byte the test writes to it.
var httpProgram = files{
	"work.py": `
import os, sys

def add(a, b):
    return a + b

def point(x):
    return {"x": x, "y": 2 * x}

def fail(x):
    raise ValueError("no good: " + str(x))

def hold(path):
    fd = os.open(path, os.O_RDWR)  # does not wait for a writer, unlike O_RDONLY
    print("hold started " + os.path.basename(path), file=sys.stderr, flush=True)
    try:
        os.read(fd, 1)
    finally:
        os.close(fd)
    return "released " + os.path.basename(path)
`,
	"main.loc": `
--' Commands for the HTTP tests.
module work (add, point, fail, hold)

import root-py

source Py from "work.py" ("add" as addPy, "point" as pointPy, "fail" as failPy, "hold" as holdPy)

addPy :: Int -> Int -> Int
pointPy :: Int -> Point
failPy :: Int -> Int
holdPy :: Str -> Str

--' A point on the diagonal y = 2x.
record Point where
  x :: Int
  y :: Int

record Py => Point = "dict"

--' Add two numbers.
add ::
  --' @name a
  Int ->
  --' @name b
  Int ->
  Int
add a b = addPy a b

--' The point of the line y = 2x at x.
point ::
  --' @name x
  Int ->
  Point
point x = pointPy x

--' Always raises.
fail ::
  --' @name x
  Int ->
  Int
fail x = failPy x

--' Blocks until a byte is written to the FIFO at path.
hold ::
  --' @name path
  Str ->
  Str
hold p = holdPy p
`,
}

// httpServer is a `nexus mcp --http-port 0` or `nexus serve --http-port 0`
// process. Its stderr is collected as it comes; the process is killed when
// the test ends if it is still running.
type httpServer struct {
	watched
	base string // http://127.0.0.1:PORT
	port string
	// listen is the address the server says it serves on.
	listen string
}

// servingLine is how a server says where it listens: its log's line
// msg=serving, in the text format (msg=serving ... url=http://...) or in
// JSON ("msg":"serving",...,"url":"http://...").
var servingLine = regexp.MustCompile(`"?msg"?[=:]"?serving\b.*"?url"?[=:]"?http://([^\s"]+)`)

// startHTTP runs nexus with args followed by `--http-port 0`, with TMPDIR
// set to tmp and env added, and waits until it says where it listens.
func startHTTP(t *testing.T, tmp string, env []string, args ...string) *httpServer {
	t.Helper()
	s := launchHTTP(t, tmp, env, args...)
	var m []string
	s.waitFor("the line saying where it listens", func() bool {
		m = servingLine.FindStringSubmatch(s.stderr.String())
		return m != nil
	})
	s.listen = m[1]
	host, port, err := net.SplitHostPort(m[1])
	if err != nil {
		t.Fatalf("serving line: %v", err)
	}
	s.port = port
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	s.base = "http://" + net.JoinHostPort(host, port)
	return s
}

// launchHTTP starts nexus as startHTTP does, without waiting for anything.
func launchHTTP(t *testing.T, tmp string, env []string, args ...string) *httpServer {
	t.Helper()
	cmd := exec.Command(nexusBin, append(args, "--http-port", "0")...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), env...)
	s := &httpServer{}
	// Its stderr may still hold a last line when the exit is seen: the
	// server is over only once both are in.
	s.over = func() bool { return s.exited && s.stderrEOF }
	s.dump = func() string { return "stderr:\n" + s.stderrText() }
	s.start(t, cmd)
	return s
}

// wait waits for the server to exit and returns its exit code; its
// stderr is then whole.
func (s *httpServer) wait() int {
	s.t.Helper()
	s.waitFor("the server to exit", func() bool { return s.exited && s.stderrEOF })
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitCode
}

// stop sends SIGTERM and requires a clean exit, which stops the pools; the
// callers then check with checkClean that none is left.
func (s *httpServer) stop() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.t.Fatal(err)
	}
	if code := s.wait(); code != 0 {
		s.t.Errorf("the server exited %d after SIGTERM, want 0\nstderr:\n%s", code, s.stderrText())
	}
	s.checkNoCrash()
}

func (s *httpServer) checkNoCrash() {
	s.t.Helper()
	if text := s.stderrText(); nexusCrashed(text) {
		s.t.Errorf("the server crashed:\nstderr:\n%s", text)
	}
}

// httpReply is a whole HTTP reply.
type httpReply struct {
	status int
	header http.Header
	body   []byte
}

func (r httpReply) String() string {
	return fmt.Sprintf("%d %s", r.status, bytes.TrimSpace(r.body))
}

// send makes one request to the server and reads its whole reply. A POST
// carries Content-Type: application/json and every request Accept:
// application/json, text/event-stream (what MCP clients send), unless
// header, pairs of name and value, says otherwise; an empty value removes
// the header. "Host" sets the Host the request says it is for.
func (s *httpServer) send(ctx context.Context, method, path, body string, header ...string) (httpReply, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, strings.NewReader(body))
	if err != nil {
		return httpReply{}, err
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		switch name, value := header[i], header[i+1]; {
		case name == "Host":
			req.Host = value
		case value == "":
			req.Header.Del(name)
		default:
			req.Header.Set(name, value)
		}
	}
	return doHTTP(req)
}

func doHTTP(req *http.Request) (httpReply, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return httpReply{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return httpReply{}, err
	}
	return httpReply{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// do is send for requests that must get a reply.
func (s *httpServer) do(method, path, body string, header ...string) httpReply {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	r, err := s.send(ctx, method, path, body, header...)
	if err != nil {
		s.t.Fatalf("%s %s %s: %v\nstderr:\n%s", method, path, body, err, s.stderrText())
	}
	return r
}

// rpc posts a JSON-RPC message to /mcp in session sid ("" for none).
func (s *httpServer) rpc(sid string, id any, method string, params any, header ...string) httpReply {
	s.t.Helper()
	return s.do(http.MethodPost, "/mcp", rpcLine(id, method, params), append([]string{"Mcp-Session-Id", sid}, header...)...)
}

// initialize runs the handshake, with header on every request, and
// returns the session id.
func (s *httpServer) initialize(header ...string) string {
	s.t.Helper()
	r := s.rpc("", 0, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "raw", "version": "0"},
	}, header...)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" {
		s.t.Fatalf("initialize: %v, session id %q", r, sid)
	}
	if r := s.rpc(sid, nil, "notifications/initialized", nil, header...); r.status != http.StatusAccepted {
		s.t.Fatalf("notifications/initialized: %v, want 202", r)
	}
	return sid
}

// rpcOf reads r as a JSON reply holding one JSON-RPC message.
func rpcOf(t *testing.T, r httpReply) rpcmsg.Reply {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("reply %v: Content-Type %q, want application/json", r, ct)
	}
	var m rpcmsg.Reply
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("reply %v: not JSON-RPC: %v", r, err)
	}
	return m
}

// wantRPCError requires r to be status with a JSON-RPC error body echoing
// id (as raw JSON) with code, whose message holds every one of words.
func wantRPCError(t *testing.T, what string, r httpReply, status int, id string, code int, words ...string) {
	t.Helper()
	if r.status != status {
		t.Errorf("%s: %v, want %d", what, r, status)
		return
	}
	m := rpcOf(t, r)
	if string(m.ID) != id || m.Error == nil || m.Error.Code != code || m.Result != nil {
		t.Errorf("%s: %s, want a JSON-RPC error %d with id %s", what, r.body, code, id)
		return
	}
	for _, w := range words {
		if !strings.Contains(m.Error.Message, w) {
			t.Errorf("%s: error %q does not say %q", what, m.Error.Message, w)
		}
	}
}

// checkCallJSON compares what a client got for c, a CallToolResult as
// JSON, with what c wants; a record result comes with structuredContent,
// as the clients here all speak 2025-06-18 or later, and with stateless
// (2026-07-28) every result does.
func checkCallJSON(t *testing.T, who string, c sdkCall, got []byte, stateless bool) {
	t.Helper()
	var res rpcmsg.ToolResult
	if err := json.Unmarshal(got, &res); err != nil || len(res.Content) != 1 || res.Content[0].Type != "text" {
		t.Errorf("%s: %s %v: got %s, want one text block", who, c.tool, c.args, got)
		return
	}
	text := res.Content[0].Text
	switch {
	case c.failure != nil:
		if !res.IsError {
			t.Errorf("%s: %s %v: want isError, got %s", who, c.tool, c.args, got)
		}
		for _, w := range c.failure {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %s %v: failure %q does not say %q", who, c.tool, c.args, text, w)
			}
		}
	case res.IsError:
		t.Errorf("%s: %s %v failed: %s", who, c.tool, c.args, text)
	case text != c.text:
		t.Errorf("%s: %s %v = %s, want %s", who, c.tool, c.args, text, c.text)
	}
	switch {
	case (c.record || stateless) && c.failure == nil:
		if !equalJSON(res.StructuredContent, []byte(c.text)) {
			t.Errorf("%s: %s %v: structuredContent %s, want %s", who, c.tool, c.args, res.StructuredContent, c.text)
		}
	case res.StructuredContent != nil:
		t.Errorf("%s: %s %v: structuredContent %s on a result that is no record", who, c.tool, c.args, res.StructuredContent)
	}
}

// equalJSON reports whether a and b are the same JSON value, key order
// aside. Unlike sameJSON, a text that is no JSON (a missing
// structuredContent, a reply body in plain text) is merely different, so
// the check reports it with its context.
func equalJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// toolsJSON is `./prog --mcp-tools`' list of tools as JSON, each name
// prefixed with prefix (nexus serve's module__).
func toolsJSON(t *testing.T, p *program, prefix string) []map[string]any {
	t.Helper()
	var list struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal([]byte(p.ok("--mcp-tools")), &list); err != nil {
		t.Fatalf("--mcp-tools: %v", err)
	}
	for _, tool := range list.Tools {
		tool["name"] = prefix + tool["name"].(string)
	}
	return list.Tools
}

// recorder is the Go SDK client's HTTP transport: it adds header to every
// request and notes the method and status of each.
type recorder struct {
	header http.Header

	mu   sync.Mutex
	seen []string
	sid  string
}

func (rec *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for name, values := range rec.header {
		req.Header[name] = values
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil {
		rec.mu.Lock()
		rec.seen = append(rec.seen, fmt.Sprintf("%s %d", req.Method, resp.StatusCode))
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			rec.sid = sid
		}
		rec.mu.Unlock()
	}
	return resp, err
}

// sessionID is the last Mcp-Session-Id a response carried, "" if none did.
func (rec *recorder) sessionID() string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.sid
}

func (rec *recorder) requests() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]string(nil), rec.seen...)
}

// goSDKSession runs the Go SDK client, unpinned, against url with header:
// it speaks 2026-07-28, so server/discover, tools/list (which must be
// tools, with the output schemas of that revision), the calls, each a POST
// on its own, with no session minted, and Close, which sends nothing.
func goSDKSession(t *testing.T, url string, header http.Header, serverName string, tools []map[string]any, calls []sdkCall) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	rec := &recorder{header: header}
	transport := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rec}}
	client := mcp.NewClient(&mcp.Implementation{Name: "nexus-integration", Version: "0"}, nil)
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("Go SDK: connect to %s: %v (requests: %v)", url, err, rec.requests())
	}
	defer cs.Close()
	init := cs.InitializeResult()
	if init.ProtocolVersion != "2026-07-28" || init.ServerInfo == nil || init.ServerInfo.Name != serverName {
		t.Errorf("Go SDK: discover result %s, want protocol 2026-07-28 and server %s", marshalJSON(t, init), serverName)
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("Go SDK: tools/list: %v", err)
	}
	if got, want := marshalJSON(t, list.Tools), withAnyOutput(t, list.Tools, marshalJSON(t, tools)); !equalJSON(got, want) {
		t.Errorf("Go SDK: tools/list\ngot:  %s\nwant: %s", got, want)
	}
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Errorf("Go SDK: %s %v: %v", c.tool, c.args, err)
			continue
		}
		checkCallJSON(t, "Go SDK", c, marshalJSON(t, res), true)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("Go SDK: close: %v", err)
	}
	seen := rec.requests()
	if want := 2 + len(calls); len(seen) != want {
		t.Errorf("Go SDK: %d requests, want %d (discover, list, the calls): %v", len(seen), want, seen)
	}
	for _, r := range seen {
		if r != "POST 200" {
			t.Errorf("Go SDK: unexpected request and status %q among %v", r, seen)
		}
	}
	if sid := rec.sessionID(); sid != "" {
		t.Errorf("Go SDK: the server minted a session id %q for a 2026-07-28 client", sid)
	}
}

// tsSDKSession runs the TypeScript SDK client over transport (stdio with
// the server's command, or http with the url and maybe --token):
// tools/list, the calls, then for HTTP terminate.
func tsSDKSession(t *testing.T, transport []string, serverName string, tools []map[string]any, calls []sdkCall) {
	t.Helper()
	ops := []tsOp{{Op: "list"}}
	for _, c := range calls {
		ops = append(ops, tsOp{Op: "call", Name: c.tool, Arguments: c.args})
	}
	stdio := transport[0] == "stdio"
	if !stdio {
		ops = append(ops, tsOp{Op: "terminate"})
	}
	s := tsClient(t, transport, ops...)
	var info struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(s.ServerVersion, &info); err != nil || info.Name != serverName || s.ProtocolVersion != "2025-11-25" {
		t.Errorf("TS SDK: server %s, protocol %q; want server %s, protocol 2025-11-25", s.ServerVersion, s.ProtocolVersion, serverName)
	}
	if len(s.TransportErrors) > 0 {
		t.Errorf("TS SDK: transport errors: %q", s.TransportErrors)
	}
	if len(s.Results) != len(ops) {
		t.Fatalf("TS SDK: %d results for %d operations", len(s.Results), len(ops))
	}
	var list struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(s.Results[0], &list); err != nil || !equalJSON(list.Tools, marshalJSON(t, tools)) {
		t.Errorf("TS SDK: tools/list\ngot:  %s\nwant: %s", s.Results[0], marshalJSON(t, tools))
	}
	for i, c := range calls {
		checkCallJSON(t, "TS SDK", c, s.Results[1+i], false)
	}
	if stdio {
		// Closing stdin must end the server by itself, before the SDK's
		// SIGTERM two seconds later.
		if e := s.ServerExit; e == nil || e.Code == nil || *e.Code != 0 {
			t.Errorf("TS SDK: the server did not exit 0 at EOF: %+v\n%s", e, s.Stderr)
		}
	} else if got := s.Results[len(s.Results)-1]; string(got) != "{}" {
		t.Errorf("TS SDK: terminating the session: %s", got)
	}
}

// TestHTTPRealClients: the Go and TypeScript SDKs list and call the
// examples' tools over Streamable HTTP, from `nexus mcp` serving each
// example and from `nexus serve` serving both. Both speak 2025-11-25.
func TestHTTPRealClients(t *testing.T) {
	seq := build(t, exampleFiles(t, "seq"))
	chem := build(t, exampleFiles(t, "chem"))
	type served struct {
		p      *program
		module string
		calls  []sdkCall
	}
	examples := []served{{seq, "seq", seqCalls}, {chem, "chem", chemCalls}}
	for _, e := range examples {
		tools := toolsJSON(t, e.p, "")
		bareEmptyInputs(tools)
		t.Run("mcp/"+e.module, func(t *testing.T) {
			p := e.p.in(t)
			s := startHTTP(t, p.tmp, nil, "mcp", p.launcher)
			url := s.base + "/mcp"
			goSDKSession(t, url, nil, e.module, tools, e.calls)
			tsSDKSession(t, []string{"http", url}, e.module, tools, e.calls)
			s.stop()
			p.checkClean()
		})
	}
	t.Run("serve", func(t *testing.T) {
		var tools []map[string]any
		var calls []sdkCall
		for _, e := range examples {
			tools = append(tools, toolsJSON(t, e.p.in(t), e.module+"__")...)
			bareEmptyInputs(tools)
			for _, c := range e.calls {
				c.tool = e.module + "__" + c.tool
				calls = append(calls, c)
			}
		}
		s := startHTTP(t, seq.tmp, nil, "serve", seq.launcher, chem.launcher)
		url := s.base + "/mcp"
		goSDKSession(t, url, nil, "nexus", tools, calls)
		tsSDKSession(t, []string{"http", url}, "nexus", tools, calls)
		// Both clients ended their sessions.
		if h := health(t, s); h.Sessions != 0 {
			t.Errorf("%d MCP sessions left after both clients ended theirs", h.Sessions)
		}
		s.stop()
		seq.in(t).checkClean()
		chem.in(t).checkClean()
	})
}

// TestHTTPTransport: the statuses of the Streamable HTTP transport, with
// a plain HTTP client.
func TestHTTPTransport(t *testing.T) {
	p := build(t, httpProgram)
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher)

	// initialize: 200 JSON with a fresh session id, 128 bits in hex.
	r := s.rpc("", 1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "0"}})
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(sid) {
		t.Fatalf("initialize: %v, session id %q; want 200 and 32 hex digits", r, sid)
	}
	var init struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if m := rpcOf(t, r); string(m.ID) != "1" || json.Unmarshal(m.Result, &init) != nil || init.ProtocolVersion != "2025-06-18" ||
		!equalJSON(init.Capabilities, []byte(`{"tools":{"listChanged":false}}`)) || init.ServerInfo.Name != "work" || init.ServerInfo.Version == "" {
		t.Errorf("initialize: %s", r.body)
	}
	if other := s.initialize(); other == sid {
		t.Errorf("two sessions got the same id %s", sid)
	}

	// A notification: 202, no body.
	r = s.rpc(sid, nil, "notifications/initialized", nil)
	if r.status != http.StatusAccepted || len(r.body) != 0 {
		t.Errorf("notifications/initialized: %v, want 202 with no body", r)
	}
	r = s.rpc(sid, nil, "notifications/cancelled", map[string]any{"requestId": 99})
	if r.status != http.StatusAccepted || len(r.body) != 0 {
		t.Errorf("notifications/cancelled: %v, want 202 with no body", r)
	}

	// A request: 200 JSON.
	r = s.rpc(sid, 2, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 2, "b": 3}})
	if m := rpcOf(t, r); r.status != http.StatusOK || string(m.ID) != "2" ||
		!equalJSON(m.Result, []byte(`{"content":[{"type":"text","text":"5"}]}`)) {
		t.Errorf("tools/call add: %v", r)
	}
	// Also when the client accepts anything.
	r = s.rpc(sid, "p", "ping", nil, "Accept", "*/*")
	if m := rpcOf(t, r); r.status != http.StatusOK || string(m.ID) != `"p"` || string(m.Result) != "{}" {
		t.Errorf("ping with Accept */*: %v", r)
	}

	// A client that accepts only text/event-stream gets a one-event stream.
	r = s.rpc(sid, 3, "tools/call", map[string]any{"name": "point", "arguments": map[string]any{"x": 4}}, "Accept", "text/event-stream")
	const prefix, suffix = "event: message\ndata: ", "\n\n"
	body := string(r.body)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "text/event-stream" ||
		!strings.HasPrefix(body, prefix) || !strings.HasSuffix(body, suffix) {
		t.Errorf("tools/call accepting only text/event-stream: %d %q %q, want 200 text/event-stream %q...%q",
			r.status, r.header.Get("Content-Type"), body, prefix, suffix)
	} else {
		data := strings.TrimSuffix(strings.TrimPrefix(body, prefix), suffix)
		var m rpcmsg.Reply
		if strings.Contains(data, "\n") || json.Unmarshal([]byte(data), &m) != nil || string(m.ID) != "3" || !equalJSON(m.Result,
			[]byte(`{"content":[{"type":"text","text":"{\"x\":4,\"y\":8}"}],"structuredContent":{"x":4,"y":8}}`)) {
			t.Errorf("event data: %q", data)
		}
	}

	// A protocol version header we do not speak.
	wantRPCError(t, "unsupported Mcp-Protocol-Version", s.rpc(sid, 4, "ping", nil, "Mcp-Protocol-Version", "1999-01-01"),
		http.StatusBadRequest, "4", -32600, "1999-01-01")

	// No session id: 400 with a JSON-RPC error that echoes the id, with
	// its JSON type.
	for _, id := range []any{7, "seven"} {
		wantRPCError(t, "tools/list without a session", s.rpc("", id, "tools/list", nil),
			http.StatusBadRequest, string(marshalJSON(t, id)), -32600, "Mcp-Session-Id")
	}
	// An unknown session: 404, and the client starts again.
	unknown := strings.Repeat("0", 32)
	wantRPCError(t, "an unknown session", s.rpc(unknown, 8, "tools/list", nil), http.StatusNotFound, "8", -32600, "session")

	// GET: no stream for server messages.
	for _, accept := range []string{"text/event-stream", "application/json, text/event-stream"} {
		r = s.do(http.MethodGet, "/mcp", "", "Mcp-Session-Id", sid, "Accept", accept)
		if r.status != http.StatusMethodNotAllowed || !strings.Contains(r.header.Get("Allow"), "POST") {
			t.Errorf("GET /mcp (Accept %s): %v, Allow %q; want 405 allowing POST", accept, r, r.header.Get("Allow"))
		}
	}

	// A session belongs to the Authorization header that began it, even
	// with no token configured.
	owned := s.initialize("Authorization", "Bearer alice")
	for _, auth := range []string{"", "Bearer bob"} {
		wantRPCError(t, fmt.Sprintf("a session used with Authorization %q", auth),
			s.rpc(owned, 9, "ping", nil, "Authorization", auth), http.StatusNotFound, "9", -32600)
	}
	wantRPCError(t, "a session begun without Authorization used with one",
		s.rpc(sid, 10, "ping", nil, "Authorization", "Bearer alice"), http.StatusNotFound, "10", -32600)
	if r := s.rpc(owned, 11, "ping", nil, "Authorization", "Bearer alice"); r.status != http.StatusOK {
		t.Errorf("a session used by its owner: %v", r)
	}
	if r := s.rpc(sid, 12, "ping", nil); r.status != http.StatusOK {
		t.Errorf("a session still alive after others used it in vain: %v", r)
	}

	// DELETE ends a session: 204, then it is unknown.
	if r := s.do(http.MethodDelete, "/mcp", "", "Mcp-Session-Id", owned, "Authorization", "Bearer bob"); r.status != http.StatusNotFound {
		t.Errorf("DELETE by another owner: %v, want 404", r)
	}
	if r := s.do(http.MethodDelete, "/mcp", "", "Mcp-Session-Id", sid); r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Errorf("DELETE: %v, want 204", r)
	}
	wantRPCError(t, "a deleted session", s.rpc(sid, 13, "ping", nil), http.StatusNotFound, "13", -32600)
	if r := s.do(http.MethodDelete, "/mcp", "", "Mcp-Session-Id", sid); r.status != http.StatusNotFound {
		t.Errorf("DELETE of a deleted session: %v, want 404", r)
	}
	if r := s.do(http.MethodDelete, "/mcp", ""); r.status != http.StatusBadRequest {
		t.Errorf("DELETE without a session id: %v, want 400", r)
	}

	s.stop()
	p.checkClean()
}

// TestHTTPGuard: Host, Origin, Content-Type and body size, checked before
// the transport sees a request.
func TestHTTPGuard(t *testing.T) {
	p := build(t, httpProgram)
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher, "--max-body", "1000")
	sid := s.initialize()
	ping := rpcLine(1, "ping", nil)
	for _, c := range []struct {
		name   string
		method string
		body   string
		header []string
		status int
		says   string
	}{
		{"Origin of another site", "POST", ping, []string{"Origin", "http://evil.example"}, 403, "Origin"},
		{"Origin of another site on our port", "POST", ping, []string{"Origin", "http://evil.example:" + s.port}, 403, "Origin"},
		{"Origin null", "POST", ping, []string{"Origin", "null"}, 403, "Origin"},
		{"Origin localhost", "POST", ping, []string{"Origin", "http://localhost:" + s.port}, 200, ""},
		{"Origin 127.0.0.1", "POST", ping, []string{"Origin", "http://127.0.0.1:" + s.port}, 200, ""},
		{"Host of another site", "POST", ping, []string{"Host", "evil.example"}, 403, "Host"},
		{"Host of another site on our port", "POST", ping, []string{"Host", "evil.example:" + s.port}, 403, "Host"},
		{"Host on another port", "POST", ping, []string{"Host", "127.0.0.1:1"}, 403, "Host"},
		{"Host localhost", "POST", ping, []string{"Host", "localhost:" + s.port}, 200, ""},
		// Checked before anything else: the method, the session.
		{"GET from another site", "GET", "", []string{"Origin", "http://evil.example"}, 403, "Origin"},
		{"DELETE for another Host", "DELETE", "", []string{"Host", "evil.example"}, 403, "Host"},
		{"POST of text/plain", "POST", ping, []string{"Content-Type", "text/plain"}, 415, "application/json"},
		{"POST without Content-Type", "POST", ping, []string{"Content-Type", ""}, 415, "application/json"},
		{"POST of JSON with a charset", "POST", ping, []string{"Content-Type", "application/json; charset=utf-8"}, 200, ""},
		{"body of 1000 bytes", "POST", padded(t, 1000), nil, 200, ""},
		{"body of 1001 bytes", "POST", padded(t, 1001), nil, 413, "1000"},
	} {
		r := s.do(c.method, "/mcp", c.body, append([]string{"Mcp-Session-Id", sid}, c.header...)...)
		if r.status != c.status || !strings.Contains(string(r.body), c.says) {
			t.Errorf("%s: %v, want %d saying %q", c.name, r, c.status, c.says)
		}
	}

	// A body over the limit whose length is not announced: the limit
	// holds while it is read.
	req, err := http.NewRequest(http.MethodPost, s.base+"/mcp", io.MultiReader(strings.NewReader(padded(t, 5000))))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", sid)
	if r, err := doHTTP(req); err != nil || r.status != http.StatusRequestEntityTooLarge || req.ContentLength != 0 || !jsonError(r, "1000") {
		t.Errorf("chunked body of 5000 bytes: %v %v (length sent %d), want 413 with a JSON error naming the limit", r, err, req.ContentLength)
	}
	// Nothing the server refuses is plain text.
	if r := s.do(http.MethodGet, "/nowhere", ""); r.status != http.StatusNotFound || !jsonError(r, "/mcp") {
		t.Errorf("GET /nowhere: %v, want 404 with a JSON error", r)
	}
	if r := s.do(http.MethodGet, "/mcp", "", "Mcp-Session-Id", sid); r.status != http.StatusMethodNotAllowed || !jsonError(r, "POST") {
		t.Errorf("GET /mcp: %v, want 405 with a JSON error", r)
	}

	s.stop()
	p.checkClean()
}

// jsonError reports whether r is a JSON body {"error": msg} whose msg
// says says.
func jsonError(r httpReply, says string) bool {
	var e struct {
		Error string `json:"error"`
	}
	return r.header.Get("Content-Type") == "application/json" && json.Unmarshal(r.body, &e) == nil && strings.Contains(e.Error, says)
}

// padded is a ping of exactly n bytes.
func padded(t *testing.T, n int) string {
	t.Helper()
	head := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"`
	tail := `"}}}`
	if n < len(head)+len(tail) {
		t.Fatalf("a ping cannot be %d bytes", n)
	}
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// TestHTTPToken: with a token set, by flag or by NEXUS_MCP_TOKEN, every
// request needs it as a bearer token, and it is never logged.
func TestHTTPToken(t *testing.T) {
	p := build(t, httpProgram)
	const token = "s3cret-token-7f2a"
	for _, how := range []struct {
		name string
		env  []string
		args []string
	}{
		{"flag", nil, []string{"--auth-token", token}},
		{"env", []string{"NEXUS_MCP_TOKEN=" + token}, nil},
	} {
		t.Run(how.name, func(t *testing.T) {
			p := p.in(t)
			tools := toolsJSON(t, p, "") // before the server starts its pool
			s := startHTTP(t, p.tmp, how.env, append([]string{"mcp", p.launcher}, how.args...)...)
			init := rpcLine(1, "initialize", map[string]any{"protocolVersion": "2025-06-18"})
			for _, auth := range []string{"", "Bearer wrong", "Bearer " + token + "x", "Basic " + token, token} {
				r := s.do(http.MethodPost, "/mcp", init, "Authorization", auth)
				if r.status != http.StatusUnauthorized || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("Authorization %q: %v, WWW-Authenticate %q; want 401 with Bearer", auth, r, r.header.Get("WWW-Authenticate"))
				}
				if r.header.Get("Mcp-Session-Id") != "" {
					t.Errorf("Authorization %q: a session was opened", auth)
				}
			}
			auth := []string{"Authorization", "Bearer " + token}
			sid := s.initialize(auth...)
			if r := s.rpc(sid, 2, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 2}}, auth...); r.status != http.StatusOK || !strings.Contains(string(r.body), `"text":"3"`) {
				t.Errorf("tools/call with the token: %v", r)
			}
			// The token is needed on every request, not only the first.
			if r := s.rpc(sid, 3, "ping", nil); r.status != http.StatusUnauthorized {
				t.Errorf("a session used without the token: %v, want 401", r)
			}
			if r := s.do(http.MethodDelete, "/mcp", "", "Mcp-Session-Id", sid); r.status != http.StatusUnauthorized {
				t.Errorf("DELETE without the token: %v, want 401", r)
			}

			calls := []sdkCall{
				{tool: "add", args: map[string]any{"a": 20, "b": 22}, text: "42"},
				{tool: "point", args: map[string]any{"x": 1}, record: true, text: `{"x":1,"y":2}`},
				{tool: "fail", args: map[string]any{"x": 7}, failure: []string{"ValueError", "no good: 7"}},
			}
			goSDKSession(t, s.base+"/mcp", http.Header{"Authorization": {"Bearer " + token}}, "work", tools, calls)
			tsSDKSession(t, []string{"http", s.base + "/mcp", "--token", token}, "work", tools, calls)

			s.stop()
			if strings.Contains(s.stderrText(), token) {
				t.Errorf("the token is in the server's log:\n%s", s.stderrText())
			}
			p.checkClean()
		})
	}
}

// TestHTTPListenBeyondLoopback: a server listening beyond loopback needs
// a token or --allow-no-auth.
//
// The servers it starts listen on every interface, so it runs inside a
// network namespace of its own that has only loopback (inLoopbackOnly).
func TestHTTPListenBeyondLoopback(t *testing.T) {
	if !inLoopbackOnly(t) {
		return
	}
	p := build(t, httpProgram)
	for _, cmd := range [][]string{{"mcp", p.launcher}, {"serve", p.launcher}} {
		res := runIn(t, t.TempDir(), nil, "env", append([]string{"TMPDIR=" + p.tmp, "NEXUS_MCP_TOKEN=", nexusBin},
			append(cmd, "--http-host", "0.0.0.0", "--http-port", "0")...)...)
		if res.code == 0 || !strings.Contains(res.stderr, "refusing to listen on 0.0.0.0") ||
			!strings.Contains(res.stderr, "--allow-no-auth") || strings.Contains(res.stderr, "serving") {
			t.Errorf("nexus %s on 0.0.0.0 without a token: exit %d, stderr %q; want a refusal naming the way out", cmd[0], res.code, res.stderr)
		}
		p.checkClean()
	}

	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher, "--http-host", "0.0.0.0", "--allow-no-auth")
	// Go listens on every interface, IPv6 too, and names it [::].
	if host, _, _ := net.SplitHostPort(s.listen); !net.ParseIP(host).IsUnspecified() {
		t.Errorf("--http-host 0.0.0.0 --allow-no-auth listens on %s", s.listen)
	}
	sid := s.initialize()
	if r := s.rpc(sid, 1, "ping", nil); r.status != http.StatusOK {
		t.Errorf("ping with --allow-no-auth: %v", r)
	}
	s.stop()

	const token = "0123456789abcdef"
	s = startHTTP(t, p.tmp, nil, "mcp", p.launcher, "--http-host", "0.0.0.0", "--auth-token", token)
	if r := s.rpc("", 1, "initialize", map[string]any{"protocolVersion": "2025-06-18"}); r.status != http.StatusUnauthorized {
		t.Errorf("initialize without the token on 0.0.0.0: %v, want 401", r)
	}
	s.initialize("Authorization", "Bearer "+token)
	s.stop()
	p.checkClean()
}

// TestHTTPTokenRefused: a blank or short token, by flag or by
// NEXUS_MCP_TOKEN, is a usage error at start (exit 2), and the refusal
// never shows it. An empty NEXUS_MCP_TOKEN is no token; an empty
// --auth-token is a mistake. (Beyond loopback the same check runs first:
// internal/nexus/guard's tests; this one listens on loopback only.)
func TestHTTPTokenRefused(t *testing.T) {
	p := build(t, httpProgram)
	for _, c := range []struct {
		name string
		env  string // NEXUS_MCP_TOKEN
		args []string
		says string
	}{
		{"blank flag", "", []string{"--auth-token", " "}, "blank"},
		{"empty flag", "", []string{"--auth-token", ""}, "blank"},
		{"short flag", "", []string{"--auth-token", "xq7z"}, "is 4 characters"},
		{"blank variable", "   ", nil, "blank"},
		{"short variable", "xq7z", nil, "is 4 characters"},
	} {
		for _, command := range []string{"mcp", "serve"} {
			code, stderr := startRefused(t, p.tmp, []string{"NEXUS_MCP_TOKEN=" + c.env}, append([]string{command, p.launcher}, c.args...)...)
			if code != 2 || !strings.Contains(stderr, c.says) || !strings.Contains(stderr, "at least 16") {
				t.Errorf("nexus %s, %s: exit %d, stderr %q; want exit 2 saying %q and the minimum", command, c.name, code, stderr, c.says)
			}
			if strings.Contains(stderr, "xq7z") {
				t.Errorf("nexus %s, %s: the refusal shows the token: %q", command, c.name, stderr)
			}
		}
	}
	p.checkClean()
}

// startRefused runs nexus as startHTTP does, for a server that must refuse
// to start: it returns the exit code and stderr. A server that starts
// anyway fails the test and is killed.
func startRefused(t *testing.T, tmp string, env []string, args ...string) (int, string) {
	t.Helper()
	s := launchHTTP(t, tmp, env, args...)
	s.waitFor("the server to exit", func() bool { return s.exited || servingLine.MatchString(s.stderr.String()) })
	if !s.hasExited() {
		t.Errorf("nexus %s started, want a refusal:\n%s", strings.Join(args, " "), s.stderrText())
		s.cmd.Process.Kill()
	}
	return s.wait(), s.stderrText()
}

// holder runs hold calls: each gets a FIFO of its own, which releases it.
type holder struct {
	t   *testing.T
	dir string
}

func newHolder(t *testing.T) *holder { return &holder{t: t, dir: t.TempDir()} }

// fifo makes the FIFO of the hold call called name and returns its path.
func (h *holder) fifo(name string) string {
	h.t.Helper()
	path := filepath.Join(h.dir, name)
	if err := mkfifo(path); errors.Is(err, errors.ErrUnsupported) {
		h.t.Skip(err)
	} else if err != nil {
		h.t.Fatal(err)
	}
	return path
}

// release lets the hold call called name return.
func (h *holder) release(name string) {
	h.t.Helper()
	// O_NONBLOCK: fail rather than wait if hold has not opened it.
	f, err := openFIFO(filepath.Join(h.dir, name))
	if err != nil {
		h.t.Fatalf("release %s: %v", name, err)
	}
	defer f.Close()
	if _, err := f.Write([]byte{1}); err != nil {
		h.t.Fatalf("release %s: %v", name, err)
	}
}

// async is a request sent on a goroutine of its own.
type async struct {
	cancel context.CancelFunc
	done   chan struct{}
	reply  httpReply
	err    error
}

// sendAsync sends a request as send does, on a goroutine.
func (s *httpServer) sendAsync(method, path, body string, header ...string) *async {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	a := &async{cancel: cancel, done: make(chan struct{})}
	go func() {
		a.reply, a.err = s.send(ctx, method, path, body, header...)
		close(a.done)
		s.update(func() {}) // wakes waitHold
	}()
	s.t.Cleanup(cancel)
	return a
}

// result waits for the reply.
func (a *async) result() (httpReply, error) {
	<-a.done
	return a.reply, a.err
}

// ended reports whether the reply came.
func (a *async) ended() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// waitHold waits until the hold call called name, sent as call, has begun
// in the pool; call ending first fails the test.
func (s *httpServer) waitHold(name string, call *async) {
	s.t.Helper()
	s.waitFor("hold "+name+" to begin", func() bool {
		return strings.Contains(s.stderr.String(), poolLine("hold started "+name)) || call.ended()
	})
	if call.ended() {
		r, err := call.result()
		s.t.Fatalf("hold %s ended before it began: %v %v\nstderr:\n%s", name, r, err, s.stderrText())
	}
}

// holdCall is the body of a call of tool, hold of httpProgram, through
// MCP, or through the JSON API when tool is "".
func holdCall(t *testing.T, tool string, id any, fifo string) string {
	t.Helper()
	args := map[string]any{"path": fifo}
	if tool == "" {
		return string(marshalJSON(t, args))
	}
	return rpcLine(id, "tools/call", map[string]any{"name": tool, "arguments": args})
}

// TestHTTPDisconnectCancelsCall: a client that goes away in the middle of
// a call cancels it, and so does notifications/cancelled. With one call
// allowed in flight per pool, the cancelled call, which Python cannot stop,
// would hold the pool's one place until it ends; the pool is replaced
// instead (its abandoned calls exceed half of one place), which ends the
// call, and the next call is served by a fresh pool; nexus serve's /health
// also shows the call gone.
func TestHTTPDisconnectCancelsCall(t *testing.T) {
	p := build(t, httpProgram)
	for _, c := range []struct {
		name    string
		command string
		tool    string // what the tools are called, or "" for the JSON API
		// notify cancels with notifications/cancelled instead of leaving.
		notify bool
	}{
		{"mcp", "mcp", "hold", false},
		{"mcp-notification", "mcp", "hold", true},
		{"serve-mcp", "serve", "work__hold", false},
		{"serve-call", "serve", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := p.in(t)
			s := startHTTP(t, p.tmp, nil, c.command, p.launcher, "--pool-calls", "1")
			h := newHolder(t)
			fifo := h.fifo("first")
			var first *async
			var sid string
			if c.tool != "" {
				sid = s.initialize()
				first = s.sendAsync("POST", "/mcp", holdCall(t, c.tool, 1, fifo), "Mcp-Session-Id", sid)
			} else {
				first = s.sendAsync("POST", "/call/work/hold", holdCall(t, "", nil, fifo))
			}
			s.waitHold("first", first)
			if c.command == "serve" {
				if calls := poolCalls(t, s, "work"); calls != 1 {
					t.Errorf("%d calls in flight during hold, want 1", calls)
				}
			}
			if c.notify {
				r := s.rpc(sid, nil, "notifications/cancelled", map[string]any{"requestId": 1, "reason": "changed my mind"})
				if r.status != http.StatusAccepted {
					t.Errorf("notifications/cancelled: %v, want 202", r)
				}
				// No reply to a cancelled request, by the protocol: the
				// POST that carried it ends empty.
				if r, err := first.result(); err != nil || r.status != http.StatusAccepted || len(r.body) != 0 {
					t.Errorf("the cancelled request ended with %v %v, want 202 and no body", r, err)
				}
			} else {
				first.cancel()
				if r, err := first.result(); !errors.Is(err, context.Canceled) {
					t.Fatalf("the cancelled request ended with %v %v", r, err)
				}
			}
			if c.command == "serve" {
				waitHealth(t, s, "no call in flight", func(h healthReply) bool { return h.calls("work") == 0 })
			}

			// The pool's one place is free again.
			if c.tool != "" {
				r := s.rpc(sid, 2, "tools/call", map[string]any{"name": strings.TrimSuffix(c.tool, "hold") + "add", "arguments": map[string]any{"a": 1, "b": 1}})
				if m := rpcOf(t, r); r.status != http.StatusOK || !equalJSON(m.Result, []byte(`{"content":[{"type":"text","text":"2"}]}`)) {
					t.Errorf("the call after the cancelled one: %v", r)
				}
			} else if r := s.do("POST", "/call/work/add", `{"a":1,"b":1}`); r.status != http.StatusOK || string(r.body) != "{\"result\":2}\n" {
				t.Errorf("the call after the cancelled one: %v", r)
			}

			// The replaced pool took the held function with it.
			if c.command == "serve" {
				waitHealth(t, s, "the pool replaced", func(h healthReply) bool { return h.Programs[0].Pools[0].Replaced == 1 })
			}
			s.stop()
			p.checkClean()
		})
	}
}

// TestHTTPSessionCap: --max-sessions caps the session table; a client
// beyond it is told to come back later, and an ended session makes room.
func TestHTTPSessionCap(t *testing.T) {
	p := build(t, httpProgram)
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher, "--max-sessions", "2")
	first := s.initialize()
	s.initialize()
	r := s.rpc("", "third", "initialize", map[string]any{"protocolVersion": "2025-06-18"})
	wantRPCError(t, "initialize beyond --max-sessions", r, http.StatusServiceUnavailable, `"third"`, -32603, "too many sessions")
	if r.header.Get("Retry-After") == "" || r.header.Get("Mcp-Session-Id") != "" {
		t.Errorf("initialize beyond --max-sessions: Retry-After %q, Mcp-Session-Id %q; want the first and not the second",
			r.header.Get("Retry-After"), r.header.Get("Mcp-Session-Id"))
	}
	if r := s.do(http.MethodDelete, "/mcp", "", "Mcp-Session-Id", first); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %v", r)
	}
	s.initialize()
	s.stop()
	p.checkClean()
}

// TestHTTPGracefulShutdown: SIGTERM during a call lets it finish and
// answer within the grace, then the server stops its pools and exits 0.
func TestHTTPGracefulShutdown(t *testing.T) {
	p := build(t, httpProgram)
	for _, c := range []struct {
		name, command string
		mcp           bool
	}{
		{"mcp", "mcp", true},
		{"serve-call", "serve", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := p.in(t)
			// A grace far longer than the call needs once released (see
			// TestShutdownGrace for a call that outlives it).
			s := startHTTP(t, p.tmp, nil, c.command, p.launcher, "--shutdown-grace", "10m")
			h := newHolder(t)
			fifo := h.fifo("last")
			var call *async
			if c.mcp {
				sid := s.initialize()
				call = s.sendAsync("POST", "/mcp", holdCall(t, "hold", 5, fifo), "Mcp-Session-Id", sid)
			} else {
				call = s.sendAsync("POST", "/call/work/hold", holdCall(t, "", nil, fifo))
			}
			s.waitHold("last", call)
			if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			s.waitStderr("stopping: ")
			if s.hasExited() {
				t.Fatalf("the server exited with a call in flight\nstderr:\n%s", s.stderrText())
			}
			h.release("last")
			r, err := call.result()
			if err != nil {
				t.Fatalf("the call in flight at SIGTERM: %v\nstderr:\n%s", err, s.stderrText())
			}
			want := `{"result":"released last"}` + "\n"
			if c.mcp {
				want = `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"\"released last\""}]}}`
			}
			if r.status != http.StatusOK || !equalJSON(r.body, []byte(want)) {
				t.Errorf("the call in flight at SIGTERM: %v, want 200 %s", r, want)
			}
			if code := s.wait(); code != 0 {
				t.Errorf("exit %d after SIGTERM, want 0\nstderr:\n%s", code, s.stderrText())
			}
			s.checkNoCrash()
			p.checkClean()
		})
	}
}

// TestHTTPSessionExpiry: a session ends after --session-idle without a
// request, but not while a call of its is in flight. nexus serve's
// /health counts the sessions without touching them.
func TestHTTPSessionExpiry(t *testing.T) {
	p := build(t, httpProgram)
	s := startHTTP(t, p.tmp, nil, "serve", p.launcher, "--session-idle", "1s")
	h := newHolder(t)
	fifo := h.fifo("busy")

	// busy has a call in flight from before idle began: had it been idle,
	// it would expire first.
	busy := s.initialize()
	call := s.sendAsync("POST", "/mcp", holdCall(t, "work__hold", 1, fifo), "Mcp-Session-Id", busy)
	s.waitHold("busy", call)
	idle := s.initialize()
	waitHealth(t, s, "the idle session to expire", func(h healthReply) bool { return h.Sessions < 2 })
	if n := health(t, s).Sessions; n != 1 {
		t.Errorf("%d sessions once the idle one expired, want 1 (the busy one)", n)
	}
	wantRPCError(t, "an expired session", s.rpc(idle, 3, "ping", nil), http.StatusNotFound, "3", -32600, "expired")

	// An expiring session cancels its calls: this one must end well.
	h.release("busy")
	r, err := call.result()
	if err != nil {
		t.Fatal(err)
	}
	if m := rpcOf(t, r); r.status != http.StatusOK ||
		!equalJSON(m.Result, []byte(`{"content":[{"type":"text","text":"\"released busy\""}]}`)) {
		t.Errorf("the call of the busy session: %v", r)
	}
	waitHealth(t, s, "the busy session to expire once idle", func(h healthReply) bool { return h.Sessions == 0 })
	wantRPCError(t, "an expired session", s.rpc(busy, 4, "ping", nil), http.StatusNotFound, "4", -32600, "expired")

	s.stop()
	p.checkClean()
}

// TestHTTPLimits: one client cannot fill the server. --max-client-sessions
// caps the sessions of one address (every local process is one), a
// session that makes no request after initialize ends after
// --session-unused, and --max-conns caps the connections: one beyond is
// answered 503 in JSON until another closes.
func TestHTTPLimits(t *testing.T) {
	p := build(t, httpProgram)
	s := startHTTP(t, p.tmp, nil, "serve", p.launcher, "--max-client-sessions", "1", "--session-unused", "1s")
	unused := s.initialize()
	r := s.rpc("", "second", "initialize", map[string]any{"protocolVersion": "2025-06-18"})
	wantRPCError(t, "a second session from one client", r, http.StatusServiceUnavailable, `"second"`, -32603, "too many sessions from this client (1)")
	waitHealth(t, s, "the unused session to end", func(h healthReply) bool { return h.Sessions == 0 })
	wantRPCError(t, "the unused session", s.rpc(unused, 3, "ping", nil), http.StatusNotFound, "3", -32600, "expired")
	used := s.initialize()
	if r := s.rpc(used, 4, "tools/list", nil); r.status != http.StatusOK {
		t.Errorf("tools/list in the new session: %v", r)
	}
	s.stop()

	s = startHTTP(t, p.tmp, nil, "mcp", p.launcher, "--max-conns", "1")
	// One connection, surely accepted (it is answered), kept open.
	held, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", s.port))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	fmt.Fprintf(held, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n", s.port)
	if resp, err := http.ReadResponse(bufio.NewReader(held), nil); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("the first connection: %v %v", resp, err)
	}
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: hangGuard}
	init := rpcLine(1, "initialize", map[string]any{"protocolVersion": "2025-06-18"})
	post := func() (*http.Response, []byte, error) {
		resp, err := fresh.Post(s.base+"/mcp", "application/json", strings.NewReader(init))
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp, body, err
	}
	resp, body, err := post()
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable || !jsonError(httpReply{status: resp.StatusCode, header: resp.Header, body: body}, "too many connections (the limit is 1)") {
		t.Errorf("a connection beyond --max-conns: %v %s %v, want 503 in JSON", resp, body, err)
	}
	held.Close()
	for i := 0; ; i++ {
		resp, _, err := post()
		if err == nil && resp.StatusCode == http.StatusOK {
			break
		}
		if i == 500 {
			t.Fatalf("a closed connection did not make room: %v %v", resp, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.stop()
	p.checkClean()
}
