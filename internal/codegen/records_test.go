package codegen

import (
	"strconv"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest/types"
)

// recordDecls are the declarations the tests of records, newtypes,
// getters and setters share.
const recordDecls = `
record Person = Person { name :: Str, age :: Int }
record Pair a b where
  fst :: a
  snd :: b
object Point where
  x :: Real
  y :: Real
newtype Path = Str
newtype Deque a = List a
type Py => Path = "str"
`

// TestAccessBodies: getters, setters, records and newtypes compile to the
// manifest's Get, Item, Index, Slice and Set; a value a setter or a group
// uses twice is computed once (a let).
func TestAccessBodies(t *testing.T) {
	tests := []struct {
		name, text, want, ret string
	}{
		{"tuple item", "f :: (Int, Str) -> Str\nf t = .1 t", ".1($0)", "Str"},
		{"tuple item of a literal", "f :: Int\nf = .0 (1, 2)", ".0([1,2])", "Int"},
		{"item then field", "f :: (Int, Person) -> Str\nf t = .1.name t", ".name(.1($0))", "Str"},
		{"nested items", "f :: ((Int, Int), Int) -> Int\nf t = .0.1 t", ".1(.0($0))", "Int"},
		{"group", "f :: (Int, Str) -> (Str, Int)\nf t = .(.1, .0) t", "tuple(.1($0), .0($0))", "(Str, Int)"},
		{"group of one", "f :: (Int, Str) -> Str\nf t = .(.1) t", ".1($0)", "Str"},
		{"group of a call computed once", "f :: [Real] -> (Real, Real)\nf xs = .(.sd, .mean) (summarize xs)", "let(summarize($0) in tuple(.sd($1), .mean($1)))", "(Real, Real)"},
		{"field then item", "f :: Pair (Int, Str) Int -> Int\nf p = .fst.0 p", ".0(.fst($0))", "Int"},
		{"index", "f :: [Int] -> Int\nf xs = .[2] xs", "index($0, 2)", "Int"},
		{"negative index", "f :: [Int] -> Int\nf xs = .[-1] xs", "index($0, -1)", "Int"},
		{"index by an expression", "f :: [Int] -> Int -> Int\nf xs i = .[i + 1] xs", "index($0, ($1 + 1))", "Int"},
		{"index of a string", "f :: Str -> Str\nf s = .[0] s", "index($0, 0)", "Str"},
		{"index then field", "f :: [Person] -> Str\nf ps = .[0].name ps", ".name(index($0, 0))", "Str"},
		{"slice", "f :: [Int] -> [Int]\nf xs = .[1:3] xs", "slice($0, 1, 3, null)", "[Int]"},
		{"slice from", "f :: [Int] -> [Int]\nf xs = .[1:] xs", "slice($0, 1, null, null)", "[Int]"},
		{"slice to", "f :: [Int] -> [Int]\nf xs = .[:2] xs", "slice($0, null, 2, null)", "[Int]"},
		{"slice by", "f :: [Int] -> [Int]\nf xs = .[::2] xs", "slice($0, null, null, 2)", "[Int]"},
		{"reversed", "f :: Str -> Str\nf s = .[::-1] s", "slice($0, null, null, -1)", "Str"},
		{"setter", "f :: (Int, Int)\nf = .(.0 = 99) (1, 2)", "set([1,2], .0 = 99)", "(Int, Int)"},
		{"two setters", "f :: Point -> Point\nf p = .(.x = 99, .y = 2.5) p", "set(set($0, .x = 99.0), .y = 2.5)", "Point"},
		{"setter in parentheses", "f :: Point -> Point\nf p = (.x = 0.7) p", "set($0, .x = 0.7)", "Point"},
		{"setter after a path", "f :: (Int, (Str, Bool, Int)) -> (Int, (Str, Bool, Int))\nf t = .1.(.0 = \"S\", .2 = 70) t",
			`set($0, .1 = set(set(.1($0), .0 = "S"), .2 = 70))`, "(Int, (Str, Bool, Int))"},
		{"setter of a call computed once", "f :: [Real] -> Summary\nf xs = (.sd = 1) (summarize xs)", "set(summarize($0), .sd = 1.0)", "Summary"},
		{"nested setter path", "f :: Pair Person Int -> Pair Person Int\nf p = (.fst.age = 3) p", "set($0, .fst = set(.fst($0), .age = 3))", "Pair Person Int"},
		{"setter using the value", "f :: Person -> Person\nf p = .(.age = .age p + 1) p", "set($0, .age = (.age($0) + 1))", "Person"},
		{"getter as a function value", "app g x = g x\nf :: (Int, Str) -> Str\nf t = app .1 t", ".1($0)", "Str"},
		{"getters composed", "f :: ((Int, Str), Int) -> Str\nf = .1 . .0", ".1(.0($0))", "Str"},
		{"legacy record literal in any order", "f :: Person\nf = {age = 3, name = \"A\"}", `{"name":"A","age":3}`, "Person"},
		{"parameterized record literal", "f :: Int -> Pair Int Str\nf n = {snd = \"x\", fst = n}", `record{fst=$0, snd="x"}`, "Pair Int Str"},
		{"object", "f :: Point\nf = {x = 1, y = 2}", `{"x":1.0,"y":2.0}`, "Point"},
		{"newtype argument", "f :: Path -> Path\nf p = p", "$0", "Path"},
		{"newtype literal", "f :: Path\nf = \"/tmp\"", `"/tmp"`, "Path"},
		{"parameterized newtype literal", "f :: Deque Int\nf = [1, 2]", "[1,2]", "Deque Int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := compileOK(t, program("f", recordDecls+tt.text))
			c := p.Manifest.Commands[0]
			if got := exprString(p.Manifest, c.Body); got != tt.want {
				t.Errorf("body %s, want %s", got, tt.want)
			}
			if c.Return.String() != tt.ret {
				t.Errorf("return %s, want %s", c.Return, tt.ret)
			}
			if !types.Equal(c.Body.Type, c.Return) {
				t.Errorf("body type %s, return %s", c.Body.Type, c.Return)
			}
		})
	}
}

// The fields of a record print in declaration order, those of a
// parameterized record with its arguments in place.
func TestRecordFieldOrder(t *testing.T) {
	p := compileOK(t, program("f", recordDecls+"f :: Pair [Int] Path -> Person\nf _ = {age = 1, name = \"n\"}"))
	c := p.Manifest.Commands[0]
	var got []string
	for _, tt := range []*types.Type{c.Return, c.Args[0].Type} {
		for _, f := range tt.Fields {
			got = append(got, tt.Name+"."+f.Name+" "+f.Type.String()+" "+string(f.Type.Kind))
		}
	}
	want := "Person.name Str str|Person.age Int int|Pair [Int] Path.fst [Int] list|Pair [Int] Path.snd Path str"
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("fields %s, want %s", g, want)
	}
}

func TestAccessErrors(t *testing.T) {
	line := strings.Count(program("f", recordDecls), "\n") + 1
	tests := []struct{ name, text, want string }{
		{"tuple index out of range", "f :: (Int, Int) -> Int\nf t = .5 t", "2:7: tuple arity 2 required, index 5 given: (Int, Int) has items .0 to .1"},
		{"tuple index on a list", "f :: [Int] -> Int\nf xs = .0 xs", "2:8: '.0' reads an item of a tuple, but the value is [Int]; index a list with .[0]"},
		{"tuple index on a record", "f :: Person -> Int\nf p = .0 p", "2:7: '.0' needs a tuple, got Person"},
		{"unknown field in a chain", "f :: (Int, Person) -> Str\nf t = .1.nam t", "2:9: record Person has no field 'nam' (did you mean 'name'?)"},
		{"index of a tuple", "f :: (Int, Int) -> Int\nf t = .[0] t", "2:7: an index .[i] needs a list or a string, got (Int, Int)"},
		{"index not an Int", "f :: [Int] -> Int\nf xs = .[\"a\"] xs", "2:10: expected Int, got Str"},
		{"step after a slice", "f :: [Person] -> [Str]\nf ps = .[0:3].name ps", "2:14: a step after a slice (mapping it over the slice's items) is not supported yet"},
		{"setter changing a type", "f :: Person -> Person\nf p = (.age = \"old\") p", "2:15: expected Int, got Str"},
		{"setter of an unknown field", "f :: Person -> Person\nf p = (.agee = 1) p", "2:8: record Person has no field 'agee' (did you mean 'age'?)"},
		{"bracket setter", "f :: [Int] -> [Int]\nf xs = .[0].(.x = 1) xs", "2:8: a setter's path has fields (.name) and tuple items (.0) only"},
		{"getter without its value", "f :: Int\nf = .0", "2:5: expected Int, got a getter without the value it reads"},
		{"newtype is not its body", "f :: Str -> Path\nf s = s", "2:7: expected Path, got Str"},
		{"body is not the newtype", "g :: Str -> Str\ng s = s\nf :: Path -> Str\nf p = g p", "4:9: expected Str, got Path"},
		{"record literal missing a field", "f :: Person\nf = {name = \"a\"}", "2:5: record Person is missing field 'age'"},
		{"record literal with an unknown field", "f :: Person\nf = {name = \"a\", age = 1, agee = 2}", "2:27: record Person has no field 'agee'"},
		{"record literal with a field twice", "f :: Person\nf = {name = \"a\", name = \"b\", age = 1}", "2:18: field name is given twice"},
		{"parameterized record without its arguments", "f :: Pair Int -> Int\nf p = .fst p", "1:6: type Pair takes 2 type arguments, but is given 1"},
		{"newtype declared twice", "newtype Path = Int\nf :: Int\nf = 1", "1:9: newtype Path is declared twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := compileErrors(t, program("f", recordDecls+tt.text))
			// The test's lines count from the first line of its text.
			l, rest, _ := strings.Cut(tt.want, ":")
			n, err := strconv.Atoi(l)
			if err != nil {
				t.Fatal(err)
			}
			want := strconv.Itoa(line+n-1) + ":" + rest
			for _, e := range errs {
				if strings.HasPrefix(e, want) {
					return
				}
			}
			t.Errorf("no error %q among:\n%s", want, strings.Join(errs, "\n"))
		})
	}
}

// A record field whose type is an alias takes the alias's docstring
// where its own does not say: its option, default and description.
func TestFieldInheritsAliasDoc(t *testing.T) {
	text := `--' The TODO file
--' arg: --todo-file
--' default: "todo.json"
type TodoFile = Str

--' unroll: true
record Opts where
  file :: TodoFile
  --' Its own words
  --' arg: --other
  other :: TodoFile

f :: Opts -> Str
f o = .file o`
	p := compileOK(t, program("f", text))
	got := argString(p.Manifest.Commands[0].Args[0])
	want := `group name=opts type=Opts {` +
		`option name=file long=todo-file default="todo.json" field=file type=Str doc="The TODO file"; ` +
		`option name=other long=other default="todo.json" field=other type=Str doc="Its own words"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
