package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/integration/rpcmsg"
)

// mcpConn is a client of `nexus mcp` that speaks raw JSON lines over the
// process's pipes, with no SDK in between, so a test sees exactly the bytes
// the server writes. Replies are matched to requests by id; every stdout
// line is checked to be a JSON-RPC message as it arrives.
//
// The methods that wait (recv, waitStderr, close) must be called from the
// test's goroutine; the readers run on goroutines of their own.
type mcpConn struct {
	watched
	p     *program
	stdin io.WriteCloser

	// Guarded by watched.mu, and changes wake its waiters too:
	replies   []*mcpReply // every stdout line, in arrival order
	claimed   []bool      // replies[i] was returned by a recv or next
	notJSON   []string    // stdout lines that are not JSON-RPC messages
	stdoutEOF bool
}

// mcpReply is one message the server wrote.
type mcpReply struct{ rpcmsg.Reply }

// startMCPConn starts `nexus mcp [flags] PROG` for p with TMPDIR pointed at
// p's private temp folder. The process is killed when the test ends if it
// is still running; a test that wants to see it end well calls close.
func startMCPConn(t *testing.T, p *program, flags ...string) *mcpConn {
	t.Helper()
	return startMCPServing(t, p, p.launcher, flags...)
}

// startMCPServing is startMCPConn naming p by target: its launcher or its
// manifest.
func startMCPServing(t *testing.T, p *program, target string, flags ...string) *mcpConn {
	t.Helper()
	c, readStdout := startMCPUnread(t, p, target, flags...)
	readStdout()
	return c
}

// startMCPUnread is startMCPServing for a client that does not read the
// server's stdout until it calls readStdout.
func startMCPUnread(t *testing.T, p *program, target string, flags ...string) (c *mcpConn, readStdout func()) {
	t.Helper()
	args := append(append([]string{"mcp"}, flags...), target)
	cmd := exec.Command(nexusBin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+p.tmp)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Plain pipes rather than StdoutPipe, so that waiting for the process
	// does not depend on the readers, and a child holding stdout open
	// after the nexus exits shows up as a stdout that never ends.
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = outW
	c = &mcpConn{p: p, stdin: stdin}
	c.over = func() bool { return c.stdoutEOF && c.stderrEOF && c.exited }
	c.dump = func() string { return "stdout:\n" + c.stdoutText() + "\nstderr:\n" + c.stderrText() }
	c.start(t, cmd, outW)
	t.Cleanup(func() { outR.Close() }) // harmless once read to its end
	return c, func() { go c.readStdout(outR) }
}

func (c *mcpConn) readStdout(r *os.File) {
	defer r.Close()
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			line = strings.TrimSuffix(line, "\n")
			reply, ok := parseReply(line)
			c.update(func() {
				if !ok {
					c.notJSON = append(c.notJSON, line)
					return
				}
				c.replies = append(c.replies, reply)
				c.claimed = append(c.claimed, false)
			})
		}
		if err != nil {
			c.update(func() { c.stdoutEOF = true })
			return
		}
	}
}

// parseReply reads a stdout line as a JSON-RPC message from the server: a
// response (an id and exactly one of result and error) or a notification.
func parseReply(line string) (*mcpReply, bool) {
	r, err := rpcmsg.Parse([]byte(line))
	if err != nil {
		return nil, false
	}
	return &mcpReply{*r}, true
}

// send writes raw lines to the server's stdin, in one write so that they
// arrive together.
func (c *mcpConn) send(lines ...string) {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, strings.Join(lines, "\n")+"\n"); err != nil {
		c.t.Fatalf("write to nexus mcp: %v\nstderr:\n%s", err, c.stderrText())
	}
}

// rpcLine encodes one JSON-RPC message; a nil id makes a notification.
func rpcLine(id any, method string, params any) string {
	return string(rpcmsg.Encode(id, method, params))
}

// request sends a request and waits for its reply.
func (c *mcpConn) request(id any, method string, params any) *mcpReply {
	c.t.Helper()
	c.send(rpcLine(id, method, params))
	return c.recv(id)
}

// callTool sends tools/call for tool with args and waits for its reply.
func (c *mcpConn) callTool(id any, tool string, args any) *mcpReply {
	c.t.Helper()
	return c.request(id, "tools/call", map[string]any{"name": tool, "arguments": args})
}

// initialize performs the handshake, asking for version.
func (c *mcpConn) initialize(version string) {
	c.t.Helper()
	r := c.request("init", "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "nexus-integration", "version": "0"},
	})
	if r.Error != nil {
		c.t.Fatalf("initialize: %s", r.Line)
	}
	c.send(rpcLine(nil, "notifications/initialized", nil))
}

// recv waits for the reply whose id is id (compared as JSON, so "7" and 7
// differ) and claims it. It fails the test if the stream ends first.
func (c *mcpConn) recv(id any) *mcpReply {
	c.t.Helper()
	want := marshalJSON(c.t, id)
	var found *mcpReply
	c.waitFor(fmt.Sprintf("a reply to id %s", want), func() bool {
		for i, r := range c.replies {
			if !c.claimed[i] && bytes.Equal(r.ID, want) {
				c.claimed[i], found = true, r
				return true
			}
		}
		return false
	})
	return found
}

// next waits for the first message no recv or next has claimed yet, in
// the order the server wrote them, and claims it. Use it for what the
// server answers in order: every request but tools/call is answered before
// the next line is read.
func (c *mcpConn) next() *mcpReply {
	c.t.Helper()
	var found *mcpReply
	c.waitFor("another message", func() bool {
		for i, r := range c.replies {
			if !c.claimed[i] {
				c.claimed[i], found = true, r
				return true
			}
		}
		return false
	})
	return found
}

// close closes the server's stdin, waits for it to exit and for its stdout
// to end, and checks what every run must satisfy: exit status 0, only
// JSON-RPC messages on stdout, no Go crash on stderr, no pool process or
// temp file left. It returns the replies no recv claimed.
func (c *mcpConn) close() []*mcpReply {
	c.t.Helper()
	c.stdin.Close()
	c.waitFor("an exit after stdin ended", func() bool { return c.exited && c.stdoutEOF })
	c.mu.Lock()
	code, notJSON, stderr := c.exitCode, c.notJSON, c.stderr.String()
	var unclaimed []*mcpReply
	for i, r := range c.replies {
		if !c.claimed[i] {
			unclaimed = append(unclaimed, r)
		}
	}
	c.mu.Unlock()
	if code != 0 {
		c.t.Errorf("nexus mcp exited with status %d after EOF on stdin, want 0\nstderr:\n%s", code, stderr)
	}
	for _, l := range notJSON {
		c.t.Errorf("stdout carries a line that is not a JSON-RPC message: %q", l)
	}
	if nexusCrashed(stderr) {
		c.t.Errorf("nexus mcp crashed:\n%s", stderr)
	}
	c.p.in(c.t).checkClean()
	return unclaimed
}

// closeAll is close for a test that claimed every reply it expected: any
// other reply (to a notification, say, or a duplicate) is an error.
func (c *mcpConn) closeAll() {
	c.t.Helper()
	for _, r := range c.close() {
		c.t.Errorf("unexpected message from the server: %s", r.Line)
	}
}

func (c *mcpConn) stdoutText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, r := range c.replies {
		b.WriteString(r.Line + "\n")
	}
	for _, l := range c.notJSON {
		b.WriteString("(not JSON-RPC) " + l + "\n")
	}
	return b.String()
}

// order is the position of r among all the messages the server wrote.
func (c *mcpConn) order(r *mcpReply) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.replies {
		if x == r {
			return i
		}
	}
	return -1
}

// in is p bound to test t, for checks made in a subtest of the test that
// built p (checkClean fails the test it is bound to).
func (p *program) in(t *testing.T) *program {
	q := *p
	q.t = t
	return &q
}

// tool reads r as the result of a tools/call that must have one text block.
func (r *mcpReply) tool(t *testing.T) rpcmsg.ToolResult {
	t.Helper()
	if r.Error != nil || r.Result == nil {
		t.Fatalf("want a tools/call result, got %s", r.Line)
	}
	var res rpcmsg.ToolResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatalf("tools/call result %s: %v", r.Result, err)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		t.Fatalf("want one text block, got %s", r.Result)
	}
	return res
}

// text is the text of a successful tools/call result.
func (r *mcpReply) text(t *testing.T) string {
	t.Helper()
	res := r.tool(t)
	if res.IsError {
		t.Fatalf("the call failed: %s", r.Line)
	}
	return res.Content[0].Text
}

// failure is the message of a tools/call result with isError set.
func (r *mcpReply) failure(t *testing.T) string {
	t.Helper()
	res := r.tool(t)
	if !res.IsError {
		t.Fatalf("want isError, got %s", r.Line)
	}
	return res.Content[0].Text
}

// rpcError checks that r is a JSON-RPC error with code whose message holds
// every one of want.
func (r *mcpReply) rpcError(t *testing.T, code int, want ...string) {
	t.Helper()
	if r.Error == nil {
		t.Errorf("want error %d, got %s", code, r.Line)
		return
	}
	if r.Error.Code != code {
		t.Errorf("error code %d, want %d: %s", r.Error.Code, code, r.Line)
	}
	for _, w := range want {
		if !strings.Contains(r.Error.Message, w) {
			t.Errorf("error message %q does not say %q", r.Error.Message, w)
		}
	}
}

// marshalJSON encodes v compactly.
func marshalJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func compactJSON(raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// jsonValue decodes a JSON text into untyped values. Numbers are compared
// by value (2.0 and 2 alike), as an SDK that decoded them into float64
// and encoded them again gives them back.
func jsonValue(t *testing.T, text []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(text, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, text)
	}
	return v
}

// sameJSON reports whether two JSON texts are the same value (object key
// order aside).
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	return reflect.DeepEqual(jsonValue(t, a), jsonValue(t, b))
}

// strJSON is the compact JSON of string s: the text of a Str result.
func strJSON(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
