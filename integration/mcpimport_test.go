package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/osproc"
	"github.com/nexus-run/nexus/internal/pooltest"
)

// installedMCPServer returns the absolute path of a test MCP server that
// make setup installs under integration/mcpservers, failing (never
// skipping) when it is not there.
func installedMCPServer(t *testing.T, rel ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(append([]string{"mcpservers"}, rel...)...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed (%v): run make setup", p, err)
	}
	return p
}

// importCall is a call of an imported tool's command, and what its output
// must hold.
type importCall struct {
	args []string
	want string
}

// TestMCPImportBuildsAndCalls: the program `nexus mcp-import` prints for
// server-everything and for mcp-server-time builds unchanged with `nexus
// make`, and every imported tool that needs no network answers through
// its command.
func TestMCPImportBuildsAndCalls(t *testing.T) {
	everything := installedMCPServer(t, "node_modules", ".bin", "mcp-server-everything") + " stdio"
	timeServer := installedMCPServer(t, ".venv", "bin", "mcp-server-time")

	t.Run("server-everything", func(t *testing.T) {
		p := buildImported(t, everything)
		calls := map[string]importCall{
			"echo":                        {[]string{"echo", "hello there"}, "Echo: hello there"},
			"getSum":                      {[]string{"getSum", "2", "3.5"}, "5.5"},
			"getEnv":                      {[]string{"getEnv"}, "PATH"},
			"getAnnotatedMessage":         {[]string{"getAnnotatedMessage", "success"}, "successfully"},
			"getResourceLinks":            {[]string{"getResourceLinks", "2"}, "2 resource links"},
			"getResourceReference":        {[]string{"getResourceReference", "1"}, "demo://resource"},
			"getTinyImage":                {[]string{"getTinyImage"}, "MCP logo"},
			"gzipFileAsResource":          {[]string{"gzipFileAsResource", "data:text/plain;base64,aGVsbG8=", "hello.gz", "resource"}, ""},
			"toggleSimulatedLogging":      {[]string{"toggleSimulatedLogging"}, "logging"},
			"toggleSubscriberUpdates":     {[]string{"toggleSubscriberUpdates"}, "resource updated notifications"},
			"triggerLongRunningOperation": {[]string{"triggerLongRunningOperation", "0.2", "2"}, "completed"},
			"getRootsList":                {[]string{"getRootsList"}, "roots"},
		}
		// Tools that cannot answer a plain call: simulate-research-query
		// requires task augmentation (taskSupport "required").
		uncallable := []string{"simulateResearchQuery"}
		callAll(t, p, calls, uncallable)

		out := p.ok("getStructuredContent", "Chicago")
		var weather struct {
			Temperature *float64
			Conditions  *string
			Humidity    *float64
		}
		if err := json.Unmarshal([]byte(out), &weather); err != nil || weather.Temperature == nil || weather.Conditions == nil || weather.Humidity == nil {
			t.Errorf("getStructuredContent Chicago: %s (%v), want a GetStructuredContentResult record", out, err)
		}
	})

	t.Run("mcp-server-time", func(t *testing.T) {
		p := buildImported(t, timeServer)
		out := p.ok("get_current_time", "Etc/UTC")
		var now struct {
			Timezone string
			Datetime string
			IsDst    *bool `json:"is_dst"`
		}
		if err := json.Unmarshal([]byte(out), &now); err != nil || now.Timezone != "Etc/UTC" || now.Datetime == "" || now.IsDst == nil {
			t.Errorf("get_current_time Etc/UTC: %s (%v), want a GetCurrentTimeResult record", out, err)
		}
		out = p.ok("convert_time", "Europe/London", "12:00", "Asia/Tokyo")
		var conv struct {
			Source, Target struct{ Timezone string }
			Difference     string `json:"time_difference"`
		}
		if err := json.Unmarshal([]byte(out), &conv); err != nil || conv.Source.Timezone != "Europe/London" || conv.Target.Timezone != "Asia/Tokyo" || conv.Difference == "" {
			t.Errorf("convert_time: %s (%v), want the conversion as Json", out, err)
		}
	})
}

// buildImported runs `nexus mcp-import SERVER` and builds what it printed,
// unchanged, as main.loc.
func buildImported(t *testing.T, server string) *program {
	t.Helper()
	res := runIn(t, t.TempDir(), nil, nexusBin, "mcp-import", server)
	if res.code != 0 {
		t.Fatalf("nexus mcp-import %s: exit %d\n%s", server, res.code, res.stderr)
	}
	return build(t, files{"main.loc": res.stdout})
}

// callAll makes every call, and checks that the calls and the uncallable
// tools are every command of p, so that a tool the server gains is not
// left out unnoticed.
func callAll(t *testing.T, p *program, calls map[string]importCall, uncallable []string) {
	t.Helper()
	var list struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal([]byte(p.ok("--mcp-tools")), &list); err != nil {
		t.Fatalf("--mcp-tools: %v", err)
	}
	for _, tool := range list.Tools {
		c, ok := calls[tool.Name]
		if !ok {
			if !slices.Contains(uncallable, tool.Name) && tool.Name != "getStructuredContent" {
				t.Errorf("the imported tool %s is not called by this test", tool.Name)
			}
			continue
		}
		if out := p.ok(c.args...); !strings.Contains(out, c.want) {
			t.Errorf("%s: %q, want it to hold %q", strings.Join(c.args, " "), out, c.want)
		}
		delete(calls, tool.Name)
	}
	for name := range calls {
		t.Errorf("%s was not imported", name)
	}
}

// TestMCPImportHTTP: mcp-import reaches a Streamable HTTP server (nexus
// itself, behind a token) with --bearer and --header, writes them as the
// source line's directives (the token's variable, never its value), and
// fails with a message naming the server when the token is wrong.
func TestMCPImportHTTP(t *testing.T) {
	p := build(t, httpProgram)
	const token = "mcp-import-token-7c2a"
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher, "--auth-token", token)
	server := s.base + "/mcp"

	res := runEnv(t, []string{"IMPORT_TOKEN=" + token}, "mcp-import", server, "--bearer", "IMPORT_TOKEN", "--header", "X-Test: 1")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	for _, want := range []string{
		"module mcp-tools (add, point, fail, hold)\n",
		"--' @bearer IMPORT_TOKEN\n--' @header X-Test: 1\nsource MCP from \"" + server + "\" (\n  \"add\",\n  \"point\",\n  \"fail\",\n  \"hold\")\n",
		"--' Add two numbers.\nadd ::\n  --' @name a\n  Int ->\n  --' @name b\n  Int ->\n",
		"record PointResult where\n  x :: Int\n  y :: Int\n",
		"  --' @name x\n  Int ->\n  PointResult\n",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the output does not have\n%s\n---\n%s", want, res.stdout)
		}
	}
	if strings.Contains(res.stdout, token) {
		t.Errorf("the output holds the token:\n%s", res.stdout)
	}

	res = runEnv(t, []string{"IMPORT_TOKEN=wrong-token-0000-0000"}, "mcp-import", server, "--bearer", "IMPORT_TOKEN")
	if res.code != 1 || res.stdout != "" || !strings.Contains(res.stderr, "nexus: mcp server "+server+": connect:") {
		t.Errorf("a wrong token: exit %d, stdout %q, stderr %q; want 1 and a message naming the server", res.code, res.stdout, res.stderr)
	}
	s.stop()
}

// runEnv runs nexus with args and env added to the test's environment.
func runEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runIn(t, t.TempDir(), nil, "env", append(append(env, nexusBin), args...)...)
}

// TestMCPImportInterrupted: Ctrl-C while the server has not answered ends
// mcp-import with exit 130 and "interrupted" (not the server's failure),
// and the server is stopped before nexus exits.
func TestMCPImportInterrupted(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "started")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	// The server says its pid once started, then never answers.
	cmd := exec.Command(nexusBin, "mcp-import", "sh -c 'echo $$ > "+fifo+"; exec sleep 600'")
	var stderr pooltest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	said, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	server, err := strconv.Atoi(strings.TrimSpace(string(said)))
	if err != nil {
		t.Fatalf("the server's pid: %q", said)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 || stderr.String() != "nexus: mcp-import: interrupted\n" {
		t.Errorf("Ctrl-C: exit %d, stderr %q; want 130, interrupted", code, stderr.String())
	}
	if osproc.Alive(server) {
		if p, err := os.FindProcess(server); err == nil {
			p.Kill()
		}
		t.Errorf("the server (pid %d) outlived mcp-import", server)
	}
}
