package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// js is the output line of a Str result s.
func js(s string) string {
	out, err := types.ToJSON(types.StrType, s)
	if err != nil {
		panic(err)
	}
	return string(out) + "\n"
}

// testFiles writes the files that file tokens name; "$DIR" in an argument
// stands for their folder.
func testFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"list.json":     "[1, 2,\n 3]\n",
		"bad.json":      `[1, "two"]`,
		"point.json":    `{"x": 1, "y": 2.5, "label": "p"}`,
		"settings.json": `{"tmp_dir": "/file", "threads": 8}`,
		"str.json":      "  \"from a file\"\n",
		"plain.txt":     "just text, not JSON\n",
		"any.json":      "{ \"b\": [1, 2],\n  \"a\": \"é\" }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func expand(argv []string, dir string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, "$DIR", dir)
	}
	return out
}

// TestRunSuccess: command lines that run, with their exact output.
func TestRunSuccess(t *testing.T) {
	dir := testFiles(t)
	cases := []struct {
		name  string
		argv  []string
		stdin string
		want  string
	}{
		{"positionals", []string{"add", "1", "2"}, "", "3\n"},
		{"negative numbers are values", []string{"add", "-1", "-2"}, "", "-3\n"},
		{"named positional", []string{"hello-there", "hi"}, "", js("hi")},
		{"pure command", []string{"pure", "7"}, "", "[7,1,2]\n"},
		{"pure command without arguments", []string{"answer"}, "", "42\n"},

		{"option defaults", []string{"opts"}, "", js(`["none",3]`)},
		{"short option", []string{"opts", "-l", "x"}, "", js(`["x",3]`)},
		{"long options", []string{"opts", "--label", "x", "--count", "5"}, "", js(`["x",5]`)},
		{"long options with =", []string{"opts", "--label=a b", "--count=-2"}, "", js(`["a b",-2]`)},
		{"option value that looks like an option", []string{"opts", "--count", "-5", "--label", "--x"}, "", js(`["--x",-5]`)},
		{"JSON string for a Str option", []string{"opts", "--count", "7", "-l", `"q"`}, "", js(`["q",7]`)},
		{"short option with attached value", []string{"opts", "-lx"}, "", js(`["x",3]`)},
		{"short option with =", []string{"opts", "-l=x"}, "", js(`["x",3]`)},
		{"option given twice: the last wins", []string{"opts", "-l", "a", "-l", "b"}, "", js(`["b",3]`)},

		{"flags default", []string{"flags", "bob"}, "", js(`["bob",1,false,false]`)},
		{"flag", []string{"flags", "-s", "bob"}, "", js(`["bob",1,true,false]`)},
		{"options around positionals", []string{"flags", "-n", "4", "bob", "--shout"}, "", js(`["bob",4,true,false]`)},
		{"negation", []string{"flags", "--shout", "--whisper", "bob"}, "", js(`["bob",1,false,false]`)},
		{"bundled short flags", []string{"flags", "-sq", "bob"}, "", js(`["bob",1,true,true]`)},
		{"bundled flag and option", []string{"flags", "-qn", "7", "bob"}, "", js(`["bob",7,false,true]`)},
		{"bundled flag and attached value", []string{"flags", "-qn7", "bob"}, "", js(`["bob",7,false,true]`)},

		{"-- ends options", []string{"echo", "--", "--help"}, "", js("--help")},
		{"a lone dash is a value", []string{"echo", "-"}, "", js("-")},

		{"many positional", []string{"variadic", "1", "2", "3"}, "", "3\n"},
		{"many positional, none", []string{"variadic"}, "", "0\n"},
		{"many positional, a JSON list among the values", []string{"variadic", "[1,2]", "3"}, "", "3\n"},
		{"many positional, a file holding a list", []string{"variadic", "$DIR/list.json", "4"}, "", "4\n"},
		{"many positional after an option", []string{"scale", "-f", "2", "1", "2.5"}, "", js(`[2,[1,2.5]]`)},
		{"option after many positional", []string{"scale", "1", "2", "--factor", "0.5"}, "", js(`[0.5,[1,2]]`)},
		{"many option", []string{"manyopt", "-x", "1", "--add", "2", "--add=3"}, "", "3\n"},
		{"many option, none", []string{"manyopt"}, "", "0\n"},

		{"stdin text", []string{"fromstdin"}, "from the pipe", js("from the pipe")},
		{"stdin text loses its last line break only", []string{"fromstdin"}, "two\nlines\n\n", js("two\nlines\n")},
		{"stdin JSON string", []string{"fromstdin"}, `"json \"q\""`, js(`json "q"`)},
		{"stdin argument given", []string{"fromstdin", "given"}, "ignored", js("given")},
		{"stdin argument as -", []string{"fromstdin", "-"}, "piped", js("piped")},
		{"stdin JSON list", []string{"stdinlist"}, "[1, 2, 3]\n", "3\n"},

		{"group: defaults and a field option", []string{"unrolled", "--threads", "2"}, "",
			js(`[{"tmp_dir":"/tmp","threads":2,"verbose":false,"label":null}]`)},
		{"group: every field", []string{"unrolled", "-t", "/scratch", "--threads", "4", "-v", "--label", "x"}, "",
			js(`[{"tmp_dir":"/scratch","threads":4,"verbose":true,"label":"x"}]`)},
		{"group: whole record", []string{"unrolled", "--config", `{"threads":2,"verbose":true}`}, "",
			js(`[{"tmp_dir":"/tmp","threads":2,"verbose":true,"label":null}]`)},
		{"group: field options override the whole record", []string{"unrolled", "--threads", "1", "--config", `{"threads":9,"verbose":true,"tmp_dir":"/cfg"}`, "--tmp-dir", "/over", "--quiet"}, "",
			js(`[{"tmp_dir":"/over","threads":1,"verbose":false,"label":null}]`)},
		{"group: whole record from a file", []string{"unrolled", "-c", "$DIR/settings.json"}, "",
			js(`[{"tmp_dir":"/file","threads":8,"verbose":false,"label":null}]`)},

		{"no action", []string{"actions", "1", "2"}, "", "[1,2]\n"},
		{"with action", []string{"actions", "--lines", "1", "2"}, "", js("1\n2")},
		{"render action", []string{"actions", "-r", "1", "2"}, "", "1\n2\n"},
		{"render action after the values", []string{"actions", "1", "--raw"}, "", "1\n"},

		{"optional option given", []string{"optional", "--maybe", "5"}, "", "5\n"},
		{"optional option omitted", []string{"optional"}, "", ""},
		{"explicit null", []string{"optional", "--maybe", "null"}, "", ""},
		{"--keep-null before the command", []string{"--keep-null", "optional"}, "", "null\n"},
		{"--keep-null after the command", []string{"optional", "--keep-null"}, "", "null\n"},
		{"unit result", []string{"nothing", "3"}, "", ""},
		{"unit result kept", []string{"nothing", "--keep-null", "3"}, "", "null\n"},
		{"unit positional omitted", []string{"unit"}, "", js("[null]")},
		{"unit positional given", []string{"unit", "null"}, "", js("[null]")},
		{"trailing optional positional omitted", []string{"optpos", "1"}, "", js(`[1,null]`)},
		{"trailing optional positional given", []string{"optpos", "1", "2"}, "", js(`[1,2]`)},

		{"Json object", []string{"anyjson", `{"b": [1, 2.50], "a": null}`}, "", `[{"b":[1,2.50],"a":null},null]` + "\n"},
		{"Json string, unicode and a big integer", []string{"anyjson", `"é ✓"`, "--extra", "9007199254740993"}, "", `["é ✓",9007199254740993]` + "\n"},
		{"Json null is a value, an omitted ?Json none", []string{"anyjson", "null"}, "", "[null,null]\n"},
		{"Json from a file", []string{"anyjson", "$DIR/any.json", "--extra=[true]"}, "", `[{"b":[1,2],"a":"é"},[true]]` + "\n"},
		{"list from a file", []string{"ints", "$DIR/list.json"}, "", "[1,2,3]\n"},
		{"record as JSON", []string{"point", `{"label":"q","y":2,"x":1}`}, "", `{"x":1,"y":2,"label":"q"}` + "\n"},
		{"record from a file", []string{"point", "$DIR/point.json"}, "", `{"x":1,"y":2.5,"label":"p"}` + "\n"},
		{"Str from a file holding a JSON string", []string{"echo", "$DIR/str.json"}, "", js("from a file")},
		{"Str naming a file that is not JSON is the name", []string{"echo", "$DIR/plain.txt"}, "", js(dir + "/plain.txt")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := runCLI(testProgram(), c.stdin, expand(c.argv, dir)...)
			if res.code != ExitOK || res.stdout != c.want || res.stderr != "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0 and %q", c.argv, res.code, res.stdout, res.stderr, c.want)
			}
		})
	}
}

// TestStringsRoundTrip: text reaches the function and comes back byte for
// byte, whether given as JSON or as it is.
func TestStringsRoundTrip(t *testing.T) {
	cases := []struct{ token, text string }{
		{"hello", "hello"},
		{`"quoted"`, "quoted"},
		{`"a \"q\" \\ b\nc"`, "a \"q\" \\ b\nc"},
		{"42", "42"},
		{"null", "null"},
		{"true", "true"},
		{"[1,2]", "[1,2]"},
		{"", ""},
		{"héllo wörld ✓ 日本 🧬", "héllo wörld ✓ 日本 🧬"},
		{`say "hi"`, `say "hi"`},
		{`C:\path\new`, `C:\path\new`},
		{"line1\nline2\ttab\r\n", "line1\nline2\ttab\r\n"},
		{"<a&b> 'single'", "<a&b> 'single'"},
		{`"unterminated`, `"unterminated`},
		{"\u2028\x7f\x01", "\u2028\x7f\x01"},
	}
	for _, c := range cases {
		res := runCLI(testProgram(), "", "echo", c.token)
		if res.code != ExitOK || res.stdout != js(c.text) {
			t.Errorf("echo %q: exit %d, %q (stderr %q); want %q", c.token, res.code, res.stdout, res.stderr, js(c.text))
		}
		res = runCLI(testProgram(), "", "opts", "--label="+c.token)
		if want := js(`[` + strings.TrimSuffix(js(c.text), "\n") + `,3]`); res.code != ExitOK || res.stdout != want {
			t.Errorf("opts --label=%q: exit %d, %q; want %q", c.token, res.code, res.stdout, want)
		}
	}
}

// TestSingleCommand: a program with one command runs it with or without
// its name.
func TestSingleCommand(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"3"}, "4\n"},
		{[]string{"add", "3"}, "4\n"},
		{[]string{"3", "-b", "5"}, "8\n"},
		{[]string{"--by", "5", "3"}, "8\n"},
		{[]string{"--keep-null", "add", "3"}, "4\n"},
	} {
		res := runCLI(singleProgram(), "", c.argv...)
		if res.code != ExitOK || res.stdout != c.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %q", c.argv, res.code, res.stdout, res.stderr, c.want)
		}
	}
}

// TestErrors: each failure has its exit code and one clear message, and
// prints nothing on stdout.
func TestErrors(t *testing.T) {
	dir := testFiles(t)
	cases := []struct {
		prog func() *manifest.Manifest
		argv []string
		code int
		want []string // stderr must contain each
	}{
		{demo, []string{"flgas", "x"}, ExitUsage, []string{"error: unknown command 'flgas' (did you mean 'flags'?)", "run 'demo --help' for usage"}},
		{demo, []string{"renamed", "x"}, ExitUsage, []string{"unknown command 'renamed'", "hello-there"}},
		{demo, []string{"--bogus"}, ExitUsage, []string{"unknown option '--bogus'"}},
		{demo, []string{"--keep-nul"}, ExitUsage, []string{"did you mean '--keep-null'?"}},
		{demo, []string{"--tmp-dir", "x", "unrolled"}, ExitUsage, []string{"'--tmp-dir' belongs to command unrolled", "demo unrolled --tmp-dir"}},
		{demo, []string{"opts", "--cuont", "3"}, ExitUsage, []string{"unknown option '--cuont' (did you mean '--count'?)", "run 'demo opts --help' for usage"}},
		{demo, []string{"flags", "bob", "--nope"}, ExitUsage, []string{"unknown option '--nope'"}},
		{demo, []string{"flags", "-z", "bob"}, ExitUsage, []string{"unknown option '-z'"}},
		{demo, []string{"flags", "-sz", "bob"}, ExitUsage, []string{"unknown option '-z' in '-sz'"}},
		{demo, []string{"flags", "--shout=yes", "bob"}, ExitUsage, []string{"option '--shout' takes no value"}},
		{demo, []string{"flags"}, ExitUsage, []string{"missing argument who", "run 'demo flags --help' for usage"}},
		{demo, []string{"add"}, ExitUsage, []string{"missing argument 1, argument 2"}},
		{demo, []string{"flags", "a", "b"}, ExitUsage, []string{`too many arguments: flags takes 1 positional argument, got 2 (unexpected "b")`}},
		{demo, []string{"answer", "1"}, ExitUsage, []string{"too many arguments: answer takes no positional arguments"}},
		{demo, []string{"opts", "--label"}, ExitUsage, []string{"option '--label' needs a value (<Str>)"}},
		{demo, []string{"add", "1.5", "2"}, ExitUsage, []string{"invalid value for argument 1: expected Int, got 1.5"}},
		{demo, []string{"add", "1", "x"}, ExitUsage, []string{`invalid value for argument 2: expected Int, got "x"`}},
		{demo, []string{"add", "99999999999999999999", "1"}, ExitUsage, []string{"does not fit in 64 bits"}},
		{demo, []string{"opts", "--count", "x"}, ExitUsage, []string{`invalid value for --count: expected Int, got "x"`}},
		{demo, []string{"ints", `[1,"a"]`}, ExitUsage, []string{"expected [Int]", `at [1]: expected an integer, got the string "a"`}},
		{demo, []string{"ints", "$DIR/bad.json"}, ExitUsage, []string{"bad.json does not hold [Int]", "at [1]"}},
		{demo, []string{"ints", "$DIR/missing.json"}, ExitUsage, []string{"expected [Int] as JSON or a file holding it", "missing.json"}},
		{demo, []string{"point", `{"x":1}`}, ExitUsage, []string{"invalid value for p", `missing field "y"`}},
		{demo, []string{"variadic", "1", "x"}, ExitUsage, []string{`invalid value for argument 1: expected Int, got "x"`}},
		{demo, []string{"stdinlist"}, ExitUsage, []string{"expected [Int] as JSON or a file holding it on standard input"}},
		{demo, []string{"anyjson", "hello"}, ExitUsage, []string{`invalid value for data: expected Json (JSON text or a file holding it; a string needs its quotes, like '"text"'), got "hello"`}},
		{demo, []string{"anyjson", `{"a":1,}`}, ExitUsage, []string{`invalid value for data: expected Json`}},
		{demo, []string{"anyjson", "1", "--extra", "NaN"}, ExitUsage, []string{`invalid value for --extra: expected ?Json (JSON text`}},
		{demo, []string{"scale", "1"}, ExitUsage, []string{"missing option --factor"}},
		{demo, []string{"unrolled"}, ExitUsage, []string{"missing option --threads"}},
		{demo, []string{"unrolled", "--threads", "x"}, ExitUsage, []string{`invalid value for --threads: expected Int, got "x"`}},
		{demo, []string{"unrolled", "--config", `{"threads":1,"bogus":1}`}, ExitUsage, []string{`invalid value for --config: record Settings has no field "bogus"`}},
		{demo, []string{"unrolled", "--config", `{"threads":"many"}`}, ExitUsage, []string{`invalid value for --config: field threads: expected an integer, got the string "many"`}},
		// The whole record is read whole, as over MCP, even where a field
		// option gives the field.
		{demo, []string{"unrolled", "--threads", "2", "-c", `{"threads":"many"}`}, ExitUsage, []string{`invalid value for -c: field threads: expected an integer`}},
		{demo, []string{"unrolled", "-c", `{"threads":"x"}`}, ExitUsage, []string{"invalid value for -c: field threads: expected an integer"}},
		{demo, []string{"unrolled", "--config", "nonsense"}, ExitUsage, []string{"expected Settings as JSON or a file holding it"}},
		{demo, []string{"actions", "--lines", "--raw", "1"}, ExitUsage, []string{"only one output action at a time: '--lines' and '--raw'"}},
		{single, []string{"x"}, ExitUsage, []string{"invalid value for a", "run 'adder --help' for usage"}},
		{single, []string{"1", "2"}, ExitUsage, []string{"too many arguments"}},

		{demo, []string{"fail", "3"}, ExitFailure, []string{"error: fail: Traceback (most recent call last):", "ValueError: bad value: 3"}},
		// Control characters in a message (a terminal escape from a
		// function or another MCP server) are shown, not obeyed; line
		// breaks and tabs stay.
		{demo, []string{"fail", "--", "-1"}, ExitFailure, []string{"ValueError: bad value: -1\\x1b[2J\\x07\\u009b\tend\n"}},
		{demo, []string{"thrown", "1"}, ExitFailure, []string{"error: this command always fails"}},
	}
	for _, c := range cases {
		argv := expand(c.argv, dir)
		res := runCLI(c.prog(), "", argv...)
		if res.code != c.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", argv, res.code, c.code, res.stderr)
			continue
		}
		if res.stdout != "" {
			t.Errorf("%q: failed but printed %q on stdout", argv, res.stdout)
		}
		for _, w := range c.want {
			if !strings.Contains(res.stderr, w) {
				t.Errorf("%q: stderr %q lacks %q", argv, res.stderr, w)
			}
		}
		if c.code == ExitUsage {
			if res.poolsStarted != 0 {
				t.Errorf("%q: a usage error started the pools", argv)
			}
			if lines := strings.Count(res.stderr, "\n"); lines != 2 {
				t.Errorf("%q: usage error in %d lines, want the message and a hint: %q", argv, lines, res.stderr)
			}
		}
	}
}

// TestHelp: help goes to stdout with exit 0, says what matters, and starts
// no pool.
func TestHelp(t *testing.T) {
	cases := []struct {
		prog    func() *manifest.Manifest
		argv    []string
		want    []string
		notWant []string
	}{
		{demo, []string{"--help"}, []string{
			"usage: demo [--keep-null] <command> [arguments]",
			"A program that uses every argument kind.\nIts description has two lines.",
			"  add               Add two numbers\n",
			"  hello-there       Echo a word\n",
			"--keep-null",
			"Run 'demo <command> --help'",
		}, []string{"More about adding."}},
		{demo, []string{"-h"}, []string{"usage: demo", "commands:"}, nil},
		{demo, nil, []string{"usage: demo", "commands:"}, nil},
		{demo, []string{"anyjson", "--help"}, []string{
			"usage: demo anyjson [options] data\n",
			`data <JSON>`, `JSON text, like '{"a":1}', '[1,2]' or '"a string"'`,
			`--extra <JSON>`,
		}, nil},
		{demo, []string{"add", "--help"}, []string{
			"usage: demo add <Int> <Int>\n",
			"Add two numbers\nMore about adding.",
			"returns:\n  Int",
			"the sum",
		}, []string{"\noptions:"}},
		{demo, []string{"--help", "add"}, []string{"usage: demo add <Int> <Int>\n"}, nil},
		{demo, []string{"hello-there", "--help"}, []string{"usage: demo hello-there word\n", "word <Str>", "The word to echo", "the word, echoed"}, nil},
		{demo, []string{"opts", "-h"}, []string{
			"usage: demo opts [options]\n",
			`-l, --label <Str>  (default: "none")`,
			"    --count <Int>  (default: 3)",
		}, nil},
		{demo, []string{"scale", "--help"}, []string{
			"usage: demo scale [options] [xs...]\n",
			"xs <Real>...",
			"(zero or more)",
			"-f, --factor <Real>  The factor (required)",
		}, nil},
		{demo, []string{"flags", "--help"}, []string{
			"usage: demo flags [options] who\n",
			"-s, --shout / --whisper  Shout it (default: false)",
			"-n <Int>",
			"-q, --quick",
		}, nil},
		{demo, []string{"manyopt", "--help"}, []string{"-x, --add <Int>", "(takes one or more values, repeatable)"}, nil},
		{demo, []string{"optional", "--help"}, []string{"--maybe <?Int>", "(optional)"}, []string{"required"}},
		{demo, []string{"optpos", "--help"}, []string{"usage: demo optpos x [y]\n", "y <?Int>", "(optional)"}, nil},
		{demo, []string{"fromstdin", "--help"}, []string{"usage: demo fromstdin [text]\n", "read from standard input when omitted"}, nil},
		{demo, []string{"metav", "--help"}, []string{"usage: demo metav SEQ\n", "SEQ <Str>"}, nil},
		{demo, []string{"unrolled", "--help"}, []string{
			"Settings options: Settings of a run.",
			`-t, --tmp-dir <Str>      Where temporary files go (default: "/tmp")`,
			"    --threads <Int>      How many threads (required)",
			"-v, --verbose / --quiet  Be chatty (default: false)",
			"-c, --config <Settings>  the whole Settings record as JSON, or a file holding it",
			"the options above override its fields",
		}, nil},
		{demo, []string{"actions", "--help"}, []string{
			"output:",
			"-l, --lines            print lines of the result, as JSON",
			"-r, --raw              print lines of the result, as text",
			"-f, --format <FORMAT>  print the result as json, lines, raw (json: the result itself as JSON)",
		}, nil},
		// Help wins over mistakes on the same command line.
		{demo, []string{"opts", "--cuont", "--help"}, []string{"usage: demo opts"}, nil},
		{demo, []string{"flags", "-h", "a", "b"}, []string{"usage: demo flags"}, nil},
		{single, []string{"--help"}, []string{"usage: adder [options] a\n", "Adds numbers.", "Add two numbers", "-b, --by <Int>"}, nil},
		{single, []string{"add", "-h"}, []string{"usage: adder [options] a\n"}, nil},
	}
	for _, c := range cases {
		res := runCLI(c.prog(), "", c.argv...)
		if res.code != ExitOK || res.stderr != "" || res.poolsStarted != 0 {
			t.Errorf("%q: exit %d, stderr %q, pools started %d; want 0, nothing, 0", c.argv, res.code, res.stderr, res.poolsStarted)
		}
		for _, w := range c.want {
			if !strings.Contains(res.stdout, w) {
				t.Errorf("%q: help lacks %q:\n%s", c.argv, w, res.stdout)
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(res.stdout, w) {
				t.Errorf("%q: help has %q:\n%s", c.argv, w, res.stdout)
			}
		}
	}
}

// TestPoolsOnlyWhenNeeded: NewPools is called once for a command that
// calls a pool, and never for a pure one.
func TestPoolsOnlyWhenNeeded(t *testing.T) {
	res := runCLI(testProgram(), "", "pure", "1")
	if res.code != ExitOK || res.poolsStarted != 0 {
		t.Errorf("pure: exit %d, pools started %d; want 0, 0", res.code, res.poolsStarted)
	}
	res = runCLI(testProgram(), "", "add", "1", "2")
	if res.code != ExitOK || res.poolsStarted != 1 || strings.Join(res.calls, ",") != "add" {
		t.Errorf("add: exit %d, pools started %d, calls %v; want 0, 1, [add]", res.code, res.poolsStarted, res.calls)
	}
}

func TestPoolsThatCannotStart(t *testing.T) {
	var errb strings.Builder
	r := &Runner{
		M:        testProgram(),
		NewPools: func() (dispatch.Caller, error) { return nil, errors.New("python3 not found on PATH") },
		Stdout:   &strings.Builder{},
		Stderr:   &errb,
	}
	if code := r.Run(context.Background(), []string{"add", "1", "2"}); code != ExitFailure {
		t.Errorf("exit %d, want %d", code, ExitFailure)
	}
	if !strings.Contains(errb.String(), "error: start pools: python3 not found on PATH") {
		t.Errorf("stderr %q", errb.String())
	}
}

func TestGivenPools(t *testing.T) {
	var out strings.Builder
	pools := &fakePools{}
	r := &Runner{M: testProgram(), Pools: pools, Stdout: &out, Stderr: &out}
	if code := r.Run(context.Background(), []string{"add", "40", "2"}); code != ExitOK || out.String() != "42\n" {
		t.Errorf("exit %d, output %q", code, out.String())
	}
	if len(pools.calls) != 1 {
		t.Errorf("calls %v", pools.calls)
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var errb strings.Builder
	r := &Runner{M: testProgram(), Pools: &fakePools{}, Stdout: &strings.Builder{}, Stderr: &errb}
	if code := r.Run(ctx, []string{"add", "1", "2"}); code != ExitFailure || errb.String() != "error: interrupted\n" {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestManyKeepsTypedLists: a whole list given to a variadic argument (as
// JSON or a file) stays the typed slice its reader made, so a large list
// of reals is not boxed item by item on its way to the pool; items given
// one by one, or a mix, are a []any of the same values.
func TestManyKeepsTypedLists(t *testing.T) {
	r := &Runner{M: testProgram(), Prog: "demo"}
	for _, c := range []struct {
		argv []string
		want any
	}{
		{[]string{"scale", "-f", "1", "[1.5, 2.5]"}, []float64{1.5, 2.5}},
		{[]string{"scale", "-f", "1", "[1.5]", "[2.5, 3]"}, []float64{1.5, 2.5, 3}},
		{[]string{"scale", "-f", "1", "1.5", "[2.5]"}, []any{1.5, 2.5}},
		{[]string{"scale", "-f", "1", "1.5", "2.5"}, []any{1.5, 2.5}},
		{[]string{"manyopt", "--add", "[1, 2]", "--add", "[3]"}, []int64{1, 2, 3}},
		{[]string{"manyopt", "--add", "[1, 2]", "--add", "3"}, []any{int64(1), int64(2), int64(3)}},
	} {
		inv, err := r.parse(c.argv)
		if err != nil {
			t.Errorf("%q: %v", c.argv, err)
			continue
		}
		got := inv.args[len(inv.args)-1]
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %#v, want %#v", c.argv, got, c.want)
		}
	}
}
