package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// What a client or a function can make nexus hold: lines over --max-line
// are dropped as they are read, replies a client does not read stop the
// reading of requests (--max-backlog), and a Go pool gives back what a
// large call allocated.

// TestStdioMaxLine: a line over --max-line is answered with an error that
// carries the request's id when it comes before the arguments, and the
// server goes on.
func TestStdioMaxLine(t *testing.T) {
	p := build(t, stopProgram)
	c := startMCPConn(t, p, "--max-line", "1000")
	c.initialize("2025-06-18")
	huge := `{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"big","arguments":{"_1":1,"_2":"` +
		strings.Repeat("y", 3<<20) + `"}}}`
	c.send(huge)
	c.recv("long").rpcError(t, -32600, "3145", "over the limit of 1000 bytes")
	if got := c.callTool(2, "double", map[string]any{"_1": 21}).text(t); got != "42" {
		t.Errorf("double 21 after the long line = %s", got)
	}
	c.closeAll()
}

// TestStdioBacklog: a client that sends calls but reads no reply stops
// being read once the replies waiting for it pass --max-backlog, instead
// of having the nexus hold them all; once it reads, every reply comes
// whole and the server goes on.
func TestStdioBacklog(t *testing.T) {
	p := build(t, stopProgram)
	const calls, size = 30, 2 << 20
	c, readStdout := startMCPUnread(t, p, p.launcher, "--max-backlog", "1000000")
	// The handshake's replies are small: they fit the pipe unread.
	c.send(rpcLine("init", "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}}),
		rpcLine(nil, "notifications/initialized", nil))
	// One call at a time, each once the previous one began: a client that
	// goes on sending. No reply can be written whole to a pipe nobody
	// reads, so once a reply is ready the server must stop taking calls
	// (those it took before they were ready still run); had it gone on,
	// every call would run in turn.
	sent := 0
	for i := 0; i < calls; i++ {
		tag := fmt.Sprintf("c%d", i)
		c.send(rpcLine(tag, "tools/call", map[string]any{"name": "big", "arguments": map[string]any{"_1": size, "_2": tag}}))
		sent++
		if i >= 2 && !c.stderrWithin("big started "+tag, backlogWait) {
			break
		}
	}
	c.mu.Lock()
	started := strings.Count(c.stderr.String(), "big started ")
	c.mu.Unlock()
	if started == calls {
		t.Errorf("all %d calls of %d MB ran with no reply read: the server never stopped reading\n%s", started, size>>20, c.stderrText())
	}
	t.Logf("%d calls of %d ran before the server stopped reading", started, calls)
	readStdout()
	c.recv("init")
	for i := 0; i < sent; i++ {
		tag := fmt.Sprintf("c%d", i)
		r := c.recv(tag)
		var text string
		if err := json.Unmarshal([]byte(r.tool(t).Content[0].Text), &text); err != nil || len(text) != size {
			t.Errorf("reply %s: %d bytes of text, %v; want a string of %d", tag, len(text), err, size)
		}
	}
	if got := c.callTool("after", "double", map[string]any{"_1": 3}).text(t); got != "6" {
		t.Errorf("double 3 once the replies were read = %s", got)
	}
	c.closeAll()
}

// backlogWait is how long TestStdioBacklog watches for a call the server
// should not take. It is no limit on the server's speed: a slow machine
// can only make the test miss a server that reads on, never fail one that
// stops.
const backlogWait = 5 * time.Second

// stderrWithin waits up to d for s on the server's stderr and reports
// whether it came.
func (w *watched) stderrWithin(s string, d time.Duration) bool {
	w.t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		w.mu.Lock()
		ok, over, changed := strings.Contains(w.stderr.String(), s), w.over(), w.changed
		w.mu.Unlock()
		if ok || over {
			return ok
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		}
	}
}

var goMemProgram = files{
	"alloc.go": `package alloc

// Alloc allocates and touches mb megabytes, and returns one of their bytes.
func Alloc(mb int) int {
	b := make([]byte, mb<<20)
	for i := range b {
		b[i] = byte(i)
	}
	return int(b[len(b)/2])
}
`,
	"main.loc": `
module gomem (alloc)
import root-go
source Go from "alloc.go" ("Alloc" as alloc)
alloc :: Int -> Int
`,
}

// TestGoPoolReturnsMemory: after a call that allocated 512 MB the Go pool
// gives the memory back to the system, instead of keeping it resident
// while idle (the runtime's own forced collection comes only after two
// minutes).
func TestGoPoolReturnsMemory(t *testing.T) {
	p := build(t, goMemProgram)
	c := startMCPConn(t, p)
	c.initialize("2025-06-18")
	if got := c.callTool(1, "alloc", map[string]any{"_1": 512}).text(t); got != "0" {
		t.Fatalf("alloc 512 = %s", got)
	}
	procs := processesMentioning(filepath.Join(p.launcher+"-build", "pools", "go"))
	if len(procs) != 1 {
		t.Fatalf("want one Go pool process, got %v", procs)
	}
	pid, _, _ := strings.Cut(procs[0], ":")
	// The release follows the call within a fraction of a second; the
	// bound only keeps a pool that never releases from holding the test.
	const limit = 128 << 20
	deadline := time.Now().Add(30 * time.Second)
	rss := residentBytes(t, pid)
	for rss > limit && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		rss = residentBytes(t, pid)
	}
	if rss > limit {
		t.Errorf("the Go pool holds %d MB after a call that allocated 512 MB, want under %d MB", rss>>20, limit>>20)
	}
	c.closeAll()
}

// residentBytes reads the resident set size of process pid.
func residentBytes(t *testing.T, pid string) int64 {
	t.Helper()
	status, err := os.ReadFile(filepath.Join("/proc", pid, "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%s/status", pid)
	return 0
}
