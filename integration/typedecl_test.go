package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// typeDeclFiles is a program written with Morloc's `type` declarations:
// aliases (one with a docstring its uses inherit, parameterized ones, an
// alias of an alias) and language type maps, of built-in types (left
// aside), of a record (its type in that language) and in a language
// nexus has no pool for.
var typeDeclFiles = files{
	"main.loc": `module todo (add, grid, best)

--' The TODO list's file
--' @arg -f/--todo-file
--' @default "todo.json"
type TodoFile = Str
--' @metavar TITLE
type Title = Str
type Heading = Title
type Pair a b = (a, b)
type (Grid a) = [[a]]

type Py => Int = "int"
type Py => Real = "float"
type Py => (List a) = "list" a
type Cpp => (List a) = "std::vector<$1>" a
type R => Real = "numeric"
type Py => Entry = "dict"

record Entry where
  title :: Title
  score :: Real

source Py from "todo.py" ("add", "grid", "best")

--' Add an entry to a list
add :: TodoFile -> Heading -> Pair Str Int
--' A grid of n rows
grid :: Int -> Grid Real
--' The best entry
best :: [Entry] -> Entry
`,
	"todo.py": `def add(path, title):
    return [path + ":" + title, len(title)]

def grid(n):
    return [[float(i * j) for j in range(2)] for i in range(n)]

def best(entries):
    return max(entries, key=lambda e: e["score"])
`,
}

// TestTypeDeclarations: a program using aliases and language type maps
// builds; its aliases are the types they stand for on the command line
// and over MCP, and an argument takes its option, default and metavar
// from its alias's docstring.
func TestTypeDeclarations(t *testing.T) {
	p := build(t, typeDeclFiles)
	if out := p.ok("add", "milk"); out != `["todo.json:milk",4]`+"\n" {
		t.Errorf("add milk: %q", out)
	}
	if out := p.ok("add", "-f", "home.json", "eggs"); out != `["home.json:eggs",4]`+"\n" {
		t.Errorf("add -f home.json eggs: %q", out)
	}
	help := p.ok("add", "--help")
	for _, want := range []string{"-f, --todo-file", "todo.json", "TITLE", "The TODO list's file"} {
		if !strings.Contains(help, want) {
			t.Errorf("add --help lacks %q:\n%s", want, help)
		}
	}
	if out := p.ok("grid", "2"); out != "[[0,0],[0,1]]\n" {
		t.Errorf("grid 2: %q", out)
	}
	if out := p.ok("best", `[{"title":"a","score":1},{"title":"b","score":2.5}]`); out != `{"title":"b","score":2.5}`+"\n" {
		t.Errorf("best: %q", out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]string{}
	for _, tool := range tools.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		schemas[tool.Name] = string(b)
	}
	for name, wants := range map[string][]string{
		"add":  {`"todo-file":{"default":"todo.json","description":"The TODO list's file`, `"_1":{"type":"string"}`},
		"grid": {`"type":"integer"`},
	} {
		for _, want := range wants {
			if !strings.Contains(schemas[name], want) {
				t.Errorf("%s's input schema lacks %s: %s", name, want, schemas[name])
			}
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"_1": "tea"}})
	if err != nil || res.IsError || toolText(res) != `["todo.json:tea",3]` {
		t.Errorf("add over MCP: %+v (%s), %v", res, toolText(res), err)
	}
	cs.Close()
	p.checkClean()
}
