package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// directivesProgram exercises every row of the directive table of
// language.md, in both spellings.
var directivesProgram = files{
	"fns.py": `
import json

def show(*args):
    return json.dumps(args, separators=(",", ":"))

def lines(xs):
    return "\n".join(str(x) for x in xs)

def count(xs):
    return len(xs)
`,
	"main.loc": `
--' A program that uses every docstring directive.
--' It has a two-line description.
module directives (renamed, opts, flags, variadic, manyopt, fromstdin, unrolled, actions, optional, metav)

import root-py

source Py from "fns.py" ("show" as show2, "show" as show3, "show" as show1, "lines", "count")

show1 :: Str -> Str
show2 :: Str -> Int -> Str
show3 :: Str -> Int -> Bool -> Str
lines :: [Int] -> Str
count :: [Int] -> Int

--' Settings of a run.
--' unroll: true
--' arg: -c/--config
record Settings where
  --' Where temporary files go
  --' arg: -t/--tmp-dir
  --' default: "/tmp"
  tmp_dir :: Str
  --' How many threads
  --' default: 1
  threads :: Int
  --' Be chatty
  --' true: -v/--verbose
  --' false: --quiet
  --' default: false
  verbose :: Bool

record Py => Settings = "dict"

--' Shows a command renamed with name:
--' @name hello-there
--' return: the word, echoed
--' title: Hello there
--' icon: https://example.com/hello.png
--' @icon data:image/png;base64,iVBORw0KGgo=
renamed ::
  --' @name word
  --' The word to echo
  Str ->
  Str
renamed w = show1 w

--' Options in every spelling.
opts ::
  --' arg: -l/--label
  --' default: "none"
  Str ->
  --' @arg --count
  --' @default 3
  Int ->
  Str
opts l n = show2 l n

--' Flags and their negations.
flags ::
  --' @name who
  Str ->
  --' A number
  --' arg: -n
  --' default: 1
  Int ->
  --' Shout it
  --' true: -s/--shout
  --' false: --whisper
  Bool ->
  Str
flags w n s = show3 w n s

--' A variadic positional.
variadic ::
  --' many: true
  [Int] ->
  Int
variadic xs = count xs

--' A repeated option.
manyopt ::
  --' @arg -x/--add
  --' @many
  --' default: []
  [Int] ->
  Int
manyopt xs = count xs

--' Reads standard input when the argument is omitted.
fromstdin ::
  --' stdin: true
  Str ->
  Str
fromstdin s = show1 s

--' An unrolled record.
unrolled :: Settings -> Str
unrolled s = show1 (.tmp_dir s)

--' Output actions.
--' with: -l/--lines=lines
--' render: -r/--raw=lines
actions ::
  --' many: true
  [Int] ->
  [Int]
actions xs = xs

--' An optional option.
optional ::
  --' arg: --maybe
  ?Int ->
  ?Int
optional m = m

--' Metavar shown in help.
metav ::
  --' metavar: SEQ
  --' The sequence
  Str ->
  Str
metav s = show1 s
`,
}

func TestDirectives(t *testing.T) {
	p := build(t, directivesProgram)

	t.Run("name and return", func(t *testing.T) {
		if got := p.ok("hello-there", "hi"); got != `"[\"hi\"]"`+"\n" {
			t.Errorf("renamed command: %q", got)
		}
		stderr := p.fails(2, "renamed", "hi")
		if !strings.Contains(stderr, "hello-there") {
			t.Errorf("unknown old name should suggest the new one: %q", stderr)
		}
		help := p.ok("hello-there", "--help")
		for _, want := range []string{"word", "The word to echo", "the word, echoed", "Str"} {
			if !strings.Contains(help, want) {
				t.Errorf("help of hello-there lacks %q:\n%s", want, help)
			}
		}
	})

	t.Run("program help", func(t *testing.T) {
		help := p.ok("--help")
		for _, want := range []string{"A program that uses every docstring directive.", "hello-there", "Shows a command renamed with name:", "unrolled", "An unrolled record."} {
			if !strings.Contains(help, want) {
				t.Errorf("program help lacks %q:\n%s", want, help)
			}
		}
		if strings.Contains(help, "@name") || strings.Contains(help, "return:") || strings.Contains(help, "title:") || strings.Contains(help, "icon") {
			t.Errorf("program help shows directives:\n%s", help)
		}
	})

	t.Run("options", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"opts"}, `["none",3]`},
			{[]string{"opts", "-l", "x"}, `["x",3]`},
			{[]string{"opts", "--label", "x", "--count", "5"}, `["x",5]`},
			{[]string{"opts", "--label=a b", "--count=-2"}, `["a b",-2]`},
			{[]string{"opts", "--count", "7", "-l", `"q"`}, `["q",7]`},
		} {
			if got := p.ok(c.args...); got != jsonStr(c.want) {
				t.Errorf("%v = %q, want %q", c.args, got, jsonStr(c.want))
			}
		}
		if stderr := p.fails(2, "opts", "--cuont", "3"); !strings.Contains(stderr, "--count") {
			t.Errorf("unknown option should suggest --count: %q", stderr)
		}
		if stderr := p.fails(2, "opts", "--count", "x"); !strings.Contains(stderr, "count") {
			t.Errorf("malformed option value should name it: %q", stderr)
		}
		help := p.ok("opts", "--help")
		for _, want := range []string{"-l, --label", "--count", "none", "3"} {
			if !strings.Contains(help, want) {
				t.Errorf("help of opts lacks %q:\n%s", want, help)
			}
		}
	})

	t.Run("flags", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"flags", "bob"}, `["bob",1,false]`},
			{[]string{"flags", "-s", "bob"}, `["bob",1,true]`},
			{[]string{"flags", "bob", "--shout", "-n", "4"}, `["bob",4,true]`},
			{[]string{"flags", "--shout", "--whisper", "bob"}, `["bob",1,false]`},
		} {
			if got := p.ok(c.args...); got != jsonStr(c.want) {
				t.Errorf("%v = %q, want %q", c.args, got, jsonStr(c.want))
			}
		}
		help := p.ok("flags", "--help")
		for _, want := range []string{"--shout", "--whisper", "Shout it"} {
			if !strings.Contains(help, want) {
				t.Errorf("help of flags lacks %q:\n%s", want, help)
			}
		}
	})

	t.Run("many", func(t *testing.T) {
		if got := p.ok("variadic", "1", "2", "3"); got != "3\n" {
			t.Errorf("variadic 1 2 3 = %q", got)
		}
		if got := p.ok("variadic"); got != "0\n" {
			t.Errorf("variadic with nothing = %q", got)
		}
		if got := p.ok("manyopt", "-x", "1", "--add", "2", "--add=3"); got != "3\n" {
			t.Errorf("manyopt = %q", got)
		}
		if got := p.ok("manyopt"); got != "0\n" {
			t.Errorf("manyopt with nothing = %q", got)
		}
	})

	t.Run("stdin", func(t *testing.T) {
		res := p.runStdin([]byte("from the pipe"), "fromstdin")
		if res.code != 0 || res.stdout != jsonStr(`["from the pipe"]`) {
			t.Errorf("fromstdin < text: exit %d, %q (stderr %s)", res.code, res.stdout, res.stderr)
		}
		if got := p.ok("fromstdin", "given"); got != jsonStr(`["given"]`) {
			t.Errorf("fromstdin given = %q", got)
		}
	})

	t.Run("unroll and whole record", func(t *testing.T) {
		if got := p.ok("unrolled"); got != jsonStr(`["/tmp"]`) {
			t.Errorf("unrolled with defaults = %q", got)
		}
		if got := p.ok("unrolled", "-t", "/scratch", "--threads", "4", "-v"); got != jsonStr(`["/scratch"]`) {
			t.Errorf("unrolled -t = %q", got)
		}
		if got := p.ok("unrolled", "--config", `{"tmp_dir":"/cfg","threads":2,"verbose":true}`); got != jsonStr(`["/cfg"]`) {
			t.Errorf("unrolled --config = %q", got)
		}
		if got := p.ok("unrolled", "--config", `{"tmp_dir":"/cfg","threads":2,"verbose":true}`, "--tmp-dir", "/over"); got != jsonStr(`["/over"]`) {
			t.Errorf("field option should override --config: %q", got)
		}
		cfg := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(cfg, []byte(`{"tmp_dir": "/file", "threads": 8, "verbose": false}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := p.ok("unrolled", "-c", cfg); got != jsonStr(`["/file"]`) {
			t.Errorf("unrolled -c FILE = %q", got)
		}
		help := p.ok("unrolled", "--help")
		for _, want := range []string{"-t, --tmp-dir", "--threads", "-v, --verbose", "--quiet", "--config", "Where temporary files go"} {
			if !strings.Contains(help, want) {
				t.Errorf("help of unrolled lacks %q:\n%s", want, help)
			}
		}
	})

	t.Run("output actions", func(t *testing.T) {
		if got := p.ok("actions", "1", "2"); got != "[1,2]\n" {
			t.Errorf("actions plain = %q", got)
		}
		if got := p.ok("actions", "--lines", "1", "2"); got != jsonStr("1\n2") {
			t.Errorf("actions --lines = %q", got)
		}
		if got := p.ok("actions", "-r", "1", "2"); got != "1\n2\n" {
			t.Errorf("actions --raw = %q", got)
		}
	})

	t.Run("optional", func(t *testing.T) {
		if got := p.ok("optional", "--maybe", "5"); got != "5\n" {
			t.Errorf("optional --maybe 5 = %q", got)
		}
		if got := p.ok("optional"); got != "" {
			t.Errorf("optional omitted = %q", got)
		}
	})

	t.Run("metavar", func(t *testing.T) {
		if help := p.ok("metav", "--help"); !strings.Contains(help, "SEQ") {
			t.Errorf("help of metav lacks SEQ:\n%s", help)
		}
	})

	t.Run("title and icon", func(t *testing.T) {
		// What a client of each revision is shown of hello-there besides
		// its name and description.
		for _, tc := range []struct{ version, want string }{
			{"2025-11-25", `"title":"Hello there","icons":[{"src":"https://example.com/hello.png"},{"src":"data:image/png;base64,iVBORw0KGgo="}]`},
			{"2025-06-18", `"title":"Hello there"`},
			{"2025-03-26", ``},
		} {
			c := startMCPConn(t, p)
			c.initialize(tc.version)
			var list struct {
				Tools []map[string]json.RawMessage `json:"tools"`
			}
			if err := json.Unmarshal(c.request(1, "tools/list", nil).Result, &list); err != nil {
				t.Fatal(err)
			}
			c.closeAll()
			var got []string
			for _, tool := range list.Tools {
				if string(tool["name"]) != `"hello-there"` {
					continue
				}
				for _, key := range []string{"title", "icons"} {
					if v, ok := tool[key]; ok {
						got = append(got, `"`+key+`":`+string(v))
					}
				}
			}
			if strings.Join(got, ",") != tc.want {
				t.Errorf("%s: hello-there has %s, want %s", tc.version, strings.Join(got, ","), tc.want)
			}
		}
	})

	t.Run("usage errors", func(t *testing.T) {
		if stderr := p.fails(2, "flgas", "x"); !strings.Contains(stderr, "flags") {
			t.Errorf("unknown command should suggest flags: %q", stderr)
		}
		p.fails(2, "flags")                      // missing positional
		p.fails(2, "flags", "a", "b")            // too many
		p.fails(2, "opts", "--label")            // option without its value
		p.fails(2, "flags", "bob", "--nope")     // unknown flag
		p.fails(2, "unrolled", "--threads", "x") // malformed field
	})
}

// jsonStr is the output line for a Str result whose text is s.
func jsonStr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString("\"\n")
	return b.String()
}
