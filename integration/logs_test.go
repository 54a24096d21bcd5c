package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The servers' log (docs/operations.md, "Logs"): JSON lines from nexus
// serve under calls, the call lines and their off switches, the pools'
// lines with their attributes, and no secret nor argument in any of it.

// poolLine is how a server's log shows text, a line a pool printed: the
// value of its "line" attribute, quoted alike in the text format (for
// text with a space) and in JSON (for text without quotes, backslashes
// or control characters). The closing quote ends it, as the newline
// ended the line the pool printed.
func poolLine(text string) string { return strconv.Quote(text) }

// logsProgram: shout prints a line on stderr and then waits for a byte
// on the FIFO it is given, so that a test sees its line logged while the
// call is surely in flight; fail raises.
var logsProgram = files{
	"logs.py": `
import os, sys

def shout(path):
    fd = os.open(path, os.O_RDWR)
    print("shouting now", file=sys.stderr, flush=True)
    try:
        os.read(fd, 1)
    finally:
        os.close(fd)
    return "done"

def add(a, b):
    return a + b

def fail(x):
    raise ValueError("no good")
`,
	"main.loc": `
module logs (shout, add, fail)

import root-py

source Py from "logs.py" ("shout" as shoutPy, "add" as addPy, "fail" as failPy)

shoutPy :: Str -> Str
addPy :: Int -> Int -> Int
failPy :: Int -> Int

--' Prints a line, then waits for the FIFO.
shout ::
  --' @name path
  Str ->
  Str
shout path = shoutPy path

--' Adds.
add ::
  --' @name a
  Int ->
  --' @name b
  Int ->
  Int
add a b = addPy a b

--' Raises.
fail ::
  --' @name x
  Int ->
  Int
fail x = failPy x
`,
}

// argMark is in the arguments of the calls of the logs tests, and must
// not be in any log.
const argMark = "argmark-5e1d9"

// logRecords parses every line of stderr as a JSON object; a line that
// is not one fails the test.
func logRecords(t *testing.T, stderr string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("a log line is not a JSON object (%v): %s", err, line)
			continue
		}
		for _, k := range []string{"time", "level", "msg"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("a log line has no %q: %s", k, line)
			}
		}
		recs = append(recs, rec)
	}
	return recs
}

// withMsg are the records of recs whose message is msg.
func withMsg(recs []map[string]any, msg string) []map[string]any {
	var out []map[string]any
	for _, r := range recs {
		if r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}

// TestLogsJSON: nexus serve --log-format json writes nothing on stderr
// but JSON objects, one a line: where it listens, a line per call (JSON
// API and MCP alike) with the program, tool, transport, protocol,
// duration, outcome and a failure's message, and the pool's output with
// its program, language and the call in flight; never an argument.
func TestLogsJSON(t *testing.T) {
	p := build(t, logsProgram)
	s := startHTTP(t, p.tmp, nil, "serve", p.launcher, "--log-format", "json", "--log-calls")

	// The JSON API: ok, a tool error, bad arguments.
	if r := s.do(http.MethodPost, "/call/logs/add", `{"a": 1, "b": 2}`); r.status != http.StatusOK {
		t.Errorf("add: %v", r)
	}
	if r := s.do(http.MethodPost, "/call/logs/fail", `{"x": 424242}`); r.status == http.StatusOK {
		t.Errorf("fail: %v", r)
	}
	if r := s.do(http.MethodPost, "/call/logs/add", `{"a": "`+argMark+`", "b": 2}`); r.status != http.StatusBadRequest {
		t.Errorf("add with a string: %v", r)
	}
	// MCP: shout prints while it is the pool's one call.
	sid := s.initialize()
	h := newHolder(t)
	fifo := h.fifo(argMark)
	call := s.sendAsync(http.MethodPost, "/mcp", rpcLine(2, "tools/call", callParams("logs__shout", map[string]any{"path": fifo})), "Mcp-Session-Id", sid)
	s.waitFor("the pool's line", func() bool {
		return strings.Contains(s.stderr.String(), poolLine("shouting now")) || call.ended()
	})
	h.release(argMark)
	if r, err := call.result(); err != nil || r.status != http.StatusOK {
		t.Errorf("shout: %v %v", r, err)
	}
	if text, isErr := callText(t, s.rpc(sid, 3, "tools/call", callParams("logs__fail", map[string]any{"x": 424242}))); !isErr {
		t.Errorf("fail over MCP: %q", text)
	}
	s.stop()

	stderr := s.stderrText()
	if strings.Contains(stderr, argMark) || strings.Contains(stderr, "424242") {
		t.Errorf("an argument is in the log:\n%s", stderr)
	}
	recs := logRecords(t, stderr)
	if len(withMsg(recs, "serving")) != 1 {
		t.Errorf("want one line saying where the server listens:\n%s", stderr)
	}

	type callLine struct{ tool, transport, protocol, outcome, err string }
	want := []callLine{
		{"logs__add", "api", "", "ok", ""},
		{"logs__fail", "api", "", "tool_error", "no good"},
		{"logs__add", "api", "", "bad_arguments", ""},
		{"logs__shout", "http", "2025-06-18", "ok", ""},
		{"logs__fail", "http", "2025-06-18", "tool_error", "no good"},
	}
	calls := withMsg(recs, "call")
	if len(calls) != len(want) {
		t.Fatalf("%d call lines, want %d:\n%s", len(calls), len(want), stderr)
	}
	for i, c := range calls {
		w := want[i]
		proto, _ := c["protocol"].(string)
		errMsg, _ := c["error"].(string)
		got := callLine{fmt.Sprint(c["tool"]), fmt.Sprint(c["transport"]), proto, fmt.Sprint(c["outcome"]), errMsg}
		if got.tool != w.tool || got.transport != w.transport || got.protocol != w.protocol || got.outcome != w.outcome ||
			(w.err == "") != (errMsg == "") || !strings.Contains(errMsg, w.err) {
			t.Errorf("call line %d: %+v, want %+v", i, got, w)
		}
		if c["program"] != "logs" || c["level"] != "INFO" {
			t.Errorf("call line %d: program %v, level %v", i, c["program"], c["level"])
		}
		if d, ok := c["duration_ms"].(float64); !ok || d < 0 {
			t.Errorf("call line %d: duration_ms %v, want a number of milliseconds", i, c["duration_ms"])
		}
	}

	var shouted []map[string]any
	for _, r := range withMsg(recs, "pool output") {
		if r["line"] == "shouting now" {
			shouted = append(shouted, r)
		}
	}
	if len(shouted) != 1 {
		t.Fatalf("want the pool's line once:\n%s", stderr)
	}
	for k, v := range map[string]string{"program": "logs", "language": "python", "tool": "logs__shout", "function": "shoutPy"} {
		if shouted[0][k] != v {
			t.Errorf("the pool's line: %s is %v, want %s", k, shouted[0][k], v)
		}
	}
}

// TestLogsCallsOff: the call lines are off by default, on with
// --log-calls (or NEXUS_LOG_CALLS=true); --log-calls=false,
// NEXUS_LOG_CALLS=false and --log-level warn (or NEXUS_LOG_LEVEL) leave
// them out, and
// the line saying where the server listens with them for the level; a
// format or level nexus does not know is refused at start.
func TestLogsCallsOff(t *testing.T) {
	p := build(t, logsProgram)
	for _, c := range []struct {
		name    string
		env     []string
		args    []string
		serving bool // the info line saying where it listens is kept
	}{
		{"off, the default", nil, nil, true},
		{"--log-calls=false", nil, []string{"--log-calls=false"}, true},
		{"NEXUS_LOG_CALLS=false", []string{"NEXUS_LOG_CALLS=false"}, []string{}, true},
		{"--log-level warn", nil, []string{"--log-level", "warn", "--log-calls"}, false},
		{"NEXUS_LOG_LEVEL=error", []string{"NEXUS_LOG_LEVEL=error", "NEXUS_LOG_FORMAT=json", "NEXUS_LOG_CALLS=true"}, nil, false},
		{"--log-calls", nil, []string{"--log-calls"}, true},
		{"NEXUS_LOG_CALLS=true", []string{"NEXUS_LOG_CALLS=true"}, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := launchHTTP(t, p.tmp, c.env, append([]string{"serve", p.launcher}, c.args...)...)
			if c.serving {
				s.waitFor("the line saying where it listens", func() bool { return servingLine.MatchString(s.stderr.String()) })
				s.listen = servingLine.FindStringSubmatch(s.stderr.String())[1]
			} else {
				// Nothing says where it listens: ask the socket's owner.
				s.listen = listenAddr(t, s)
			}
			s.base = "http://" + s.listen
			if r := s.do(http.MethodPost, "/call/logs/add", `{"a": 1, "b": 2}`); r.status != http.StatusOK {
				t.Fatalf("add: %v", r)
			}
			s.stop()
			stderr := s.stderrText()
			calls := strings.Contains(stderr, "msg=call ") || strings.Contains(stderr, `"msg":"call"`)
			if on := c.name == "--log-calls" || c.name == "NEXUS_LOG_CALLS=true"; calls != on {
				t.Errorf("call line logged: %v, want %v:\n%s", calls, on, stderr)
			}
		})
	}
	for _, args := range [][]string{{"--log-format", "xml"}, {"--log-level", "loud"}} {
		code, stderr := startRefused(t, p.tmp, nil, append([]string{"serve", p.launcher}, args...)...)
		if code != 2 || !strings.Contains(stderr, args[0]) || !strings.Contains(stderr, args[1]) {
			t.Errorf("nexus serve %s: exit %d, %q; want exit 2 naming the flag and the value", strings.Join(args, " "), code, stderr)
		}
	}
}

// listenAddr finds the TCP address nexus server s listens on, when its
// log does not say: the one loopback listening socket its process owns.
func listenAddr(t *testing.T, s *httpServer) string {
	t.Helper()
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(20 * time.Millisecond) {
		if addr := ownedListener(s.cmd.Process.Pid); addr != "" {
			return addr
		}
		if s.hasExited() || time.Now().After(deadline) {
			t.Fatalf("the server does not listen:\n%s", s.stderrText())
		}
	}
}

// ownedListener is the address of a listening TCP socket on 127.0.0.1
// of process pid, "" if none yet (Linux: /proc).
func ownedListener(pid int) string {
	inodes := map[string]bool{}
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/tcp", pid))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		// local_address rem_address st ... inode; 0A is LISTEN,
		// 0100007F is 127.0.0.1.
		if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] {
			continue
		}
		host, port, _ := strings.Cut(f[1], ":")
		if host != "0100007F" {
			continue
		}
		n, err := strconv.ParseUint(port, 16, 16)
		if err != nil {
			continue
		}
		return fmt.Sprintf("127.0.0.1:%d", n)
	}
	return ""
}

// TestLogsNoSecrets: a server with a token and one with a credentials
// file, called with the right secret, a wrong one and none, at the
// debug level in both formats: the secrets are in no line of stderr nor
// of the audit log, and neither are the arguments.
func TestLogsNoSecrets(t *testing.T) {
	p := build(t, logsProgram)
	const token = "tok3n-a9f1-secret-0123456789"
	dir := t.TempDir()
	creds := writeCreds(t, filepath.Join(dir, "creds.json"),
		map[string]any{"name": "adder", "secret": adderSecret, "call": []string{"*add"}},
		map[string]any{"name": "viewer", "secret": viewerSecret, "list": true},
	)
	secrets := []string{token, adderSecret, viewerSecret, "wrong-0123456789abcdef"}
	for _, c := range []struct {
		name  string
		env   []string
		args  []string
		good  []string // a header that authenticates
		other []string // a header of a credential that may not call add, or nil
	}{
		{"mcp, token, text", []string{"NEXUS_MCP_TOKEN=" + token}, []string{"mcp", p.launcher, "--log-level", "debug", "--log-calls"},
			[]string{"Authorization", "Bearer " + token}, nil},
		{"serve, token, json", nil, []string{"serve", p.launcher, "--auth-token", token, "--log-level", "debug", "--log-calls", "--log-format", "json"},
			[]string{"X-API-Key", token}, nil},
		{"serve, credentials, json", nil, []string{"serve", p.launcher, "--auth-file", creds, "--log-level", "debug", "--log-calls", "--log-format", "json"},
			[]string{"Authorization", "Bearer " + adderSecret}, []string{"X-API-Key", viewerSecret}},
		{"mcp, credentials, text", nil, []string{"mcp", p.launcher, "--auth-file", creds, "--log-level", "debug", "--log-calls"},
			[]string{"X-API-Key", adderSecret}, []string{"Authorization", "Bearer " + viewerSecret}},
	} {
		t.Run(c.name, func(t *testing.T) {
			audit := filepath.Join(t.TempDir(), "audit.log")
			s := startHTTP(t, p.tmp, c.env, append(c.args, "--audit-log", audit)...)
			tool := "add"
			if c.args[0] == "serve" {
				tool = "logs__add"
				if r := s.do(http.MethodPost, "/call/logs/add", `{"a": 5, "b": 8}`, c.good...); r.status != http.StatusOK {
					t.Errorf("JSON API with the secret: %v", r)
				}
				for _, h := range [][]string{nil, {"Authorization", "Bearer wrong-0123456789abcdef"}} {
					if r := s.do(http.MethodPost, "/call/logs/add", `{"a": 5, "b": 8}`, h...); r.status != http.StatusUnauthorized {
						t.Errorf("JSON API with %q: %v, want 401", h, r)
					}
				}
			}
			sid := s.initialize(c.good...)
			args := map[string]any{"a": 424242, "b": 1}
			if text, isErr := callText(t, s.rpc(sid, 2, "tools/call", callParams(tool, args), c.good...)); isErr || text != "424243" {
				t.Errorf("MCP call with the secret: %q (isError %v)", text, isErr)
			}
			if r := s.rpc(sid, 3, "tools/call", callParams(tool, args), "X-API-Key", "wrong-0123456789abcdef"); r.status != http.StatusUnauthorized {
				t.Errorf("MCP call with a wrong secret: %v, want 401", r)
			}
			if c.other != nil {
				osid := s.initialize(c.other...)
				if _, isErr := callText(t, s.rpc(osid, 4, "tools/call", callParams(tool, args), c.other...)); !isErr {
					t.Errorf("the list-only credential called %s", tool)
				}
			}
			s.stop()
			data, _ := os.ReadFile(audit)
			for where, text := range map[string]string{"stderr": s.stderrText(), "the audit log": string(data)} {
				for _, secret := range append(secrets, "424242", "424243") {
					if strings.Contains(text, secret) {
						t.Errorf("%q is in %s:\n%s", secret, where, text)
					}
				}
			}
			if !strings.Contains(s.stderrText(), "call") {
				t.Errorf("no call line in stderr:\n%s", s.stderrText())
			}
		})
	}
}

// TestLogsNoSecretsOfSources: a program that calls an MCP server over
// HTTP with a @bearer token and one over stdio with an @env NAME=VALUE,
// served by nexus mcp over HTTP at the debug level in JSON, called
// through both: neither the token nor the value is in its log (the stdio
// server's own log lines included) or in the HTTP server's.
func TestLogsNoSecretsOfSources(t *testing.T) {
	served := build(t, logsProgram)
	const token, envValue = "bearer-61c0-secret-0123456789", "envsecret-3f9a-0123456789"
	s := startHTTP(t, served.tmp, nil, "mcp", served.launcher, "--auth-token", token, "--log-level", "debug", "--log-calls")
	t.Setenv("LOGS_BEARER", token)
	p := build(t, files{"main.loc": fmt.Sprintf(`
module gate (viaHTTP, viaStdio)

--' @bearer LOGS_BEARER
source MCP from "%s/mcp" ("add" as addHTTP)

--' @env LOGS_ENV=%s
source MCP from "'%s' mcp '%s' --log-level debug --log-calls" ("add" as addStdio)

addHTTP :: --' @name a
           Int -> --' @name b
           Int -> Int
addStdio :: --' @name a
            Int -> --' @name b
            Int -> Int

--' Adds over HTTP.
viaHTTP :: --' @name a
           Int -> --' @name b
           Int -> Int
viaHTTP a b = addHTTP a b

--' Adds over stdio.
viaStdio :: --' @name a
            Int -> --' @name b
            Int -> Int
viaStdio a b = addStdio a b
`, s.base, envValue, nexusBin, served.launcher)})
	g := startHTTP(t, p.tmp, nil, "mcp", p.launcher, "--log-level", "debug", "--log-calls", "--log-format", "json")
	sid := g.initialize()
	for i, tool := range []string{"viaHTTP", "viaStdio"} {
		if text, isErr := callText(t, g.rpc(sid, i+2, "tools/call", callParams(tool, map[string]any{"a": 40, "b": 2}))); isErr || text != "42" {
			t.Errorf("%s 40 2: %q (isError %v)", tool, text, isErr)
		}
	}
	g.stop()
	s.stop()
	gateway := g.stderrText()
	recs := logRecords(t, gateway)
	if len(withMsg(recs, "call")) != 2 || len(withMsg(recs, "mcp server output")) == 0 {
		t.Errorf("want two call lines and the stdio server's lines in the gateway's log:\n%s", gateway)
	}
	for where, text := range map[string]string{"the gateway's log": gateway, "the HTTP server's log": s.stderrText()} {
		for _, secret := range []string{token, envValue} {
			if strings.Contains(text, secret) {
				t.Errorf("%q is in %s:\n%s", secret, where, text)
			}
		}
	}
}
