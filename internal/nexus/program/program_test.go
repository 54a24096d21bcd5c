package program

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/codegen/python"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// pythonProgram is a program with a real Python pool running fns of py,
// and no command.
func pythonProgram(t *testing.T, py string, fns ...pooltest.Fn) *manifest.Manifest {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(root, "mod.py")
	if err := os.WriteFile(src, []byte(py), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := pooltest.Program(root, manifest.Python, src, python.Write, fns)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// twice is a program with a real Python pool and one command, twice N,
// which calls the pool's function double.
func twice(t *testing.T) *manifest.Manifest {
	t.Helper()
	m := pythonProgram(t, "def double(n):\n    return 2 * n\n",
		pooltest.Fn{Source: "double", Args: []*types.Type{types.IntType}, Return: types.IntType})
	m.Commands = []manifest.Command{{
		Name:   "twice",
		Args:   []manifest.Arg{{Kind: manifest.Positional, Name: "n", Type: types.IntType}},
		Return: types.IntType,
		Body: &manifest.Expr{Kind: manifest.Call, Type: types.IntType, Ref: 0, Args: []*manifest.Expr{
			{Kind: manifest.Var, Type: types.IntType, Ref: 0},
		}},
	}}
	return m
}

// states are the pools' states, joined.
func states(p *Program) string {
	var out []string
	for _, st := range p.Pools.Status() {
		out = append(out, st.Name+" "+st.State)
	}
	return strings.Join(out, ", ")
}

// TestToolsStartTheirPoolOnFirstCall: New starts nothing; a tool's call
// runs through the program's dispatcher and starts the pool it needs;
// Close stops it.
func TestToolsStartTheirPoolOnFirstCall(t *testing.T) {
	var log pooltest.Buffer
	p := New(twice(t), pool.Options{Stderr: &log})
	tools, skipped := p.Tools("mod__")
	if len(tools) != 1 || tools[0].Name != "mod__twice" || len(skipped) != 0 {
		t.Fatalf("tools: got %v, skipped %v; want mod__twice", tools, skipped)
	}
	if got := states(p); got != "python idle" {
		t.Errorf("before any call: %s, want python idle", got)
	}
	res, err := tool.NewSet(tools, tool.Options{}).Call(context.Background(), "mod__twice", map[string]json.RawMessage{"n": json.RawMessage("21")})
	if err != nil {
		t.Fatalf("call: %v\n%s", err, log.String())
	}
	if string(res.Value) != "42" {
		t.Errorf("twice 21: got %s, want 42", res.Value)
	}
	if got := states(p); got != "python running" {
		t.Errorf("after a call: %s, want python running", got)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if kids := pooltest.Children(); len(kids) > 0 {
		t.Errorf("processes left after Close: %v", kids)
	}
}

// TestStartPools: a server's start runs every pool before any call.
func TestStartPools(t *testing.T) {
	var log pooltest.Buffer
	p := New(twice(t), pool.Options{Stderr: &log})
	defer p.Close()
	<-p.StartPools(context.Background(), slog.New(slog.NewTextHandler(&log, nil)))
	if got := states(p); got != "python running" {
		t.Errorf("after StartPools: %s, want python running\n%s", got, log.String())
	}
}

// TestStartPoolsReportsFailure: a pool that cannot start is reported on
// the log, and again to the call that needs it.
func TestStartPoolsReportsFailure(t *testing.T) {
	m := twice(t)
	m.Pools[0].Command = []string{filepath.Join(t.TempDir(), "no-such-interpreter")}
	var log pooltest.Buffer
	p := New(m, pool.Options{Stderr: &log})
	defer p.Close()
	<-p.StartPools(context.Background(), slog.New(slog.NewTextHandler(&log, nil)))
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "no-such-interpreter") {
		t.Errorf("log: got %q, want the failed start", log.String())
	}
	tools, _ := p.Tools("")
	_, err := tool.NewSet(tools, tool.Options{}).Call(context.Background(), "twice", map[string]json.RawMessage{"n": json.RawMessage("1")})
	if err == nil || !strings.Contains(err.Error(), "no-such-interpreter") {
		t.Errorf("call: got %v, want the failed start", err)
	}
}

// TestStartPoolsCutShortByClose: Close during the pools' start (a stdio
// client that hangs up at once, a server refused at start for a bad
// token or a busy port) is the end asked for, not a failure to report:
// the log stays empty, rather than saying "the pools are stopped" once
// per pool before the real reason.
func TestStartPoolsCutShortByClose(t *testing.T) {
	var log pooltest.Buffer
	p := New(twice(t), pool.Options{Stderr: &log})
	done := p.StartPools(context.Background(), slog.New(slog.NewTextHandler(&log, nil)))
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	<-done
	if strings.Contains(log.String(), "level=WARN") {
		t.Errorf("log: got %q, want nothing reported for a start that Close cut short", log.String())
	}
}
