package program

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// everything is server-everything over stdio, as make setup installs it;
// the test fails (never skips) when it is missing.
func everything(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "integration", "mcpservers", "node_modules", ".bin", "mcp-server-everything"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed (%v): run make setup", p, err)
	}
	return p + " stdio"
}

// loud is a program with a Python pool and server-everything's tools:
// loud MESSAGE = shout (echo MESSAGE), shout in Python; wait SECONDS runs
// trigger-long-running-operation for that long.
func loud(t *testing.T, timeoutMS int64) *manifest.Manifest {
	t.Helper()
	m := pythonProgram(t, "def shout(s):\n    return s.upper() + '!'\n",
		pooltest.Fn{Source: "shout", Args: []*types.Type{types.StrType}, Return: types.StrType})
	m.Servers = []manifest.Server{{Name: "everything", Server: everything(t), TimeoutMS: timeoutMS}}
	m.Functions = append(m.Functions,
		manifest.Function{ID: 1, Name: "echo", Source: "echo", Pool: manifest.MCP, Params: []string{"message"},
			Args: []*types.Type{types.StrType}, Return: types.StrType},
		manifest.Function{ID: 2, Name: "longRun", Source: "trigger-long-running-operation", Pool: manifest.MCP, Params: []string{"duration", "steps"},
			Args: []*types.Type{types.RealType, types.RealType}, Return: types.UnitType},
	)
	str := func(ref int) *manifest.Expr { return &manifest.Expr{Kind: manifest.Var, Type: types.StrType, Ref: ref} }
	real := &manifest.Expr{Kind: manifest.Var, Type: types.RealType}
	m.Commands = []manifest.Command{{
		Name:   "loud",
		Args:   []manifest.Arg{{Kind: manifest.Positional, Name: "message", Type: types.StrType}},
		Return: types.StrType,
		Body: &manifest.Expr{Kind: manifest.Call, Type: types.StrType, Ref: 0, Args: []*manifest.Expr{
			{Kind: manifest.Call, Type: types.StrType, Ref: 1, Args: []*manifest.Expr{str(0)}},
		}},
	}, {
		Name:   "wait",
		Args:   []manifest.Arg{{Kind: manifest.Positional, Name: "seconds", Type: types.RealType}},
		Return: types.UnitType,
		Body:   &manifest.Expr{Kind: manifest.Call, Type: types.UnitType, Ref: 2, Args: []*manifest.Expr{real, real}},
	}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMCPToolComposedWithPool: a command feeding an MCP tool's result into
// a Python function runs through the program's stack, which connects to
// the server on the first call and stops it on Close.
func TestMCPToolComposedWithPool(t *testing.T) {
	var log pooltest.Buffer
	p := New(loud(t, 60000), pool.Options{Stderr: &log})
	tools, _ := p.Tools("")
	set := tool.NewSet(tools, tool.Options{})
	if strings.Contains(log.String(), "everything: ") {
		t.Errorf("the server started before any call:\n%s", log.String())
	}
	for _, msg := range []string{"hi", "again"} {
		res, err := set.Call(context.Background(), "loud", map[string]json.RawMessage{"message": json.RawMessage(`"` + msg + `"`)})
		if want := `"ECHO: ` + strings.ToUpper(msg) + `!"`; err != nil || string(res.Value) != want {
			t.Errorf("loud %s: got %s, %v; want %s\n%s", msg, res.Value, err, want, log.String())
		}
	}
	if n := strings.Count(log.String(), "everything: Starting default (STDIO) server"); n != 1 {
		t.Errorf("the server started %d times for two calls, want once; stderr:\n%s", n, log.String())
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if kids := pooltest.Children(); len(kids) > 0 {
		t.Errorf("processes left after Close: %v", kids)
	}
}

// TestMCPToolCutShort: the call timeout of a front end (--timeout) cuts a
// call of an MCP tool, since the dispatcher's context reaches the server's
// request (were it not, the call would last the 600 s it asks for, the
// server's @timeout being longer); the server's own @timeout cuts it with
// a message naming it.
func TestMCPToolCutShort(t *testing.T) {
	wait := map[string]json.RawMessage{"seconds": json.RawMessage("600")}
	p := New(loud(t, 3600000), pool.Options{Stderr: &pooltest.Buffer{}})
	defer p.Close()
	tools, _ := p.Tools("")
	_, err := tool.NewSet(tools, tool.Options{CallTimeout: 2e9}).Call(context.Background(), "wait", wait)
	if err == nil || err.Error() != "wait timed out after 2s" {
		t.Errorf("wait 600 with a 2s call timeout: got %v", err)
	}

	short := New(loud(t, 1500), pool.Options{Stderr: &pooltest.Buffer{}})
	defer short.Close()
	tools, _ = short.Tools("")
	_, err = tool.NewSet(tools, tool.Options{}).Call(context.Background(), "wait", wait)
	if err == nil || !strings.Contains(err.Error(), "mcp server everything") || !strings.Contains(err.Error(), "no answer within 1.5s") {
		t.Errorf("wait 600 with @timeout 1500: got %v", err)
	}
}

// TestStartPoolsLeavesServers: a server's eager start (nexus mcp) starts
// the program's pools, not its MCP servers, which connect on first use.
func TestStartPoolsLeavesServers(t *testing.T) {
	var log pooltest.Buffer
	p := New(loud(t, 60000), pool.Options{Stderr: &log})
	defer p.Close()
	<-p.StartPools(context.Background(), slog.New(slog.NewTextHandler(&log, nil)))
	if got := states(p); got != "python running" {
		t.Errorf("after StartPools: %s, want python running\n%s", got, log.String())
	}
	if strings.Contains(log.String(), "level=WARN") || strings.Contains(log.String(), "everything: ") {
		t.Errorf("StartPools reported a failure or started the MCP server:\n%s", log.String())
	}
}
