package integration

import (
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// How nexus ends: on the first signal a server drains for --shutdown-grace
// (not the call timeout), on the second it stops at once with exit status
// 128+signal; at the end of stdin a stdio server cancels what is still
// running. Every case has a call in flight that would run for ten minutes,
// under a call timeout of an hour, so that only the shutdown rules can end
// it; the waits are the harness's hang guard, which is far shorter.

var stopProgram = files{
	"work.py": `
import sys, time

def nap(seconds, tag):
    print("nap started " + tag, file=sys.stderr, flush=True)
    time.sleep(seconds)
    return tag

def big(n, tag):
    print("big started " + tag, file=sys.stderr, flush=True)
    return "x" * n

def double(x):
    return 2 * x
`,
	"main.loc": `
module stop (nap, big, double)
import root-py
source Py from "work.py" ("nap", "big", "double")
nap :: Real -> Str -> Str
big :: Int -> Str -> Str
double :: Int -> Int
`,
}

// napArgs are the arguments of a nap of ten minutes.
func napArgs(tag string) map[string]any { return map[string]any{"_1": 600, "_2": tag} }

// hungServer is a server of stopProgram with a ten-minute call in flight.
type hungServer struct {
	w *watched
	// replied reports whether the call in flight was answered, and how.
	replied func() (bool, string)
	// finish checks what every end must leave: only JSON-RPC on stdout
	// (stdio), no crash, no pool process or temp file.
	finish func()
}

// startHung starts the server kind ("stdio", "http" for nexus mcp
// --http-port, "serve") of p with flags, and a call of nap that runs until
// something ends it.
func startHung(t *testing.T, p *program, kind string, flags ...string) hungServer {
	t.Helper()
	flags = append([]string{"--timeout", "1h"}, flags...)
	if kind == "stdio" {
		c := startMCPConn(t, p, flags...)
		c.initialize("2025-06-18")
		c.send(rpcLine("hung", "tools/call", map[string]any{"name": "nap", "arguments": napArgs("hung")}))
		c.waitStderr("nap started hung")
		return hungServer{
			w: &c.watched,
			replied: func() (bool, string) {
				c.mu.Lock()
				defer c.mu.Unlock()
				for _, r := range c.replies {
					if string(r.ID) == `"hung"` {
						return true, r.Line
					}
				}
				return false, ""
			},
			finish: func() {
				t.Helper()
				c.waitFor("stdout to end", func() bool { return c.stdoutEOF })
				for _, l := range c.notJSON {
					t.Errorf("stdout carries a line that is not a JSON-RPC message: %q", l)
				}
				if text := c.stderrText(); strings.Contains(text, "goroutine ") || strings.Contains(text, "panic:") {
					t.Errorf("nexus crashed:\n%s", text)
				}
				p.checkClean()
			},
		}
	}
	command, body, path := "mcp", "", "/mcp"
	var s *httpServer
	var header []string
	if kind == "serve" {
		command, path = "serve", "/call/stop/nap"
		body = string(marshalJSON(t, napArgs("hung")))
		s = startHTTP(t, p.tmp, nil, append([]string{command, p.launcher}, flags...)...)
	} else {
		s = startHTTP(t, p.tmp, nil, append([]string{command, p.launcher}, flags...)...)
		header = []string{"Mcp-Session-Id", s.initialize()}
		body = rpcLine("hung", "tools/call", map[string]any{"name": "nap", "arguments": napArgs("hung")})
	}
	call := s.sendAsync(http.MethodPost, path, body, header...)
	s.waitFor("the call to start", func() bool {
		return strings.Contains(s.stderr.String(), "nap started hung") || call.ended()
	})
	if call.ended() {
		r, err := call.result()
		t.Fatalf("the call ended before it began: %v %v\n%s", r, err, s.stderrText())
	}
	return hungServer{
		w: &s.watched,
		replied: func() (bool, string) {
			if !call.ended() {
				return false, ""
			}
			r, err := call.result()
			if err != nil {
				return true, err.Error()
			}
			return true, r.String()
		},
		finish: func() {
			t.Helper()
			s.checkNoCrash()
			p.checkClean()
		},
	}
}

// signal sends sig to the server.
func (h hungServer) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := h.w.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// exitCode waits for the server to exit and returns its status.
func (h hungServer) exitCode() int {
	h.w.waitFor("the server to exit", func() bool { return h.w.exited })
	h.w.mu.Lock()
	defer h.w.mu.Unlock()
	return h.w.exitCode
}

var serverKinds = []string{"stdio", "http", "serve"}

// TestShutdownGrace: the first SIGTERM gives the call in flight
// --shutdown-grace (by default a few seconds), not the call timeout, then
// cancels it; the server exits 0 having stopped its pools.
func TestShutdownGrace(t *testing.T) {
	p := build(t, stopProgram)
	for _, kind := range serverKinds {
		t.Run(kind, func(t *testing.T) {
			p := p.in(t)
			h := startHung(t, p, kind)
			h.signal(t, syscall.SIGTERM)
			if code := h.exitCode(); code != 0 {
				t.Errorf("exit %d after SIGTERM, want 0\n%s", code, h.w.dump())
			}
			if kind == "stdio" {
				// Over stdio the cancelled call is still answered.
				if ok, line := h.replied(); !ok || !strings.Contains(line, "nap was cancelled") {
					t.Errorf("the call in flight: replied %v %s, want its cancellation", ok, line)
				}
			}
			h.finish()
		})
	}
}

// TestShutdownSecondSignal: with a grace long enough to wait for the call
// in flight, a second Ctrl-C stops the server at once, killing the pools,
// with exit status 130.
func TestShutdownSecondSignal(t *testing.T) {
	p := build(t, stopProgram)
	for _, kind := range serverKinds {
		t.Run(kind, func(t *testing.T) {
			p := p.in(t)
			h := startHung(t, p, kind, "--shutdown-grace", "1h")
			h.signal(t, syscall.SIGINT)
			h.w.waitStderr("stopping: ")
			if h.w.hasExited() {
				t.Fatalf("the server exited at the first signal with a call in flight and an hour of grace\n%s", h.w.dump())
			}
			h.signal(t, syscall.SIGINT)
			if code := h.exitCode(); code != 130 {
				t.Errorf("exit %d after a second SIGINT, want 130\n%s", code, h.w.dump())
			}
			h.finish()
		})
	}
}

// TestStdioEOFCancelsCalls: a client that closes the server's stdin has
// ended the session: the call still running after the grace is
// cancelled (and answered, should the client still read), and the server
// exits 0 without waiting for the call timeout.
func TestStdioEOFCancelsCalls(t *testing.T) {
	p := build(t, stopProgram)
	c := startMCPConn(t, p, "--timeout", "1h")
	c.initialize("2025-06-18")
	c.send(rpcLine("quick", "tools/call", map[string]any{"name": "double", "arguments": map[string]any{"_1": 4}}))
	c.send(rpcLine("hung", "tools/call", map[string]any{"name": "nap", "arguments": napArgs("hung")}))
	c.waitStderr("nap started hung")
	left := c.close() // exit 0, nothing left behind
	var got []string
	for _, r := range left {
		got = append(got, string(r.ID))
		if string(r.ID) == `"hung"` && !strings.Contains(r.Line, "nap was cancelled") {
			t.Errorf("the hung call's reply: %s, want its cancellation", r.Line)
		}
	}
	if strings.Join(got, " ") != `"quick" "hung"` && strings.Join(got, " ") != `"hung" "quick"` {
		t.Errorf("replies after EOF to %v, want the quick call's and the hung call's", got)
	}
}

// TestRunSecondSignal: the first Ctrl-C cancels a command line's call;
// a second, at once after it, also ends the run, non-zero, with nothing
// left behind.
func TestRunSecondSignal(t *testing.T) {
	p := build(t, stopProgram)
	cmd := exec.Command(p.launcher, "nap", "600", "run")
	cmd.Env = append(os.Environ(), "TMPDIR="+p.tmp)
	w := &watched{}
	w.over = func() bool { return w.exited }
	w.dump = func() string { return "stderr:\n" + w.stderrText() }
	w.start(t, cmd)
	w.waitStderr("nap started run")
	h := hungServer{w: w}
	h.signal(t, syscall.SIGINT)
	h.signal(t, syscall.SIGINT)
	if code := h.exitCode(); code == 0 {
		t.Errorf("exit 0 after two SIGINTs\n%s", w.dump())
	}
	p.checkClean()
}
