package codegen

import (
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
)

// person is a record and the prelude, for the class tests.
const person = `module m (f)
import root
source Py from "chem.py" ("upper")
upper :: Str -> Str
record Person where
  name :: Str
  age :: Int
`

// TestClassBodies: a method's use becomes its instance's definition
// inlined or a call of its sourced function, chosen by the types there;
// the prelude's methods at the built-in types stay the builtins.
func TestClassBodies(t *testing.T) {
	tests := []struct {
		name, text, want, ret string
	}{
		{"user class, Morloc-defined method",
			"class Greet a where\n  greet :: a -> Str\ninstance Greet Person where\n  greet p = \"hi \" <> .name p\nf :: Person -> Str\nf p = greet p",
			`("hi " <> .name($0))`, "Str"},
		{"prelude Show for a record",
			"instance Show Person where\n  show p = .name p\nf :: Person -> Str\nf p = show p",
			`.name($0)`, "Str"},
		{"prelude Show at a built-in type stays the builtin",
			"instance Show Person where\n  show p = .name p\nf :: Int -> Str\nf n = show n",
			`show($0)`, "Str"},
		{"sourced method",
			"instance Show Person where\n  source Py from \"chem.py\" (\"upper\" as show)\nf :: Person -> Str\nf p = show p",
			`show($0)`, "Str"},
		{"operator method",
			"instance Eq Person where\n  (==) a b = .name a == .name b\nf :: Person -> Person -> Bool\nf a b = a == b",
			`(.name($0) == .name($1))`, "Bool"},
		{"monoid with its semigroup",
			"instance Semigroup Person where\n  (<>) a b = a\ninstance Monoid Person where\n  mempty = {name = \"\", age = 0}\nf :: Person -> Person\nf p = p <> mempty",
			`$0`, "Person"},
		{"most specific instance",
			"class Describe a where\n  describe :: a -> Str\ninstance Describe a where\n  describe x = \"thing\"\ninstance Describe Int where\n  describe x = \"int\"\nf :: Int -> (Str, Str)\nf n = (describe n, describe \"s\")",
			`["int","thing"]`, "(Str, Str)"},
		{"constrained generic definition",
			"class Greet a where\n  greet :: a -> Str\ninstance Greet Person where\n  greet p = .name p\ntwice :: Greet a => a -> Str\ntwice x = greet x <> greet x\nf :: Person -> Str\nf p = twice p",
			`(.name($0) <> .name($0))`, "Str"},
		{"several heads, one body",
			"class Zero a where\n  nothing :: a\ninstance Zero Int, Zero Real where\n  nothing = 0\nf :: (Int, Real)\nf = (nothing, nothing)",
			`[0,0.0]`, "(Int, Real)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantBodyOf(t, person+tt.text, tt.want, tt.ret) })
	}
}

// TestSourcedMethod: a method sourced in an instance is a call of the
// sourced function, typed at the instance's types; with the method in
// several languages, Python's is called.
func TestSourcedMethod(t *testing.T) {
	p := compileOK(t, person+"instance Show Person where\n  source Go from \"mathx.go\" (\"Double\" as show)\n  source Py from \"chem.py\" (\"upper\" as show)\nf :: Person -> Str\nf p = show p")
	body := p.Manifest.Commands[0].Body
	if body.Kind != manifest.Call {
		t.Fatalf("body is %s, want a call", exprString(p.Manifest, body))
	}
	fn := p.Manifest.Functions[body.Ref]
	if fn.Source != "upper" || fn.Pool != manifest.Python || fn.Args[0].String() != "Person" || fn.Return.String() != "Str" {
		t.Errorf("called %s %s (%v) -> %s, want Python's upper (Person) -> Str", fn.Pool, fn.Source, fn.Args, fn.Return)
	}
}

// TestClassErrors: missing and ambiguous instances, unmet constraints and
// malformed classes and instances, each at its line and column.
func TestClassErrors(t *testing.T) {
	greet := "class Greet a where\n  greet :: a -> Str\n"
	tests := []struct{ name, text, want string }{
		{"missing instance", greet + "f :: Int -> Str\nf n = greet n",
			"11:7: no instance Greet Int for 'greet' here; declare one, as in `instance Greet Int where ...`"},
		{"ambiguous instances", "class Pack a b where\n  pack :: a -> b\ninstance Pack Int b where\n  pack x = x\ninstance Pack a Str where\n  pack x = \"s\"\nf :: Int -> Str\nf n = pack n",
			"15:7: ambiguous use of 'pack' at Pack Int Str: instances Pack Int b (at 10:10) and Pack a Str (at 12:10) both apply and neither is more specific"},
		{"unmet constraint", greet + "instance Greet Person where\n  greet p = .name p\ntwice :: Greet a => a -> Str\ntwice x = greet x\nf :: Int -> Str\nf n = twice n",
			"15:7: 'twice' needs an instance Greet Int here (its signature says Greet a =>), and there is none"},
		{"unknown class in a constraint", "g :: Gret a => a -> a\ng x = x\nf :: Int -> Int\nf n = g n",
			"8:6: unknown class 'Gret'"},
		{"unknown class in an instance", greet + "instance Gret Person where\n  greet p = \"\"\nf :: Int -> Int\nf n = n",
			"10:10: unknown class 'Gret' (did you mean 'Greet'?)"},
		{"not a method", greet + "instance Greet Person where\n  gret p = \"\"\nf :: Int -> Int\nf n = n",
			"11:3: 'gret' is not a method of class Greet (did you mean 'greet'?)"},
		{"instance without the method", greet + "instance Greet Person\nf :: Person -> Str\nf p = greet p",
			"12:7: instance Greet Person (at 10:10) does not define 'greet', used here"},
		{"instance on an alias", greet + "type Name = Str\ninstance Greet Name where\n  greet n = n\nf :: Int -> Int\nf n = n",
			"11:16: instance Greet Name: 'Name' is an alias; instances are declared on the type it stands for"},
		{"missing superclass instance", "instance Monoid Person where\n  mempty = {name = \"\", age = 0}\nf :: Int -> Int\nf n = n",
			"8:10: instance Monoid Person needs an instance Semigroup Person, its superclass (class Semigroup => Monoid)"},
		{"instance declared twice", greet + "instance Greet Int where\n  greet n = \"a\"\ninstance Greet Int where\n  greet n = \"b\"\nf :: Int -> Int\nf n = n",
			"12:10: instance Greet Int is declared twice (first at 10:10)"},
		{"wrong number of types", greet + "instance Greet Int Str where\n  greet n = \"a\"\nf :: Int -> Int\nf n = n",
			"10:10: class Greet takes 1 type, but the instance gives 2"},
		{"method type error in an instance", greet + "instance Greet Int where\n  greet n = n\nf :: Int -> Int\nf n = n",
			"11:13: expected Str, got Int"},
		{"unknown name in an instance", greet + "instance Greet Int where\n  greet n = shw n\nf :: Int -> Int\nf n = n",
			"11:13: unknown name 'shw' (did you mean 'show'?)"},
		{"class method also defined", greet + "greet x = x\nf :: Int -> Int\nf n = n",
			"9:3: method 'greet' of class Greet is also defined or sourced in the program"},
		{"an MCP tool as a method", greet + "instance Greet Int where\n  source MCP from \"srv\" (\"g\" as greet)\nf :: Int -> Int\nf n = n",
			"11:10: an MCP server's tools cannot be methods"},
		{"cannot tell the instance", "class Def a where\n  def :: a\ninstance Def Int where\n  def = 1\nf :: Str\nf = show def",
			"13:10: cannot tell which instance of Def 'def' is used here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantError(t, person+tt.text, tt.want) })
	}
}

// shapesLoc is shapes/main.loc of the module tests: a class, an instance
// for its record with a Morloc-defined method using a name the module
// keeps to itself, and one sourced from Python beside it.
const shapesLoc = `module shapes (Shape, Square, square)
import root
class Shape a where
  label :: a -> Str
  area :: a -> Real
record Square where
  side :: Real
square :: Real -> Square
square s = {side = s}
secret :: Str
secret = "square"
instance Shape Square where
  label s = secret
  source Py from "shapes.py" ("py_area" as area)
`

// TestClassesInModules: an imported module's classes and instances apply
// in its importer, with an import list naming the class or nothing at
// all; a method imported by name is an error naming the class.
func TestClassesInModules(t *testing.T) {
	files := func(main string) map[string]string {
		return map[string]string{
			"main.loc":         main,
			"shapes/main.loc":  shapesLoc,
			"shapes/shapes.py": "def py_area(s):\n    return s['side'] ** 2\n",
		}
	}
	for _, imp := range []string{"import .shapes (Shape, square)", "import .shapes"} {
		dir := writeModules(t, files("module m (f, g)\n"+imp+"\nf :: Real -> Str\nf x = label (square x)\ng :: Real -> Real\ng x = area (square x)\n"))
		p, err := compileIn(t, dir)
		if err != nil {
			t.Fatalf("%s: %v", imp, err)
		}
		if got := exprString(p.Manifest, p.Manifest.Commands[0].Body); got != `"square"` {
			t.Errorf("%s: f is %s, want \"square\"", imp, got)
		}
		if got := exprString(p.Manifest, p.Manifest.Commands[1].Body); got != `area(record{side=$0})` {
			t.Errorf("%s: g is %s, want area(record{side=$0})", imp, got)
		}
		if fn := p.Manifest.Functions[0]; fn.Source != "py_area" || fn.Args[0].String() != "Square" {
			t.Errorf("%s: function %s (%v), want py_area (Square)", imp, fn.Source, fn.Args)
		}
	}
	dir := writeModules(t, files("module m (f)\nimport .shapes ()\nf :: Square -> Str\nf s = label s\n"))
	if p, err := compileIn(t, dir); err != nil {
		t.Errorf("import .shapes (): %v", err)
	} else if got := exprString(p.Manifest, p.Manifest.Commands[0].Body); got != `"square"` {
		t.Errorf("import .shapes (): f is %s, want \"square\"", got)
	}
	dir = writeModules(t, files("module m (f)\nimport .shapes (label)\nf :: Str\nf = \"\"\n"))
	if _, err := compileIn(t, dir); err == nil || !strings.Contains(err.Error(), "main.loc:2:17: 'label' is a method of class Shape: import the class instead, as in `import shapes (Shape)`") {
		t.Errorf("importing a method by name: %v", err)
	}
}
