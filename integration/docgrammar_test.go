package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A program written all in Morloc's `@` docstring grammar and its twin
// written all in `key: value` build to the same program: the same help,
// the same results on the command line, the same MCP tools.

const docGrammarPy = `
import json

def show(*args):
    return json.dumps(args, separators=(",", ":"))

def lines(xs):
    return "\n".join(str(x) for x in xs)

def count(xs):
    return len(xs)

def echo(s):
    return s
`

// docGrammarAt is the program in the @ spelling.
const docGrammarAt = `--' A program written all in the @ grammar.
--'   An indented line stays indented.
--' \@this line is text
--' @epilogue
--' See the documentation for more.
module docs (greet, opts, flags, variadic, fromstdin, readit, outpath, unrolled, actions, labelled, slurp)

source Py from "fns.py" where
  --' @name show
  show1
  --' @name show
  show2
  --' @name show
  show3
  lines
  count
  echo
  --' @name echo
  slurp

show1 :: Str -> Str
show2 :: Str -> Int -> Str
show3 :: Str -> Int -> Bool -> Str
lines :: [Int] -> Str
count :: [Int] -> Int
echo :: Str -> Str

--' A label for everything
--' @arg -L/--label
--' @default "plain"
--' @metavar LABEL
type Label = Str

--' Settings of a run.
--' @unroll
--' @arg -c/--config
record Settings where
  --' Where temporary files go
  --' @arg -t/--tmp-dir
  --' @default "/tmp"
  tmp_dir :: Str
  --' Be chatty
  --' @true -v/--verbose
  --' @false --quiet
  verbose :: Bool

record Py => Settings = "dict"

--' Greets someone.
--' @name hello
--' @return the greeting
--' @title Say hello
greet ::
  --' Who to greet
  --' @name who
  Str ->
  Str
greet w = show1 w

--' Options.
opts ::
  --' @arg -l/--label
  --' @default "none"
  Str ->
  --' @arg --count
  --' @default 3
  --' @metavar N
  Int ->
  Str
opts l n = show2 l n

--' Flags.
flags ::
  Str ->
  --' @arg -n
  --' @default 1
  Int ->
  --' Shout it
  --' @true -s/--shout
  --' @false --whisper
  Bool ->
  Str
flags w n s = show3 w n s

--' Variadic.
variadic ::
  --' @many
  [Int] ->
  Int
variadic xs = count xs

--' Reads standard input when the argument is omitted.
fromstdin ::
  --' @stdin
  Str ->
  Str
fromstdin s = show1 s

--' Reads a file's text.
readit ::
  --' The file to read
  --' @source file
  --' @check.path r
  Str ->
  Str
readit s = echo s

--' Checks an output path.
outpath ::
  --' Where to write
  --' @check.path x
  Str ->
  Str
outpath p = echo p

--' An unrolled record.
unrolled :: Settings -> Str
unrolled s = show1 (.tmp_dir s)

--' Output actions.
--' @with -l/--lines=lines
actions ::
  --' @many
  [Int] ->
  [Int]
actions xs = xs

--' The signature's description.
labelled :: Label -> Str
--' Labels from an alias; this description wins.
labelled l = show1 l

--' Reads all of standard input.
slurp ::
  --' @stdin
  <IO> Str ->
  --' the text
  <IO, Err> Str
`

// docGrammarColon is docGrammarAt with every `@key value` directive
// written `key: value`.
func docGrammarColon(t *testing.T) string {
	re := regexp.MustCompile(`(?m)^(\s*--' )@([a-z][a-z.]*)(.*)$`)
	out := re.ReplaceAllStringFunc(docGrammarAt, func(line string) string {
		m := re.FindStringSubmatch(line)
		value := strings.TrimSpace(m[3])
		if value == "" && (m[2] == "many" || m[2] == "stdin" || m[2] == "unroll") {
			value = "true"
		}
		return strings.TrimRight(m[1]+m[2]+": "+value, " ")
	})
	if strings.Contains(out, "--' @") || !strings.Contains(out, "check.path: r") {
		t.Fatalf("the twin still has @ directives:\n%s", out)
	}
	return out
}

func TestDocGrammarTwins(t *testing.T) {
	twins := map[string]*program{
		"@":          build(t, files{"fns.py": docGrammarPy, "main.loc": docGrammarAt}),
		"key: value": build(t, files{"fns.py": docGrammarPy, "main.loc": docGrammarColon(t)}),
	}
	dir := t.TempDir()
	text := filepath.Join(dir, "text.txt")
	if err := os.WriteFile(text, []byte("\"quoted\" text\nof two lines\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// What each twin answers; the two must be the same, and must be these.
	type answer struct {
		args []string
		out  string
	}
	calls := []answer{
		{[]string{"hello", "ann"}, jsonStr(`["ann"]`)},
		{[]string{"opts"}, jsonStr(`["none",3]`)},
		{[]string{"opts", "-l", "x", "--count", "5"}, jsonStr(`["x",5]`)},
		{[]string{"flags", "bob"}, jsonStr(`["bob",1,false]`)},
		{[]string{"flags", "-s", "bob", "-n", "4"}, jsonStr(`["bob",4,true]`)},
		{[]string{"flags", "--shout", "--whisper", "bob"}, jsonStr(`["bob",1,false]`)},
		{[]string{"variadic", "1", "2", "3"}, "3\n"},
		{[]string{"variadic"}, "0\n"},
		{[]string{"fromstdin", "given"}, jsonStr(`["given"]`)},
		{[]string{"readit", text}, jsonStr("\"quoted\" text\nof two lines\n")},
		{[]string{"outpath", filepath.Join(dir, "new.txt")}, jsonStr(filepath.Join(dir, "new.txt"))},
		{[]string{"unrolled"}, jsonStr(`["/tmp"]`)},
		{[]string{"unrolled", "-t", "/scratch", "-v"}, jsonStr(`["/scratch"]`)},
		{[]string{"unrolled", "--config", `{"tmp_dir":"/cfg","verbose":true}`}, jsonStr(`["/cfg"]`)},
		{[]string{"actions", "1", "2"}, "[1,2]\n"},
		{[]string{"actions", "--lines", "1", "2"}, jsonStr("1\n2")},
		{[]string{"labelled"}, jsonStr(`["plain"]`)},
		{[]string{"labelled", "-L", "fancy"}, jsonStr(`["fancy"]`)},
		{[]string{"slurp", "abc"}, jsonStr("abc")},
	}
	helps := [][]string{{"--help"}, {"hello", "--help"}, {"opts", "--help"}, {"flags", "--help"}, {"readit", "--help"},
		{"outpath", "--help"}, {"unrolled", "--help"}, {"actions", "--help"}, {"labelled", "--help"}, {"slurp", "--help"}, {"--mcp-tools"}}

	seen := map[string]map[string]string{} // spelling → what → output
	for spelling, p := range twins {
		got := map[string]string{}
		for _, c := range calls {
			out := p.ok(c.args...)
			if out != c.out {
				t.Errorf("%s: %v = %q, want %q", spelling, c.args, out, c.out)
			}
			got[strings.Join(c.args, " ")] = out
		}
		for _, h := range helps {
			got[strings.Join(h, " ")] = p.ok(h...)
		}
		res := p.runStdin([]byte("from the pipe\n"), "fromstdin")
		got["fromstdin < pipe"] = res.stdout
		if res.code != 0 || res.stdout != jsonStr(`["from the pipe"]`) {
			t.Errorf("%s: fromstdin < pipe: exit %d, %q %s", spelling, res.code, res.stdout, res.stderr)
		}
		res = p.runStdin([]byte("all of it"), "slurp")
		got["slurp < pipe"] = res.stdout
		if res.code != 0 || res.stdout != jsonStr("all of it") {
			t.Errorf("%s: slurp < pipe: exit %d, %q %s", spelling, res.code, res.stdout, res.stderr)
		}
		// The path preconditions, before any pool runs.
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"readit", filepath.Join(dir, "missing.txt")}, "cannot be read: no such file or directory"},
			{[]string{"outpath", text}, "exists already, and must not"},
		} {
			msg := p.fails(2, c.args...)
			if !strings.Contains(msg, c.want) {
				t.Errorf("%s: %v: %q, want it to say %q", spelling, c.args, msg, c.want)
			}
			got[strings.Join(c.args, " ")] = msg
		}
		seen[spelling] = got
	}
	for what, at := range seen["@"] {
		if colon := seen["key: value"][what]; colon != at {
			t.Errorf("%s differs between the spellings:\n@:\n%s\nkey: value:\n%s", what, at, colon)
		}
	}

	help := seen["@"]["--help"]
	for _, want := range []string{"A program written all in the @ grammar.", "  An indented line stays indented.", "@this line is text", "hello"} {
		if !strings.Contains(help, want) {
			t.Errorf("program help lacks %q:\n%s", want, help)
		}
	}
	if !strings.HasSuffix(help, "\nSee the documentation for more.\n") {
		t.Errorf("program help does not end with the epilogue:\n%s", help)
	}
	if strings.Contains(help, "epilogue") {
		t.Errorf("program help shows the directive:\n%s", help)
	}
	for what, want := range map[string][]string{
		"readit --help":   {"The file to read", "the text of the file it names", "a readable path"},
		"outpath --help":  {"a path that must not exist"},
		"labelled --help": {"Labels from an alias; this description wins.", "-L, --label LABEL", "A label for everything"},
		"hello --help":    {"Greets someone.", "who", "Who to greet", "the greeting"},
		"slurp --help":    {"read from standard input when omitted", "the text"},
	} {
		for _, w := range want {
			if !strings.Contains(seen["@"][what], w) {
				t.Errorf("%s lacks %q:\n%s", what, w, seen["@"][what])
			}
		}
	}

	// The MCP tools as the Go SDK client lists them, and the commands
	// that read standard input, effect-typed or not, left out with one
	// stderr line each.
	lists := map[string]string{}
	for spelling, p := range twins {
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		cs, stderr := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		if want := "hello opts flags variadic readit outpath unrolled actions labelled"; strings.Join(names, " ") != want {
			t.Errorf("%s: tools %s, want %s", spelling, strings.Join(names, " "), want)
		}
		b, err := json.Marshal(list.Tools)
		if err != nil {
			t.Fatal(err)
		}
		lists[spelling] = string(b)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "outpath", Arguments: map[string]any{"_1": text}})
		if err != nil || !res.IsError || !strings.Contains(toolText(res), "exists already, and must not") {
			t.Errorf("%s: outpath of an existing file over MCP: %s, %v", spelling, toolText(res), err)
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "readit", Arguments: map[string]any{"_1": "the text itself"}})
		if err != nil || res.IsError || toolText(res) != `"the text itself"` {
			t.Errorf("%s: readit over MCP takes the text: %s, %v", spelling, toolText(res), err)
		}
		cs.Close()
		cancel()
		for _, line := range []string{
			"command fromstdin is not served as an MCP tool: it reads standard input",
			"command slurp is not served as an MCP tool: it reads standard input",
		} {
			if strings.Count(stderr.String(), line) != 1 {
				t.Errorf("%s: MCP stderr should say once %q:\n%s", spelling, line, stderr)
			}
		}
		p.checkClean()
	}
	if lists["@"] != lists["key: value"] {
		t.Errorf("tools/list differs:\n@: %s\nkey: value: %s", lists["@"], lists["key: value"])
	}
	if !strings.Contains(lists["@"], `"title":"Say hello"`) {
		t.Errorf("hello's title is missing: %s", lists["@"])
	}
}
