package codegen

import (
	"path/filepath"
	"testing"

	"github.com/nexus-run/nexus/manifest"
)

// Foreign operators: a source item `(+)`, `(+) as (op)` or a backtick
// name with `as` is a function of two arguments that its pool applies
// infix; a top-level one bound to a standard operator hides the nexus's
// own, and one in an instance body is the class's method there.
func TestForeignOperators(t *testing.T) {
	wantBodies(t, []bodyCase{
		{"Python's + as a program operator, without a file", "source Py ((+) as (|+|))\n(|+|) :: Int -> Int -> Int\nf :: Int -> Int\nf x = x |+| 2 |+| 3", "|+|(|+|($0, 2), 3)", "Int"},
		{"a bare operator hides the standard one", "%inline source Py from \"chem.py\" ((+), (*))\n(+) :: Str -> Str -> Str\n(*) :: Str -> Int -> Str\nf :: Str -> Str\nf s = s + \"!\" * 2", `+($0, *("!", 2))`, "Str"},
		{"a backtick name", "source Py from \"chem.py\" (`and` as (&&), `or` as (||))\n(&&) :: Bool -> Bool -> Bool\n(||) :: Bool -> Bool -> Bool\nf :: Bool -> Bool\nf b = b || b && false", "||($0, &&($0, false))", "Bool"},
		{"a section and a reference", "source Py ((-) as (-.))\n(-.) :: Int -> Int -> Int\nf :: Int -> (Int, Int)\nf x = ((-. 1) x, (-.) 10 x)", "tuple(-.($0, 1), -.(10, $0))", "(Int, Int)"},
		{"a method in an instance body", "import root\ninstance Semigroup Str where\n  source Py ((+) as (<>))\nf :: Str -> Str\nf s = s <> \"!\"", `<>($0, "!")`, "Str"},
		{"the instance serves its types only", "import root\ninstance Semigroup Str where\n  source Py ((+) as (<>))\nf :: [Int] -> [Int]\nf xs = xs <> [1]", "($0 <> [1])", "[Int]"},
		{"C++ without a file", "source Cpp ((*) as (*.))\n(*.) :: Real -> Real -> Real\nf :: Real -> Real\nf x = x *. 2.0", "*.($0, 2.0)", "Real"},
		{"Go from the package's file", "source Go from \"mathx.go\" ((&^) as (&~))\n(&~) :: Int -> Int -> Int\nf :: Int -> Int\nf x = x &~ 1", "&~($0, 1)", "Int"},
	})
}

// The manifest says which functions are operators, by their text in
// their language, and from which file each comes.
func TestForeignOperatorManifest(t *testing.T) {
	p := compileOK(t, program("f", "source Py from \"chem.py\" (`not in` as (</>))\nsource Cpp ((%) as (%.))\n(</>) :: Int -> [Int] -> Bool\n(%.) :: Int -> Int -> Int\nf :: Int -> Bool\nf x = (x %. 3) </> [1, 2]"))
	got := map[string]manifest.Function{}
	for _, fn := range p.Manifest.Functions {
		got[fn.Name] = fn
	}
	for _, want := range []struct{ name, source, pool string }{{"</>", "not in", manifest.Python}, {"%.", "%", manifest.Cpp}} {
		fn, ok := got[want.name]
		if !ok {
			t.Fatalf("no function %s in %v", want.name, p.Manifest.Functions)
		}
		if !fn.Infix || fn.Source != want.source || fn.Pool != want.pool {
			t.Errorf("%s: infix %v, source %q, pool %s; want infix, %q, %s", want.name, fn.Infix, fn.Source, fn.Pool, want.source, want.pool)
		}
	}
	if fn := got["upper"]; fn.Infix {
		t.Errorf("a named function is marked infix: %+v", fn)
	}
	if src := p.Sources[got["</>"].ID]; filepath.Base(src) != "chem.py" {
		t.Errorf("</> comes from %s, want chem.py", src)
	}
}

// Mistakes with foreign operators are reported where they are written.
func TestForeignOperatorErrors(t *testing.T) {
	wantErrors(t, []errorCase{
		{"a backtick name without as", "source Py from \"chem.py\" (`and`)\nf :: Str -> Str\nf = upper", "6:27: the backtick name `and` needs 'as' and the program's operator: `and` as (&&)"},
		{"an unterminated backtick name", "source Py from \"chem.py\" (`and as (&&))\nf :: Str -> Str\nf = upper", "6:27: unterminated backtick name"},
		{"an operator Python does not have", "source Py ((===) as (=.=))\n(=.=) :: Int -> Int -> Bool\nf :: Str -> Str\nf = upper", "6:13: '===' is not an operator of Python (did you mean '=='?); its binary operators are + - * /"},
		{"a keyword operator Go does not have", "source Go from \"mathx.go\" (`and` as (&.))\n(&.) :: Bool -> Bool -> Bool\nf :: Str -> Str\nf = upper", "6:28: 'and' is not an operator of Go"},
		{"a Go operator without a file", "source Go ((+) as (+.))\n(+.) :: Int -> Int -> Int\nf :: Str -> Str\nf = upper", "6:8: a Go operator is served from the package of a Go file of the program's"},
		{"a named C++ function without a file", "source Cpp ((+) as (+.), \"plus\")\n(+.) :: Int -> Int -> Int\nplus :: Int -> Int -> Int\nf :: Str -> Str\nf = upper", "6:8: a source without 'from' names the language's builtins"},
		{"an operator given one argument", "source Py ((-) as (-.))\n(-.) :: Int -> Int\nf :: Str -> Str\nf = upper", "7:2: '-.' is Python's operator -, applied to two operands, but its signature takes 1 argument"},
		{"something else in parentheses", "source Py from \"chem.py\" ((upper))\nf :: Str -> Str\nf = upper", "6:27: expected an operator in parentheses, like (+)"},
		{"a standard operator defined still", "(+) x y = x\nf :: Str -> Str\nf = upper", "6:2: '+' is a standard operator, which the nexus evaluates itself"},
	})
}
