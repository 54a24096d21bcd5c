package integration

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/internal/nexus/pool"
	stack "github.com/nexus-run/nexus/internal/nexus/program"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// These tests call nexus itself, served by `nexus mcp`, as the MCP server
// whose tools a program imports. Until `.loc` programs can say `source MCP
// from`, the importing program is a built Python and C++ program whose
// manifest the test extends in Go with the server, its tools and the
// commands that compose them (mcpsource_e2e_test.go has the same cases as
// `.loc` programs).

// servedProgram is httpProgram (add, point, fail, hold) with evens N, a
// list answered as JSON text.
func servedProgram() files {
	fs := files{}
	for k, v := range httpProgram {
		fs[k] = v
	}
	fs["work.py"] += "\ndef evens(n):\n    return [2 * i for i in range(n)]\n"
	fs["main.loc"] = strings.Replace(fs["main.loc"], "module work (add, point, fail, hold)", "module work (add, point, fail, hold, evens)", 1)
	fs["main.loc"] = strings.Replace(fs["main.loc"], `"hold" as holdPy)`, `"hold" as holdPy, "evens" as evensPy)`, 1)
	fs["main.loc"] += `
evensPy :: Int -> [Int]

--' The first n even numbers.
evens ::
  --' @name n
  Int ->
  [Int]
evens n = evensPy n
`
	return fs
}

// composer is the importing program: a Python and a C++ function for MCP
// tools' results to be fed to.
var composer = files{
	"client.py": `
def describe(n):
    return "%d is %s" % (n, "even" if n % 2 == 0 else "odd")

def show_point(p):
    return "(%d, %d)" % (p["x"], p["y"])
`,
	"client.hpp": `#pragma once
#include <cstdint>
inline std::int64_t triple(std::int64_t x) { return 3 * x; }
`,
	"main.loc": `
module client (describe, triple, showPoint)
import root-py
import root-cpp
source Py from "client.py" ("describe" as describePy, "show_point" as showPointPy)
source Cpp from "client.hpp" ("triple" as tripleCpp)

record Point where
  x :: Int
  y :: Int
record Py => Point = "dict"

describePy :: Int -> Str
showPointPy :: Point -> Str
tripleCpp :: Int -> Int

--' Describe n.
describe ::
  --' @name n
  Int -> Str
describe n = describePy n

--' Triple n.
triple ::
  --' @name n
  Int -> Int
triple n = tripleCpp n

--' Show a point.
showPoint ::
  --' @name p
  Point -> Str
showPoint p = showPointPy p
`,
}

// composerWith is composer's manifest with server sv's tools add, point,
// fail, evens and hold, and commands calling them, alone or composed
// with composer's Python and C++ functions. It returns the built composer
// too, whose manifest is still the one nexus make wrote.
func composerWith(t *testing.T, sv manifest.Server) (*program, *manifest.Manifest) {
	t.Helper()
	c := build(t, composer)
	m, err := manifest.Load(c.launcher)
	if err != nil {
		t.Fatal(err)
	}
	fn := func(name string) int {
		for i, f := range m.Functions {
			if f.Name == name {
				return i
			}
		}
		t.Fatalf("composer has no function %s", name)
		return -1
	}
	describe, showPoint, triple := fn("describePy"), fn("showPointPy"), fn("tripleCpp")
	point := m.Functions[showPoint].Args[0]
	m.Servers = append(m.Servers, sv)
	addTool := func(name, source string, params []string, ret *types.Type, args ...*types.Type) int {
		m.Functions = append(m.Functions, manifest.Function{ID: len(m.Functions), Name: name, Source: source, Pool: manifest.MCP,
			Server: len(m.Servers) - 1, Params: params, Args: args, Return: ret})
		return len(m.Functions) - 1
	}
	add := addTool("addMcp", "add", []string{"a", "b"}, types.IntType, types.IntType, types.IntType)
	pointMcp := addTool("pointMcp", "point", []string{"x"}, point, types.IntType)
	fail := addTool("failMcp", "fail", []string{"x"}, types.IntType, types.IntType)
	evens := addTool("evensMcp", "evens", []string{"n"}, types.ListOf(types.IntType), types.IntType)
	hold := addTool("holdMcp", "hold", []string{"path"}, types.UnitType, types.StrType)

	v := func(i int, t *types.Type) *manifest.Expr { return &manifest.Expr{Kind: manifest.Var, Ref: i, Type: t} }
	call := func(f int, args ...*manifest.Expr) *manifest.Expr {
		return &manifest.Expr{Kind: manifest.Call, Ref: f, Type: m.Functions[f].Return, Args: args}
	}
	arg := func(name string, t *types.Type) manifest.Arg {
		return manifest.Arg{Kind: manifest.Positional, Name: name, Type: t}
	}
	ab := []manifest.Arg{arg("a", types.IntType), arg("b", types.IntType)}
	sum := call(add, v(0, types.IntType), v(1, types.IntType))
	m.Commands = append(m.Commands,
		manifest.Command{Name: "sumDescribed", Args: ab, Return: types.StrType, Body: call(describe, sum)},
		manifest.Command{Name: "sumTripled", Args: ab, Return: types.IntType, Body: call(triple, sum)},
		manifest.Command{Name: "pointShown", Args: []manifest.Arg{arg("x", types.IntType)}, Return: types.StrType,
			Body: call(showPoint, call(pointMcp, v(0, types.IntType)))},
		manifest.Command{Name: "point", Args: []manifest.Arg{arg("x", types.IntType)}, Return: point, Body: call(pointMcp, v(0, types.IntType))},
		manifest.Command{Name: "evens", Args: []manifest.Arg{arg("n", types.IntType)}, Return: types.ListOf(types.IntType), Body: call(evens, v(0, types.IntType))},
		manifest.Command{Name: "failing", Args: []manifest.Arg{arg("x", types.IntType)}, Return: types.IntType, Body: call(fail, v(0, types.IntType))},
		manifest.Command{Name: "hold", Args: []manifest.Arg{arg("path", types.StrType)}, Return: types.UnitType, Body: call(hold, v(0, types.StrType))},
	)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return c, m
}

// callTool calls command name of set with JSON arguments.
func callTool(set *tool.Set, ctx context.Context, name string, args map[string]string) (string, error) {
	named := map[string]json.RawMessage{}
	for k, v := range args {
		named[k] = json.RawMessage(v)
	}
	res, err := set.Call(ctx, name, named)
	return string(res.Value), err
}

// TestMCPToolsComposedWithPools: nexus's tools, served over Streamable HTTP
// behind a bearer token read from the environment, called as typed
// functions: an Int from JSON text, a record from structuredContent, a
// list from JSON text, isError as the failure of the call, and results fed
// to a Python and a C++ function in one command.
func TestMCPToolsComposedWithPools(t *testing.T) {
	served := build(t, servedProgram())
	const token = "stack-token-8c2f"
	s := startHTTP(t, served.tmp, nil, "mcp", served.launcher, "--auth-token", token)
	t.Setenv("WORK_TOKEN", token)
	_, m := composerWith(t, manifest.Server{Name: "work", Server: s.base + "/mcp", Bearer: "WORK_TOKEN", Headers: []string{"X-Test: 1"}, TimeoutMS: 60000})

	stderr := &pooltest.Buffer{}
	p := stack.New(m, pool.Options{Stderr: stderr})
	defer p.Close()
	tools, skipped := p.Tools("")
	if len(skipped) > 0 {
		t.Fatalf("skipped: %v", skipped)
	}
	set := tool.NewSet(tools, tool.Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		cmd  string
		args map[string]string
		want string
	}{
		{"sumDescribed", map[string]string{"a": "20", "b": "22"}, `"42 is even"`},
		{"sumTripled", map[string]string{"a": "20", "b": "21"}, `123`},
		{"pointShown", map[string]string{"x": "3"}, `"(3, 6)"`},
		{"point", map[string]string{"x": "4"}, `{"x":4,"y":8}`},
		{"evens", map[string]string{"n": "4"}, `[0,2,4,6]`},
		{"evens", map[string]string{"n": "0"}, `[]`},
	} {
		if got, err := callTool(set, ctx, tc.cmd, tc.args); err != nil || got != tc.want {
			t.Errorf("%s %v: got %s, %v; want %s\n%s", tc.cmd, tc.args, got, err, tc.want, stderr)
		}
	}
	_, err := callTool(set, ctx, "failing", map[string]string{"x": "7"})
	var fe *pool.FunctionError
	if !errors.As(err, &fe) || fe.Function != "failMcp" || !strings.Contains(err.Error(), "no good: 7") {
		t.Errorf("failing 7: got %v, want the failure of failMcp with the server's message", err)
	}
	s.stop()
}

// TestMCPToolCallCancelled: a call of an MCP tool that the call timeout of
// a front end (--timeout) cuts is cancelled in the server too. As in
// TestMCPSourceForwardsCancel, the server runs one call at a time: the
// cut call waits there behind a held one, and had the cancellation not
// arrived it would run once the held call ends.
func TestMCPToolCallCancelled(t *testing.T) {
	served := build(t, servedProgram())
	_, m := composerWith(t, manifest.Server{Name: "work", Server: "'" + nexusBin + "' mcp '" + served.launcher + "' --pool-calls 1",
		Env: []string{"TMPDIR=" + served.tmp}, TimeoutMS: 600000})
	stderr := &pooltest.Buffer{}
	p := stack.New(m, pool.Options{Stderr: stderr})
	defer p.Close()
	tools, _ := p.Tools("")
	unbounded := tool.NewSet(tools, tool.Options{CallTimeout: -1})
	h := newHolder(t)
	hold := func(set *tool.Set, name string) chan error {
		done := make(chan error, 1)
		path, _ := json.Marshal(h.fifo(name))
		go func() {
			_, err := callTool(set, context.Background(), "hold", map[string]string{"path": string(path)})
			done <- err
		}()
		return done
	}

	one := hold(unbounded, "one")
	pooltest.WaitFor(t, stderr, "hold started one")
	if err := <-hold(tool.NewSet(tools, tool.Options{CallTimeout: time.Second}), "two"); err == nil || err.Error() != "hold timed out after 1s" {
		t.Errorf("hold two with a 1s timeout: got %v", err)
	}
	// The Go SDK sends notifications/cancelled after the call has
	// returned, from a goroutine of its own: give it time to arrive
	// before the held call ends and frees the server's one place.
	time.Sleep(time.Second)
	h.release("one")
	if err := <-one; err != nil {
		t.Fatal(err)
	}
	three := hold(unbounded, "three")
	pooltest.WaitFor(t, stderr, "hold started three")
	h.release("three")
	if err := <-three; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), "hold started two") {
		t.Errorf("the cut call ran in the server:\n%s", stderr)
	}
	if !strings.Contains(stderr.String(), "work: ") {
		t.Errorf("the server's stderr is not prefixed with its name:\n%s", stderr)
	}
}

// composerLauncher is composer whose launcher runs composerWith's
// manifest: its manifest file is replaced by that one.
func composerLauncher(t *testing.T, sv manifest.Server) *program {
	t.Helper()
	p, m := composerWith(t, sv)
	file, err := manifest.Resolve(p.launcher)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMCPToolsThroughLauncher: the composer's manifest, extended with
// nexus's tools over HTTP, is the program its launcher runs: on the
// command line (a result, isError as exit 1, a @bearer variable that is
// not set) and re-exported by `nexus mcp` to an MCP client (the gateway
// case), which starts the program's pools at once but connects to the MCP
// server only on the first call.
func TestMCPToolsThroughLauncher(t *testing.T) {
	served := build(t, servedProgram())
	const token = "launcher-token-41aa"
	s := startHTTP(t, served.tmp, nil, "mcp", served.launcher, "--auth-token", token)
	t.Setenv("WORK_TOKEN", token)
	p := composerLauncher(t, manifest.Server{Name: "work", Server: s.base + "/mcp", Bearer: "WORK_TOKEN", TimeoutMS: 60000})

	if got := p.ok("sumDescribed", "20", "22"); got != "\"42 is even\"\n" {
		t.Errorf("sumDescribed 20 22: %q", got)
	}
	if got := p.ok("pointShown", "5"); got != "\"(5, 10)\"\n" {
		t.Errorf("pointShown 5: %q", got)
	}
	if stderr := p.fails(1, "failing", "7"); !strings.Contains(stderr, "failMcp: ") || !strings.Contains(stderr, "no good: 7") {
		t.Errorf("failing 7: stderr %q, want the server's message", stderr)
	}
	unset := runIn(t, t.TempDir(), nil, "env", "-u", "WORK_TOKEN", "TMPDIR="+p.tmp, p.launcher, "sumTripled", "1", "2")
	if unset.code != 1 || !strings.Contains(unset.stderr, "WORK_TOKEN") || !strings.Contains(unset.stderr, "mcp server work") || strings.Contains(unset.stderr, token) {
		t.Errorf("WORK_TOKEN unset: exit %d, stderr %q; want exit 1 naming the variable and the server", unset.code, unset.stderr)
	}

	gw := startSDKSession(t, p, "")
	ctx := context.Background()
	res, err := gw.cs.CallTool(ctx, &mcp.CallToolParams{Name: "sumTripled", Arguments: map[string]any{"a": 20, "b": 21}})
	if err != nil || res.IsError || toolText(res) != "123" {
		t.Errorf("gateway sumTripled 20 21: %+v, %v; want 123", res, err)
	}
	res, err = gw.cs.CallTool(ctx, &mcp.CallToolParams{Name: "point", Arguments: map[string]any{"x": 2}})
	if got, _ := json.Marshal(res.StructuredContent); err != nil || string(got) != `{"x":2,"y":4}` {
		t.Errorf("gateway point 2: structured %s, %v", got, err)
	}
	res, err = gw.cs.CallTool(ctx, &mcp.CallToolParams{Name: "failing", Arguments: map[string]any{"x": 8}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "no good: 8") {
		t.Errorf("gateway failing 8: %+v, %v; want isError with the server's message", res, err)
	}
	if err := gw.close(); err != nil {
		t.Errorf("close: %v\n%s", err, gw.stderr)
	}
	if log := gw.stderr.String(); strings.Contains(log, "level=WARN") || strings.Contains(log, "level=ERROR") {
		t.Errorf("nexus mcp reported a failure (an mcp pool started?):\n%s", gw.stderr)
	}
	s.stop()
}

// TestMCPToolInterrupted: Ctrl-C on the command line ends a call of an MCP
// tool that would otherwise never return: exit 130, "interrupted".
func TestMCPToolInterrupted(t *testing.T) {
	served := build(t, servedProgram())
	s := startHTTP(t, served.tmp, nil, "mcp", served.launcher)
	p := composerLauncher(t, manifest.Server{Name: "work", Server: s.base + "/mcp", TimeoutMS: 3600000})
	h := newHolder(t)
	cmd := exec.Command(p.launcher, "hold", h.fifo("one"))
	cmd.Env = append(os.Environ(), "TMPDIR="+p.tmp)
	var stderr pooltest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	s.waitStderr("hold started one")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("Ctrl-C during hold: exit %d (%v), stderr %q; want 130, interrupted", code, err, stderr.String())
	}
	h.release("one")
	s.stop()
}
