package integration

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
)

// TestMakeMCPSource builds a program that imports tools of two MCP
// servers and composes one with a Python function: `nexus make` writes
// the servers and tools into the manifest, generates the Python pool
// only, and starts no server (the command of the first would leave a
// file behind if it ran).
func TestMakeMCPSource(t *testing.T) {
	started := filepath.Join(t.TempDir(), "started")
	p := build(t, files{
		"main.loc": `module tools (echo, report)
source Py from "fmt.py" ("shout")
shout :: Str -> Str

--' @env API_TOKEN
--' @cwd data
--' @timeout 2500
source MCP from "touch ` + started + `" ("echo", "get-structured-content" as weather)

--' @bearer DOCS_KEY
--' @header X-Org: acme
source MCP from "https://127.0.0.1:8443/mcp" ("search_docs" as search)

record Weather where
  conditions :: Str

echo :: --' @name message
        Str -> Str
weather :: --' @name location
           Str -> Weather
search :: --' @name query
          Str -> Json

--' The conditions in a city, shouted.
report :: Str -> Str
report city = shout (.conditions (weather city))
`,
		"fmt.py":     "def shout(s):\n    return s.upper()\n",
		"data/.keep": "",
	})
	if _, err := os.Stat(started); err == nil {
		t.Fatal("nexus make started an MCP server")
	}
	m, err := manifest.Load(p.launcher)
	if err != nil {
		t.Fatal(err)
	}
	want := []manifest.Server{{
		Name: "touch", Server: "touch " + started, Env: []string{"API_TOKEN"},
		Dir: filepath.Join(p.dir, "data"), TimeoutMS: 2500,
	}}
	if !reflect.DeepEqual(m.Servers, want) {
		t.Errorf("servers %+v, want %+v (search is called by no command)", m.Servers, want)
	}
	var tools []string
	for _, f := range m.Functions {
		tools = append(tools, f.Pool+":"+f.Source+"("+strings.Join(f.Params, ",")+")")
	}
	if got := strings.Join(tools, " "); got != "py:shout() mcp:echo(message) mcp:get-structured-content(location)" {
		t.Errorf("functions %s", got)
	}
	if len(m.Pools) != 1 || m.Pools[0].Lang != manifest.Python {
		t.Errorf("pools %+v", m.Pools)
	}
	entries, err := os.ReadDir(filepath.Join(m.Dir, "pools"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != manifest.Python {
		t.Errorf("pools written: %v, want only py", entries)
	}
}

// TestMakeMCPSourceErrors checks that mistakes in a `source MCP` line are
// build errors at their line, and that the server is not started to find
// them.
func TestMakeMCPSourceErrors(t *testing.T) {
	stderr := makeFails(t, files{"main.loc": `module m (f)
--' @timeout soon
source MCP from "npx 'server-everything" ("echo" as f, "get-env" as env)
f :: Str -> Str
`})
	if strings.Count(stderr, "\n") != 4 {
		t.Errorf("want 4 error lines:\n%s", stderr)
	}
	for _, want := range []string{
		"main.loc:2:14: timeout: expected a positive whole number of milliseconds, got 'soon'",
		"main.loc:3:17: mcp server: command \"npx 'server-everything\": a ' is not closed",
		"main.loc:3:69: MCP tool 'env' has no type signature",
		"main.loc:4:6: argument 1 of MCP tool 'f' (echo) has no @name",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %q in:\n%s", want, stderr)
		}
	}
}
