package integration

import (
	"encoding/json"
	"strings"
	"testing"
)

// typesProgram has a Python identity function per type, plus functions that
// report what Python received, so each type is checked going in and coming
// back out.
var typesProgram = files{
	"ids.py": `
from dataclasses import dataclass

def ident(x):
    return x

def pytype(x):
    return type(x).__name__

def describe(x):
    return repr(x)

def nothing(x):
    print("side effect only")

@dataclass
class Point:
    x: float
    y: float
    label: str

def shift(p: Point) -> Point:
    assert isinstance(p, Point), type(p)
    return Point(p.x + 1, p.y + 1, p.label + "'")
`,
	"main.loc": `
module types (*)
import root-py
source Py from "ids.py"
  ( "ident" as idInt, "ident" as idReal, "ident" as idStr, "ident" as idBool
  , "ident" as idList, "ident" as idOpt, "ident" as idMapStr, "ident" as idMapInt
  , "ident" as idTuple, "ident" as idRec, "ident" as idNested, "ident" as idUnit
  , "pytype" as tyInt, "pytype" as tyReal, "pytype" as tyStr, "pytype" as tyBool
  , "pytype" as tyList, "pytype" as tyOpt, "pytype" as tyMap, "pytype" as tyRec
  , "pytype" as tyTuple
  , "describe" as reprMapInt, "nothing", "shift"
  )

record Pair where
  name :: Str
  score :: Real
  tags :: [Str]
  note :: ?Str
record Py => Pair = "dict"

record Point where
  x :: Real
  y :: Real
  label :: Str
record Py => Point = "Point"

idInt :: Int -> Int
idReal :: Real -> Real
idStr :: Str -> Str
idBool :: Bool -> Bool
idList :: [Int] -> [Int]
idOpt :: ?Int -> ?Int
idMapStr :: Map Str Int -> Map Str Int
idMapInt :: Map Int Str -> Map Int Str
idTuple :: (Int, Str, Bool) -> (Int, Str, Bool)
idRec :: Pair -> Pair
idNested :: [(Str, ?[Map Str Real])] -> [(Str, ?[Map Str Real])]
idUnit :: () -> ()
tyInt :: Int -> Str
tyReal :: Real -> Str
tyStr :: Str -> Str
tyBool :: Bool -> Str
tyList :: [Int] -> Str
tyOpt :: ?Int -> Str
tyMap :: Map Str Int -> Str
tyRec :: Pair -> Str
tyTuple :: (Int, Str) -> Str
reprMapInt :: Map Int Str -> Str
nothing :: Int -> ()
shift :: Point -> Point
`,
}

func TestTypesRoundTrip(t *testing.T) {
	p := build(t, typesProgram)
	cases := []struct {
		cmd, in, out string
	}{
		{"idInt", "42", "42"},
		{"idInt", "-9223372036854775808", "-9223372036854775808"},
		{"idInt", "9223372036854775807", "9223372036854775807"},
		{"idReal", "1.5", "1.5"},
		{"idReal", "-0.25", "-0.25"},
		{"idReal", "3", "3"},
		{"idReal", "1e300", "1e+300"},
		{"idStr", "hello", `"hello"`},
		{"idStr", `"quoted"`, `"quoted"`},
		{"idStr", "42", `"42"`},
		{"idStr", "héllo wörld ✓ 日本", `"héllo wörld ✓ 日本"`},
		{"idStr", `"a \"q\" \\ b\nc"`, `"a \"q\" \\ b\nc"`},
		{"idStr", "", `""`},
		{"idBool", "true", "true"},
		{"idBool", "false", "false"},
		{"idList", "[1,2,3]", "[1,2,3]"},
		{"idList", "[]", "[]"},
		{"idOpt", "7", "7"},
		{"idMapStr", `{"b":2,"a":1}`, `{"a":1,"b":2}`},
		{"idMapStr", `{}`, `{}`},
		{"idMapInt", `[[1,"one"],[2,"two"]]`, `[[1,"one"],[2,"two"]]`},
		{"idTuple", `[1,"x",true]`, `[1,"x",true]`},
		{"idRec", `{"name":"n","score":2.5,"tags":["a"],"note":null}`, `{"name":"n","score":2.5,"tags":["a"],"note":null}`},
		{"idRec", `{"tags":[],"score":1,"name":"z","note":"hi"}`, `{"name":"z","score":1,"tags":[],"note":"hi"}`},
		{"idRec", `{"name":"n","score":2.5,"tags":["a"]}`, `{"name":"n","score":2.5,"tags":["a"],"note":null}`},
		{"idNested", `[["a",null],["b",[{"x":1.5},{}]]]`, `[["a",null],["b",[{"x":1.5},{}]]]`},
		{"tyInt", "1", `"int"`},
		{"tyReal", "1", `"float"`},
		{"tyStr", "x", `"str"`},
		{"tyBool", "true", `"bool"`},
		{"tyList", "[1]", `"list"`},
		{"tyOpt", "null", `"NoneType"`},
		{"tyOpt", "3", `"int"`},
		{"tyMap", `{"a":1}`, `"dict"`},
		{"tyRec", `{"name":"n","score":1,"tags":[]}`, `"dict"`},
		{"reprMapInt", `[[1,"one"]]`, `"{1: 'one'}"`},
		{"shift", `{"x":1,"y":2.5,"label":"p"}`, `{"x":2,"y":3.5,"label":"p'"}`},
	}
	for _, c := range cases {
		got := p.ok(c.cmd, c.in)
		if got != c.out+"\n" {
			t.Errorf("%s %s = %q, want %q", c.cmd, c.in, got, c.out+"\n")
		}
	}
}

// TestNullResults: a top-level null prints nothing unless --keep-null.
func TestNullResults(t *testing.T) {
	p := build(t, typesProgram)
	if got := p.ok("idOpt", "null"); got != "" {
		t.Errorf("idOpt null printed %q, want nothing", got)
	}
	if got := p.ok("--keep-null", "idOpt", "null"); got != "null\n" {
		t.Errorf("--keep-null idOpt null printed %q, want null", got)
	}
	res := p.run("nothing", "3")
	if res.code != 0 || res.stdout != "" {
		t.Errorf("nothing 3: exit %d stdout %q, want 0 and nothing", res.code, res.stdout)
	}
	if !strings.Contains(res.stderr, "side effect only") {
		t.Errorf("the function's print did not reach stderr: %q", res.stderr)
	}
}

// TestTypeErrors: a malformed value is a usage error (2) naming the problem,
// and a pool's wrong result is a failure (1).
func TestTypeErrors(t *testing.T) {
	p := build(t, typesProgram)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"idInt", "1.5"}, "Int"},
		{[]string{"idInt", "abc"}, "Int"},
		{[]string{"idBool", "yes"}, "Bool"},
		{[]string{"idList", "[1,\"a\"]"}, "[1]"},
		{[]string{"idRec", `{"name":"n"}`}, "score"},
		{[]string{"idTuple", `[1,"x"]`}, "(Int, Str, Bool)"},
	} {
		stderr := p.fails(2, c.args...)
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr %q does not mention %q", c.args, stderr, c.want)
		}
	}
}

// jsonProgram sends Json values through a function of every pool, alone,
// in a list, in a record and through a chain of all three.
var jsonProgram = files{
	"ids.py": `
def ident(x):
    return x

def pytype(x):
    return type(x).__name__

def tag(d):
    d.setdefault("by", []).append("python")
    return d

def nan(x):
    return {"x": [float("nan")]}
`,
	"docs.hpp": `
#include <string>
#include <vector>

inline std::string ident_json(const std::string& j) { return j; }
inline std::vector<std::string> ident_list(std::vector<std::string> xs) { return xs; }
inline std::string wrap(const std::string& j) { return "{\"cpp\":" + j + "}"; }
inline std::string broken(const std::string&) { return "{not json"; }
`,
	"docs.go": `
package docs

import (
	"fmt"
	"math"
)

func Ident(x any) any { return x }

func List(xs []any) []any { return xs }

func GoType(x any) string { return fmt.Sprintf("%T", x) }

func Tag(x any) any {
	m, ok := x.(map[string]any)
	if !ok {
		return x
	}
	by, _ := m["by"].([]any)
	m["by"] = append(by, "go")
	return m
}

func NaN(x any) any { return map[string]any{"x": math.NaN()} }
`,
	"main.loc": `
module jsons (*)
import root-py
import root-cpp
import root-go
source Py from "ids.py" ("ident" as pyId, "ident" as pyDoc, "pytype" as pyType, "tag" as pyTag, "nan" as pyNaN)
source Cpp from "docs.hpp" ("ident_json" as cppId, "ident_list" as cppList, "wrap" as cppWrap, "broken" as cppBroken)
source Go from "docs.go" ("Ident" as goId, "List" as goList, "GoType" as goType, "Tag" as goTag, "NaN" as goNaN)

record Doc where
  id :: Int
  body :: Json
record Py => Doc = "dict"

pyId :: Json -> Json
pyDoc :: Doc -> Doc
pyType :: Json -> Str
pyTag :: Json -> Json
pyNaN :: Json -> Json
cppId :: Json -> Json
cppList :: [Json] -> [Json]
cppWrap :: Json -> Json
cppBroken :: Json -> Json
goId :: Json -> Json
goList :: [Json] -> [Json]
goType :: Json -> Str
goTag :: Json -> Json
goNaN :: Json -> Json

--' C++ wraps, then Python and Go each sign.
chain :: Json -> Json
chain j = goTag (pyTag (cppWrap j))
`,
}

// TestTypesJson: a Json goes into every pool as its language's JSON value
// and comes back as JSON text. C++ sees the text itself; Python's json
// module keeps key order; Go's encoding/json sorts keys. A result that is
// not JSON (a NaN, broken text) fails the call.
func TestTypesJson(t *testing.T) {
	p := build(t, jsonProgram)
	const obj = `{ "b": [1, 2.5, "é ✓ 日本"], "a": null, "n": {"deep": [true, false, {}]} }`
	cases := []struct {
		cmd, in, out string
	}{
		{"pyId", obj, `{"b":[1,2.5,"é ✓ 日本"],"a":null,"n":{"deep":[true,false,{}]}}`},
		{"cppId", obj, `{"b":[1,2.5,"é ✓ 日本"],"a":null,"n":{"deep":[true,false,{}]}}`},
		{"goId", obj, `{"a":null,"b":[1,2.5,"é ✓ 日本"],"n":{"deep":[true,false,{}]}}`},
		{"pyId", "9007199254740992", "9007199254740992"},
		{"cppId", "9007199254740992", "9007199254740992"},
		{"goId", "9007199254740992", "9007199254740992"},
		{"pyId", "-9007199254740991", "-9007199254740991"},
		{"goId", "-9007199254740991", "-9007199254740991"},
		{"pyId", `"\u00e9\n"`, `"é\n"`},
		{"cppId", `"\u00e9\n"`, `"\u00e9\n"`},
		{"goId", `"\u00e9\n"`, `"é\n"`},
		{"pyId", "null", "null"},
		{"cppId", "null", "null"},
		{"goId", "null", "null"},
		{"pyId", "[]", "[]"},
		{"goId", "-1.5e-7", "-1.5e-7"},
		{"pyType", `{"a":1}`, `"dict"`},
		{"pyType", "3", `"int"`},
		{"pyType", "null", `"NoneType"`},
		{"goType", `{"a":1}`, `"map[string]interface {}"`},
		{"goType", "3", `"float64"`},
		{"goType", `[1]`, `"[]interface {}"`},
		{"goType", "null", `"<nil>"`},
		// A Json in a record is read by the nexus from the decoded record:
		// its keys come sorted.
		{"pyDoc", `{"id": 1, "body": {"z": [1], "a": "x"}}`, `{"id":1,"body":{"a":"x","z":[1]}}`},
		{"cppList", `[{"b": 1, "a": 2}, "x", null, [[]]]`, `[{"b":1,"a":2},"x",null,[[]]]`},
		{"goList", `[{"b": 1, "a": 2}, null, 3]`, `[{"a":2,"b":1},null,3]`},
		{"chain", `{"k": [1, "two"]}`, `{"by":["python","go"],"cpp":{"k":[1,"two"]}}`},
	}
	for _, c := range cases {
		if got := p.ok("--keep-null", c.cmd, c.in); got != c.out+"\n" {
			t.Errorf("%s %s = %q, want %q", c.cmd, c.in, got, c.out+"\n")
		}
	}

	for _, c := range []struct {
		code       int
		args, want []string
	}{
		{2, []string{"pyId", "hello"}, []string{`expected Json (JSON text or a file holding it; a string needs its quotes`}},
		{2, []string{"goId", `{"a":1,}`}, []string{"expected Json"}},
		{1, []string{"pyNaN", "1"}, []string{"the Json result cannot be written as JSON", "NaN and infinities have no JSON form"}},
		{1, []string{"goNaN", "1"}, []string{"the Json result cannot be written as JSON: json: unsupported value: NaN"}},
		{1, []string{"cppBroken", "1"}, []string{`expected Json text, got the string "{not json": not valid JSON`}},
	} {
		stderr := p.fails(c.code, c.args...)
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, stderr, w)
			}
		}
	}
}

// TestTypesJsonOverMCP: the Go SDK's client sees a Json property's schema
// as {} and passes any value, null included; a Json result is text only,
// and a record holding a Json field is structured content that fits its
// output schema.
func TestTypesJsonOverMCP(t *testing.T) {
	p := build(t, jsonProgram)
	tools := mcpToolsOutput(t, p, true)
	var list []struct {
		Name         string          `json:"name"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(tools, &list); err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, tool := range list {
		byName[tool.Name] = i
	}
	pyID, pyDoc := list[byName["pyId"]], list[byName["pyDoc"]]
	if want := `{"type":"object","properties":{"_1":{}},"required":["_1"],"additionalProperties":false}`; string(pyID.InputSchema) != want || pyID.OutputSchema != nil {
		t.Errorf("pyId's schemas: input %s, output %s; want input %s and no output schema", pyID.InputSchema, pyID.OutputSchema, want)
	}
	if want := `{"type":"object","properties":{"id":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"body":{}},"required":["id","body"],"additionalProperties":false}`; string(pyDoc.OutputSchema) != want {
		t.Errorf("pyDoc's output schema %s, want %s", pyDoc.OutputSchema, want)
	}

	testSDKSession(t, p, "jsons", "2025-06-18", tools, []sdkCall{
		{tool: "pyId", args: map[string]any{"_1": map[string]any{"b": []any{1, "é ✓"}, "a": nil}}, text: `{"a":null,"b":[1,"é ✓"]}`},
		{tool: "goId", args: map[string]any{"_1": nil}, text: "null"},
		{tool: "cppId", args: map[string]any{"_1": "text"}, text: `"text"`},
		{tool: "cppList", args: map[string]any{"_1": []any{map[string]any{"k": 1}, "x", nil}}, text: `[{"k":1},"x",null]`},
		{tool: "pyDoc", args: map[string]any{"_1": map[string]any{"id": 1, "body": map[string]any{"a": []any{1.5}}}}, record: true,
			text: `{"id":1,"body":{"a":[1.5]}}`},
		{tool: "chain", args: map[string]any{"_1": map[string]any{"k": "v"}}, text: `{"by":["python","go"],"cpp":{"k":"v"}}`},
		{tool: "pyNaN", args: map[string]any{"_1": 1}, failure: []string{"NaN and infinities have no JSON form"}},
		{tool: "cppBroken", args: map[string]any{"_1": 1}, failure: []string{`expected Json text, got the string "{not json"`}},
	})
}
