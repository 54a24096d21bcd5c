package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
			"toggleSubscriberUpdates":     {[]string{"toggleSubscriberUpdates"}, "subscription"},
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
