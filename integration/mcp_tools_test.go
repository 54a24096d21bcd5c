package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// propsProgram has one command per row of mcp.md's property table, a
// record result, and two commands that cannot be tools: one reads stdin,
// one has two arguments that would be the same property. The Python
// function behind most commands echoes its arguments as JSON, so a call
// shows how the named arguments were bound.
var propsProgram = files{
	"fns.py": `
import json

def show(*args):
    return json.dumps(args, separators=(",", ":"))

def lines(xs):
    return "\n".join(str(x) for x in xs)

def table(xs):
    return " | ".join(str(x) for x in xs)

def point(x, y):
    return {"x": x, "y": y, "label": None}
`,
	"main.loc": `
--' Every row of the MCP property table.
module props (positional, options, flags, negonly, unrolled, whole, optional, shapes, actions, point, thrown, fromstdin, collide)

import root-py

source Py from "fns.py"
  ( "show" as showSI, "show" as showB, "show" as showSettings, "show" as showConfig
  , "show" as showOpts, "show" as showShapes, "show" as showS, "show" as showSS
  , "lines", "table", "point" as pointPy
  )

showSI :: Str -> Int -> Str
showB :: Bool -> Str
showSettings :: Settings -> Str
showConfig :: RunConfig -> Str
showOpts :: ?Int -> ?Str -> Str
showShapes :: Map Str Int -> (Int, Str) -> [Real] -> Str
showS :: Str -> Str
showSS :: Str -> Str -> Str
lines :: [Int] -> Str
table :: [Int] -> Str
pointPy :: Int -> Int -> Point

--' Settings given field by field.
--' unroll: true
record Settings where
  --' Where temporary files go
  --' arg: -t/--tmp-dir
  --' default: "/tmp"
  tmp_dir :: Str
  --' How many threads
  threads :: Int
  --' Be chatty
  --' true: -v/--verbose
  --' false: --quiet
  --' default: false
  verbose :: Bool

record Py => Settings = "dict"

--' Settings given field by field or whole.
--' unroll: true
--' arg: --config
record RunConfig where
  --' Input size
  --' default: 10
  size :: Int
  --' A name
  name :: Str

record Py => RunConfig = "dict"

--' A point on a plane.
record Point where
  --' Across
  x :: Int
  --' Up
  y :: Int
  label :: ?Str

record Py => Point = "dict"

--' Positionals, named and not.
--' Second line of the description.
--' name: pos-args
positional ::
  --' @name word
  --' The word
  Str ->
  Int ->
  Str
positional w n = showSI w n

--' Options with defaults.
options ::
  --' How to label it
  --' arg: -l/--label
  --' default: "none"
  Str ->
  --' arg: -n
  --' default: 1
  Int ->
  Str
options l n = showSI l n

--' A flag and its negation.
flags ::
  --' Shout it
  --' true: -s/--shout
  --' false: --whisper
  Bool ->
  Str
flags s = showB s

--' A flag known only by its negation.
negonly ::
  --' Use colour
  --' false: --no-color
  --' default: true
  Bool ->
  Str
negonly c = showB c

--' An unrolled record.
unrolled :: Settings -> Str
unrolled s = showSettings s

--' An unrolled record also given whole.
whole :: RunConfig -> Str
whole c = showConfig c

--' Optional arguments.
optional ::
  --' @name first
  ?Int ->
  --' arg: --maybe
  ?Str ->
  Str
optional a b = showOpts a b

--' Maps, tuples and lists.
shapes ::
  --' @name counts
  Map Str Int ->
  --' @name pair
  (Int, Str) ->
  --' @name reals
  [Real] ->
  Str
shapes m p r = showShapes m p r

--' Output actions.
--' with: --lines=lines
--' render: -t/--table=table
actions ::
  --' many: true
  [Int] ->
  [Int]
actions xs = xs

--' Returns a record.
point ::
  --' @name x
  Int ->
  --' @name y
  Int ->
  Point
point x y = pointPy x y

--' Always fails.
thrown :: Int -> <Err> Int
thrown _ = @throw "this command always fails"

--' Reads standard input.
fromstdin ::
  --' stdin: true
  Str ->
  Str
fromstdin s = showS s

--' Two arguments that would be one property.
collide ::
  --' @name label
  Str ->
  --' arg: --label
  --' default: "x"
  Str ->
  Str
collide a b = showSS a b
`,
}

// propsTools are the tools of propsProgram, in order, exactly as mcp.md
// describes them.
var propsTools = []struct{ name, schema string }{
	{"pos-args", `{
		"name": "pos-args",
		"description": "Positionals, named and not.\nSecond line of the description.",
		"inputSchema": {"type": "object", "properties": {
			"word": {"type": "string", "description": "The word"},
			"_2": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}
		}, "required": ["word", "_2"], "additionalProperties": false}}`},
	{"options", `{
		"name": "options",
		"description": "Options with defaults.",
		"inputSchema": {"type": "object", "properties": {
			"label": {"type": "string", "description": "How to label it (default: \"none\")", "default": "none"},
			"n": {"type": "integer", "description": "(default: 1)", "minimum": -9223372036854775808, "maximum": 9223372036854775807, "default": 1}
		}, "required": [], "additionalProperties": false}}`},
	{"flags", `{
		"name": "flags",
		"description": "A flag and its negation.",
		"inputSchema": {"type": "object", "properties": {
			"shout": {"type": "boolean", "description": "Shout it (default: false)", "default": false}
		}, "required": [], "additionalProperties": false}}`},
	// The property is the negation: leaving it out means --no-color was
	// not given, so the property's own default is false (while the
	// argument's is true).
	{"negonly", `{
		"name": "negonly",
		"description": "A flag known only by its negation.",
		"inputSchema": {"type": "object", "properties": {
			"no-color": {"type": "boolean", "description": "Use colour (true means --no-color) (default: false)", "default": false}
		}, "required": [], "additionalProperties": false}}`},
	{"unrolled", `{
		"name": "unrolled",
		"description": "An unrolled record.",
		"inputSchema": {"type": "object", "properties": {
			"tmp_dir": {"type": "string", "description": "Where temporary files go (default: \"/tmp\")", "default": "/tmp"},
			"threads": {"type": "integer", "description": "How many threads", "minimum": -9223372036854775808, "maximum": 9223372036854775807},
			"verbose": {"type": "boolean", "description": "Be chatty (default: false)", "default": false}
		}, "required": ["threads"], "additionalProperties": false}}`},
	{"whole", `{
		"name": "whole",
		"description": "An unrolled record also given whole.",
		"inputSchema": {"type": "object", "properties": {
			"runconfig": {"type": "object",
				"description": "Settings given field by field or whole.",
				"properties": {
					"size": {"type": "integer", "description": "Input size (default: 10)", "minimum": -9223372036854775808, "maximum": 9223372036854775807, "default": 10},
					"name": {"type": "string", "description": "A name"}
				}, "required": ["name"], "additionalProperties": false}
		}, "required": ["runconfig"], "additionalProperties": false}}`},
	{"optional", `{
		"name": "optional",
		"description": "Optional arguments.",
		"inputSchema": {"type": "object", "properties": {
			"first": {"type": ["integer", "null"], "minimum": -9223372036854775808, "maximum": 9223372036854775807},
			"maybe": {"type": ["string", "null"]}
		}, "required": [], "additionalProperties": false}}`},
	{"shapes", `{
		"name": "shapes",
		"description": "Maps, tuples and lists.",
		"inputSchema": {"type": "object", "properties": {
			"counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}},
			"pair": {"type": "array", "prefixItems": [{"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}, {"type": "string"}], "minItems": 2, "maxItems": 2},
			"reals": {"type": "array", "items": {"type": "number"}}
		}, "required": ["counts", "pair", "reals"], "additionalProperties": false}}`},
	{"actions", `{
		"name": "actions",
		"description": "Output actions.",
		"inputSchema": {"type": "object", "properties": {
			"_1": {"type": "array", "items": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}},
			"_render": {"type": "string",
				"description": "How to present the result: raw, or through one of the command's output actions.",
				"enum": ["raw", "lines", "table"], "default": "raw"}
		}, "required": [], "additionalProperties": false}}`},
	{"point", `{
		"name": "point",
		"description": "Returns a record.",
		"inputSchema": {"type": "object", "properties": {
			"x": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807},
			"y": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}
		}, "required": ["x", "y"], "additionalProperties": false},
		"outputSchema": {"type": "object", "description": "A point on a plane.", "properties": {
			"x": {"type": "integer", "description": "Across", "minimum": -9223372036854775808, "maximum": 9223372036854775807},
			"y": {"type": "integer", "description": "Up", "minimum": -9223372036854775808, "maximum": 9223372036854775807},
			"label": {"type": ["string", "null"]}
		}, "required": ["x", "y"], "additionalProperties": false}}`},
	{"thrown", `{
		"name": "thrown",
		"description": "Always fails.",
		"inputSchema": {"type": "object", "properties": {
			"_1": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}
		}, "required": ["_1"], "additionalProperties": false}}`},
}

// skippedCommands are the commands of propsProgram left out of the tools,
// with what the one stderr line about each must say.
var skippedCommands = map[string][]string{
	"fromstdin": {"standard input"},
	"collide":   {"label", "property"},
}

// TestMCPToolsMatchLive: `./prog --mcp-tools` prints exactly what a live
// server answers to tools/list, byte for byte once compacted (so tool and
// property order too), for each example and for the property program.
func TestMCPToolsMatchLive(t *testing.T) {
	for _, name := range []string{"seq", "chem", "props"} {
		t.Run(name, func(t *testing.T) {
			fs := propsProgram
			if name != "props" {
				fs = exampleFiles(t, name)
			}
			p := build(t, fs)
			printed := p.ok("--mcp-tools")
			old := mcpToolsOutput(t, p, false)
			var want bytes.Buffer
			if err := json.Compact(&want, []byte(printed)); err != nil {
				t.Fatalf("--mcp-tools is not JSON: %v\n%s", err, printed)
			}

			c := startMCPConn(t, p)
			c.initialize("2025-06-18")
			got := c.request(1, "tools/list", nil)
			if !bytes.Equal(got.Result, want.Bytes()) {
				t.Errorf("tools/list:\n%s\n--mcp-tools:\n%s", got.Result, want.Bytes())
			}
			c.closeAll()

			// A 2024-11-05 client gets the same list without output
			// schemas, which its version does not have.
			c = startMCPConn(t, p)
			c.initialize("2024-11-05")
			got = c.request(1, "tools/list", nil)
			if !sameJSON(t, marshalJSON(t, toolsOf(t, got.Result)), old) {
				t.Errorf("tools/list in 2024-11-05:\n%s\nwant:\n%s", got.Result, old)
			}
			if bytes.Contains(got.Result, []byte("outputSchema")) {
				t.Errorf("tools/list in 2024-11-05 has an outputSchema:\n%s", got.Result)
			}
			c.closeAll()
		})
	}
}

// toolsOf is the tools array of a tools/list result.
func toolsOf(t *testing.T, result []byte) []json.RawMessage {
	t.Helper()
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(result, &list); err != nil {
		t.Fatalf("tools/list result %s: %v", result, err)
	}
	return list.Tools
}

// TestMCPPropertySchemas: the schema of every kind of argument, as mcp.md's
// property table gives it, and the commands that cannot be tools left out
// with one line on stderr each.
func TestMCPPropertySchemas(t *testing.T) {
	p := build(t, propsProgram)
	res := p.run("--mcp-tools")
	if res.code != 0 {
		t.Fatalf("--mcp-tools: exit %d\n%s", res.code, res.stderr)
	}
	tools := toolsOf(t, []byte(res.stdout))

	var names []string
	byName := map[string]json.RawMessage{}
	for _, raw := range tools {
		var tool struct{ Name string }
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		byName[tool.Name] = raw
	}
	var wantNames []string
	for _, w := range propsTools {
		wantNames = append(wantNames, w.name)
	}
	if strings.Join(names, " ") != strings.Join(wantNames, " ") {
		t.Errorf("tools %v, want %v (in manifest order, without fromstdin and collide)", names, wantNames)
	}

	for _, w := range propsTools {
		t.Run(w.name, func(t *testing.T) {
			got, ok := byName[w.name]
			if !ok {
				t.Fatalf("no tool %s", w.name)
			}
			if !sameJSON(t, got, []byte(w.schema)) {
				t.Errorf("tool %s:\n%s\nwant:\n%s", w.name, got, compactJSON([]byte(w.schema)))
			}
		})
	}

	t.Run("skipped commands", func(t *testing.T) {
		checkSkippedLines(t, "--mcp-tools", res.stderr)
		// The live server says the same once, and knows nothing of them.
		c := startMCPConn(t, p.in(t))
		c.initialize("2025-06-18")
		for cmd := range skippedCommands {
			c.callTool(cmd, cmd, map[string]any{"_1": "x"}).rpcError(t, -32602, "unknown tool '"+cmd+"'")
		}
		if got := c.callTool("still served", "pos-args", map[string]any{"word": "a", "_2": 1}).text(t); got != strJSON(`["a",1]`) {
			t.Errorf("pos-args beside the skipped commands = %s", got)
		}
		c.closeAll()
		checkSkippedLines(t, "nexus mcp", c.stderrText())
	})
}

// checkSkippedLines checks that stderr has exactly one line about each
// skipped command, saying why, beside the log's lines of the calls made
// to it (msg=call).
func checkSkippedLines(t *testing.T, who, stderr string) {
	t.Helper()
	for cmd, why := range skippedCommands {
		var about []string
		for _, line := range strings.Split(stderr, "\n") {
			if strings.Contains(line, cmd) && !strings.Contains(line, " msg=call ") {
				about = append(about, line)
			}
		}
		if len(about) != 1 {
			t.Errorf("%s: want one stderr line about %s, got %d:\n%s", who, cmd, len(about), stderr)
			continue
		}
		for _, w := range why {
			if !strings.Contains(about[0], w) {
				t.Errorf("%s: the line about %s does not say %q: %s", who, cmd, w, about[0])
			}
		}
	}
}

// TestMCPArgumentBinding: named arguments are turned back into the
// positional call, with defaults filled in for what is left out.
func TestMCPArgumentBinding(t *testing.T) {
	p := build(t, propsProgram)
	c := startMCPConn(t, p)
	c.initialize("2025-06-18")
	cases := []struct {
		tool string
		args map[string]any
		// echo is the JSON of the arguments the Python function received
		// (its result is that JSON as a string); compared as JSON values.
		echo string
	}{
		{"pos-args", map[string]any{"word": "hi", "_2": 3}, `["hi",3]`},
		{"options", map[string]any{}, `["none",1]`},
		{"options", map[string]any{"label": "x", "n": 5}, `["x",5]`},
		{"flags", map[string]any{}, `[false]`},
		{"flags", map[string]any{"shout": true}, `[true]`},
		{"flags", map[string]any{"shout": false}, `[false]`},
		{"negonly", map[string]any{}, `[true]`},
		{"negonly", map[string]any{"no-color": true}, `[false]`},
		{"negonly", map[string]any{"no-color": false}, `[true]`},
		{"unrolled", map[string]any{"threads": 2}, `[{"tmp_dir":"/tmp","threads":2,"verbose":false}]`},
		{"unrolled", map[string]any{"threads": 4, "tmp_dir": "/s", "verbose": true}, `[{"tmp_dir":"/s","threads":4,"verbose":true}]`},
		{"whole", map[string]any{"runconfig": map[string]any{"name": "c", "size": 3}}, `[{"size":3,"name":"c"}]`},
		{"whole", map[string]any{"runconfig": map[string]any{"name": "c"}}, `[{"size":10,"name":"c"}]`},
		{"optional", map[string]any{}, `[null,null]`},
		{"optional", map[string]any{"first": 3, "maybe": "m"}, `[3,"m"]`},
		{"optional", map[string]any{"first": nil}, `[null,null]`},
		{"shapes", map[string]any{"counts": map[string]int{"a": 1}, "pair": []any{1, "x"}, "reals": []float64{0.5}}, `[{"a":1},[1,"x"],[0.5]]`},
	}
	for i, tc := range cases {
		text := c.callTool(i, tc.tool, tc.args).text(t)
		var echo string
		if err := json.Unmarshal([]byte(text), &echo); err != nil {
			t.Errorf("%s %v: result %s is not a JSON string", tc.tool, tc.args, text)
			continue
		}
		if !sameJSON(t, []byte(echo), []byte(tc.echo)) {
			t.Errorf("%s %v: the function received %s, want %s", tc.tool, tc.args, echo, tc.echo)
		}
	}

	// Output actions: raw is the result's JSON, a `with` action's result
	// is JSON too, a `render` action's text is as it is.
	for i, tc := range []struct {
		render any // nil: no _render
		want   string
	}{
		{nil, "[1,2]"},
		{"raw", "[1,2]"},
		{"lines", strJSON("1\n2")},
		{"table", "1 | 2"},
	} {
		args := map[string]any{"_1": []int{1, 2}}
		if tc.render != nil {
			args["_render"] = tc.render
		}
		if got := c.callTool(fmt.Sprint("actions-", i), "actions", args).text(t); got != tc.want {
			t.Errorf("actions with _render %v = %q, want %q", tc.render, got, tc.want)
		}
	}

	// A record result: its JSON, and the same object as structuredContent.
	res := c.callTool("point", "point", map[string]any{"x": 1, "y": 2}).tool(t)
	if want := `{"x":1,"y":2,"label":null}`; res.IsError || res.Content[0].Text != want {
		t.Errorf("point = %+v, want the text %s", res, want)
	} else if !sameJSON(t, res.StructuredContent, []byte(want)) {
		t.Errorf("point: structuredContent %s, want %s", res.StructuredContent, want)
	}

	// @throw fails the call, as an exception would.
	if msg := c.callTool("thrown", "thrown", map[string]any{"_1": 1}).failure(t); !strings.Contains(msg, "this command always fails") {
		t.Errorf("thrown: the failure %q does not carry the @throw message", msg)
	}
	c.closeAll()
}

// TestMCPConfig: `./prog --mcp-config` names the nexus and the program by
// absolute paths, and a client that starts exactly that command, from
// anywhere, gets a working server.
func TestMCPConfig(t *testing.T) {
	p := build(t, propsProgram)
	entry := configEntry(t, p)
	wantArgs := []string{"mcp", filepath.Join(p.dir, "prog-build", "manifest.json")}
	if entry.Command != nexusBin || strings.Join(entry.Args, " ") != strings.Join(wantArgs, " ") {
		t.Errorf("--mcp-config runs %s %v, want %s %v", entry.Command, entry.Args, nexusBin, wantArgs)
	}

	// Started as the client would: the manifest entry point of nexus mcp.
	c := startMCPServing(t, p, entry.Args[1])
	c.initialize("2025-06-18")
	if got := c.callTool(1, "pos-args", map[string]any{"word": "cfg", "_2": 2}).text(t); got != strJSON(`["cfg",2]`) {
		t.Errorf("pos-args through the configured server = %s", got)
	}
	c.closeAll()
}

// TestMCPToolNames: a command name MCP clients would refuse as a tool name
// is a build error that says so; the longest accepted name is served.
func TestMCPToolNames(t *testing.T) {
	program := func(name string) files {
		return files{
			"fns.py": "def echo(s):\n    return s\n",
			"main.loc": `
module names (f, g)
import root-py
source Py from "fns.py" ("echo")
echo :: Str -> Str
--' name: ` + name + `
f :: Str -> Str
f s = echo s
g :: Str -> Str
g s = echo s
`,
		}
	}
	long := strings.Repeat("n", 64)
	for _, bad := range []string{"has.dot", "has space", long + "x"} {
		stderr := makeFails(t, program(bad))
		if !strings.Contains(stderr, bad) || !strings.Contains(stderr, "^[a-zA-Z0-9_-]{1,64}$") {
			t.Errorf("command name %q: the build error should name it and the pattern it breaks:\n%s", bad, stderr)
		}
	}
	p := build(t, program(long))
	var list struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal([]byte(p.ok("--mcp-tools")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 2 || list.Tools[0].Name != long || list.Tools[1].Name != "g" {
		t.Errorf("tools %+v, want %s and g", list.Tools, long)
	}
}
