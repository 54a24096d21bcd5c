package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/integration/rpcmsg"
)

// Morloc's daemon API on nexus serve (docs/mcp.md, "nexus serve"): POST
// /call/<command> with the arguments by position, GET /programs, GET
// /discover/<program>, CORS, the recovery window after a pool's death,
// and the same handler on a unix socket, called with net/http alone as a
// Morloc daemon client would.

// daemonProgram has commands in Python and C++, an option with a default
// (which takes its place among the positional arguments), a failing
// function, and the Python pool's process id, for the test to kill it.
var daemonProgram = files{
	"calc.hpp": `#pragma once
#include <cstdint>
#include <unistd.h>

inline std::int64_t add_cpp(std::int64_t a, std::int64_t b) { return a + b; }
`,
	"calc.py": `
import os

def scale(x, f):
    return x * f

def fail(x):
    raise ValueError("no good: " + str(x))

def pid(x):
    return os.getpid()
`,
	"main.loc": `
--' Daemon API test program.
module calc (add, scaled, fail, pypid)

import root-py
import root-cpp

source Cpp from "calc.hpp" ("add_cpp")
source Py from "calc.py" ("scale" as scalePy, "fail" as failPy, "pid" as pidPy)

add_cpp :: Int -> Int -> Int
scalePy :: Real -> Real -> Real
failPy :: Int -> Int
pidPy :: Int -> Int

--' Add two numbers, in C++.
add ::
  --' @name a
  Int ->
  --' @name b
  Int ->
  Int
add a b = add_cpp a b

--' Scale a number, in Python.
scaled ::
  --' @name x
  Real ->
  --' arg: -f/--factor
  --' default: 2.0
  Real ->
  Real
scaled x f = scalePy x f

--' Always raises.
fail ::
  --' @name x
  Int ->
  Int
fail x = failPy x

--' The Python pool's process id.
pypid ::
  --' @name x
  Int ->
  Int
pypid x = pidPy x
`,
}

// daemonClient calls a server as a Morloc daemon client does: plain
// net/http, over TCP (base http://127.0.0.1:PORT) or a unix socket (base
// http://localhost, every connection dialled to the socket).
type daemonClient struct {
	t    *testing.T
	base string
	c    *http.Client
}

func tcpClient(t *testing.T, base string) *daemonClient {
	return &daemonClient{t: t, base: base, c: &http.Client{Timeout: hangGuard}}
}

func unixClient(t *testing.T, socket string) *daemonClient {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", socket)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &daemonClient{t: t, base: "http://localhost", c: &http.Client{Transport: tr, Timeout: hangGuard}}
}

// do sends a request (a POST's body as JSON) with header, pairs of name
// and value, and reads the whole reply.
func (d *daemonClient) do(method, path, body string, header ...string) httpReply {
	d.t.Helper()
	req, err := http.NewRequest(method, d.base+path, strings.NewReader(body))
	if err != nil {
		d.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := d.c.Do(req)
	if err != nil {
		d.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		d.t.Fatal(err)
	}
	return httpReply{status: resp.StatusCode, header: resp.Header, body: out}
}

// daemonReply is the body of a daemon call.
type daemonReply struct {
	Status string          `json:"status"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// call posts body to /call/<command> and checks the reply's form: JSON,
// {"status":"ok","result":...} on 200, {"status":"error","error":...}
// otherwise.
func (d *daemonClient) call(command, body string) (httpReply, daemonReply) {
	d.t.Helper()
	r := d.do(http.MethodPost, "/call/"+command, body)
	var reply daemonReply
	if err := json.Unmarshal(r.body, &reply); err != nil || r.header.Get("Content-Type") != "application/json" {
		d.t.Fatalf("/call/%s %s: %v (%s), want a JSON reply", command, body, r, r.header.Get("Content-Type"))
	}
	ok := r.status == http.StatusOK
	if ok && (reply.Status != "ok" || reply.Result == nil || reply.Error != "") || !ok && (reply.Status != "error" || reply.Error == "" || reply.Result != nil) {
		d.t.Errorf("/call/%s %s: %v, not in the daemon's form", command, body, r)
	}
	return r, reply
}

// result calls command and returns its result, which must come.
func (d *daemonClient) result(command, body string) any {
	d.t.Helper()
	r, reply := d.call(command, body)
	if r.status != http.StatusOK {
		d.t.Fatalf("/call/%s %s: %v", command, body, r)
	}
	var v any
	if err := json.Unmarshal(reply.Result, &v); err != nil {
		d.t.Fatal(err)
	}
	return v
}

// refused calls command, which must fail with status, saying each of says.
func (d *daemonClient) refused(command, body string, status int, says ...string) httpReply {
	d.t.Helper()
	r, reply := d.call(command, body)
	if r.status != status {
		d.t.Errorf("/call/%s %s: %v, want %d", command, body, r, status)
	}
	for _, w := range says {
		if !strings.Contains(reply.Error, w) {
			d.t.Errorf("/call/%s %s: error %q does not say %q", command, body, reply.Error, w)
		}
	}
	return r
}

// TestDaemonAPI: every route of Morloc's daemon API over TCP and over a
// unix socket, CORS, and the recovery window after the Python pool is
// killed.
func TestDaemonAPI(t *testing.T) {
	p := build(t, daemonProgram)
	socket := filepath.Join(t.TempDir(), "calc.sock")
	const app = "https://app.example:8443"
	s := startHTTP(t, p.tmp, nil, "serve", p.launcher, "--socket", socket, "--cors-origin", app, "--recovery-window", "10m")
	s.waitStderr("socket=" + socket)
	if fi, err := os.Stat(socket); err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("the socket %s: %v, mode %v; want a socket of mode 0600", socket, err, fi.Mode())
	}
	for _, d := range []*daemonClient{tcpClient(t, s.base), unixClient(t, socket)} {
		// Positional arguments, as an array or {"args": [...]}, in the
		// command's order, an option taking its place.
		for _, c := range []struct {
			command, body string
			want          float64
		}{
			{"add", `[5, 10]`, 15},
			{"add", `{"args": [5, 10]}`, 15},
			{"scaled", `[3]`, 6},
			{"scaled", `{"args": [3, 10]}`, 30},
			{"scaled", `[1.5, 3]`, 4.5},
		} {
			if got := d.result(c.command, c.body); got != c.want {
				t.Errorf("%s: /call/%s %s = %v, want %v", d.base, c.command, c.body, got, c.want)
			}
		}
		d.refused("fail", `[7]`, 500, "ValueError", "no good: 7")
		d.refused("add", `[5]`, 400, "takes 2 arguments (a, b), got 1")
		d.refused("add", `[5, 10, 15]`, 400, "takes 2 arguments (a, b), got 3")
		d.refused("scaled", `[]`, 400, "takes 1 to 2 arguments (x, factor), got 0")
		d.refused("add", `["five", 10]`, 400, "'a'", "expected an integer")
		d.refused("add", `{"a": 5}`, 400, `{"args": [...]}`)
		d.refused("nope", `[]`, 404, "unknown command 'nope'", "add, fail, pypid, scaled")
		// The module route is as it was, next to it.
		if r := d.do("POST", "/call/calc/add", `{"a":5,"b":10}`); r.status != 200 || string(r.body) != "{\"result\":15}\n" {
			t.Errorf("%s: /call/calc/add: %v", d.base, r)
		}

		// /programs, and /discover/<program> is the program's entry of
		// /discover.
		r := d.do("GET", "/programs", "")
		want := `{"programs":[{"module":"calc","description":"Daemon API test program.","commands":["add","scaled","fail","pypid"],"discover":"/discover/calc"}]}`
		if r.status != 200 || !equalJSON(r.body, []byte(want)) {
			t.Errorf("%s: GET /programs: %v\nwant %s", d.base, r, want)
		}
		var all struct {
			Programs []json.RawMessage `json:"programs"`
		}
		if r := d.do("GET", "/discover", ""); r.status != 200 || json.Unmarshal(r.body, &all) != nil || len(all.Programs) != 1 {
			t.Fatalf("%s: GET /discover: %v", d.base, r)
		}
		if r := d.do("GET", "/discover/calc", ""); r.status != 200 || !equalJSON(r.body, all.Programs[0]) || !strings.Contains(string(r.body), `"call":"/call/calc/scaled"`) {
			t.Errorf("%s: GET /discover/calc: %v\nwant %s", d.base, r, all.Programs[0])
		}
		if r := d.do("GET", "/discover/nope", ""); r.status != 404 || !jsonError(r, "unknown program 'nope' (serving calc)") {
			t.Errorf("%s: GET /discover/nope: %v, want 404 in JSON", d.base, r)
		}

		// CORS: the allowed origin's preflight, on any route, and its
		// calls; any other origin is refused, preflight or not.
		for _, path := range []string{"/call/add", "/mcp", "/programs"} {
			r := d.do("OPTIONS", path, "", "Origin", app, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type, mcp-session-id")
			h := r.header
			if r.status != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != app || h.Get("Vary") != "Origin" ||
				!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id") ||
				h.Get("Access-Control-Max-Age") == "" {
				t.Errorf("%s: preflight of %s from %s: %v %v", d.base, path, app, r, h)
			}
		}
		if r := d.do("OPTIONS", "/call/add", "", "Origin", "https://evil.example", "Access-Control-Request-Method", "POST"); r.status != http.StatusForbidden ||
			r.header.Get("Access-Control-Allow-Origin") != "" || !jsonError(r, "evil.example") {
			t.Errorf("%s: preflight from another origin: %v %v, want 403", d.base, r, r.header)
		}
		if r := d.do("POST", "/call/add", `[1, 2]`, "Origin", app); r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != app ||
			!strings.Contains(r.header.Get("Access-Control-Expose-Headers"), "Retry-After") {
			t.Errorf("%s: call from %s: %v %v", d.base, app, r, r.header)
		}
		if r := d.do("POST", "/call/add", `[1, 2]`, "Origin", "https://evil.example"); r.status != http.StatusForbidden {
			t.Errorf("%s: call from another origin: %v, want 403", d.base, r)
		}
	}

	// MCP from the allowed origin: its page may read the session id.
	r := s.rpc("", 0, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "page", "version": "0"},
	}, "Origin", app)
	if r.status != 200 || r.header.Get("Mcp-Session-Id") == "" || r.header.Get("Access-Control-Allow-Origin") != app ||
		!strings.Contains(r.header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
		t.Errorf("initialize from %s: %v %v", app, r, r.header)
	}

	// The recovery window: the Python pool is killed; calls that need it
	// are answered 503 with Retry-After, by both call routes, until its
	// replacement runs; the C++ pool's commands are not affected, and
	// MCP's calls wait for the restart as they always did.
	tcp := tcpClient(t, s.base)
	kill := func() int {
		t.Helper()
		pid := int(tcp.result("pypid", `[0]`).(float64))
		// os.Process.Kill is SIGKILL, and builds on every system (make cross).
		proc, err := os.FindProcess(pid)
		if err == nil {
			err = proc.Kill()
		}
		if err != nil {
			t.Fatal(err)
		}
		waitHealth(t, s, "the python pool's death", func(h healthReply) bool { return strings.Contains(h.states(), "calc:python=down") })
		return pid
	}
	recovered := func(d *daemonClient, before int) {
		t.Helper()
		deadline := time.Now().Add(hangGuard)
		for {
			r, reply := d.call("pypid", `[0]`)
			if r.status == 200 {
				if pid, _ := strconv.Atoi(string(reply.Result)); pid == before {
					t.Errorf("pypid after the restart = %d, the killed pool's", pid)
				}
				return
			}
			if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
				t.Fatalf("pypid while the pool restarts: %v %v, want 503 with Retry-After", r, r.header)
			}
			if time.Now().After(deadline) {
				t.Fatalf("the python pool was not restarted after %v", hangGuard)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for round, d := range []*daemonClient{tcp, unixClient(t, socket)} {
		before := kill()
		var r httpReply
		if round == 0 {
			r = d.refused("pypid", `[0]`, http.StatusServiceUnavailable, "python pool is being restarted after it died", "SIGKILL")
		} else {
			// The module route, over the socket.
			r = d.do("POST", "/call/calc/pypid", `{"x":0}`)
			if r.status != http.StatusServiceUnavailable || !jsonError(r, "python pool is being restarted") {
				t.Errorf("/call/calc/pypid after the death: %v, want 503", r)
			}
		}
		if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs < 1 || secs > 600 {
			t.Errorf("round %d: Retry-After %q, want whole seconds within the window", round, r.header.Get("Retry-After"))
		}
		if got := d.result("add", `[2, 3]`); got != 5.0 {
			t.Errorf("round %d: add in C++ while Python restarts = %v", round, got)
		}
		recovered(d, before)
	}
	before := kill()
	sid := s.initialize()
	m := rpcOf(t, s.rpc(sid, 1, "tools/call", map[string]any{"name": "calc__pypid", "arguments": map[string]any{"x": 0}}))
	var res rpcmsg.ToolResult
	if json.Unmarshal(m.Result, &res) != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text == fmt.Sprint(before) {
		t.Errorf("MCP call after the death: %s, want it to wait for the restart and answer", m.Result)
	}

	s.stop()
	if _, err := os.Lstat(socket); !os.IsNotExist(err) {
		t.Errorf("the socket is left after the server stopped: %v", err)
	}
	p.checkClean()
}

// TestDaemonSocketOnly: --socket alone serves, replacing a stale socket
// left at its path; a file there that is not a socket is refused.
func TestDaemonSocketOnly(t *testing.T) {
	p := build(t, daemonProgram)
	dir := t.TempDir()
	socket := filepath.Join(dir, "calc.sock")

	// A regular file is not replaced.
	if err := os.WriteFile(socket, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runIn(t, dir, nil, "env", "TMPDIR="+p.tmp, nexusBin, "serve", p.launcher, "--socket", socket)
	if res.code == 0 || !strings.Contains(res.stderr, "not a socket") {
		t.Errorf("--socket on a regular file: exit %d, stderr %q; want a refusal", res.code, res.stderr)
	}
	if data, err := os.ReadFile(socket); err != nil || string(data) != "keep" {
		t.Errorf("the regular file was touched: %q %v", data, err)
	}
	os.Remove(socket)

	// A stale socket, as a killed server leaves it.
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()

	cmd := exec.Command(nexusBin, "serve", p.launcher, "--socket", socket)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+p.tmp)
	s := &httpServer{}
	s.over = func() bool { return s.exited && s.stderrEOF }
	s.dump = func() string { return "stderr:\n" + s.stderrText() }
	s.start(t, cmd)
	s.waitStderr("socket=" + socket)
	if strings.Contains(s.stderrText(), "http://") {
		t.Errorf("--socket alone listens on TCP too:\n%s", s.stderrText())
	}
	d := unixClient(t, socket)
	if got := d.result("add", `[20, 22]`); got != 42.0 {
		t.Errorf("add over the socket = %v", got)
	}
	if r := d.do("GET", "/health", ""); r.status != 200 {
		t.Errorf("GET /health over the socket: %v", r)
	}
	s.stop()
	if _, err := os.Lstat(socket); !os.IsNotExist(err) {
		t.Errorf("the socket is left after the server stopped: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left beside the socket: %v", entries)
	}
	p.checkClean()
}
