package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pySession is what pyclient/client.py saw.
type pySession struct {
	ProtocolVersion string   `json:"protocolVersion"`
	Tools           []string `json:"tools"`
	Calls           []struct {
		IsError    bool            `json:"isError"`
		Text       string          `json:"text"`
		Structured json.RawMessage `json:"structured"`
		Progress   [][]any         `json:"progress"`
	} `json:"calls"`
}

// pyClient runs pyclient/client.py (the Python SDK's client, from the
// private venv setup makes) in mode against server, a URL or a stdio
// command line, making calls.
func pyClient(t *testing.T, mode string, server any, calls ...[2]any) pySession {
	t.Helper()
	python, err := filepath.Abs("mcpservers/.venv/bin/python")
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("pyclient/client.py")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(python); err != nil {
		t.Fatal("the Python SDK's venv is missing: run `make setup`")
	}
	target, ok := server.(string)
	if !ok {
		b, _ := json.Marshal(server)
		target = string(b)
	}
	if calls == nil {
		calls = [][2]any{}
	}
	c, _ := json.Marshal(calls)
	res := runIn(t, t.TempDir(), nil, python, script, mode, target, string(c))
	if res.code != 0 || nexusCrashed(res.stderr) {
		t.Fatalf("python client %s %s: exit %d\n%s", mode, target, res.code, res.stderr)
	}
	var s pySession
	if err := json.Unmarshal([]byte(res.stdout), &s); err != nil {
		t.Fatalf("python client %s: %v\n%s", mode, err, res.stdout)
	}
	return s
}

// TestPythonSDKClient: the Python SDK's mcp.Client in auto mode lands on
// 2026-07-28 (its server/discover probe is answered), forced to the
// handshake it lands on 2025-11-25, and its lower-level ClientSession
// likewise; over stdio and Streamable HTTP, each lists the tools and gets
// a text result, a structured one and a tool error.
func TestPythonSDKClient(t *testing.T) {
	p := build(t, httpProgram)
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher)
	defer s.stop()
	servers := map[string]any{
		"stdio": []string{nexusBin, "mcp", p.launcher},
		"http":  s.base + "/mcp",
	}
	calls := [][2]any{
		{"add", map[string]any{"a": 20, "b": 22}},
		{"point", map[string]any{"x": 3}},
		{"fail", map[string]any{"x": 7}},
	}
	for _, transport := range []string{"stdio", "http"} {
		for mode, version := range map[string]string{"auto": "2026-07-28", "legacy": "2025-11-25", "session": "2025-11-25"} {
			t.Run(transport+"/"+mode, func(t *testing.T) {
				got := pyClient(t, mode, servers[transport], calls...)
				if got.ProtocolVersion != version {
					t.Errorf("protocol version %q, want %q", got.ProtocolVersion, version)
				}
				if len(got.Tools) != 4 {
					t.Errorf("tools %v, want add, point, fail, hold", got.Tools)
				}
				if len(got.Calls) != 3 {
					t.Fatalf("%d results, want 3", len(got.Calls))
				}
				if c := got.Calls[0]; c.IsError || c.Text != "42" {
					t.Errorf("add: %+v, want 42", c)
				}
				var pt struct{ X, Y int }
				if c := got.Calls[1]; c.IsError || json.Unmarshal(c.Structured, &pt) != nil || pt.X != 3 || pt.Y != 6 {
					t.Errorf("point: %+v, want structured {x:3, y:6}", c)
				}
				if c := got.Calls[2]; !c.IsError || !strings.Contains(c.Text, "no good: 7") {
					t.Errorf("fail: %+v, want isError saying no good: 7", c)
				}
			})
		}
	}
}

// TestPythonSDKProgress: the Python SDK's progress callback gets the steps
// a function in each language reports, statelessly (auto) and in a legacy
// session, over stdio and Streamable HTTP.
func TestPythonSDKProgress(t *testing.T) {
	p := build(t, progressFiles)
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher)
	defer s.stop()
	servers := map[string]any{
		"stdio": []string{nexusBin, "mcp", p.launcher},
		"http":  s.base + "/mcp",
	}
	var calls [][2]any
	for _, name := range progressTools {
		calls = append(calls, [2]any{name, map[string]any{"_1": 3}})
	}
	for _, transport := range []string{"stdio", "http"} {
		for _, mode := range []string{"auto", "legacy"} {
			t.Run(transport+"/"+mode, func(t *testing.T) {
				got := pyClient(t, mode, servers[transport], calls...)
				if len(got.Calls) != len(calls) {
					t.Fatalf("%d results, want %d", len(got.Calls), len(calls))
				}
				for i, c := range got.Calls {
					name := progressTools[i]
					if c.IsError || c.Text != "3" {
						t.Errorf("%s: %+v, want 3", name, c)
					}
					var notes []progressNote
					for _, r := range c.Progress {
						n := progressNote{Token: "python"}
						n.Progress, _ = r[0].(float64)
						n.Total, _ = r[1].(float64)
						n.Message, _ = r[2].(string)
						notes = append(notes, n)
					}
					checkProgress(t, name, "python", notes)
				}
			})
		}
	}
}
