package mcpsrc

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/pooltest"
)

// fastMCP is integration/mcpservers/fastmcp_server.py, a FastMCP server
// over Streamable HTTP answering with SSE, on a loopback port.
type fastMCP struct {
	url    string
	port   string
	mode   []string // "handshake" or nothing
	stderr *pooltest.Buffer
	cmd    *exec.Cmd
}

var listening = regexp.MustCompile(`fastmcp: listening on (http://127\.0\.0\.1:(\d+)/mcp)`)

// startFastMCP starts the server on port ("0" for a free one), in mode,
// and waits until it listens.
func startFastMCP(t *testing.T, port string, mode ...string) *fastMCP {
	t.Helper()
	python := serverCommand(t, filepath.Join(".venv", "bin", "python"))
	serverCommand(t, filepath.Join(".venv", "bin", "fastmcp"))
	f := &fastMCP{stderr: &pooltest.Buffer{}, mode: mode}
	f.cmd = exec.Command(python, append([]string{filepath.Join(servers, "fastmcp_server.py"), port}, mode...)...)
	f.cmd.Stderr = f.stderr
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.stop)
	pooltest.WaitFor(t, f.stderr, "fastmcp: listening on")
	m := listening.FindStringSubmatch(f.stderr.String())
	if m == nil {
		t.Fatalf("fastmcp said: %s", f.stderr)
	}
	f.url, f.port = m[1], m[2]
	return f
}

func (f *fastMCP) stop() {
	if f.cmd.ProcessState == nil {
		f.cmd.Process.Kill()
		f.cmd.Wait()
	}
}

// restart stops the server and starts a new one on the same port: it
// knows none of the old sessions.
func (f *fastMCP) restart(t *testing.T) {
	t.Helper()
	f.stop()
	*f = *startFastMCP(t, f.port, f.mode...)
}

// TestFastMCP calls a FastMCP server, which answers with SSE, in both eras
// of the protocol: stateless 2026-07-28, and 2025-11-25 with a session
// (its 404 for an unknown session carries a JSON-RPC body, which the SDK
// alone does not recognise). Each result shape, a tool's error, a restart
// of the server between two calls and one under a call, a cancelled call
// and one cut by the timeout, both ended in the server.
func TestFastMCP(t *testing.T) {
	for _, tc := range []struct {
		mode    []string
		version string
	}{
		{nil, "2026-07-28"},
		{[]string{"handshake"}, "2025-11-25"},
	} {
		t.Run(tc.version, func(t *testing.T) { testFastMCP(t, tc.version, tc.mode...) })
	}
}

func testFastMCP(t *testing.T, version string, mode ...string) {
	f := startFastMCP(t, "0", mode...)
	src := newSource(t, Options{Name: "fast", Server: f.url})

	if r := call(t, src, "echo", map[string]any{"message": "héllo"}); !slices.Equal(r.Text, []string{"echo: héllo"}) || r.Structured != nil {
		t.Errorf("echo: %+v, want the text alone", r)
	}
	r := call(t, src, "weather", map[string]any{"city": "Oslo"})
	var w struct {
		City       string
		Celsius    float64
		Conditions string
	}
	if err := json.Unmarshal(r.Structured, &w); err != nil || w.City != "Oslo" || w.Celsius != 21.5 {
		t.Errorf("weather: structuredContent %s (%v), want Oslo at 21.5", r.Structured, err)
	}
	r = call(t, src, "squares", map[string]any{"n": 4})
	var sq struct{ Result []int }
	if err := json.Unmarshal(r.Structured, &sq); err != nil || !slices.Equal(sq.Result, []int{1, 4, 9, 16}) {
		t.Errorf("squares: structuredContent %s (%v), want result [1,4,9,16]", r.Structured, err)
	}
	if len(r.Text) != 1 || strings.ReplaceAll(r.Text[0], " ", "") != "[1,4,9,16]" {
		t.Errorf("squares: text %q, want the list's JSON", r.Text)
	}
	r, err := src.Call(context.Background(), "fail", map[string]any{"reason": "test"})
	if err != nil || !r.IsError || !strings.Contains(strings.Join(r.Text, ""), "failed on purpose: test") {
		t.Errorf("fail: %+v, %v; want isError with the tool's message", r, err)
	}

	if got := negotiated(t, src); got != version {
		t.Errorf("negotiated %s, want %s", got, version)
	}
	session := src.conn.session.ID()
	if (session == "") != (version == "2026-07-28") {
		t.Errorf("session id %q at %s", session, version)
	}

	f.restart(t)
	if r := call(t, src, "echo", map[string]any{"message": "after restart"}); !slices.Equal(r.Text, []string{"echo: after restart"}) {
		t.Errorf("echo after the restart: %q", r.Text)
	}
	if session != "" && src.conn.session.ID() == session {
		t.Errorf("still session %s after the restart", session)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := src.Call(ctx, "sleep", map[string]any{"name": "long", "seconds": 600})
		done <- err
	}()
	pooltest.WaitFor(t, f.stderr, "sleep started long")
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled sleep: %v, want context.Canceled", err)
	}
	pooltest.WaitFor(t, f.stderr, "sleep cancelled long")

	// A call in flight when the server goes away may have run: it fails
	// and is not made again, not even on the restarted server.
	go func() {
		_, err := src.Call(context.Background(), "sleep", map[string]any{"name": "lost", "seconds": 600})
		done <- err
	}()
	pooltest.WaitFor(t, f.stderr, "sleep started lost")
	f.restart(t)
	if err := <-done; err == nil || !strings.Contains(err.Error(), "mcp server fast: call sleep") {
		t.Errorf("a sleep the server went away under: %v, want an error naming the server", err)
	} else {
		t.Logf("a sleep the server went away under: %v", err)
	}
	if r := call(t, src, "echo", map[string]any{"message": "after"}); !slices.Equal(r.Text, []string{"echo: after"}) {
		t.Errorf("echo after the lost sleep: %q", r.Text)
	}
	if strings.Contains(f.stderr.String(), "sleep started lost") {
		t.Errorf("the lost sleep ran again on the restarted server:\n%s", f.stderr)
	}

	short := newSource(t, Options{Name: "fast-short", Server: f.url, Timeout: 2 * time.Second})
	_, err = short.Call(context.Background(), "sleep", map[string]any{"name": "timed", "seconds": 600})
	if err == nil || !strings.Contains(err.Error(), "mcp server fast-short: call sleep: no answer within 2s") {
		t.Errorf("a sleep past the timeout: %v, want the timeout named", err)
	}
	pooltest.WaitFor(t, f.stderr, "sleep cancelled timed")
	if r := call(t, src, "echo", map[string]any{"message": "still"}); !slices.Equal(r.Text, []string{"echo: still"}) {
		t.Errorf("echo after the cancellations: %q", r.Text)
	}
}
