package tool

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest/types"
)

// surface is a program with one command per row of mcp.md's property
// table, plus commands that cannot be tools.
const surface = `
module surface (pos, opts, kinds, unrolled, whole, pointopt, point, acts, anyjson, fromstdin, clash)
import root-py
source Py from "fns.py" ("show2" as showPos, "show3" as showOpts, "show3" as showKinds, "show1" as showSettings, "show1" as showConfig, "show1" as showPoint, "show2" as showClash, "lines")

showPos :: Str -> Int -> Str
showOpts :: Real -> Bool -> Bool -> Str
showKinds :: ?Int -> Map Str [Int] -> (Int, Str) -> Str
showSettings :: Settings -> Str
showConfig :: ConfigWhole -> Str
showPoint :: Point -> Str
showClash :: Int -> Int -> Str
lines :: [Int] -> Str

--' Settings of a run.
--' unroll: true
record Settings where
  --' Where files go
  --' default: "/tmp"
  tmp_dir :: Str
  --' How many threads
  --' arg: -t/--threads
  threads :: Int
  --' Be chatty
  --' true: --verbose
  --' default: false
  verbose :: Bool
  --' Colour the output
  --' false: --no-color
  color :: Bool

record Py => Settings = "dict"

--' Settings, also given whole.
--' unroll: true
--' arg: --config
record ConfigWhole where
  --' default: 1
  level :: Int
  name :: Str

record Py => ConfigWhole = "dict"

record Point where
  --' Across
  x :: Real
  --' Up
  y :: Real

record Py => Point = "dict"

--' Two positionals.
--' Second line.
pos ::
  --' @name word
  --' A word
  Str ->
  Int ->
  Str
pos w n = showPos w n

--' An option and a flag.
opts ::
  --' The factor
  --' arg: -f/--factor
  --' default: 1.5
  Real ->
  --' true: --clean
  Bool ->
  --' false: --no-color
  Bool ->
  Str
opts f c k = showOpts f c k

--' Optionals, a map and a tuple.
kinds ::
  ?Int ->
  Map Str [Int] ->
  (Int, Str) ->
  Str
kinds a b c = showKinds a b c

unrolled :: Settings -> Str
unrolled s = showSettings s

whole :: ConfigWhole -> Str
whole c = showConfig c

pointopt ::
  --' arg: --at
  --' default: {"x": 0, "y": 1}
  Point -> Str
pointopt p = showPoint p

--' A record result.
point :: Real -> Point
point x = {x = x, y = 2.0}

--' Output actions.
--' with: -l/--lines=lines
--' render: -r/--raw=lines
acts :: [Int] -> [Int]
acts xs = xs

--' Any JSON in and out.
anyjson ::
  --' @name data
  Json ->
  ?Json ->
  Json
anyjson d _ = d

--' Reads standard input.
fromstdin ::
  --' stdin: true
  Str ->
  Str
fromstdin s = s

--' Two properties called size.
clash ::
  --' @name size
  Int ->
  --' arg: --size
  --' default: 1
  Int ->
  Str
clash a b = showClash a b
`

const surfacePy = `
def show1(a): return repr(a)
def show2(a, b): return repr((a, b))
def show3(a, b, c): return repr((a, b, c))
def lines(xs): return "\n".join(map(str, xs))
`

func surfaceTools(t *testing.T) ([]*Tool, []Skipped) {
	t.Helper()
	m := pooltest.Compile(t, surface, surfacePy)
	return FromProgram(m, &dispatch.Dispatcher{M: m}, "")
}

func TestToolSchemas(t *testing.T) {
	tools, _ := surfaceTools(t)
	want := map[string]string{
		"pos": `{"name":"pos","description":"Two positionals.\nSecond line.","inputSchema":{"type":"object","properties":{
			"word":{"type":"string","description":"A word"},
			"_2":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},"required":["word","_2"],"additionalProperties":false}}`,
		"opts": `{"name":"opts","description":"An option and a flag.","inputSchema":{"type":"object","properties":{
			"factor":{"type":"number","description":"The factor (default: 1.5)","default":1.5},
			"clean":{"type":"boolean","description":"(default: false)","default":false},
			"no-color":{"type":"boolean","description":"(true means --no-color) (default: false)","default":false}},"required":[],"additionalProperties":false}}`,
		"kinds": `{"name":"kinds","description":"Optionals, a map and a tuple.","inputSchema":{"type":"object","properties":{
			"_1":{"type":["integer","null"],"minimum":-9223372036854775808,"maximum":9223372036854775807},
			"_2":{"type":"object","additionalProperties":{"type":"array","items":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}}},
			"_3":{"type":"array","prefixItems":[{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},{"type":"string"}],"minItems":2,"maxItems":2}},
			"required":["_2","_3"],"additionalProperties":false}}`,
		"unrolled": `{"name":"unrolled","inputSchema":{"type":"object","properties":{
			"tmp_dir":{"type":"string","description":"Where files go (default: \"/tmp\")","default":"/tmp"},
			"threads":{"type":"integer","description":"How many threads","minimum":-9223372036854775808,"maximum":9223372036854775807},
			"verbose":{"type":"boolean","description":"Be chatty (default: false)","default":false},
			"color":{"type":"boolean","description":"Colour the output (default: true)","default":true}},
			"required":["threads"],"additionalProperties":false}}`,
		// A record given whole (a record-level arg:) is one property
		// named for the type, its fields nested inside; none of its
		// own. Required, since a field (name) has no default.
		"whole": `{"name":"whole","inputSchema":{"type":"object","properties":{
			"configwhole":{"type":"object","description":"Settings, also given whole.",
				"properties":{"level":{"type":"integer","description":"(default: 1)","minimum":-9223372036854775808,"maximum":9223372036854775807,"default":1},"name":{"type":"string"}},"required":["name"],"additionalProperties":false}},
			"required":["configwhole"],"additionalProperties":false}}`,
		// A record option without unroll: is named for its type too.
		"pointopt": `{"name":"pointopt","inputSchema":{"type":"object","properties":{
			"point":{"type":"object","description":"(default: {\"x\":0,\"y\":1})","properties":{"x":{"type":"number","description":"Across"},"y":{"type":"number","description":"Up"}},"required":["x","y"],"additionalProperties":false,"default":{"x":0,"y":1}}},
			"required":[],"additionalProperties":false}}`,
		"point": `{"name":"point","description":"A record result.","inputSchema":{"type":"object","properties":{"_1":{"type":"number"}},"required":["_1"],"additionalProperties":false},
			"outputSchema":{"type":"object","properties":{"x":{"type":"number","description":"Across"},"y":{"type":"number","description":"Up"}},"required":["x","y"],"additionalProperties":false}}`,
		"acts": `{"name":"acts","description":"Output actions.","inputSchema":{"type":"object","properties":{
			"_1":{"type":"array","items":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},
			"_render":{"type":"string","description":"How to present the result: raw, or through one of the command's output actions.","enum":["raw","lines","r"],"default":"raw"}},
			"required":["_1"],"additionalProperties":false}}`,
	}
	want["anyjson"] = `{"name":"anyjson","description":"Any JSON in and out.","inputSchema":{"type":"object","properties":{
			"data":{},"_2":{}},"required":["data"],"additionalProperties":false}}`
	got := map[string]string{}
	for _, tool := range tools {
		got[tool.Name] = string(tool.AppendJSON(nil, ListForm{OutputSchema: true}))
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("no tool %s", name)
			continue
		}
		if !sameJSON(t, g, w) {
			t.Errorf("tool %s:\n got %s\nwant %s", name, g, compactJSON(t, w))
		}
	}
}

func TestSkippedCommands(t *testing.T) {
	tools, skipped := surfaceTools(t)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	if got, want := strings.Join(names, " "), "pos opts kinds unrolled whole pointopt point acts anyjson"; got != want {
		t.Errorf("tools: got %s, want %s", got, want)
	}
	if len(skipped) != 2 {
		t.Fatalf("skipped: got %v, want fromstdin and clash", skipped)
	}
	for i, want := range []string{
		"command fromstdin is not served as an MCP tool: it reads standard input",
		`command clash is not served as an MCP tool: argument size and option size would both be the property "size"`,
	} {
		if got := skipped[i].String(); got != want {
			t.Errorf("skipped[%d]: got %q, want %q", i, got, want)
		}
	}
}

// intBounds are the bounds of an Int's schema.
const intBounds = `"minimum":-9223372036854775808,"maximum":9223372036854775807`

func TestTypeSchemas(t *testing.T) {
	rec := &types.Type{Kind: types.Record, Name: "R", Fields: []types.Field{
		{Name: "a", Type: types.IntType},
		{Name: "b", Type: types.OptionalOf(types.StrType)},
		{Name: "c", Type: types.RealType, Default: []byte("2.5")},
	}}
	for _, tc := range []struct {
		t    *types.Type
		want string
	}{
		{types.IntType, `{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`},
		{types.RealType, `{"type":"number"}`},
		{types.StrType, `{"type":"string"}`},
		{types.BoolType, `{"type":"boolean"}`},
		{types.UnitType, `{"type":"null"}`},
		{types.ListOf(types.RealType), `{"type":"array","items":{"type":"number"}}`},
		{types.OptionalOf(types.ListOf(types.IntType)), `{"type":["array","null"],"items":{"type":"integer",` + intBounds + `}}`},
		{types.OptionalOf(types.UnitType), `{"type":"null"}`},
		{types.MapOf(types.StrType, types.IntType), `{"type":"object","additionalProperties":{"type":"integer",` + intBounds + `}}`},
		{types.MapOf(types.IntType, types.StrType), `{"type":"array","items":{"type":"array","prefixItems":[{"type":"integer",` + intBounds + `},{"type":"string"}],"minItems":2,"maxItems":2}}`},
		{types.TupleOf(types.IntType, types.BoolType, types.StrType), `{"type":"array","prefixItems":[{"type":"integer",` + intBounds + `},{"type":"boolean"},{"type":"string"}],"minItems":3,"maxItems":3}`},
		{rec, `{"type":"object","properties":{"a":{"type":"integer",` + intBounds + `},"b":{"type":["string","null"]},"c":{"type":"number","description":"(default: 2.5)","default":2.5}},"required":["a"],"additionalProperties":false}`},
		{types.JSONType, `{}`},
		{types.OptionalOf(types.JSONType), `{}`},
		{types.MapOf(types.StrType, types.ListOf(types.JSONType)), `{"type":"object","additionalProperties":{"type":"array","items":{}}}`},
		{types.OptionalOf(rec), `{"type":["object","null"],"properties":{"a":{"type":"integer",` + intBounds + `},"b":{"type":["string","null"]},"c":{"type":"number","description":"(default: 2.5)","default":2.5}},"required":["a"],"additionalProperties":false}`},
	} {
		got, err := json.Marshal(typeSchema(tc.t))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.t, got, tc.want)
		}
	}
}

func TestSchemaEscapesText(t *testing.T) {
	s := &Schema{Types: []string{"object"}, Description: "a \"quoted\"\nline", Properties: []Property{{Name: `we"ird`, Schema: &Schema{Types: []string{"string"}}}}}
	got, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("not JSON: %s: %v", got, err)
	}
	if back["description"] != "a \"quoted\"\nline" {
		t.Errorf("description: got %q", back["description"])
	}
}

func TestPrefixedToolNames(t *testing.T) {
	m := pooltest.Compile(t, surface, surfacePy)
	tools, _ := FromProgram(m, &dispatch.Dispatcher{M: m}, "surface__")
	if tools[0].Name != "surface__pos" {
		t.Errorf("prefixed name: got %s", tools[0].Name)
	}
	long := strings.Repeat("m", 60) + "__"
	tools, skipped := FromProgram(m, &dispatch.Dispatcher{M: m}, long)
	if len(tools) != 0 || len(skipped) != len(m.Commands) {
		t.Errorf("names over 64 characters: got %d tools, %d skipped", len(tools), len(skipped))
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	return compactJSON(t, a) == compactJSON(t, b)
}

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	return b.String()
}
