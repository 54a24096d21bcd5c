package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inferenceFiles is the digest's todo example (3.4) with toggle in Python
// and in Morloc, the probe's word count whose map seed its use settles
// (finding 5), and record literals without a declared record (3.7, 3.8).
var inferenceFiles = files{
	"main.loc": `module main (checkIO, checkLocal, count, countLet, first, describe, older)

import root
import map as mp
import maybe

record Todo where
  title :: Str
  done :: Bool
record Py => Todo = "dict"

source Py from "todo.py" ("toggle")

toggle :: Int -> [Todo] -> [Todo]

--' Toggle item idx of the todo file (Python) and save it
checkIO :: Str -> Int -> <IO, Err> [Todo]
checkIO file idx = do
  ts <- @load file
  @savej file (toggle idx ts)
  toggle idx ts

--' Mark every item done (idx >= 0) in the todo file and save it
checkLocal :: Str -> Int -> <IO, Err> [Todo]
checkLocal file idx = do
  ts <- @load file
  @savej file (finish idx ts)
  finish idx ts
  where
    finish :: Int -> [Todo] -> [Todo]
    finish i ts ? i < 0 = ts : map (\t -> .(.done = True) t) ts

--' How often each word occurs
count :: [Str] -> [(Str, Int)]
count ws = mp.toList (fold (\acc w -> mp.insert w (1 + size w acc) acc) mp.emptyMap ws)
  where
    size w m = default 0 (mp.lookup w m)

--' The same, with the map bound first
countLet :: [Str] -> [(Str, Int)]
countLet ws = let m = fold (\acc w -> mp.insert w 1 acc) mp.emptyMap ws in mp.toList m

first :: Int
first = .x.0 {x = (7, "hi"), y = 9}

describe :: Str -> Int -> Str
describe n a = @show {name = n, age = a}

older :: Str -> Int -> Int
older n a = .age (.(.age = a + 1) {name = n, age = a})
`,
	"todo.py": `def toggle(i, ts):
    return [dict(t, done=not t["done"]) if j == i else t for j, t in enumerate(ts)]
`,
}

// TestInferenceFromALaterUse: a do-bind of @load takes its type from the
// function its value is given to, a fold's empty map from the result the
// fold must have; record literals without a declared record are
// evaluated by the nexus, their fields shown in the literal's order; on
// the command line and over MCP alike.
func TestInferenceFromALaterUse(t *testing.T) {
	p := build(t, inferenceFiles)
	dir := t.TempDir()
	todos := func(name string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(`[{"title":"milk","done":false},{"title":"eggs","done":true}]`), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cli, local, tool := todos("cli.json"), todos("local.json"), todos("tool.json")
	toggled := `[{"title":"milk","done":true},{"title":"eggs","done":true}]`
	p.okAll([]cliCase{
		{[]string{"checkIO", cli, "0"}, toggled + "\n"},
		{[]string{"checkLocal", local, "1"}, toggled + "\n"},
		{[]string{"count", `["a","b","a"]`}, `[["a",2],["b",1]]` + "\n"},
		{[]string{"countLet", `["a","b","a"]`}, `[["a",1],["b",1]]` + "\n"},
		{[]string{"first"}, "7\n"},
		{[]string{"describe", "bob", "3"}, `"{\"name\":\"bob\",\"age\":3}"` + "\n"},
		{[]string{"older", "bob", "3"}, "4\n"},
	})
	for _, path := range []string{cli, local} {
		if data, err := os.ReadFile(path); err != nil || strings.TrimSpace(string(data)) != toggled {
			t.Errorf("%s after the command: %s, %v; want %s", path, data, err, toggled)
		}
	}
	if out := p.ok("checkIO", cli, "1"); out != `[{"title":"milk","done":true},{"title":"eggs","done":false}]`+"\n" {
		t.Errorf("checkIO of the saved file: %q", out)
	}
	p.toolsOK([]toolCall{
		{"checkIO", map[string]any{"_1": tool, "_2": 1}, `[{"title":"milk","done":false},{"title":"eggs","done":false}]`},
		{"count", map[string]any{"_1": []string{"x", "y", "y"}}, `[["x",1],["y",2]]`},
		{"first", map[string]any{}, "7"},
		{"describe", map[string]any{"_1": "ann", "_2": 5}, `"{\"name\":\"ann\",\"age\":5}"`},
		{"older", map[string]any{"_1": "ann", "_2": 5}, "6"},
	})
	p.checkClean()
}

// TestAnonymousRecordInAPool: a record literal without a declared record
// given to a Python function is a build error saying what to declare.
func TestAnonymousRecordInAPool(t *testing.T) {
	bad := files{"todo.py": "def names(xs):\n    return [x[\"name\"] for x in xs]\n", "main.loc": `module main (f)
source Py from "todo.py" ("names")
names :: [a] -> [Str]
f :: Str -> [Str]
f n = names [{name = n, age = 3}]
`}
	if msg := makeFails(t, bad); !strings.Contains(msg, "main.loc:5:13: argument 1 of names (run in the Py pool) holds {name = Str, age = Int}, the anonymous type of a record literal") {
		t.Errorf("an anonymous record given to a Python function: %q", msg)
	}
}
