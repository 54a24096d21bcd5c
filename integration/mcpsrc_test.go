package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/mcpsrc"
	"github.com/nexus-run/nexus/internal/pooltest"
)

// TestMCPSourceCallsNexus: nexus's MCP client (internal/nexus/mcpsrc)
// calls a nexus program served by `nexus mcp`, over Streamable HTTP with
// a bearer token and over stdio: text, a record's structuredContent and a
// tool's failure all come back as they were sent.
func TestMCPSourceCallsNexus(t *testing.T) {
	p := build(t, httpProgram)
	const token = "mcpsrc-token-5d1e"
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher, "--auth-token", token)

	for _, tc := range []struct {
		name string
		opts mcpsrc.Options
	}{
		{"http", mcpsrc.Options{Name: "work-http", Server: s.base + "/mcp", Bearer: token, Headers: map[string]string{"X-Test": "1"}}},
		{"stdio", mcpsrc.Options{Name: "work-stdio", Server: "'" + nexusBin + "' mcp '" + p.launcher + "'", Env: []string{"TMPDIR=" + p.tmp}, Stderr: io.Discard}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := mcpsrc.New(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			ctx := context.Background()
			r, err := src.Call(ctx, "add", map[string]any{"a": 20, "b": 22})
			if err != nil || r.IsError || strings.Join(r.Text, "") != "42" {
				t.Errorf("add: %+v, %v; want text 42", r, err)
			}
			r, err = src.Call(ctx, "point", map[string]any{"x": 1})
			var pt struct{ X, Y int }
			if err != nil || json.Unmarshal(r.Structured, &pt) != nil || pt.X != 1 || pt.Y != 2 {
				t.Errorf("point: %+v (structured %s), %v; want {x:1, y:2}", r, r.Structured, err)
			}
			r, err = src.Call(ctx, "fail", map[string]any{"x": 7})
			if err != nil || !r.IsError || !strings.Contains(strings.Join(r.Text, ""), "no good: 7") {
				t.Errorf("fail: %+v, %v; want isError saying no good: 7", r, err)
			}
			tools, err := src.Tools(ctx)
			if err != nil || len(tools) != 4 {
				t.Errorf("tools: %d, %v; want add, point, fail, hold", len(tools), err)
			}
		})
	}

	wrong, err := mcpsrc.New(mcpsrc.Options{Name: "work-http", Server: s.base + "/mcp", Bearer: "wrong-token-0000"})
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	if _, err := wrong.Call(context.Background(), "add", map[string]any{"a": 1, "b": 2}); err == nil || !strings.Contains(err.Error(), "work-http") {
		t.Errorf("a wrong token: %v, want an error naming the server", err)
	} else {
		t.Logf("a wrong token: %v", err)
	}
	s.stop()
}

// TestMCPSourceForwardsCancel: a call mcpsrc's caller cancels is
// cancelled in the server too, through notifications/cancelled on stdio
// (where nothing else could tell the server). With one call a pool, the
// cancelled call waits in nexus behind a held one; had the cancellation
// not arrived it would run once the held call ends and block the pool,
// and the calls after it could not run.
func TestMCPSourceForwardsCancel(t *testing.T) {
	p := build(t, httpProgram)
	h := newHolder(t)
	stderr := &pooltest.Buffer{}
	// The server's stdin is copied to a file, so the test can tell when
	// the cancellation has reached the server (see below).
	stdin := filepath.Join(p.tmp, "stdin.log")
	server := fmt.Sprintf(`sh -c "tee '%s' | '%s' mcp '%s' --pool-calls 1"`, stdin, nexusBin, p.launcher)
	src, err := mcpsrc.New(mcpsrc.Options{Name: "work", Server: server,
		Env: []string{"TMPDIR=" + p.tmp}, Stderr: stderr, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	waitStarted := func(name string) {
		t.Helper()
		for i := 0; i < 600 && !strings.Contains(stderr.String(), "hold started "+name); i++ {
			time.Sleep(50 * time.Millisecond)
		}
		if !strings.Contains(stderr.String(), "hold started "+name) {
			t.Fatalf("hold %s did not start; stderr:\n%s", name, stderr)
		}
	}
	hold := func(ctx context.Context, name string) chan error {
		done := make(chan error, 1)
		path := h.fifo(name)
		go func() {
			r, err := src.Call(ctx, "hold", map[string]any{"path": path})
			if err == nil && strings.Join(r.Text, "") != `"released `+name+`"` { // nexus answers JSON text
				err = fmt.Errorf("hold %s answered %+v", name, r)
			}
			done <- err
		}()
		return done
	}

	one := hold(context.Background(), "one")
	waitStarted("one")
	ctx, cancel := context.WithCancel(context.Background())
	two := hold(ctx, "two")
	time.Sleep(300 * time.Millisecond) // let the request reach nexus
	cancel()
	if err := <-two; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled hold two: %v, want context.Canceled", err)
	}
	// The SDK sends notifications/cancelled from a goroutine of its own
	// once the cancelled call has returned, and releasing hold one before
	// the server has read it would let hold two take the freed slot. So:
	// wait for the notification to pass through to the server, then make
	// a round trip; the server handles notifications in the order it reads
	// them, so once tools/list is answered, hold two is cancelled.
	for i := 0; i < 600; i++ {
		if b, _ := os.ReadFile(stdin); strings.Contains(string(b), "notifications/cancelled") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if b, _ := os.ReadFile(stdin); !strings.Contains(string(b), "notifications/cancelled") {
		t.Fatalf("no notifications/cancelled reached the server; it read:\n%s", b)
	}
	if _, err := src.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.release("one")
	if err := <-one; err != nil {
		t.Fatal(err)
	}
	three := hold(context.Background(), "three")
	waitStarted("three")
	h.release("three")
	if err := <-three; err != nil {
		t.Fatal(err)
	}
	if r, err := src.Call(context.Background(), "add", map[string]any{"a": 1, "b": 2}); err != nil || strings.Join(r.Text, "") != "3" {
		t.Errorf("add after the holds: %+v, %v", r, err)
	}
	if strings.Contains(stderr.String(), "hold started two") {
		t.Errorf("the cancelled call ran:\n%s", stderr)
	}
	if !strings.Contains(stderr.String(), "work: ") {
		t.Errorf("the server's stderr lines are not prefixed with its name:\n%s", stderr)
	}
}
