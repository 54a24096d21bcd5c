package codegen

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
)

// The `@` docstring grammar and the older `key: value` one, in every
// position a directive may stand (language.md, "Docstring directives").

// atLine is a directive line in the `@` spelling.
var atLine = regexp.MustCompile(`(?m)^(\s*--' )@([A-Za-z_][A-Za-z0-9_.-]*)(.*)$`)

// bareTrue are the directives whose bare `@key` means true.
var bareTrue = map[string]bool{"many": true, "stdin": true, "unroll": true, "literal": true}

// colonTwin is src with every `@key value` directive written `key: value`
// (a bare `@many` as `many: true`).
func colonTwin(src string) string {
	return atLine.ReplaceAllStringFunc(src, func(line string) string {
		m := atLine.FindStringSubmatch(line)
		value := strings.TrimSpace(m[3])
		if value == "" && bareTrue[m[2]] {
			value = "true"
		}
		return strings.TrimRight(m[1]+m[2]+": "+value, " ")
	})
}

// manifestJSON is m as JSON, to compare two builds.
func manifestJSON(t *testing.T, m *manifest.Manifest) string {
	t.Helper()
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docHeader is the start of each test program: a module and the sourced
// functions of chem.py.
const docHeader = `module m (%s)

source Py from "chem.py" ("upper", "shout", "count", "lines", "describe_config")

upper :: Str -> Str
shout :: Str -> Int -> Str
count :: [Int] -> Int
lines :: [Int] -> Str
describe_config :: Opts -> Str

record Opts where
  size :: Int
record Py => Opts = "dict"
`

func TestDocGrammarBothSpellings(t *testing.T) {
	arg0 := func(m *manifest.Manifest) manifest.Arg { return m.Commands[0].Args[0] }
	tests := []struct {
		name, exports, text string
		// check says the directives took effect, in the @ build.
		check func(m *manifest.Manifest) string
	}{
		{"module description and epilogue", "f", `--' The program.
--'   indented line
--' @epilogue
--' For example
--'   prog f x
--' @epilogue See also: man prog
` + "%s" + `
f :: Str -> Str
f = upper`, func(m *manifest.Manifest) string {
			return fmt.Sprintf("%q|%q", m.Doc, m.Epilogue)
		}},
		{"command: name, return, title, icon", "f", `%s
--' Shouts.
--' @name yell
--' @return the louder text
--' @title Yell it
--' @icon https://example.com/i.png
f :: Str -> Str
f = upper`, func(m *manifest.Manifest) string {
			c := m.Commands[0]
			return fmt.Sprintf("%s|%s|%s|%v|%q", c.Name, c.ReturnDoc, c.Title, c.Icons, c.Doc)
		}},
		{"command: with and render", "f", `%s
--' @with -l/--lines=lines
--' @render -r/--raw=lines
f ::
  --' @many
  [Int] -> [Int]
f xs = xs`, func(m *manifest.Manifest) string {
			c := m.Commands[0]
			return fmt.Sprintf("%d %s %s %v", len(c.Actions), c.Actions[0].Kind, c.Actions[1].Kind, c.Args[0].Many)
		}},
		{"argument: name, metavar, description", "f", `%s
f ::
  --' The text
  --' @name text
  --' @metavar TEXT
  Str ->
  Str
f = upper`, func(m *manifest.Manifest) string {
			a := arg0(m)
			return fmt.Sprintf("%s %s %q", a.Name, a.Metavar, a.Doc)
		}},
		{"argument: option with default", "f", `%s
f ::
  --' @arg -t/--text
  --' @default "hi"
  Str ->
  Str
f = upper`, func(m *manifest.Manifest) string {
			a := arg0(m)
			return fmt.Sprintf("%s %s %s %s", a.Kind, a.Short, a.Long, a.Default)
		}},
		{"argument: flags", "f", `%s
f ::
  --' @true -y/--yes
  --' @false --no
  Bool ->
  Bool
f b = b`, func(m *manifest.Manifest) string {
			a := arg0(m)
			return fmt.Sprintf("%s %s %s %s %s", a.Kind, a.Short, a.Long, a.FalseLong, a.Default)
		}},
		{"argument: many option, many positional", "f", `%s
f ::
  --' @arg --add
  --' @many
  --' @default []
  [Int] ->
  --' @many true
  [Int] ->
  Int
f xs ys = count ys`, func(m *manifest.Manifest) string {
			c := m.Commands[0]
			return fmt.Sprintf("%s %v %s %v", c.Args[0].Kind, c.Args[0].Many, c.Args[1].Kind, c.Args[1].Many)
		}},
		{"argument: stdin", "f", `%s
f ::
  --' @stdin
  Str ->
  Str
f = upper`, func(m *manifest.Manifest) string { return fmt.Sprint(arg0(m).Stdin) }},
		{"argument: source file and check.path", "f", `%s
f ::
  --' @source file
  --' @check.path r
  Str ->
  --' @source inline
  --' @check.path x
  Str ->
  Str
f a b = upper a`, func(m *manifest.Manifest) string {
			c := m.Commands[0]
			return fmt.Sprintf("%s %s|%s %s", c.Args[0].Source, c.Args[0].CheckPath, c.Args[1].Source, c.Args[1].CheckPath)
		}},
		{"argument: unroll on the argument", "f", `%s
f ::
  --' @unroll
  Opts ->
  Str
f = describe_config`, func(m *manifest.Manifest) string {
			a := arg0(m)
			return fmt.Sprintf("%s %d %s", a.Kind, len(a.Fields), a.Fields[0].Long)
		}},
		{"argument: unroll false overrides the record's", "f", `%s
--' @unroll
record Conf where
  --' @default 1
  size :: Int
record Py => Conf = "dict"
f ::
  --' @unroll false
  Conf ->
  --' @stdin false
  Str ->
  Int
f c s = 1`, func(m *manifest.Manifest) string {
			c := m.Commands[0]
			return fmt.Sprintf("%s %s %v", c.Args[0].Kind, c.Args[1].Kind, c.Args[1].Stdin)
		}},
		{"return type's description and return directive", "f, g", `%s
f ::
  Str ->
  --' the louder text
  Str
f = upper
g ::
  Str ->
  --' @return the loudest text
  Str
g = upper`, func(m *manifest.Manifest) string {
			return m.Commands[0].ReturnDoc + "|" + m.Commands[1].ReturnDoc
		}},
		{"alias: every directive inherited", "f", `%s
--' A todo file
--' @arg --todo-file
--' @default "todo.json"
--' @metavar FILE
--' @check.path w
type TodoFile = Str
--' @true --all
type All = Bool
--' @many
type Words = [Int]
f :: TodoFile -> All -> Words -> Int
f t a ws = count ws`, func(m *manifest.Manifest) string {
			c := m.Commands[0]
			a := c.Args[0]
			return fmt.Sprintf("%s %s %s %s %s %q|%s %s|%v", a.Kind, a.Long, a.Default, a.Metavar, a.CheckPath, a.Doc, c.Args[1].Kind, c.Args[1].Long, c.Args[2].Many)
		}},
		{"alias: source file", "f", `%s
--' @source file
type Text = Str
f :: Text -> Str
f = upper`, func(m *manifest.Manifest) string { return arg0(m).Source }},
		{"newtype: its docstring describes its uses", "f", `%s
--' A name
--' @metavar NAME
newtype Name = Str
f :: Name -> Int
f n = 1`, func(m *manifest.Manifest) string {
			a := arg0(m)
			return fmt.Sprintf("%s %q", a.Metavar, a.Doc)
		}},
		{"record and fields", "f", `%s
--' Settings
--' @unroll
--' @arg -c/--config
--' @metavar CONF
record Conf where
  --' @arg -n/--count
  --' @default 2
  --' @metavar N
  count :: Int
  --' @true --loud
  --' @false --quiet
  loud :: Bool
record Py => Conf = "dict"
f :: Conf -> Int
f c = 1`, func(m *manifest.Manifest) string {
			a := arg0(m)
			return fmt.Sprintf("%s %s %s|%s %s %s|%s %s", a.Kind, a.Long, a.Metavar, a.Fields[0].Long, a.Fields[0].Metavar, a.Fields[0].Default, a.Fields[1].Kind, a.Fields[1].FalseLong)
		}},
		{"object declaration", "f", `%s
--' @unroll
object Obj where
  --' @default 1
  size :: Int
record Py => Obj = "dict"
f :: Obj -> Int
f o = 1`, func(m *manifest.Manifest) string {
			return fmt.Sprintf("%s %s", arg0(m).Kind, arg0(m).Fields[0].Default)
		}},
		{"definition: description and name", "f", `%s
--' From the signature
f :: Str -> Str
--' From the definition
--' @name ff
f = upper`, func(m *manifest.Manifest) string {
			return fmt.Sprintf("%s %q", m.Commands[0].Name, m.Commands[0].Doc)
		}},
		{"source item: name", "f", `%s
source Py from "chem.py" where
  --' @name upper
  up
up :: Str -> Str
f :: Str -> Str
f = up`, func(m *manifest.Manifest) string {
			var got []string
			for _, fn := range m.Functions {
				got = append(got, fn.Name+"="+fn.Source)
			}
			return strings.Join(got, " ")
		}},
		{"effect-typed signature keeps its docstrings", "f", `%s
source Py from "chem.py" ("upper" as f)
--' Reads it.
--' @name read-it
f ::
  --' the file
  --' @arg --file
  --' @default "x"
  <IO> Str ->
  --' its text
  <IO, Err> Str`, func(m *manifest.Manifest) string {
			c := m.Commands[0]
			return fmt.Sprintf("%s %q %s %s %q", c.Name, c.Doc, c.Args[0].Long, c.ReturnDoc, c.Args[0].Doc)
		}},
	}
	want := map[string]string{
		"module description and epilogue":                `["The program." "  indented line"]|["For example" "  prog f x" "" "See also: man prog"]`,
		"command: name, return, title, icon":             `yell|the louder text|Yell it|[https://example.com/i.png]|["Shouts."]`,
		"command: with and render":                       "2 with render true",
		"argument: name, metavar, description":           `text TEXT ["The text"]`,
		"argument: option with default":                  `option t text "hi"`,
		"argument: flags":                                "flag y yes no false",
		"argument: many option, many positional":         "option true positional true",
		"argument: stdin":                                "true",
		"argument: source file and check.path":           "file r| x",
		"argument: unroll on the argument":               "group 1 size",
		"return type's description and return directive": "the louder text|the loudest text",
		"alias: every directive inherited":               `option todo-file "todo.json" FILE w ["A todo file"]|flag all|true`,
		"argument: unroll false overrides the record's":  "positional positional false",
		"alias: source file":                             "file",
		"newtype: its docstring describes its uses":      `NAME ["A name"]`,
		"record and fields":                              "group config CONF|count N 2|flag quiet",
		"object declaration":                             "group 1",
		"definition: description and name":               `ff ["From the definition"]`,
		"source item: name":                              "up=upper",
		"effect-typed signature keeps its docstrings":    `read-it ["Reads it."] file its text ["the file"]`,
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			header := fmt.Sprintf(docHeader, tc.exports)
			// %s is the header: the module docstring stands above it.
			at := fmt.Sprintf(tc.text, header)
			colon := colonTwin(at)
			if colon == at {
				t.Fatalf("the twin is the same program:\n%s", at)
			}
			pa, pc := compileOK(t, at), compileOK(t, colon)
			if len(pa.Warnings) > 0 || len(pc.Warnings) > 0 {
				t.Errorf("warnings:\n%s\n%s", strings.Join(pa.Warnings, "\n"), strings.Join(pc.Warnings, "\n"))
			}
			if a, c := manifestJSON(t, pa.Manifest), manifestJSON(t, pc.Manifest); a != c {
				t.Errorf("the two spellings differ:\n@: %s\nkey: value: %s\nprogram:\n%s", a, c, colon)
			}
			if got := tc.check(pa.Manifest); got != want[tc.name] {
				t.Errorf("got %s\nwant %s", got, want[tc.name])
			}
		})
	}
}

// TestDocGrammarErrors: each misuse of a directive is a build error at the
// directive (or its value), in both spellings.
func TestDocGrammarErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"argument directive above a signature", "--' @arg --x\nf :: Str -> Str\nf = upper",
			"@arg describes one argument, so it must sit next to that argument"},
		{"default above a signature", "--' @default 3\nf :: Str -> Str\nf = upper", "@default describes one argument"},
		{"many above a signature", "--' @many\nf :: [Int] -> Int\nf = count", "@many describes one argument"},
		{"metavar above a signature", "--' @metavar X\nf :: Str -> Str\nf = upper", "@metavar describes one argument"},
		{"true above a signature", "--' @true --y\nf :: Bool -> Bool\nf b = b", "@true describes one argument"},
		{"false above a signature", "--' @false --n\nf :: Bool -> Bool\nf b = b", "@false describes one argument"},
		{"unroll above a signature", "--' @unroll\nf :: Opts -> Str\nf = describe_config", "@unroll describes one argument"},
		{"source above a signature", "--' @source file\nf :: Str -> Str\nf = upper", "@source describes one argument"},
		{"check.path above a signature", "--' @check.path r\nf :: Str -> Str\nf = upper", "@check.path describes one argument"},
		{"stdin above a signature", "--' @stdin\nf :: Str -> Str\nf = upper", "@stdin describes one argument"},
		{"with above a definition", "f :: [Int] -> [Int]\n--' @with --l=lines\nf xs = xs", "@with above a definition is an error"},
		{"render above a definition", "f :: [Int] -> [Int]\n--' @render --l=lines\nf xs = xs", "@render above a definition is an error"},
		{"with on an alias", "--' @with --l=lines\ntype Xs = [Int]\nf :: Xs -> Int\nf = count", "@with on type Xs is an error"},
		{"name starting with _", "f ::\n  --' @name _bad\n  Str ->\n  Str\nf = upper", "name: '_bad' must not start with '_'"},
		{"name starting with _ on an option", "f ::\n  --' @arg --x\n  --' @default \"\"\n  --' @name _bad\n  Str ->\n  Str\nf = upper", "name: '_bad' must not start with '_'"},
		{"form", "f ::\n  --' @form list\n  [Str] ->\n  Int\nf xs = 1", "@form is Morloc's, and not supported yet by nexus"},
		{"list.form", "f ::\n  --' @list.form list\n  [Str] ->\n  Int\nf xs = 1", "@list.form is Morloc's, and not supported yet"},
		{"list.source", "f ::\n  --' @list.source file\n  [Str] ->\n  Int\nf xs = 1", "@list.source is Morloc's, and not supported yet"},
		{"list.check.path", "f ::\n  --' @list.check.path r\n  [Str] ->\n  Int\nf xs = 1", "@list.check.path is Morloc's, and not supported yet"},
		{"rsize on a source item", "source Py from \"chem.py\" where\n  --' @rsize 2\n  upper as up2\nf :: Str -> Str\nf = upper", "@rsize is Morloc's, and not supported yet"},
		{"stream in a with spec", "--' @with --l=lines @stream\nf :: [Int] -> [Int]\nf xs = xs", "@stream in @with is Morloc's, and not supported yet"},
		{"other directive on a source item", "source Py from \"chem.py\" where\n  --' @arg --x\n  upper as up2\nf :: Str -> Str\nf = upper", "@arg cannot stand above a sourced item"},
		{"source file on a non-Str", "f ::\n  --' @source file\n  Int ->\n  Int\nf x = x", "@source file reads the text of the file an argument names, which needs a Str argument; this one is Int"},
		{"source with a bad value", "f ::\n  --' @source fil\n  Str ->\n  Str\nf = upper", "@source expects inline or file, got 'fil' (did you mean 'file'?)"},
		{"check.path with a bad value", "f ::\n  --' @check.path q\n  Str ->\n  Str\nf = upper", "@check.path expects r (readable), w (writable), x (must not exist) or rw"},
		{"check.path on a non-Str", "f ::\n  --' @check.path r\n  Int ->\n  Int\nf x = x", "@check.path checks a path, which is a Str argument; this one is Int"},
		{"source file with stdin", "f ::\n  --' @stdin\n  --' @source file\n  Str ->\n  Str\nf = upper", "@source file and stdin: both say where the text comes from"},
		{"bad bool", "f ::\n  --' @many maybe\n  [Int] ->\n  Int\nf = count", "many: expected true or false, got 'maybe'"},
	}
	for _, tc := range tests {
		for _, spelling := range []string{"@", "key: value"} {
			t.Run(tc.name+"/"+spelling, func(t *testing.T) {
				src := fmt.Sprintf(docHeader, "f") + tc.text
				want := tc.want
				if spelling != "@" {
					src = colonTwin(src)
					want = colonMessage(want)
				}
				errs := compileErrors(t, src)
				found := false
				for _, e := range errs {
					// "line:col: message", at the directive.
					if i := strings.Index(e, ": "); i > 0 && strings.HasPrefix(e[i+2:], want) {
						found = true
						line := lineOf(t, e)
						if !strings.Contains(strings.Split(src, "\n")[line-1], "--'") {
							t.Errorf("error not at a docstring line: %s", e)
						}
					}
				}
				if !found {
					t.Errorf("no error %q among:\n%s", want, strings.Join(errs, "\n"))
				}
			})
		}
	}
}

// colonMessage is an error message naming a directive as `key:` where the
// @ spelling's names it `@key`.
func colonMessage(msg string) string {
	return regexp.MustCompile(`@(arg|default|many|metavar|true|false|unroll|source|check\.path|stdin|with|render|form|list\.form|list\.source|list\.check\.path|rsize)\b`).
		ReplaceAllStringFunc(msg, func(s string) string {
			// "@stream" is a word of the with spec, the same in both.
			return s[1:] + ":"
		})
}

func lineOf(t *testing.T, e string) int {
	t.Helper()
	var line, col int
	if _, err := fmt.Sscanf(e, "%d:%d:", &line, &col); err != nil {
		t.Fatalf("no position in %q", e)
	}
	return line
}

// TestDocGrammarWarnings: an unknown key is a warning with a suggestion,
// the line kept as description; @literal is accepted with a warning
// naming @source inline; an escaped line is text.
func TestDocGrammarWarnings(t *testing.T) {
	src := fmt.Sprintf(docHeader, "f") + `--' Shouts.
--' \@name not-a-directive
--' \Note: not a directive either
f ::
  --' @metavr X
  --' @literal
  Str ->
  Str
f = upper`
	for _, s := range []string{src, colonTwin(src)} {
		p := compileOK(t, s)
		got := strings.Join(p.Warnings, "\n")
		for _, want := range []string{"unknown directive 'metavr'; kept as description text (did you mean 'metavar'?)", "is deprecated: a string argument is taken literally already; write @source inline"} {
			if !strings.Contains(got, want) {
				t.Errorf("warnings lack %q:\n%s", want, got)
			}
		}
		c := p.Manifest.Commands[0]
		if !reflect.DeepEqual(c.Doc, []string{"Shouts.", "@name not-a-directive", "Note: not a directive either"}) || c.Name != "f" {
			t.Errorf("command %s doc %q", c.Name, c.Doc)
		}
		if len(c.Args[0].Doc) != 1 || !strings.Contains(c.Args[0].Doc[0], "metavr") {
			t.Errorf("argument doc %q", c.Args[0].Doc)
		}
	}
}
