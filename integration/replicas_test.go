package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/integration/haproxy"
)

// Three replicas of one program behind HAProxy, configured by
// deploy/haproxy.cfg (what users get), while a load of mixed clients runs:
// one replica is stopped with SIGTERM (it reports draining on /health,
// HAProxy takes it out, it stops accepting, finishes its calls and exits
// 0) and another is killed with SIGKILL, calls in flight included.
// Expected: every answer is right; a stateless client never sees a
// failure (HAProxy retries a refused connection, and a call whose replica
// died before answering, on another replica); a client with a legacy
// session sees only that its session is gone (404) where its replica
// stopped, and opens a new one.
//
// The replicas need a token, which the clients send and HAProxy's health
// check does not: /health is open.

var replicaProgram = files{
	"work.py": `
import time

def square(x, ms):
    time.sleep(ms / 1000)
    return x * x
`,
	"main.loc": `
module rep (square)
import root-py
source Py from "work.py" ("square")
square :: Int -> Int -> Int
`,
}

// callMillis is how long each call runs: long enough that a replica
// killed under the load has calls in flight (8 clients over 3 replicas).
const callMillis = 40

// The kinds of clients of the load.
const (
	kindCurrent = "current" // the Go SDK's client with default options: 2026-07-28, no session
	kindLegacy  = "legacy"  // the Go SDK's client pinned to 2025-06-18
	kindJSON    = "json"    // nexus serve's JSON API, stateless by nature
)

// sdkOptions are the options a client of kind connects with.
func sdkOptions(kind string) *mcp.ClientSessionOptions {
	if kind == kindLegacy {
		return &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"}
	}
	return nil
}

func TestReplicasMCP(t *testing.T) {
	haproxy := haproxyBinary(t)
	p := build(t, replicaProgram)
	testReplicas(t, haproxy, p, []string{"mcp", p.launcher}, "square",
		[]string{kindCurrent, kindLegacy, kindCurrent, kindLegacy, kindCurrent, kindLegacy, kindCurrent, kindLegacy})
}

func TestReplicasServe(t *testing.T) {
	haproxy := haproxyBinary(t)
	p := build(t, replicaProgram)
	testReplicas(t, haproxy, p, []string{"serve", p.launcher}, "rep__square",
		[]string{kindCurrent, kindLegacy, kindJSON, kindCurrent, kindLegacy, kindJSON, kindCurrent, kindJSON})
}

// haproxyBinary finds haproxy, which setup installs: without it the test
// is skipped, except under CI, where that is a failure.
func haproxyBinary(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("haproxy is not installed (scripts/setup.sh installs it): %v", err)
		}
		t.Skipf("haproxy is not installed (scripts/setup.sh installs it): %v", err)
	}
	return path
}

const replicaToken = "replica-token-0123456789"

func testReplicas(t *testing.T, haproxy string, p *program, args []string, tool string, kinds []string) {
	var replicas []*httpServer
	var backends []string
	// A drain of 6 s (the default is 3) against HAProxy's checks every
	// second: on a loaded machine a check may come late, and the test
	// requires that the balancer took the stopping replica out for its
	// 503, before it stopped accepting.
	args = append(args, "--drain", "6s")
	for range 3 {
		s := startHTTP(t, p.tmp, []string{"NEXUS_MCP_TOKEN=" + replicaToken}, args...)
		replicas = append(replicas, s)
		backends = append(backends, "127.0.0.1:"+s.port)
	}
	lb := startHAProxy(t, haproxy, backends)

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	ld := &load{}
	for i, kind := range kinds {
		c := &loadClient{id: i, kind: kind, base: lb.Base, tool: tool, watch: newSessionWatch()}
		ld.clients = append(ld.clients, c)
	}
	ld.start(ctx)

	ld.waitCalls(t, 60)
	stopped := replicas[0]
	if err := stopped.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := stopped.wait(); code != 0 {
		t.Errorf("the replica stopped with SIGTERM exited %d, want 0\nstderr:\n%s", code, stopped.stderrText())
	}
	// HAProxy's health checks asked it, so it drained before it stopped
	// accepting.
	if text := stopped.stderrText(); !strings.Contains(text, "reports draining") {
		t.Errorf("the replica stopped with SIGTERM did not drain:\n%s", text)
	}
	stopped.checkNoCrash()
	// And HAProxy took it out for that answer, not for a refused
	// connection once it had stopped accepting.
	if log := lb.Log.String(); !strings.Contains(log, "Server nexus/r1 is DOWN, reason: Layer7 wrong status, code: 503") {
		t.Errorf("haproxy did not take the draining replica out for its 503:\n%s", log)
	}

	ld.waitCalls(t, ld.calls.Load()+60)
	killed := replicas[1]
	if err := killed.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed.wait()
	ld.waitCalls(t, ld.calls.Load()+60)
	ld.finish()
	replicas[2].stop()
	if err := lb.Stop(hangGuard); err != nil {
		t.Error(err)
	}

	ld.check(t)
}

// startHAProxy runs HAProxy with deploy/haproxy.cfg, its servers replaced
// by backends and its frontend bound to a free port of 127.0.0.1, and
// waits until it answers; the test's cleanup kills it.
func startHAProxy(t *testing.T, binary string, backends []string) *haproxy.Balancer {
	t.Helper()
	lb, err := haproxy.Start(context.Background(), binary, filepath.Join("..", "deploy", "haproxy.cfg"), t.TempDir(), backends, hangGuard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		lb.Kill()
		if t.Failed() {
			t.Logf("haproxy's log:\n%s", lb.Log)
		}
	})
	return lb
}

// load is the clients calling through the balancer until finish.
type load struct {
	clients []*loadClient
	calls   atomic.Int64 // answered, over all clients
	enough  atomic.Bool  // set by finish
	wg      sync.WaitGroup
	running atomic.Int64
}

// maxCallsPerClient bounds each client's calls, should finish never come.
const maxCallsPerClient = 5000

func (ld *load) start(ctx context.Context) {
	for _, c := range ld.clients {
		ld.wg.Add(1)
		ld.running.Add(1)
		go func() {
			defer ld.wg.Done()
			defer ld.running.Add(-1)
			c.run(ctx, ld)
		}()
	}
}

// waitCalls waits until n calls were answered.
func (ld *load) waitCalls(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for ld.calls.Load() < n {
		if ld.running.Load() == 0 {
			ld.check(t)
			t.Fatalf("every client stopped before %d calls were answered (%d were)", n, ld.calls.Load())
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls were not answered within %v (%d were)", n, hangGuard, ld.calls.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// finish lets each client end after its call in flight, and waits.
func (ld *load) finish() {
	ld.enough.Store(true)
	ld.wg.Wait()
}

// check requires every answer right, no failure but a legacy session's
// loss, and a new session each time one was lost.
func (ld *load) check(t *testing.T) {
	t.Helper()
	lost := 0
	for _, c := range ld.clients {
		t.Logf("client %d (%s): %d calls, sessions %v, %d new sessions after a 404", c.id, c.kind, c.calls, c.sessions, c.reinits)
		for _, f := range c.failures {
			t.Errorf("client %d (%s): %s", c.id, c.kind, f)
		}
		lost += c.reinits
		if c.kind == kindCurrent && c.sessionful {
			t.Errorf("client %d (%s): got a session, want 2026-07-28 without one", c.id, c.kind)
		}
		if c.reinits > 0 && !c.sessionful {
			t.Errorf("client %d (%s): opened a new session without having one", c.id, c.kind)
		}
	}
	// Eight clients' sessions spread over three replicas by leastconn:
	// some were on the two that went.
	sessionful := 0
	for _, c := range ld.clients {
		if c.sessionful {
			sessionful++
		}
	}
	if sessionful >= 3 && lost == 0 {
		t.Errorf("%d clients had legacy sessions, and none lost one when two of the three replicas went", sessionful)
	}
}

// loadClient is one client of the load, calling tool(x, callMillis) for
// its own values of x and checking each answer.
type loadClient struct {
	id         int
	kind       string
	base, tool string
	watch      *sessionWatch
	cs         *mcp.ClientSession

	// Read once the client ended.
	calls      int
	reinits    int      // new sessions opened after the old one's 404
	sessions   []string // the session ids it had ("" stateless)
	sessionful bool     // it had a legacy session
	failures   []string
}

func (c *loadClient) run(ctx context.Context, ld *load) {
	defer func() {
		if c.cs != nil {
			c.cs.Close()
		}
	}()
	for i := range maxCallsPerClient {
		if ld.enough.Load() || ctx.Err() != nil {
			return
		}
		x := c.id*maxCallsPerClient + i
		got, err := c.call(ctx, x)
		switch {
		case err != nil:
			c.failures = append(c.failures, fmt.Sprintf("call %d (x=%d): %v", i, x, err))
		case got != strconv.Itoa(x*x):
			c.failures = append(c.failures, fmt.Sprintf("call %d: square(%d) = %s, want %d", i, x, got, x*x))
		}
		c.calls++
		ld.calls.Add(1)
		if len(c.failures) > 10 {
			return // enough to see what goes wrong
		}
	}
}

// call calls the tool once. A legacy client whose session the balancer's
// replica does not know (404) opens a new session and calls once more, as
// MCP's Streamable HTTP transport asks of clients (the Go SDK's client
// does not do it by itself; nexus's mcpsrc does).
func (c *loadClient) call(ctx context.Context, x int) (string, error) {
	if c.kind == kindJSON {
		return c.callJSON(ctx, x)
	}
	if c.cs == nil {
		if err := c.connect(ctx); err != nil {
			return "", err
		}
	}
	got, err := c.callMCP(ctx, x)
	if err == nil || c.cs.ID() == "" || !c.watch.gone(c.cs.ID()) {
		return got, err
	}
	c.cs.Close()
	c.cs = nil
	c.reinits++
	if err := c.connect(ctx); err != nil {
		return "", fmt.Errorf("new session after a 404: %w", err)
	}
	return c.callMCP(ctx, x)
}

func (c *loadClient) connect(ctx context.Context) error {
	transport := &mcp.StreamableClientTransport{
		Endpoint:   c.base + "/mcp",
		HTTPClient: &http.Client{Transport: c.watch},
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "replica-load", Version: "0"}, nil)
	cs, err := client.Connect(ctx, transport, sdkOptions(c.kind))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	c.cs = cs
	c.sessions = append(c.sessions, cs.ID())
	if cs.ID() != "" {
		c.sessionful = true
	}
	return nil
}

func (c *loadClient) callMCP(ctx context.Context, x int) (string, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{"_1": x, "_2": callMillis}})
	if err != nil {
		return "", err
	}
	if len(res.Content) != 1 {
		return "", fmt.Errorf("%d content blocks, want one", len(res.Content))
	}
	block, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "", fmt.Errorf("content %T, want text", res.Content[0])
	}
	if res.IsError {
		return "", fmt.Errorf("isError: %s", block.Text)
	}
	return block.Text, nil
}

func (c *loadClient) callJSON(ctx context.Context, x int) (string, error) {
	body := fmt.Sprintf(`{"_1":%d,"_2":%d}`, x, callMillis)
	module, command, _ := strings.Cut(c.tool, "__")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/call/"+module+"/"+command, strings.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.watch.RoundTrip(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %d: %s", resp.StatusCode, out)
	}
	var reply struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(out, &reply); err != nil {
		return "", fmt.Errorf("%v: %s", err, out)
	}
	return string(bytes.TrimSpace(reply.Result)), nil
}

// sessionWatch is a client's HTTP transport: it sends the token and
// records the sessions a replica answered 404 for, which the client must
// replace (the SDK reports a 404 with nexus's JSON-RPC body as any
// rejected request).
type sessionWatch struct {
	base *http.Transport
	mu   sync.Mutex
	lost map[string]bool
}

func newSessionWatch() *sessionWatch {
	return &sessionWatch{base: http.DefaultTransport.(*http.Transport).Clone(), lost: map[string]bool{}}
}

func (w *sessionWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+replicaToken)
	resp, err := w.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusNotFound {
		if sid := req.Header.Get("Mcp-Session-Id"); sid != "" {
			w.mu.Lock()
			w.lost[sid] = true
			w.mu.Unlock()
		}
	}
	return resp, err
}

func (w *sessionWatch) gone(sid string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lost[sid]
}
