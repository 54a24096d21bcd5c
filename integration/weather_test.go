package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWeatherExample runs examples/weather, the README's example of
// another MCP server's tool composed with a Python function: on the command
// line, and served by `nexus mcp` to the Go SDK's client as one tool.
func TestWeatherExample(t *testing.T) {
	bin := filepath.Dir(installedServer(t, filepath.Join("node_modules", ".bin", "mcp-server-everything")))
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	p := build(t, exampleFiles(t, "weather"))

	const chicago = `"Chicago: light rain / drizzle, 36 °C, humidity 82%"`
	res := runIn(t, t.TempDir(), nil, "env", path, "TMPDIR="+p.tmp, p.launcher, "report", "Chicago")
	if res.code != 0 || res.stdout != chicago+"\n" {
		t.Errorf("report Chicago: exit %d, %q, want %s\nstderr:\n%s", res.code, res.stdout, chicago, res.stderr)
	}
	res = runIn(t, t.TempDir(), nil, "env", path, "TMPDIR="+p.tmp, p.launcher, "weather", "Los Angeles")
	if want := `{"temperature":73,"conditions":"Sunny / Clear","humidity":48}` + "\n"; res.code != 0 || res.stdout != want {
		t.Errorf("weather 'Los Angeles': exit %d, %q, want %s\nstderr:\n%s", res.code, res.stdout, want, res.stderr)
	}
	// A city the server refuses: its message, exit 1.
	res = runIn(t, t.TempDir(), nil, "env", path, "TMPDIR="+p.tmp, p.launcher, "report", "Paris")
	if res.code != 1 || !strings.Contains(res.stderr, "Chicago") {
		t.Errorf("report Paris: exit %d, want 1 with the server's message naming the cities\nstderr:\n%s", res.code, res.stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, stderr := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), []string{path, "TMPDIR=" + p.tmp})
	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "report", Arguments: map[string]any{"city": "Chicago"}})
	if err != nil || out.IsError || toolText(out) != chicago {
		t.Errorf("tools/call report: %+v, %v\nstderr:\n%s", out, err, stderr)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v\nstderr:\n%s", err, stderr)
	}
	if left := processesMentioning(p.launcher + "-build"); len(left) > 0 {
		t.Errorf("processes left running: %v", left)
	}
}
