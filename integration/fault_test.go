//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/integration/procstat"
	"github.com/nexus-run/nexus/integration/rpcmsg"
)

// The fault suite: the fault program (testdata/fault, also the soak
// command's) has, in Python, C++ and Go alike, a function that works and
// functions that sleep past the call timeout, crash by a signal or an exit
// code, allocate half a gigabyte, return a 20 MB string, recurse until the
// stack overflows, write to fd 1, and return NaN or an infinity. Each is
// called over the CLI, stdio MCP and HTTP MCP, and for each this must
// hold: a clear error (exit 1 and `error:` on the CLI, isError or a
// JSON-RPC error over MCP) or the right value, the next call of the same
// language succeeds, the protocol stream carries nothing but JSON-RPC
// messages (every line strictly parsed), and once the server is stopped
// no pool process, socket or temp folder of it is left; the nexus's
// threads do not grow past a bound.

const (
	// faultAllocMB is what alloc_* allocate and write: a lot, but bounded,
	// as the tests share the machine.
	faultAllocMB = 512
	// faultHugeMB is the size of huge_*'s string: large, yet small enough
	// for the strict parse of each reply under the race detector, a few
	// seconds at 20 MB, to keep the suite short.
	faultHugeMB = 8
	// faultTimeout is the servers' --timeout, which nap outlives.
	faultTimeout = "2s"
	// faultThreadGrowth bounds how many threads a nexus may gain over the
	// faults of one language: Go's runtime keeps a thread for each pool it
	// waits on and a few idle ones, but not one per call or per restart.
	faultThreadGrowth = 16
)

// fault is one call of the fault program and what must come of it.
type fault struct {
	name string // the subtest's name
	fn   string // the function, less its language suffix
	arg  any
	// Exactly one of:
	value     string   // the JSON text of the right result
	errs      []string // what the error must say, besides the function's name
	nonfinite bool     // an error saying the value is NaN or an infinity
	// mcpOnly: the CLI has no call timeout, so a nap there just sleeps.
	mcpOnly bool
}

// faultsOf lists the faults of one language ("py", "cpp" or "go") in
// groups, each run against a server of its own: at most three faults of a
// group kill the pool, as five deaths a minute stop a pool's restarts
// (pool.DefaultMaxDeaths), which is a guard against restart loops, not
// what is under test here.
func faultsOf(lang string) [][]fault {
	died := func(how string) []string { return []string{"pool died while running", how} }
	// How a stack overflow ends: Python raises RecursionError, which is
	// the function's failure; C++ dies by SIGSEGV; Go's runtime stops the
	// pool with a fatal error, exit status 2.
	overflow := map[string][]string{
		"py":  {"RecursionError"},
		"cpp": died("SIGSEGV"),
		"go":  died("exit status 2"),
	}[lang]
	return [][]fault{
		{
			{name: "SIGSEGV", fn: "crash", arg: "segv", errs: died("SIGSEGV")},
			{name: "SIGABRT", fn: "crash", arg: "abort", errs: died("SIGABRT")},
			{name: "SIGKILL of itself", fn: "crash", arg: "kill", errs: died("SIGKILL")},
			{name: "allocate", fn: "alloc", arg: faultAllocMB, value: fmt.Sprint(faultAllocMB)},
			{name: "huge result", fn: "huge", arg: faultHugeMB, value: strJSON(strings.Repeat("x", faultHugeMB<<20))},
			{name: "write to fd 1", fn: "chatty", arg: 5, value: "5"},
		},
		{
			{name: "sleep past the timeout", fn: "nap", arg: 30, errs: []string{"timed out"}, mcpOnly: true},
			{name: "exit code", fn: "crash", arg: "exit", errs: died("exit status 3")},
			{name: "stack overflow", fn: "recurse", arg: 10_000_000, errs: overflow},
			// The rule for numbers JSON cannot carry, the same on every
			// surface, in a Real and inside a list.
			{name: "NaN", fn: "nonfinite", arg: "nan", nonfinite: true},
			{name: "Infinity", fn: "nonfinite", arg: "inf", nonfinite: true},
			{name: "-Infinity", fn: "nonfinite", arg: "-inf", nonfinite: true},
			{name: "Infinity in a list", fn: "nonfinites", arg: "inf", nonfinite: true},
		},
	}
}

// check compares the outcome of f in tool with what f wants: failed says
// the call was an error, text is the error's message or the result.
func (f fault) check(t *testing.T, tool string, failed bool, text string) {
	t.Helper()
	switch {
	case f.nonfinite:
		if !failed || !(strings.Contains(text, "NaN") || strings.Contains(text, "Infinity")) {
			t.Errorf("%s %v: failed %v, %.200q; want an error saying the value is NaN or an infinity, which JSON cannot carry", tool, f.arg, failed, text)
		}
	case f.errs != nil:
		if !failed {
			t.Errorf("%s %v succeeded with %.200q, want an error", tool, f.arg, text)
			return
		}
		for _, w := range append([]string{tool}, f.errs...) {
			if !strings.Contains(text, w) {
				t.Errorf("%s %v: the error %q does not say %q", tool, f.arg, text, w)
			}
		}
	case failed:
		t.Errorf("%s %v failed: %s", tool, f.arg, text)
	case text != f.value:
		t.Errorf("%s %v = %.200s (%d bytes), want %.200s (%d bytes)", tool, f.arg, text, len(text), f.value, len(f.value))
	}
}

// faultCaller calls one function of the fault program over one surface;
// failed says the call was an error, text is its message or the result.
type faultCaller func(t *testing.T, tool string, arg any) (failed bool, text string)

// TestFaults drives every fault of every language over every surface, each
// (surface, language) pair in a subtest of its own, side by side, with its
// own servers and its own TMPDIR.
func TestFaults(t *testing.T) {
	p := build(t, dirFiles(t, filepath.Join("testdata", "fault")))
	for _, lang := range []string{"py", "cpp", "go"} {
		t.Run("cli/"+lang, func(t *testing.T) {
			t.Parallel()
			q := p.private(t)
			for _, group := range faultsOf(lang) {
				runFaults(t, lang, group, false, func(t *testing.T, tool string, arg any) (bool, string) {
					return cliCall(q.in(t), tool, arg)
				})
			}
		})
		t.Run("stdio/"+lang, func(t *testing.T) {
			t.Parallel()
			q := p.private(t)
			for _, group := range faultsOf(lang) {
				c := startMCPConn(t, q, "--timeout", faultTimeout)
				c.initialize("2025-06-18")
				call := func(t *testing.T, tool string, arg any) (bool, string) {
					return stdioCall(c, t, tool, arg)
				}
				threads := threadWatch(t, c.cmd.Process.Pid, func() { wantOK(t, lang, call) })
				runFaults(t, lang, group, true, call)
				threads(t)
				c.t = t
				c.closeAll() // exit 0, only JSON-RPC on stdout, no pool or temp file left
			}
		})
		t.Run("http/"+lang, func(t *testing.T) {
			t.Parallel()
			q := p.private(t)
			for _, group := range faultsOf(lang) {
				s := startHTTP(t, q.tmp, nil, "mcp", q.launcher, "--timeout", faultTimeout)
				sid := s.initialize()
				call := func(t *testing.T, tool string, arg any) (bool, string) {
					return httpCall(s, t, sid, tool, arg)
				}
				threads := threadWatch(t, s.cmd.Process.Pid, func() { wantOK(t, lang, call) })
				runFaults(t, lang, group, true, call)
				threads(t)
				s.t = t
				s.stop() // exit 0 after SIGTERM, no crash
				q.in(t).checkClean()
			}
		})
	}
}

// runFaults calls each fault of group in a subtest, then the language's
// working function, which must still answer right.
func runFaults(t *testing.T, lang string, group []fault, mcp bool, call faultCaller) {
	for _, f := range group {
		if f.mcpOnly && !mcp {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			tool := f.fn + "_" + lang
			failed, text := call(t, tool, f.arg)
			f.check(t, tool, failed, text)
			wantOK(t, lang, call)
		})
	}
}

// wantOK calls the working function of lang, which must answer right.
func wantOK(t *testing.T, lang string, call faultCaller) {
	t.Helper()
	if failed, text := call(t, "ok_"+lang, 21); failed || text != "42" {
		t.Errorf("ok_%s 21: failed %v, %q; want 42", lang, failed, text)
	}
}

// threadWatch calls warm (a first call, which starts the pool) and notes
// the threads of the nexus process pid; the function it returns fails t if
// they have grown past faultThreadGrowth since.
func threadWatch(t *testing.T, pid int, warm func()) func(*testing.T) {
	t.Helper()
	warm()
	before := procstat.Threads(pid)
	if before == 0 {
		t.Fatalf("no thread count for nexus (pid %d)", pid)
	}
	return func(t *testing.T) {
		t.Helper()
		if after := procstat.Threads(pid); after > before+faultThreadGrowth {
			t.Errorf("nexus went from %d threads to %d over the faults, more than %d more", before, after, faultThreadGrowth)
		}
	}
}

// private is p with a TMPDIR of its own, so that its runs can go side by
// side with other runs of p and still be checked for leftovers alone.
func (p *program) private(t *testing.T) *program {
	q := p.in(t)
	q.tmp = filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(q.tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	return q
}

// cliCall runs `./prog TOOL -- ARG`: exit 0 is a result on stdout, exit 1
// an error with a line of stderr starting `error:`; nothing else will do, and no pool or temp file may be left once it has exited.
func cliCall(p *program, tool string, arg any) (bool, string) {
	t := p.t
	t.Helper()
	res := runIn(t, t.TempDir(), nil, "env", "TMPDIR="+p.tmp, p.launcher, tool, "--", fmt.Sprint(arg))
	if nexusCrashed(res.stderr) {
		t.Fatalf("%s %v: nexus crashed:\n%s", tool, arg, res.stderr)
	}
	p.checkClean()
	switch res.code {
	case 0:
		return false, strings.TrimSuffix(res.stdout, "\n")
	case 1:
		// The error line may come after what the pool printed, and
		// before the traceback of a Python exception.
		if !strings.HasPrefix(res.stderr, "error: ") && !strings.Contains(res.stderr, "\nerror: ") {
			t.Errorf("%s %v: exit 1, but no line of stderr starts with error:\n%s", tool, arg, res.stderr)
		}
		if res.stdout != "" {
			t.Errorf("%s %v: failed but printed on stdout: %.200q", tool, arg, res.stdout)
		}
		return true, res.stderr
	}
	t.Fatalf("%s %v: exit %d, want 0 or 1\nstderr:\n%s", tool, arg, res.code, res.stderr)
	return false, ""
}

// stdioCall calls tool over c; every line c reads is a strictly parsed
// JSON-RPC message, or closeAll fails the test.
func stdioCall(c *mcpConn, t *testing.T, tool string, arg any) (bool, string) {
	t.Helper()
	c.t = t
	r := c.callTool(t.Name()+" "+tool, tool, map[string]any{"_1": arg})
	if r.Error != nil {
		return true, r.Error.Message
	}
	res := r.tool(t)
	return res.IsError, res.Content[0].Text
}

// httpCall calls tool in session sid of s; the reply must be one JSON-RPC
// response in a JSON body, strictly parsed.
func httpCall(s *httpServer, t *testing.T, sid, tool string, arg any) (bool, string) {
	t.Helper()
	s.t = t
	r := s.rpc(sid, 1, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{"_1": arg}})
	if r.status != http.StatusOK {
		t.Fatalf("%s %v: %.300v, want 200", tool, arg, r)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s %v: Content-Type %q, want application/json", tool, arg, ct)
	}
	m, err := rpcmsg.Parse(r.body)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, arg, err)
	}
	if m.Error != nil {
		return true, m.Error.Message
	}
	var res rpcmsg.ToolResult
	if err := json.Unmarshal(m.Result, &res); err != nil || len(res.Content) != 1 || res.Content[0].Type != "text" {
		t.Fatalf("%s %v: %.300s, want a result of one text block", tool, arg, r.body)
	}
	return res.IsError, res.Content[0].Text
}
