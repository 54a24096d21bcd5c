package codegen

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/mcpaddr"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// mcpProgram imports tools of two MCP servers, a command and an HTTP
// endpoint, composes one with a Python function and exports one directly.
const mcpProgram = `module m (echo, getSum, report, search, now)
source Py from "chem.py" ("upper")
upper :: Str -> Str

--' @env GITHUB_TOKEN
--' @env LOG_LEVEL=warn
--' @cwd data
--' @timeout 1500
source MCP from "npx -y '@modelcontextprotocol/server-everything@2026.8.31'" ("echo", "get-sum" as getSum, "get-structured-content" as weather, "get-tiny-image" as image)

--' @bearer DOCS_KEY
--' @header X-Org: acme
--' @header X-Team:  search
source MCP from "https://docs.example.com:8443/mcp" ("search_docs" as search)

source MCP from "uvx mcp-server-time" ("get_current_time" as now, "convert_time")

record Weather where
  temperature :: Real
  conditions :: Str

record Query where
  query :: Str
  limit :: ?Int

echo :: --' @name message
        Str -> Str
getSum :: --' @name a
          Real -> --' @name b
          --' arg: --second
          ?Real -> Json
weather :: --' @name location
           Str -> Weather
image :: Json
search :: Query -> [Str]
now :: --' @name timezone
       Str -> Json
convert_time :: Json

--' Weather of a city, shouted by a Python function
report :: Str -> Str
report city = upper (.conditions (weather city))
`

func TestMCPSourceManifest(t *testing.T) {
	path := writeProgram(t, mcpProgram)
	if err := os.Mkdir(filepath.Join(filepath.Dir(path), "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings %q", p.Warnings)
	}
	m := p.Manifest
	validate(t, m)
	wantServers := []manifest.Server{
		{
			Name: "server-everything", Server: "npx -y '@modelcontextprotocol/server-everything@2026.8.31'",
			Env: []string{"GITHUB_TOKEN", "LOG_LEVEL=warn"}, Dir: filepath.Join(filepath.Dir(path), "data"), TimeoutMS: 1500,
		},
		{
			Name: "docs.example.com:8443", Server: "https://docs.example.com:8443/mcp", TimeoutMS: 60000,
			Bearer: "DOCS_KEY", Headers: []string{"X-Org: acme", "X-Team: search"},
		},
		{Name: "mcp-server-time", Server: "uvx mcp-server-time", TimeoutMS: 60000},
	}
	if !reflect.DeepEqual(m.Servers, wantServers) {
		t.Errorf("servers\n got %+v\nwant %+v", m.Servers, wantServers)
	}
	type fn struct {
		name, source, pool string
		server             int
		params             []string
		args               string
		ret                string
	}
	var got []fn
	for _, f := range m.Functions {
		var args []string
		for _, a := range f.Args {
			args = append(args, a.String())
		}
		got = append(got, fn{f.Name, f.Source, f.Pool, f.Server, f.Params, strings.Join(args, " "), f.Return.String()})
	}
	// image and convert_time are imported but no command calls them.
	want := []fn{
		{"upper", "upper", manifest.Python, 0, nil, "Str", "Str"},
		{"echo", "echo", manifest.MCP, 0, []string{"message"}, "Str", "Str"},
		{"getSum", "get-sum", manifest.MCP, 0, []string{"a", "b"}, "Real ?Real", "Json"},
		{"weather", "get-structured-content", manifest.MCP, 0, []string{"location"}, "Str", "Weather"},
		{"search", "search_docs", manifest.MCP, 1, nil, "Query", "[Str]"},
		{"now", "get_current_time", manifest.MCP, 2, []string{"timezone"}, "Str", "Json"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("functions\n got %+v\nwant %+v", got, want)
	}
	if len(m.Pools) != 1 || m.Pools[0].Lang != manifest.Python {
		t.Errorf("pools %+v: an MCP server is no pool", m.Pools)
	}
	if len(p.Sources) != 1 || filepath.Base(p.Sources[0]) != "chem.py" {
		t.Errorf("sources %v: an MCP tool has no source file", p.Sources)
	}
	bodies := map[string]string{}
	for _, c := range m.Commands {
		bodies[c.Name] = exprString(m, c.Body)
	}
	wantBodies := map[string]string{
		"echo": "echo($0)", "getSum": "getSum($0, $1)", "report": "upper(.conditions(weather($0)))",
		"search": "search($0)", "now": "now($0)",
	}
	if !reflect.DeepEqual(bodies, wantBodies) {
		t.Errorf("bodies %v, want %v", bodies, wantBodies)
	}
	// A tool exported directly is a command whose arguments are known by
	// the tool's argument names.
	echo := m.Commands[0]
	if echo.Name != "echo" || len(echo.Args) != 1 || echo.Args[0].Name != "message" || echo.Args[0].Kind != manifest.Positional {
		t.Errorf("echo command %+v", echo)
	}
	if a := m.Commands[1].Args[1]; a.Kind != manifest.Option || a.Long != "second" || a.Type.Kind != types.Optional {
		t.Errorf("getSum's second argument %+v", a)
	}
}

// TestMCPSourceNeedsNoServer checks that a program built on MCP tools
// alone has no pool and names only the servers its commands call.
func TestMCPSourceNeedsNoServer(t *testing.T) {
	p := compileOK(t, `module m (echo)
source MCP from "/nonexistent/server --stdio" ("echo")
source MCP from "unused-server" ("other")
echo :: --' @name message
        Str -> Str
other :: Str
`)
	m := p.Manifest
	if len(m.Pools) != 0 || len(m.Servers) != 1 || m.Servers[0].Name != "server" || m.Functions[0].Server != 0 {
		t.Errorf("pools %+v servers %+v functions %+v", m.Pools, m.Servers, m.Functions)
	}
}

// A program given by a relative path is found relative to the program's
// folder, as a source file is; a bare name is left to PATH.
func TestMCPSourceRelativeProgram(t *testing.T) {
	path := writeProgram(t, `module m (echo, now)
source MCP from "./chem.py 'a b' ./x" ("echo")
source MCP from "uvx mcp-server-time" ("now")
echo :: --' @name message
        Str -> Str
now :: Str
`)
	p, err := Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := mcpaddr.Join([]string{filepath.Join(filepath.Dir(path), "chem.py"), "a b", "./x"})
	if got := p.Manifest.Servers[0].Server; got != want {
		t.Errorf("server %q, want %q", got, want)
	}
	if got := p.Manifest.Servers[1].Server; got != "uvx mcp-server-time" {
		t.Errorf("server %q, want it as written", got)
	}
}

func TestMCPSourceErrors(t *testing.T) {
	const head = "module m (f)\n"
	const sig = "f :: --' @name x\n     Str -> Str\n"
	tests := []struct{ name, text, want string }{
		{"tool name that is no name", `source MCP from "srv" ("get-sum")` + "\n", "2:24: \"get-sum\" is not a valid name in the program; give it one with 'as getSum'"},
		{"tool without a signature", `source MCP from "srv" ("echo" as f, "other")` + "\n" + sig, "2:37: MCP tool 'other' has no type signature; add one, such as `other :: Str -> Str`, with `--' @name ARG` above each argument's type"},
		{"argument without a name", `source MCP from "srv" ("f")` + "\nf :: Str -> Str\n", "3:6: argument 1 of MCP tool 'f' (f) has no @name: write `--' @name ARG` above its type, naming the tool's argument, or take a record whose fields are the tool's arguments"},
		{"second argument without a name", `source MCP from "srv" ("f")` + "\nf :: --' @name a\n     Str -> Int -> Str\n", "4:13: argument 2 of MCP tool 'f' (f) has no @name"},
		{"non-record single argument without a name", `source MCP from "srv" ("f")` + "\nf :: [Str] -> Str\n", "3:6: argument 1 of MCP tool 'f' (f) has no @name"},
		{"unit argument", `source MCP from "srv" ("f")` + "\nf :: () -> Str\n", "3:6: MCP tool 'f' (f) takes a () argument: a tool without arguments is written without one, `f :: T`"},
		{"empty @name", `source MCP from "srv" ("f")` + "\nf :: --' @name\n     Str -> Str\n", "4:6: argument 1 of MCP tool 'f' (f) has no @name"},
		{"two arguments with one name", `source MCP from "srv" ("f")` + "\nf :: --' @name a\n     Str -> --' @name a\n     Str -> Str\n", "4:23: name: 'a' names two arguments of MCP tool 'f'"},
		{"unclosed quote", `source MCP from "npx 'server" ("f")` + "\n" + sig, "2:17: mcp server: command \"npx 'server\": a ' is not closed"},
		{"empty command", `source MCP from "  " ("f")` + "\n" + sig, "2:17: mcp server: the command line is empty"},
		{"bad URL", `source MCP from "https:///mcp" ("f")` + "\n" + sig, "2:17: mcp server \"https:///mcp\": not a valid http(s) URL"},
		{"bad env name", "--' @env MY-VAR=1\n" + `source MCP from "srv" ("f")` + "\n" + sig, "2:10: env: expected NAME or NAME=VALUE with NAME made of letters, digits and _, got 'MY-VAR=1'"},
		{"env with a comment", "--' @env TOKEN   the token\n" + `source MCP from "srv" ("f")` + "\n" + sig, "2:10: env: expected NAME or NAME=VALUE"},
		{"zero timeout", "--' @timeout 0\n" + `source MCP from "srv" ("f")` + "\n" + sig, "2:14: timeout: expected a positive whole number of milliseconds, got '0'"},
		{"timeout in seconds", "--' @timeout 5s\n" + `source MCP from "srv" ("f")` + "\n" + sig, "2:14: timeout: expected a positive whole number of milliseconds, got '5s'"},
		{"timeout too large", "--' @timeout 99999999999999999\n" + `source MCP from "srv" ("f")` + "\n" + sig, "2:14: timeout: expected a positive whole number of milliseconds"},
		{"missing cwd", "--' @cwd nowhere\n" + `source MCP from "srv" ("f")` + "\n" + sig, "2:10: cwd: folder \"nowhere\" not found (looked for /"},
		{"missing relative program", `source MCP from "./nowhere.py --stdio" ("f")` + "\n" + sig, "2:17: mcp server: program \"./nowhere.py\" not found (looked for /"},
		{"cwd that is a file", "--' @cwd chem.py\n" + `source MCP from "srv" ("f")` + "\n" + sig, "2:10: cwd: folder \"chem.py\" not found"},
		{"bearer that is a token", "--' @bearer sk-12345\n" + `source MCP from "https://x.example/mcp" ("f")` + "\n" + sig, "2:13: bearer: expected the NAME of the environment variable holding the token"},
		{"header without a colon", "--' @header X-Org acme\n" + `source MCP from "https://x.example/mcp" ("f")` + "\n" + sig, "2:13: header: expected `Name: value` with an HTTP header name, got 'X-Org acme'"},
		{"header with a bad name", "--' @header X Org: acme\n" + `source MCP from "https://x.example/mcp" ("f")` + "\n" + sig, "2:13: header: expected `Name: value`"},
		{"empty tool name", `source MCP from "srv" ("" as f)` + "\n" + sig, "2:24: an MCP tool's name is not empty"},
		{"tool sourced twice", `source MCP from "srv" ("f", "g" as f)` + "\n" + sig, "2:36: Ambiguous source declarations: 'f' is sourced twice (first at 2:24)"},
		{"MCP tool also defined", `source MCP from "srv" ("f")` + "\n" + sig + "f x = x\n", "5:1: 'f' is both an MCP tool (at 2:24) and defined here"},
		{"tool given a wrong argument", `source MCP from "srv" ("g")` + "\ng :: --' @name n\n     Int -> Str\nf :: Str -> Str\nf s = g s\n", "6:9: expected Int, got Str"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantError(t, head+tt.text, tt.want) })
	}
}

func TestMCPSourceWarnings(t *testing.T) {
	path := writeProgram(t, `module m (f, g)
--' @env TOKEN
--' @cwd .
--' name: x
source MCP from "https://x.example/mcp" ("f")
--' @bearer KEY
--' @header X-Org: acme
source MCP from "srv" ("g")
--' @timeout 5
source Py from "chem.py" ("upper")
upper :: Str -> Str
f :: Str
g :: --' @name x
     --' arg: --x
     --' timeout: 5 seconds
     Str -> Str
`)
	p, err := Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		pos(2, 5) + "warning: directive 'env' has no effect on an HTTP server; it applies to a server started as a command",
		pos(3, 5) + "warning: directive 'cwd' has no effect on an HTTP server; it applies to a server started as a command",
		pos(4, 5) + "warning: directive 'name' has no effect on a source; ignored",
		pos(6, 5) + "warning: directive 'bearer' has no effect on a command; it applies to an http:// or https:// server",
		pos(7, 5) + "warning: directive 'header' has no effect on a command; it applies to an http:// or https:// server",
		pos(9, 5) + "warning: directive 'timeout' has no effect on a Py source; ignored",
		pos(15, 10) + "warning: directive 'timeout' has no effect on an argument; ignored",
	}
	for i := range want {
		want[i] = path + ":" + want[i]
	}
	if !reflect.DeepEqual(p.Warnings, want) {
		t.Errorf("warnings\n got %q\nwant %q", p.Warnings, want)
	}
	m := p.Manifest
	if sv := m.Servers[0]; len(sv.Env) != 0 || sv.Dir != "" {
		t.Errorf("an HTTP server got @env or @cwd: %+v", sv)
	}
	if sv := m.Servers[1]; sv.Bearer != "" || len(sv.Headers) != 0 {
		t.Errorf("a command got @bearer or @header: %+v", sv)
	}
	if got := m.Functions[1].Params; !reflect.DeepEqual(got, []string{"x"}) {
		t.Errorf("the @name of an option names the tool's argument: %q", got)
	}
}

// TestMCPToolParams checks how a tool's argument names come from its
// signature: a named record argument is one argument, an unnamed one
// supplies them as its fields, and a tool without arguments has none.
func TestMCPToolParams(t *testing.T) {
	p := compileOK(t, `module m (*)
source MCP from "srv" ("a", "b", "c")
record Q where
  query :: Str
a :: --' @name filter
     Q -> Str
b :: Q -> Str
c :: Json
`)
	var got [][]string
	for _, f := range p.Manifest.Functions {
		got = append(got, f.Params)
	}
	if want := [][]string{{"filter"}, nil, nil}; !reflect.DeepEqual(got, want) || len(p.Manifest.Functions[2].Args) != 0 {
		t.Errorf("params %q, want %q; functions %+v", got, want, p.Manifest.Functions)
	}
}
