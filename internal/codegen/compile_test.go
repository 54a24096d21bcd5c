package codegen

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// library is the part of the test programs after the module header:
// sources, signatures and records, and nothing exported by itself.
const library = `
source Py from "chem.py" ("molecular_weight" as weightPy, "describe_config", "upper", "lines", "count", "shout")
source Cpp from "stats.hpp" ("summarize", "scale", "show")
source Go from "mathx.go" ("Clamp" as clamp, "Double" as double)

weightPy        :: Str -> Real
describe_config :: Settings -> Str
upper           :: Str -> Str
lines           :: [Real] -> Str
count           :: [Int] -> Int
shout           :: Str -> Int -> Str
summarize       :: [Real] -> Summary
scale           :: Real -> [Real] -> [Real]
show            :: Summary -> Str
clamp           :: Real -> Real -> Real -> Real
double          :: Int -> Int

--' Options.
--' unroll: true
--' arg: --config
record Settings where
  --' Output precision
  --' arg: -p
  --' default: 3
  precision :: Int
  --' Include hydrogens
  --' true: -H/--hydrogens
  hydrogens :: Bool
  --' Where to write
  --' metavar: DIR
  --' default: "/tmp"
  tmp_dir :: Str
  note :: ?Str

record Py => Settings = "dict"

record Summary where
  mean :: Real
  sd   :: Real

record Cpp => Summary = "summary_t"
`

// program is a test program exporting exports, with the library and then
// the given text.
func program(exports, text string) string {
	return "module m (" + exports + ")\n" + library + "\n" + text
}

// A language map of a record is the record's type in that language, as
// `record Lang => Name = "type"` says; a language nexus has no pool for
// is left aside.
func TestTypeLangOfRecord(t *testing.T) {
	p := compileOK(t, program("f", "type Go => Summary = \"Summary\"\ntype Julia => Summary = \"Summary\"\nf :: [Real] -> Summary\nf = summarize"))
	var got *types.Type
	for _, fn := range p.Manifest.Functions {
		if fn.Name == "summarize" {
			got = fn.Return
		}
	}
	if got == nil || !reflect.DeepEqual(got.Langs, map[string]string{"cpp": "summary_t", "go": "Summary"}) {
		t.Errorf("Summary's languages %v, want cpp and go", got)
	}
}

func TestArguments(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"positional", "f :: Str -> Str\nf s = upper s", []string{"positional type=Str"}},
		{"positional name and doc", "f ::\n  --' The text\n  --' to shout.\n  --' name: text\n  Str ->\n  Str\nf s = upper s",
			[]string{`positional name=text type=Str doc="The text|to shout."`}},
		{"at spelling", "f ::\n  --' @name text\n  --' @metavar TEXT\n  Str ->\n  Str\nf s = upper s",
			[]string{"positional name=text metavar=TEXT type=Str"}},
		{"Json option with an object default", "f ::\n  --' arg: --data\n  --' default: { \"b\": [1, 2], \"a\": null }\n  Json ->\n  Json\nf j = j",
			[]string{`option name=data long=data default={"b":[1,2],"a":null} type=Json`}},
		{"long option with default", "f ::\n  Str ->\n  --' arg: --times\n  --' default: 2\n  Int ->\n  Str\nf s n = shout s n",
			[]string{"positional type=Str", "option name=times long=times default=2 type=Int"}},
		{"short option, required", "f ::\n  Str ->\n  --' arg: -n\n  Int ->\n  Str\nf s n = shout s n",
			[]string{"positional type=Str", "option name=n short=n type=Int"}},
		{"both option names, Int default for a Real", "f ::\n  --' arg: -f/--factor\n  --' default: 1\n  Real ->\n  [Real] ->\n  [Real]\nf = scale",
			[]string{"option name=factor short=f long=factor default=1.0 type=Real", "positional type=[Real]"}},
		{"optional option without default", "f ::\n  --' arg: --limit\n  ?Int ->\n  Int\nf _ = 1",
			[]string{"option name=limit long=limit type=?Int"}},
		{"flag with true only", "f ::\n  --' true: --loud\n  Bool ->\n  Int\nf _ = 1",
			[]string{"flag name=loud long=loud default=false type=Bool"}},
		{"flag with false only", "f ::\n  --' false: -q/--quiet\n  Bool ->\n  Int\nf _ = 1",
			[]string{"flag name=quiet falseShort=q falseLong=quiet default=true type=Bool"}},
		{"flag with both and a default", "f ::\n  --' true: -l/--loud\n  --' false: --soft\n  --' default: true\n  Bool ->\n  Int\nf _ = 1",
			[]string{"flag name=loud short=l long=loud falseLong=soft default=true type=Bool"}},
		{"flag with short name only", "f ::\n  --' @true -v\n  Bool ->\n  Int\nf _ = 1",
			[]string{"flag name=v short=v default=false type=Bool"}},
		{"many on an option", "f ::\n  --' arg: -x\n  --' many: true\n  [Int] ->\n  Int\nf xs = count xs",
			[]string{"option name=x short=x type=[Int] many"}},
		{"many on the last positional", "f ::\n  --' arg: --by\n  --' default: 2.0\n  Real ->\n  --' @many\n  [Real] ->\n  [Real]\nf = scale",
			[]string{"option name=by long=by default=2.0 type=Real", "positional type=[Real] many"}},
		{"many: false does nothing", "f ::\n  --' many: false\n  [Int] ->\n  Int\nf = count",
			[]string{"positional type=[Int]"}},
		{"stdin on the last positional", "f ::\n  Int ->\n  --' stdin: true\n  Str ->\n  Str\nf n s = shout s n",
			[]string{"positional type=Int", "positional type=Str stdin"}},
		{"record passed as JSON positional", "f :: Summary -> Str\nf = show",
			[]string{"positional type=Summary"}},
		{"record passed as JSON option", "f ::\n  --' arg: --summary\n  Summary ->\n  Str\nf = show",
			[]string{"option name=summary long=summary type=Summary"}},
		{"unrolled record", "f :: Settings -> Str\nf = describe_config",
			[]string{`group name=settings long=config type=Settings doc="Options." {` +
				`option name=precision short=p long=precision default=3 field=precision type=Int doc="Output precision"; ` +
				`flag name=hydrogens short=H long=hydrogens default=false field=hydrogens type=Bool doc="Include hydrogens"; ` +
				`option name=tmp_dir long=tmp-dir default="/tmp" metavar=DIR field=tmp_dir type=Str doc="Where to write"; ` +
				`option name=note long=note field=note type=?Str}`}},
		{"unrolled record with its own option and doc", "f ::\n  --' The settings\n  --' arg: -s/--settings\n  Settings ->\n  Str\nf = describe_config",
			[]string{`group name=settings short=s long=settings type=Settings doc="The settings" {` +
				`option name=precision short=p long=precision default=3 field=precision type=Int doc="Output precision"; ` +
				`flag name=hydrogens short=H long=hydrogens default=false field=hydrogens type=Bool doc="Include hydrogens"; ` +
				`option name=tmp_dir long=tmp-dir default="/tmp" metavar=DIR field=tmp_dir type=Str doc="Where to write"; ` +
				`option name=note long=note field=note type=?Str}`}},
		{"alias: its type and docstring", "--' TODO list filename\n--' @arg --todo-file\n--' @default \"todo.json\"\ntype TodoFile = Str\nf :: TodoFile -> Str\nf s = upper s",
			[]string{`option name=todo-file long=todo-file default="todo.json" type=Str doc="TODO list filename"`}},
		{"alias: the use site wins", "--' The alias's text\n--' @arg --todo-file\n--' @default \"todo.json\"\ntype TodoFile = Str\nf ::\n  --' The list\n  --' @arg -t\n  TodoFile ->\n  Str\nf s = upper s",
			[]string{`option name=t short=t default="todo.json" type=Str doc="The list"`}},
		{"alias of an alias: the nearest wins", "--' @metavar ROOT\n--' @arg --root\ntype Root = Int\n--' @arg --mid\ntype Mid = Root\nf :: Mid -> Int\nf x = x",
			[]string{"option name=mid long=mid metavar=ROOT type=Int"}},
		{"parameterized aliases", "type Pair a b = (a, b)\ntype (Matrix a) = [[a]]\ntype Opt a = ?a\nf :: Pair Int Str -> Matrix Real -> Opt (Pair Str Bool) -> Int\nf _ _ _ = 1",
			[]string{"positional type=(Int, Str)", "positional type=[[Real]]", "positional type=?(Str, Bool)"}},
		{"language maps beside the types", "type Py => Int = \"int\"\ntype Cpp => (List a) = \"std::vector<$1>\" a\ntype Py => (List U8) = \"bytes\" U8\ntype R => Real = \"numeric\"\ntype python3 => Int32 = \"int\"\nf :: Int -> Int\nf x = x",
			[]string{"positional type=Int"}},
		{"effects declared and used", "effect Rand\nescapable effect Net, Disk\nf :: <IO> Str -> <IO, Rand, Net, e> Str\nf s = do\n  x <- s\n  upper x",
			[]string{"positional type=Str"}},
		{"every type", "f :: Int -> Real -> Str -> Bool -> () -> [Int] -> ?Str -> Map Str Int -> (Int, Str) -> Summary -> Int\nf _ _ _ _ _ _ _ _ _ _ = 1",
			[]string{"positional type=Int", "positional type=Real", "positional type=Str", "positional type=Bool", "positional type=()",
				"positional type=[Int]", "positional type=?Str", "positional type=Map Str Int", "positional type=(Int, Str)", "positional type=Summary"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := compileOK(t, program("f", tt.text))
			c := p.Manifest.Commands[0]
			var got []string
			for _, a := range c.Args {
				got = append(got, argString(a))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("args\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestBodies(t *testing.T) {
	tests := []struct {
		name, text, want, ret string
	}{
		{"call", "f :: Str -> Str\nf s = upper s", "upper($0)", "Str"},
		{"nested calls across languages", "f :: Str -> Real\nf s = clamp 0 100 (weightPy s)", "clamp(0.0, 100.0, weightPy($0))", "Real"},
		{"eta-reduced", "f :: Real -> [Real] -> [Real]\nf = scale", "scale($0, $1)", "[Real]"},
		{"partly eta-reduced", "f :: Real -> Real -> Real -> Real\nf lo = clamp lo", "clamp($0, $1, $2)", "Real"},
		{"composition", "f :: [Real] -> Real\nf = .mean . summarize", ".mean(summarize($0))", "Real"},
		{"composition with partial application", "f :: [Real] -> Str\nf = lines . scale 2 . scale 3", "lines(scale(2.0, scale(3.0, $0)))", "Str"},
		{"composition applied", "f :: Str -> Str\nf s = (upper . upper) s", "upper(upper($0))", "Str"},
		{"field access", "f :: [Real] -> Real\nf xs = .sd (summarize xs)", ".sd(summarize($0))", "Real"},
		{"inlined helper without signature", "twice x = scale 2.0 x\nf :: [Real] -> [Real]\nf xs = twice (twice xs)", "scale(2.0, scale(2.0, $0))", "[Real]"},
		{"Int literal read as Real through a helper", "half x = scale 0.5 [x]\nf :: Str -> [Real]\nf _ = half 3", "scale(0.5, [3.0])", "[Real]"},
		{"helper with signature", "g :: Real -> Real\ng x = clamp 0 1 x\nf :: Real -> Real\nf x = g (g x)", "clamp(0.0, 1.0, clamp(0.0, 1.0, $0))", "Real"},
		{"helper chain", "a x = upper x\nb x = a (a x)\nf :: Str -> Str\nf = b", "upper(upper($0))", "Str"},
		{"function passed to a helper", "app g x = g x\nf :: Str -> Real\nf s = app weightPy s", "weightPy($0)", "Real"},
		{"ignored parameter", "f :: Int -> Str -> Str\nf _ s = upper s", "upper($1)", "Str"},
		{"list with a variable", "f :: Real -> [Real]\nf x = scale 1 [x, 2]", "scale(1.0, list[$0, 2.0])", "[Real]"},
		{"record literal with defaults", "f :: Str\nf = describe_config {precision = 2}", `describe_config({"precision":2,"hydrogens":false,"tmp_dir":"/tmp","note":null})`, "Str"},
		{"record literal with a computed field", "f :: Int -> Str\nf n = describe_config {precision = double n, note = \"x\", hydrogens = true}",
			`describe_config(record{precision=double($0), hydrogens=true, tmp_dir="/tmp", note="x"})`, "Str"},
		{"record literal inferred", "f :: Str\nf = show {mean = 1, sd = 2}", `show({"mean":1.0,"sd":2.0})`, "Str"},
		{"pure literal", "f :: Int\nf = 42", "42", "Int"},
		{"pure negative real", "f :: Real\nf = -1.5", "-1.5", "Real"},
		{"pure string with escapes", "f :: Str\nf = \"a\\\"b\\n\\u00e9\"", `"a\"b\né"`, "Str"},
		{"pure bool", "f :: Bool\nf = true", "true", "Bool"},
		{"pure unit", "f :: ()\nf = ()", "null", "()"},
		{"pure tuple", "f :: (Int, Str, [Real])\nf = (1, \"a\", [1, 2.5])", `[1,"a",[1.0,2.5]]`, "(Int, Str, [Real])"},
		{"pure tuple with a variable", "f :: Int -> (Int, Int)\nf x = (x, 2)", "tuple($0, 2)", "(Int, Int)"},
		{"pure optional", "f :: ?Int\nf = 3", "3", "?Int"},
		{"pure Json from a Str literal", "f :: Json\nf = \"x\"", `"x"`, "Json"},
		{"Json arguments and scalar literals in a list", "f :: Json -> [Json]\nf j = [j, 1.5, (), true]", "list[$0, 1.5, null, true]", "[Json]"},
		{"optional Json", "f :: Json -> ?Json\nf j = j", "$0", "?Json"},
		{"T where ?T is expected", "f :: Int -> ?Int\nf x = x", "$0", "?Int"},
		{"pure identity", "f :: Str -> Str\nf x = x", "$0", "Str"},
		{"arithmetic by precedence, literals as Reals", "f :: Real -> Real\nf x = x + 2.0 * 20 - 1", "(($0 + (2.0 * 20.0)) - 1.0)", "Real"},
		{"an Int literal on the left of a Real", "f :: Real -> Real\nf x = 1 + x", "(1.0 + $0)", "Real"},
		{"right associative power", "f :: Int -> Int\nf x = x ** 2 ** 3", "($0 ** (2 ** 3))", "Int"},
		{"floor division and modulo", "f :: Int -> (Int, Int)\nf x = (x // 7, x % 7)", "tuple(($0 // 7), ($0 % 7))", "(Int, Int)"},
		{"comparisons and connectives", "f :: Int -> Real -> Bool\nf n x = n >= 3 && x < 2.5 || n == 0", "((($0 >= 3) && ($1 < 2.5)) || ($0 == 0))", "Bool"},
		{"application around operators", "f :: [Real] -> Real\nf xs = .mean (summarize xs) * 2", "(.mean(summarize($0)) * 2.0)", "Real"},
		{"negation", "f :: Real -> Real\nf x = -x + -(weightPy \"H\")", "(negate($0) + negate(weightPy(\"H\")))", "Real"},
		{"subtraction without spaces", "f :: Int -> Int\nf x = x-1", "($0 - 1)", "Int"},
		{"string and list concatenation", "f :: Str -> [Int] -> (Str, [Int])\nf s xs = (s <> \"!\", xs <> [1])", `tuple(($0 <> "!"), ($1 <> [1]))`, "(Str, [Int])"},
		{"dollar", "f :: Str -> Str\nf s = upper $ upper s", "upper(upper($0))", "Str"},
		{"composition as an operator", "f :: Str -> Str\nf = upper . upper", "upper(upper($0))", "Str"},
		{"sections and references", "twice g x = g (g x)\nf :: Int -> (Int, Int, Int)\nf x = (twice (* 2) x, (+) x 1, (10 -) x)", "tuple((($0 * 2) * 2), ($0 + 1), (10 - $0))", "(Int, Int, Int)"},
		{"equality of records", "f :: [Real] -> Bool\nf xs = summarize xs != {mean = 0, sd = 0}", `(summarize($0) != {"mean":0.0,"sd":0.0})`, "Bool"},
		{"guarded definition", "f :: Real -> Real -> Real -> Real\nf lo hi x\n  ? x < lo = lo\n  ? x > hi = hi\n  : x", "if(($2 < $0), $0, if(($2 > $1), $1, $2))", "Real"},
		{"guard inside an expression, Int literal and Real branches", "f :: Real -> Real\nf x = 2 * (? x > 0 = 1 : x)", "(2.0 * if(($0 > 0.0), 1.0, $0))", "Real"},
		{"guard inferred as Real", "g x = ? x = 1 : 2.5\nf :: Bool -> Real\nf b = g b", "if($0, 1.0, 2.5)", "Real"},
		{"guard with a failure", "f :: Int -> <Err> Int\nf n ? n < 0 = @throw \"negative\" : n", `if(($0 < 0), throw("negative"), $0)`, "Int"},
		{"where bindings, in any order, seeing the parameters", "f :: Real -> Real\nf x = result where\n  result = helper (helper x)\n  helper y = y * k\n  k = 2", "(($0 * 2.0) * 2.0)", "Real"},
		{"where after guards, with a signature", "f :: Int -> Str\nf x\n  ? x > big = \"big\"\n  : \"small\"\n  where\n    big :: Int\n    big = 100", `if(($0 > 100), "big", "small")`, "Str"},
		{"where binding shadowing a definition", "k = 1\nf :: Int -> Int\nf x = x + k where\n  k = 5", "($0 + 5)", "Int"},
		{"nested where", "f :: Int -> Int\nf x = g x where\n  g y = h y where\n    h z = z * 3", "($0 * 3)", "Int"},
		{"local function given a sourced call", "f :: Str -> Real\nf s = twice (weightPy s) where\n  twice v = v + v", "(weightPy($0) + weightPy($0))", "Real"},
		{"let: a call computed once", "f :: Str -> Real\nf s = let w = weightPy s in w + w", "let(weightPy($0) in ($1 + $1))", "Real"},
		{"let: a literal used as written", "f :: Real -> Real\nf x = let k = 2 in x * k", "($0 * 2.0)", "Real"},
		{"let: bindings in order, the later seeing the earlier", "f :: Str -> Real\nf s =\n  let a = weightPy s\n      b = a * 2\n  in b - a", "let(weightPy($0) in let(($1 * 2.0) in ($2 - $1)))", "Real"},
		{"let inside an inlined definition", "g s = let w = weightPy s in w * w\nf :: Str -> Str -> Real\nf a b = g a + g b", "(let(weightPy($0) in ($2 * $2)) + let(weightPy($1) in ($2 * $2)))", "Real"},
		{"lambda passed to a helper", "twice g x = g (g x)\nf :: Real -> Real\nf x = twice (\\y -> y * 2 + 1) x", "(((($0 * 2.0) + 1.0) * 2.0) + 1.0)", "Real"},
		{"lambda capturing a parameter", "app g x = g x\nf :: Real -> Real -> Real\nf k x = app (\\y -> y * k) x", "($1 * $0)", "Real"},
		{"do block: binds once, a statement run, let by name", "f :: Str -> Real\nf s = do\n  w <- weightPy s\n  upper s\n  let d = w * 2\n  d + d", "let(weightPy($0) in let(upper($0) in (($1 * 2.0) + ($1 * 2.0))))", "Real"},
		{"string interpolation", "f :: Str -> Str\nf s = \"<#{upper s}>\"", `("<" <> (upper($0) <> ">"))`, "Str"},
		{"Null where an optional is expected", "f :: Int -> ?Int\nf x = ? x > 0 = x : Null", "if(($0 > 0), $0, null)", "?Int"},
		{"standard fixities declared again", "infixl 6 +, -\ninfixr 8 (**)\nf :: Int -> Int\nf x = x + 1", "($0 + 1)", "Int"},
		{"pure empty list", "f :: [Int]\nf = []", "[]", "[Int]"},
		{"throw", "f :: Int -> <Err> Str\nf _ = @throw \"not yet\"", `throw("not yet")`, "Str"},
		{"zero-argument helper", "limit = 10\nf :: Real -> Real\nf x = clamp 0 limit x", "clamp(0.0, 10.0, $0)", "Real"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantBody(t, tt.text, tt.want, tt.ret) })
	}
}

func TestSourcedFunctionAsCommand(t *testing.T) {
	p := compileOK(t, program("shout, clamp", ""))
	m := p.Manifest
	if len(m.Commands) != 2 || exprString(m, m.Commands[0].Body) != "shout($0, $1)" || exprString(m, m.Commands[1].Body) != "clamp($0, $1, $2)" {
		t.Fatalf("commands %+v", m.Commands)
	}
	// Only the functions the commands call are listed, renumbered.
	if len(m.Functions) != 2 || m.Functions[0].Name != "shout" || m.Functions[0].ID != 0 || m.Functions[1].Name != "clamp" || m.Functions[1].ID != 1 {
		t.Errorf("functions %+v", m.Functions)
	}
	if len(m.Pools) != 2 || m.Pools[0].Lang != manifest.Python || m.Pools[1].Lang != manifest.Go {
		t.Errorf("pools %+v", m.Pools)
	}
	if filepath.Base(p.Sources[0]) != "chem.py" || filepath.Base(p.Sources[1]) != "mathx.go" || len(p.Sources) != 2 {
		t.Errorf("sources %v", p.Sources)
	}
}

func TestPureProgramNeedsNoPool(t *testing.T) {
	p := compileOK(t, program("f, g", "f :: Int\nf = 1\ng :: Str -> Str\ng x = x"))
	if len(p.Manifest.Pools) != 0 || len(p.Manifest.Functions) != 0 {
		t.Errorf("pools %v functions %v", p.Manifest.Pools, p.Manifest.Functions)
	}
}

func TestStarExportsInSourceOrder(t *testing.T) {
	p := compileOK(t, `module m (*)
source Py from "chem.py" ("upper", "count")
source Go from "mathx.go" ("Double" as double)
count :: [Int] -> Int
b :: Int
b = 1
upper :: Str -> Str
helper x = upper x
a :: Str -> Str
a = helper
double :: Int -> Int
`)
	var names []string
	for _, c := range p.Manifest.Commands {
		names = append(names, c.Name)
	}
	if strings.Join(names, " ") != "upper count double b a" {
		t.Errorf("commands %v", names)
	}
}

func TestCommandDocAndRename(t *testing.T) {
	p := compileOK(t, program("f", `--' Shout a text.
--'
--' Loudly.
--' name: shout-it
--' return: the text, louder
f ::
  Str ->
  Str
f = upper`))
	c := p.Manifest.Commands[0]
	if c.Name != "shout-it" || !reflect.DeepEqual(c.Doc, []string{"Shout a text.", "", "Loudly."}) || c.ReturnDoc != "the text, louder" {
		t.Errorf("command %q doc %q return %q", c.Name, c.Doc, c.ReturnDoc)
	}
	p = compileOK(t, program("f", `--' Shout a text.
--' title: Shout it
--' icon: https://example.com/shout.png
--' @icon data:image/png;base64,iVBORw0KGgo=
f :: Str -> Str
f = upper`))
	if c := p.Manifest.Commands[0]; c.Title != "Shout it" || !reflect.DeepEqual(c.Icons, []string{"https://example.com/shout.png", "data:image/png;base64,iVBORw0KGgo="}) || !reflect.DeepEqual(c.Doc, []string{"Shout a text."}) {
		t.Errorf("title %q icons %q doc %q", c.Title, c.Icons, c.Doc)
	}
	p = compileOK(t, program("f", "f ::\n  Str ->\n  --' the louder text\n  Str\nf = upper"))
	if rd := p.Manifest.Commands[0].ReturnDoc; rd != "the louder text" {
		t.Errorf("return doc from the return type: %q", rd)
	}
	// The definition's description overrides the signature's, as in
	// Morloc, wherever the two are.
	p = compileOK(t, program("f", "--' from the definition\nf = upper\n--' the signature's\nf :: Str -> Str"))
	if d := p.Manifest.Commands[0].Doc; !reflect.DeepEqual(d, []string{"from the definition"}) {
		t.Errorf("doc %q", d)
	}
	p = compileOK(t, program("f", "f :: Str -> Str\n--' from the definition\nf = upper"))
	if d := p.Manifest.Commands[0].Doc; !reflect.DeepEqual(d, []string{"from the definition"}) {
		t.Errorf("doc %q", d)
	}
}

func TestOutputActions(t *testing.T) {
	p := compileOK(t, program("f", `--' Summary of numbers
--' with: -m/--mean=.mean
--' render: -r/--raw=show
--' @render --shout=upper . show
f :: [Real] -> Summary
f = summarize`))
	m := p.Manifest
	c := m.Commands[0]
	var got []string
	for _, a := range c.Actions {
		got = append(got, a.Kind+" "+a.Short+"/"+a.Long+" "+exprString(m, a.Body)+" : "+a.Return.String())
	}
	want := []string{
		"with m/mean .mean($0) : Real",
		"render r/raw show($0) : Str",
		"render /shout upper(show($0)) : Str",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("actions\n got %q\nwant %q", got, want)
	}
	if pools := m.PoolsFor(&c); !reflect.DeepEqual(pools, []string{"cpp", "py"}) {
		t.Errorf("pools for the command with its actions: %v", pools)
	}
	if !reflect.DeepEqual(c.Doc, []string{"Summary of numbers"}) {
		t.Errorf("doc %q", c.Doc)
	}
}

func TestWarnings(t *testing.T) {
	path := writeProgram(t, program("f", `--' Shout.
--' frobnicate: yes
--' @cwd here
f ::
  --' @metavr red
  --' return: nothing
  --' title: An argument
  Str ->
  Str
f = upper
--' dangling`))
	p, err := Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	base := strings.Count(program("f", ""), "\n") + 1
	want := []string{
		pos(base+1, 5) + "warning: unknown directive 'frobnicate'; kept as description text",
		pos(base+2, 5) + "warning: directive 'cwd' has no effect on a command; put it above the argument's type in a multi-line signature",
		pos(base+4, 7) + "warning: unknown directive 'metavr'; kept as description text (did you mean 'metavar'?)",
		pos(base+5, 7) + "warning: directive 'return' has no effect on an argument; ignored",
		pos(base+6, 7) + "warning: directive 'title' has no effect on an argument; ignored",
		pos(base+10, 1) + "warning: docstring at the end of the file is not attached to anything; ignored",
	}
	for i := range want {
		want[i] = path + ":" + want[i]
	}
	if !reflect.DeepEqual(p.Warnings, want) {
		t.Errorf("warnings\n got %q\nwant %q", p.Warnings, want)
	}
	c := p.Manifest.Commands[0]
	if !reflect.DeepEqual(c.Doc, []string{"Shout.", "frobnicate: yes"}) || !reflect.DeepEqual(c.Args[0].Doc, []string{"@metavr red"}) {
		t.Errorf("unknown directives stay description: %q %q", c.Doc, c.Args[0].Doc)
	}
}

// pos writes "line:col: ".
func pos(line, col int) string { return fmt.Sprintf("%d:%d: ", line, col) }

func TestCompileMissingFile(t *testing.T) {
	_, err := Compile(filepath.Join(t.TempDir(), "nope.loc"))
	list, ok := err.(ErrorList)
	if !ok || len(list) != 1 || !strings.HasSuffix(list[0].Error(), "nope.loc:1:1: cannot read the program: no such file or directory") {
		t.Errorf("got %v", err)
	}
}

func TestCompileRelativePath(t *testing.T) {
	path := writeProgram(t, program("f", "f :: Str -> Str\nf = upper"))
	t.Chdir(filepath.Dir(path))
	p, err := Compile("main.loc")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(p.Sources[0]) || filepath.Base(p.Sources[0]) != "chem.py" {
		t.Errorf("sources %v", p.Sources)
	}
	if _, err := os.Stat(p.Sources[0]); err != nil {
		t.Error(err)
	}
}

// TestCppSourceBesideHeader checks that a function defined only in the
// .cpp beside a header is found.
func TestCppSourceBesideHeader(t *testing.T) {
	path := writeProgram(t, "module m (triple)\nsource Cpp from \"lib/extra.hpp\" (\"triple\")\ntriple :: Real -> Real\n")
	lib := filepath.Join(filepath.Dir(path), "lib")
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "extra.hpp"), []byte("#pragma once\n// nothing here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(path); err == nil || !strings.Contains(err.Error(), `"triple" is not defined in lib/extra.hpp`) {
		t.Fatalf("without the .cpp: %v", err)
	}
	if err := os.WriteFile(filepath.Join(lib, "extra.cpp"), []byte("double triple(double x) { return 3 * x; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Sources[0]; got != filepath.Join(lib, "extra.hpp") {
		t.Errorf("source %s", got)
	}
}
