package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// The session tests serve a program whose functions run in fakePools, in
// this process: what is tested here is the protocol, not the pools (the
// integration tests drive real pools).
const calls = `
--' Functions for the session tests.
module calls (add, wait, boom, point, answer)
import root-py
source Py from "fns.py" ("add" as addPy, "wait" as waitPy, "boom" as boomPy)

addPy :: Int -> Int -> Int
waitPy :: Str -> Int
boomPy :: Int -> Int

record Point where
  x :: Real
  y :: Real

--' Add two numbers.
--' title: Addition
--' icon: https://example.com/add.png
add :: Int -> Int -> Int
add a b = addPy a b

--' Wait until released (or cancelled).
wait ::
  --' @name key
  Str ->
  Int
wait k = waitPy k

boom :: Int -> Int
boom x = boomPy x

point :: Real -> Point
point x = {x = x, y = 0.5}

answer :: Int
answer = 42
`

// fakePools runs the functions of the calls program. wait blocks until
// release(key) or its context ends.
type fakePools struct {
	m       *manifest.Manifest
	mu      sync.Mutex
	gates   map[string]chan struct{}
	started chan string  // receives a wait's key once it runs
	calls   atomic.Int64 // of Call
}

func newFakePools(m *manifest.Manifest) *fakePools {
	return &fakePools{m: m, gates: map[string]chan struct{}{}, started: make(chan string, 16)}
}

func (p *fakePools) gate(key string) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gates[key] == nil {
		p.gates[key] = make(chan struct{})
	}
	return p.gates[key]
}

func (p *fakePools) release(key string) { close(p.gate(key)) }

func (p *fakePools) Call(ctx context.Context, f *manifest.Function, data []byte) ([]byte, error) {
	p.calls.Add(1)
	args, err := types.DecodeArgs(f.Args, data)
	if err != nil {
		return nil, err
	}
	var result any
	switch f.Source {
	case "add":
		result = args[0].(int64) + args[1].(int64)
	case "wait":
		key := args[0].(string)
		p.started <- key
		select {
		case <-p.gate(key):
			result = int64(len(key))
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "boom":
		return nil, errors.New("boom: ValueError: no good")
	default:
		return nil, fmt.Errorf("no function %s", f.Source)
	}
	var out bytes.Buffer
	if err := types.EncodeMsgpack(msgpack.NewEncoder(&out), f.Return, result); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func callsServer(t testing.TB, opts Options) (*Server, *fakePools) {
	t.Helper()
	m := pooltest.Compile(t, calls, "def add(a, b): return a + b\ndef wait(k): return 0\ndef boom(x): raise ValueError('no good')\n")
	pools := newFakePools(m)
	tools, skipped := tool.FromProgram(m, &dispatch.Dispatcher{M: m, Pools: pools}, "")
	if len(skipped) > 0 {
		t.Fatalf("skipped: %v", skipped)
	}
	return NewServer(m.Name, tools, opts), pools
}

// exchange sends lines to a new session and returns the replies, after
// the calls in flight have ended.
func exchange(srv *Server, lines ...string) []string {
	ss := srv.NewSession()
	var mu sync.Mutex
	var replies []string
	for _, l := range lines {
		ss.Handle(context.Background(), []byte(l), func(b []byte) {
			if b == nil {
				return
			}
			mu.Lock()
			replies = append(replies, string(b))
			mu.Unlock()
		})
	}
	ss.Wait()
	return replies
}

const (
	initLine        = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func TestLifecycle(t *testing.T) {
	srv, _ := callsServer(t, Options{})
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"ping before initialize", []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`},
			[]string{`{"jsonrpc":"2.0","id":1,"result":{}}`}},
		{"list before initialize", []string{`{"jsonrpc":"2.0","id":"x","method":"tools/list"}`},
			[]string{`{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"the session is not initialized: send initialize first"}}`}},
		{"call before initialized", []string{initLine, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"answer"}}`},
			[]string{`"id":0,"result"`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"the session is not initialized: send notifications/initialized first"}}`}},
		{"initialize twice", []string{initLine, initLine},
			[]string{`"id":0,"result"`, `{"jsonrpc":"2.0","id":0,"error":{"code":-32600,"message":"the session is already initialized"}}`}},
		{"unknown method", []string{`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`},
			[]string{`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found: resources/list"}}`}},
		{"server/discover", []string{`{"jsonrpc":"2.0","id":"d-1","method":"server/discover","params":{"_meta":{}}}`},
			[]string{`{"jsonrpc":"2.0","id":"d-1","error":{"code":-32601,"message":"method not found: server/discover"}}`}},
		{"not JSON", []string{`{"jsonrpc":"2.0","id":4,`},
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`}},
		{"not an object", []string{`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, `"ping"`},
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`}},
		{"wrong version", []string{`{"jsonrpc":"1.0","id":5,"method":"ping"}`},
			[]string{`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,`}},
		{"bad id", []string{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`},
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`}},
		{"ids keep their type", []string{`{"jsonrpc":"2.0","id":"7","method":"ping"}`, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, `{"jsonrpc":"2.0","id":-1.5e3,"method":"ping"}`},
			[]string{`{"jsonrpc":"2.0","id":"7","result":{}}`, `{"jsonrpc":"2.0","id":7,"result":{}}`, `{"jsonrpc":"2.0","id":-1.5e3,"result":{}}`}},
		{"notifications get no reply", []string{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","method":"notifications/unknown"}`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`},
			nil},
		{"responses get no reply", []string{`{"jsonrpc":"2.0","id":8,"result":{}}`}, nil},
		{"params not an object", []string{`{"jsonrpc":"2.0","id":9,"method":"ping","params":[1]}`},
			[]string{`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := exchange(srv, tc.lines...)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d replies, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("reply %d:\n got %s\nwant %s", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestVersionNegotiation(t *testing.T) {
	srv, _ := callsServer(t, Options{})
	for asked, want := range map[string]string{
		`"2025-06-18"`: "2025-06-18",
		`"2025-03-26"`: "2025-03-26",
		`"2024-11-05"`: "2024-11-05",
		`"2025-11-25"`: "2025-11-25",
		`"2026-01-01"`: "2025-11-25",
		`"1999-01-01"`: "2025-11-25",
		`null`:         "2025-11-25",
	} {
		line := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":` + asked + `,"capabilities":{}}}`
		got := exchange(srv, line)
		var reply struct {
			Result initializeResult `json:"result"`
		}
		if len(got) != 1 || json.Unmarshal([]byte(got[0]), &reply) != nil {
			t.Fatalf("asked %s: got %v", asked, got)
		}
		if reply.Result.ProtocolVersion != want {
			t.Errorf("asked %s: got %s, want %s", asked, reply.Result.ProtocolVersion, want)
		}
		if reply.Result.ServerInfo.Name != "calls" || reply.Result.ServerInfo.Version != manifest.NexusVersion {
			t.Errorf("serverInfo: got %+v", reply.Result.ServerInfo)
		}
	}
}

func TestCalls(t *testing.T) {
	srv, _ := callsServer(t, Options{})
	call := func(id int, name, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args)
	}
	for _, tc := range []struct {
		name, version, line, want string
	}{
		{"scalar", "2025-06-18", call(1, "add", `{"_1":2,"_2":40}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"42"}]}}`},
		{"pure", "2025-06-18", call(1, "answer", `{}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"42"}]}}`},
		{"no arguments member", "2025-06-18", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"answer"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"42"}]}}`},
		{"record", "2025-06-18", call(1, "point", `{"_1":1.5}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"x\":1.5,\"y\":0.5}"}],"structuredContent":{"x":1.5,"y":0.5}}}`},
		{"record, old version", "2025-03-26", call(1, "point", `{"_1":1.5}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"x\":1.5,\"y\":0.5}"}]}}`},
		{"function failure", "2025-06-18", call(1, "boom", `{"_1":1}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"boom: ValueError: no good"}],"isError":true}}`},
		{"unknown tool", "2025-06-18", call(1, "nope", `{}`),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool 'nope'"}}`},
		{"no name", "2025-06-18", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"tools/call params have no tool name"}}`},
		{"arguments not an object", "2025-06-18", call(1, "add", `[1,2]`),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid tools/call params:`},
		{"record, 2025-11-25", "2025-11-25", call(1, "point", `{"_1":1.5}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"x\":1.5,\"y\":0.5}"}],"structuredContent":{"x":1.5,"y":0.5}}}`},
		{"function failure, 2025-11-25", "2025-11-25", call(1, "boom", `{"_1":1}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"boom: ValueError: no good"}],"isError":true}}`},
		// Bad argument values: a JSON-RPC error up to 2025-06-18, a tool
		// error with the same message from 2025-11-25 on.
		{"wrong type", "2025-06-18", call(1, "add", `{"_1":"two","_2":40}`), paramsError(addWrongType)},
		{"wrong type, 2025-11-25", "2025-11-25", call(1, "add", `{"_1":"two","_2":40}`), toolError(addWrongType)},
		{"missing, 2024-11-05", "2024-11-05", call(1, "add", `{"_2":40}`), paramsError(addMissing)},
		{"missing, 2025-11-25", "2025-11-25", call(1, "add", `{"_2":40}`), toolError(addMissing)},
		{"unknown argument, 2025-11-25", "2025-11-25", call(1, "add", `{"_1":1,"_2":40,"c":3}`), toolError(addUnknown)},
		// Not arguments a model could correct: JSON-RPC errors still.
		{"unknown tool, 2025-11-25", "2025-11-25", call(1, "nope", `{}`), paramsError("unknown tool 'nope'")},
		{"no name, 2025-11-25", "2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, paramsError("tools/call params have no tool name")},
		{"arguments not an object, 2025-11-25", "2025-11-25", call(1, "add", `[1,2]`),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid tools/call params:`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			init := strings.Replace(initLine, "2025-06-18", tc.version, 1)
			got := exchange(srv, init, initializedLine, tc.line)
			if len(got) != 2 || !strings.HasPrefix(got[1], tc.want) {
				t.Errorf("got %s\nwant %s", strings.Join(got, "\n"), tc.want)
			}
		})
	}
}

// TestLargeCalls: a large message is checked as JSON while its call binds
// its arguments (jsonrpc.ReadParams); one that is not JSON gets the parse
// error, and nothing runs for it.
func TestLargeCalls(t *testing.T) {
	srv, pools := callsServer(t, Options{})
	key := strings.Repeat("k", 100_000)
	// Calls of add, made large by what binding never reads: had they run,
	// they would answer 3.
	add := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"_1":1,"_2":2},"_meta":{"pad":"` + key + `"}}}`
	parseError := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`
	for _, tc := range []struct{ name, line string }{
		{"trailing garbage", add + ` ]`},
		{"control character", strings.Replace(add, `"kkk`, "\"\x01kk", 1)},
		{"broken after the arguments", strings.Replace(add, `{"pad"`, `{,"pad"`, 1)},
		{"unknown tool", strings.Replace(add, `"add"`, `"nope"`, 1) + `x`},
		{"ping", `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"_meta":{"k":"` + key + `"}}} x`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := exchange(srv, initLine, initializedLine, tc.line)
			if len(got) != 2 || !strings.HasPrefix(got[1], parseError) {
				t.Errorf("got %.200s, want the parse error", strings.Join(got, "\n"))
			}
			if n := pools.calls.Load(); n != 0 {
				t.Errorf("%d function calls ran for a message that is not JSON", n)
			}
		})
	}
	// The same call, JSON, runs: the test above could fail.
	if got := exchange(srv, initLine, initializedLine, add); len(got) != 2 || !strings.Contains(got[1], `"text":"3"`) || pools.calls.Load() != 1 {
		t.Fatalf("the large call: %.200s, %d function calls", strings.Join(got, "\n"), pools.calls.Load())
	}

	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{"key":"` + key + `"}}}`
	ss := srv.NewSession()
	replies := make(chan []byte, 3)
	for _, l := range []string{initLine, initializedLine, call} {
		ss.Handle(context.Background(), []byte(l), func(b []byte) { replies <- b })
	}
	<-replies // initialize
	if k := <-pools.started; k != key {
		t.Fatalf("the large call ran with a key of %d bytes", len(k))
	}
	pools.release(key)
	if got, want := string(<-replies), `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"100000"}]}}`; got != want {
		t.Errorf("got %.200s, want %s", got, want)
	}
}

func TestListMatchesListResult(t *testing.T) {
	srv, _ := callsServer(t, Options{})
	list := func(version string) string {
		t.Helper()
		got := exchange(srv, strings.Replace(initLine, "2025-06-18", version, 1), initializedLine, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if len(got) != 2 {
			t.Fatalf("%s: got %v", version, got)
		}
		return got[1]
	}
	if got, want := list("2025-06-18"), `{"jsonrpc":"2.0","id":1,"result":`+string(srv.ListResult())+`}`; got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	// What each revision sees of a tool without arguments, and of one
	// returning a record: 2025-11-25 the bare object schema it asks for,
	// older ones the empty properties they always had.
	const (
		bare     = `{"name":"answer","inputSchema":{"type":"object","additionalProperties":false}}`
		empty    = `{"name":"answer","inputSchema":{"type":"object","properties":{},"required":[],"additionalProperties":false}}`
		pointOut = `"outputSchema":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"],"additionalProperties":false}`
	)
	// The title from 2025-06-18 on, the icons from 2025-11-25 on.
	const (
		addTitled = `{"name":"add","title":"Addition","description":"Add two numbers.","inputSchema":`
		addIcons  = `{"name":"add","title":"Addition","description":"Add two numbers.","icons":[{"src":"https://example.com/add.png"}],"inputSchema":`
		addPlain  = `{"name":"add","description":"Add two numbers.","inputSchema":`
	)
	for _, tc := range []struct {
		version   string
		noArgs    string
		outSchema bool
		add       string
	}{
		{"2025-11-25", bare, true, addIcons},
		{"2025-06-18", empty, true, addTitled},
		{"2025-03-26", empty, false, addPlain},
		{"2024-11-05", empty, false, addPlain},
	} {
		got := list(tc.version)
		if !strings.Contains(got, tc.add) {
			t.Errorf("%s: add is not listed as %s in %s", tc.version, tc.add, got)
		}
		if !strings.Contains(got, tc.noArgs) {
			t.Errorf("%s: the tool without arguments is not %s in %s", tc.version, tc.noArgs, got)
		}
		if strings.Contains(got, pointOut) != tc.outSchema || strings.Contains(got, "outputSchema") != tc.outSchema {
			t.Errorf("%s: output schema listed: %v, want %v: %s", tc.version, !tc.outSchema, tc.outSchema, got)
		}
	}
}

// stdioConn is a client of ServeStdio over pipes.
type stdioConn struct {
	t       *testing.T
	in      *io.PipeWriter
	replies chan map[string]json.RawMessage
	done    chan error
}

func serveStdio(t *testing.T, ctx context.Context, srv *Server) *stdioConn {
	return serveStdioWith(t, ctx, srv, StdioOptions{})
}

func serveStdioWith(t *testing.T, ctx context.Context, srv *Server, opts StdioOptions) *stdioConn {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &stdioConn{t: t, in: inW, replies: make(chan map[string]json.RawMessage, 16), done: make(chan error, 1)}
	go func() {
		c.done <- ServeStdio(ctx, srv, inR, outW, opts)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("stdout line is not JSON: %q", sc.Text())
				continue
			}
			c.replies <- m
		}
		close(c.replies)
	}()
	t.Cleanup(func() { inW.Close() })
	c.send(initLine, initializedLine)
	c.next() // the initialize reply
	return c
}

func (c *stdioConn) send(lines ...string) {
	for _, l := range lines {
		if _, err := io.WriteString(c.in, l+"\n"); err != nil {
			c.t.Fatal(err)
		}
	}
}

func (c *stdioConn) next() map[string]json.RawMessage {
	c.t.Helper()
	select {
	case m, ok := <-c.replies:
		if !ok {
			c.t.Fatal("stdout ended")
		}
		return m
	case <-time.After(time.Minute):
		c.t.Fatal("no reply within a minute")
	}
	return nil
}

func TestStdioConcurrentCalls(t *testing.T) {
	srv, pools := callsServer(t, Options{})
	c := serveStdio(t, context.Background(), srv)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{"key":"slow"}}}`)
	<-pools.started
	// The slow call is in flight: a ping and another call still answer.
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"_1":1,"_2":2}}}`)
	for _, want := range []string{"2", "3"} {
		if got := string(c.next()["id"]); got != want {
			t.Fatalf("reply to %s came before that to %s", got, want)
		}
	}
	pools.release("slow")
	if got := c.next(); string(got["id"]) != "1" || !strings.Contains(string(got["result"]), `"text":"4"`) {
		t.Errorf("slow call: got %s", got["result"])
	}
	c.in.Close()
	if err := <-c.done; err != nil {
		t.Errorf("ServeStdio after EOF: %v", err)
	}
}

func TestStdioCancel(t *testing.T) {
	srv, pools := callsServer(t, Options{})
	c := serveStdio(t, context.Background(), srv)
	c.send(`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"wait","arguments":{"key":"never"}}}`)
	<-pools.started
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c","reason":"user"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if got := string(c.next()["id"]); got != "1" {
		t.Fatalf("got a reply to %s, want the ping's", got)
	}
	// EOF waits for the calls in flight: when it returns, the cancelled
	// call has ended, and its reply must not have been written.
	c.in.Close()
	if err := <-c.done; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
	for m := range c.replies {
		t.Errorf("reply after cancel: %v", m)
	}
}

func TestStdioTimeout(t *testing.T) {
	srv, pools := callsServer(t, Options{CallTimeout: 50 * time.Millisecond})
	c := serveStdio(t, context.Background(), srv)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{"key":"stuck"}}}`)
	<-pools.started
	got := c.next()
	if want := `{"content":[{"type":"text","text":"wait timed out after 50ms"}],"isError":true}`; string(got["result"]) != want {
		t.Errorf("got %s, want %s", got["result"], want)
	}
}

func TestStdioStopsWithContext(t *testing.T) {
	srv, pools := callsServer(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	c := serveStdio(t, ctx, srv)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{"key":"forever"}}}`)
	<-pools.started
	cancel()
	if err := <-c.done; !errors.Is(err, context.Canceled) {
		t.Errorf("ServeStdio: got %v, want context.Canceled", err)
	}
}

func TestStdioBrokenLines(t *testing.T) {
	srv, _ := callsServer(t, Options{})
	c := serveStdio(t, context.Background(), srv)
	// A pretty-printed object is a series of broken lines, each answered.
	c.send("{", `  "jsonrpc": "2.0",`, `  "id": 1, "method": "ping"`, "}", "", "   ", `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	for i := 0; i < 4; i++ {
		got := c.next()
		if string(got["id"]) != "null" || !strings.Contains(string(got["error"]), "-32700") {
			t.Errorf("line %d: got %v", i+1, got)
		}
	}
	if got := c.next(); string(got["id"]) != "2" {
		t.Errorf("after broken lines: got %v", got)
	}
}

// paramsError is the reply to a call of id 1 that failed with -32602 and
// msg (the contents of a JSON string).
func paramsError(msg string) string {
	return `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"` + msg + `"}}`
}

// toolError is the reply to a call of id 1 whose result is a tool error
// saying msg (the contents of a JSON string).
func toolError(msg string) string {
	return `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + msg + `"}],"isError":true}}`
}

// The messages of bad calls of add, the same in every revision, as JSON
// strings' contents.
const (
	addWrongType = `invalid value for argument '_1': expected an integer, got the string \"two\"`
	addMissing   = `missing required argument '_1' for tool 'add'`
	addUnknown   = `unknown argument 'c' for tool 'add' (it takes _1, _2)`
)
