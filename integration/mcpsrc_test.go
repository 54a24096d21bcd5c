package integration

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/mcpsrc"
)

// TestMCPSourceCallsNexus: nexus's MCP client (internal/nexus/mcpsrc)
// calls a nexus program served by `nexus mcp`, over Streamable HTTP with
// a bearer token and over stdio: text, a record's structuredContent and a
// tool's failure all come back as they were sent.
func TestMCPSourceCallsNexus(t *testing.T) {
	p := build(t, httpProgram)
	const token = "mcpsrc-token-5d1e"
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher, "--auth-token", token)

	for _, tc := range []struct {
		name string
		opts mcpsrc.Options
	}{
		{"http", mcpsrc.Options{Name: "work-http", Server: s.base + "/mcp", Bearer: token, Headers: map[string]string{"X-Test": "1"}}},
		{"stdio", mcpsrc.Options{Name: "work-stdio", Server: "'" + nexusBin + "' mcp '" + p.launcher + "'", Env: []string{"TMPDIR=" + p.tmp}, Stderr: io.Discard}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := mcpsrc.New(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			ctx := context.Background()
			r, err := src.Call(ctx, "add", map[string]any{"a": 20, "b": 22})
			if err != nil || r.IsError || strings.Join(r.Text, "") != "42" {
				t.Errorf("add: %+v, %v; want text 42", r, err)
			}
			r, err = src.Call(ctx, "point", map[string]any{"x": 1})
			var pt struct{ X, Y int }
			if err != nil || json.Unmarshal(r.Structured, &pt) != nil || pt.X != 1 || pt.Y != 2 {
				t.Errorf("point: %+v (structured %s), %v; want {x:1, y:2}", r, r.Structured, err)
			}
			r, err = src.Call(ctx, "fail", map[string]any{"x": 7})
			if err != nil || !r.IsError || !strings.Contains(strings.Join(r.Text, ""), "no good: 7") {
				t.Errorf("fail: %+v, %v; want isError saying no good: 7", r, err)
			}
			tools, err := src.Tools(ctx)
			if err != nil || len(tools) != 4 {
				t.Errorf("tools: %d, %v; want add, point, fail, hold", len(tools), err)
			}
		})
	}

	wrong, err := mcpsrc.New(mcpsrc.Options{Name: "work-http", Server: s.base + "/mcp", Bearer: "wrong-token-0000"})
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	if _, err := wrong.Call(context.Background(), "add", map[string]any{"a": 1, "b": 2}); err == nil || !strings.Contains(err.Error(), "work-http") {
		t.Errorf("a wrong token: %v, want an error naming the server", err)
	} else {
		t.Logf("a wrong token: %v", err)
	}
	s.stop()
}
