package cli

import (
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// pngBytes are bytes that are not UTF-8, as an image's are.
const pngBytes = "\x89PNG\r\n\x1a\n\x00\xff\xfe"

// formatProgram is the test program with a @default render action and
// two media results.
func formatProgram() *manifest.Manifest {
	m := testProgram()
	c := cmd(m, "listing", []string{"A default renderer."}, "idList", pos("", types.ListOf(I)))
	c.Args[0].Many = true
	lines := fnID(m, "lines")
	linesOfResult := &manifest.Expr{Kind: manifest.Call, Type: S, Ref: lines, Args: []*manifest.Expr{
		{Kind: manifest.Var, Type: types.ListOf(I), Ref: 0}}}
	c.Actions = []manifest.Action{
		{Kind: "render", Short: "s", Long: "shout", Body: linesOfResult, Return: S, Default: true},
		{Kind: "with", Short: "l", Long: "lines", Body: linesOfResult, Return: S},
	}
	c = cmd(m, "image", []string{"Bytes of an image."}, "ident", pos("data", S))
	c.Mime = "image/png"
	c = cmd(m, "table", []string{"A CSV text."}, "ident", pos("data", S))
	c.Mime = "text/csv"
	if err := m.Validate(); err != nil {
		panic(err)
	}
	return m
}

func TestFormat(t *testing.T) {
	cases := []struct {
		name string
		argv []string
		want string
	}{
		{"default action", []string{"listing", "1", "2"}, "1\n2\n"},
		{"-f json: the result itself", []string{"listing", "-f", "json", "1", "2"}, "[1,2]\n"},
		{"--format json", []string{"listing", "1", "--format", "json", "2"}, "[1,2]\n"},
		{"--format=json", []string{"listing", "--format=json", "1"}, "[1]\n"},
		{"-f with an action's name", []string{"listing", "-f", "lines", "1", "2"}, js("1\n2")},
		{"an action's own flag wins over the default", []string{"listing", "--lines", "1"}, js("1")},
		{"-f raw: the default output", []string{"listing", "-f", "raw", "1"}, "1\n"},
		{"-f naming the flag given too", []string{"listing", "-f", "shout", "-s", "3"}, "3\n"},
		{"a command without a default", []string{"actions", "-f", "json", "1"}, "[1]\n"},
		{"a command without a default, -f raw", []string{"actions", "-f", "raw", "1"}, "1\n"},
		{"media bytes as they are", []string{"image", pngBytes}, pngBytes},
		{"media as JSON", []string{"image", "-f", "json", "abc"}, js("abc")},
		{"media text gets a final line break", []string{"table", "a,b\n1,2"}, "a,b\n1,2\n"},
		{"media text that has one", []string{"table", "a,b\n"}, "a,b\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := runCLI(formatProgram(), "", c.argv...)
			if res.code != ExitOK || res.stdout != c.want || res.stderr != "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, %q", c.argv, res.code, res.stdout, res.stderr, c.want)
			}
		})
	}
}

func TestFormatErrors(t *testing.T) {
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"listing", "-f", "yaml", "1"}, "invalid value for -f: 'yaml' (expected json, shout, lines, raw)"},
		{[]string{"listing", "-f", "json", "--lines", "1"}, "'-f json' and '--lines' ask for two outputs; give one"},
		{[]string{"listing", "--format", "shout", "--lines", "1"}, "'--format shout' and '--lines' ask for two outputs"},
		{[]string{"listing", "1", "-f"}, "option '-f' needs a value (<FORMAT>: json, shout, lines, raw)"},
		{[]string{"echo", "-f", "json", "x"}, "unknown option '-f' (-f is an option of a command with output actions or a media result; echo prints its result as JSON already)"},
		{[]string{"echo", "--format=json", "x"}, "unknown option '--format' (--format is an option"},
		{[]string{"echo", "-fjson", "x"}, "unknown option '-fjson' (-f is an option"},
	}
	for _, c := range cases {
		res := runCLI(formatProgram(), "", c.argv...)
		if res.code != ExitUsage || !strings.Contains(res.stderr, c.want) || res.poolsStarted != 0 {
			t.Errorf("%q: exit %d, stderr %q, pools %d; want %d and %q", c.argv, res.code, res.stderr, res.poolsStarted, ExitUsage, c.want)
		}
	}
}

func TestFormatHelp(t *testing.T) {
	for argv, want := range map[string][]string{
		"listing --help": {"usage: demo listing [options] [<Int>...]", "-s, --shout            print lines of the result, as text (the default)",
			"-f, --format <FORMAT>  print the result as json, shout, lines, raw (json: the result itself as JSON; default: shout)"},
		"image --help": {"usage: demo image [options] data", "Str (image/png)", "-f, --format <FORMAT>  print the result as json, raw (json: the result itself as JSON; default: the image/png content as it is)"},
	} {
		res := runCLI(formatProgram(), "", strings.Fields(argv)...)
		for _, w := range want {
			if !strings.Contains(res.stdout, w) {
				t.Errorf("%s: help lacks %q:\n%s", argv, w, res.stdout)
			}
		}
	}
}

// TestFormatActionNames: -f knows an action by the name _render and
// ?render= know it by (manifest.Action.Name): a short-only action by its
// letter, one called --raw by its short name too (-f raw still asks for
// it, as before). The first was refused by -f and shown as "default: )".
func TestFormatActionNames(t *testing.T) {
	m := formatProgram()
	lines := fnID(m, "lines")
	linesOfResult := &manifest.Expr{Kind: manifest.Call, Type: S, Ref: lines, Args: []*manifest.Expr{
		{Kind: manifest.Var, Type: types.ListOf(I), Ref: 0}}}
	c := cmd(m, "short", []string{"Short-named actions."}, "idList", pos("", types.ListOf(I)))
	c.Args[0].Many = true
	c.Actions = []manifest.Action{
		{Kind: "render", Short: "u", Body: linesOfResult, Return: S, Default: true},
		{Kind: "with", Short: "r", Long: "raw", Body: linesOfResult, Return: S},
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"short", "1", "2"}, "1\n2\n"},
		{[]string{"short", "-f", "u", "1", "2"}, "1\n2\n"},
		{[]string{"short", "-f", "r", "1", "2"}, js("1\n2")},
		{[]string{"short", "--raw", "1", "2"}, js("1\n2")},
		{[]string{"short", "-f", "raw", "1", "2"}, js("1\n2")}, // the action called --raw
		{[]string{"short", "-f", "json", "1", "2"}, "[1,2]\n"},
	} {
		res := runCLI(m, "", tc.argv...)
		if res.code != ExitOK || res.stdout != tc.want || res.stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, %q", tc.argv, res.code, res.stdout, res.stderr, tc.want)
		}
	}
	res := runCLI(m, "", "short", "--help")
	if want := "print the result as json, u, raw (json: the result itself as JSON; default: u)"; !strings.Contains(res.stdout, want) {
		t.Errorf("help lacks %q:\n%s", want, res.stdout)
	}
}
