package codegen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
)

// Generic signatures and the prelude: each use of a generic function is
// checked at its own types; a higher-order builtin given a Python
// function becomes one call of the Python pool's own loop, given a
// reference to the function; otherwise the nexus runs it with a lambda.
func TestGenericBodies(t *testing.T) {
	tests := []struct{ name, text, want, ret string }{
		{"map over a Python function runs in the pool",
			"import root\nf :: [Str] -> [Str]\nf xs = map upper xs", "map(&upper(#0), $0)", "[Str]"},
		{"a function given some arguments is referred to with them",
			"import root\nf :: [Int] -> [Str]\nf ns = map (shout \"a\") ns", "map(&shout(\"a\", #0), $0)", "[Str]"},
		{"a lambda calling one Python function is referred to",
			"import root\nf :: Int -> [Str] -> [Str]\nf n xs = map (\\s -> shout s (n * 2)) xs", "map(&shout(#0, ($0 * 2)), $1)", "[Str]"},
		{"a lambda doing more runs in the nexus",
			"import root\nf :: [Str] -> [Str]\nf xs = map (\\s -> upper s <> \"!\") xs", "map(\\1:1 -> (upper($1) <> \"!\"), $0)", "[Str]"},
		{"a C++ function's map runs in the C++ pool",
			"import root\nf :: [[Real]] -> [Summary]\nf xss = map summarize xss", "map(&summarize(#0), $0)", "[Summary]"},
		{"a lambda calling two pools runs in the nexus",
			"import root\nf :: [Real] -> [Real]\nf xs = map (\\x -> clamp 0.0 1.0 (weightPy \"C\")) xs", "map(\\1:1 -> clamp(0.0, 1.0, weightPy(\"C\")), $0)", "[Real]"},
		{"a fold's accumulator type comes from its seed",
			"import root\nf :: [Int] -> Real\nf xs = fold (\\acc x -> acc + 0.5) 0.0 xs", "fold(\\1:2 -> ($1 + 0.5), 0.0, $0)", "Real"},
		{"an operator's own type tells what the seed is", "import root\nf :: [Str] -> Str\nf xs = fold (<>) mempty xs", "fold(\\1:2 -> ($1 <> $2), mempty(), $0)", "Str"},
		{"a generic definition's type tells what the seed is", "import root\nf :: [Int] -> Int\nf xs = fold max zero xs", "fold(\\1:2 -> if(($1 < $2), $2, $1), zero(), $0)", "Int"},
		{"a combinator is inlined", "import root\nf :: Str -> Str\nf s = flip shout 2 s", "shout($0, 2)", "Str"},
		{"min at Int", "import root\nf :: Int -> Int\nf x = min x 3", "if(($0 < 3), $0, 3)", "Int"},
		{"an Int literal joins a Real", "import root\nf :: Real -> Real\nf x = max 1 x", "if((1.0 < $0), $0, 1.0)", "Real"},
		{"a builtin's result type from the context", "import root\nf :: Str\nf = mempty", "mempty()", "Str"},
		{"maybe's default", "import maybe\nf :: ?Int -> Int\nf x = default 7 x", "if(isNull($0), 7, require($0))", "Int"},
		{"a map", "import map\nf :: Str -> ?Int\nf k = lookup k (fromList [(\"a\", 1)])", "lookup($0, fromList([[\"a\",1]]))", "?Int"},
		{"a generic Python function at two types",
			"source Py from \"chem.py\" (\"upper\" as same)\nsame :: a -> a\nf :: Int -> (Int, Str)\nf n = (same n, same \"x\")", "tuple(same($0), same(\"x\"))", "(Int, Str)"},
		{"a generic definition with a function argument",
			"twice :: (a -> a) -> a -> a\ntwice g x = g (g x)\nf :: Str -> Str\nf s = twice upper s", "upper(upper($0))", "Str"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantBody(t, tt.text, tt.want, tt.ret) })
	}
}

// Each instance of a generic sourced function is a function of its own in
// the manifest, with the concrete types its pool converts.
func TestGenericInstances(t *testing.T) {
	p := compileOK(t, program("f", "source Py from \"chem.py\" (\"upper\" as same)\nsame :: a -> a\nf :: Int -> (Int, Str, Int)\nf n = (same n, same \"x\", same 2)"))
	var got []string
	for _, fn := range p.Manifest.Functions {
		if fn.Name == "same" {
			got = append(got, fn.Args[0].String()+" -> "+fn.Return.String())
		}
	}
	if len(got) != 2 || got[0] != "Int -> Int" || got[1] != "Str -> Str" {
		t.Errorf("instances of same: %v, want Int -> Int and Str -> Str", got)
	}
	p = compileOK(t, program("f", "import root\nf :: [Str] -> [Str]\nf xs = map upper (map upper xs)"))
	n := 0
	for _, fn := range p.Manifest.Functions {
		if fn.Source == "morloc_map" {
			n++
			if fn.Pool != manifest.Python || fn.Args[0].String() != "Str -> Str" {
				t.Errorf("the pool's map: %s %v", fn.Pool, fn.Args)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d copies of the pool's map for one instance, want 1", n)
	}
}

func TestGenericErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"a generic command", "module m (g)\nimport root\ng :: a -> a\ng x = x", "1:11: 'g' cannot be a command: its type a -> a has type variables or takes a function"},
		{"a result no argument tells", "module m (f)\nimport root\nf :: Int -> Str\nf x = show mempty", "4:12: cannot tell what type mempty returns here (a)"},
		{"a function's argument of the wrong type", "module m (f)\nimport root\nsource Py from \"chem.py\" (\"upper\")\nupper :: Str -> Str\nf :: [Int] -> [Str]\nf xs = map upper xs", "6:12: expected Str, got Int"},
		{"a sum of strings", "module m (f)\nimport root\nf :: [Str] -> Str\nf xs = sum xs", "4:8: sum works on numbers (Int or Real), not Str"},
		{"a value where a function is expected", "module m (f)\nimport root\nf :: [Int] -> [Int]\nf xs = map 3 xs", "4:12: expected a function Int -> Int, got a value of type Int"},
		{"a list of functions", "module m (f)\nsource Py from \"chem.py\" (\"upper\")\nupper :: [Str -> Str] -> Str\nf :: Str\nf = \"x\"", "3:11: a function type (Str -> Str) inside a list"},
		{"a Python higher-order function given a lambda", "module m (f)\nsource Py from \"chem.py\" (\"shout\" as apply, \"upper\")\napply :: (Str -> Str) -> Str -> Str\nupper :: Str -> Str\nf :: Str -> Str\nf s = apply (\\x -> upper x <> \"!\") s", "6:14: argument 1 of apply must be a Py function (or one given some of its arguments), since apply runs in the Py pool"},
		{"a generic sourced value without context", "module m (f)\nimport root\nsource Py from \"chem.py\" (\"upper\" as anything)\nanything :: a\nf :: Int\nf = length [anything]", "3:38: cannot tell what type anything returns here (a)"},
		{"a reserved definition name", "module m (f)\nmlcp_x = 1\nf :: Int\nf = 2", "2:1: Names beginning with 'mlcp_' are reserved: 'mlcp_x'"},
		{"a reserved sourced name", "module m (f)\nsource Py from \"chem.py\" (\"upper\" as mlcp_up)\nmlcp_up :: Str -> Str\nf :: Int\nf = 2", "2:38: Names beginning with 'mlcp_' are reserved: 'mlcp_up'"},
		{"a class method exported", "module m (area)\nimport root\nclass Shape a where\n  area :: a -> Real", "1:11: 'area' is a method of class Shape, which works at the types of its instances; a method cannot be a command"},
		{"an Int divided by /", "module m (f)\nf :: Int -> Real\nf x = x / 2", "3:9: '/' divides Reals, and an operand is an Int: use '//' for the Int quotient, or toReal to divide as Reals"},
		{"an Int result divided by /", "module m (f)\nimport root\nf :: [Real] -> Real\nf xs = 2 / length xs", "4:10: '/' divides Reals, and an operand is an Int: use '//' for the Int quotient"},
		{"a higher-kinded type variable of two kinds", "module m (f)\nsource Py from \"chem.py\" (\"upper\")\nupper :: f a -> f -> Str\nf :: Str\nf = \"x\"", "3:17: type variable f is applied to 0 type arguments here and to 1 at 3:10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantError(t, tt.src, tt.want) })
	}
}

// Section 10 of Morloc's digest: names with several implementations (the
// first source is called), sources of a language's builtins, and the
// block form of a source.
func TestAlternativesAndSourceForms(t *testing.T) {
	wantBody(t, "source Go from \"mathx.go\" (\"Double\" as upper)\nupper = 1\nf :: Str -> Str\nf = upper", "upper($0)", "Str")
	p := compileOK(t, program("f", "f :: Str -> Str\nf = upper\nupper x = x"))
	if fn := p.Manifest.Functions[p.Manifest.Commands[0].Body.Ref]; fn.Pool != manifest.Python || fn.Name != "upper" {
		t.Errorf("the definition beside a source was called instead: %+v", fn)
	}
	p = compileOK(t, program("f", "source Py (\"len\" as size)\nsize :: Str -> Int\nf :: Str -> Int\nf s = size s"))
	if fn := p.Manifest.Functions[0]; fn.Source != "len" || p.Sources[0] != "/nexus-builtins/python" {
		t.Errorf("a Python builtin: %+v from %s", fn, p.Sources[0])
	}
	p = compileOK(t, "module m (f)\nsource Py from \"chem.py\" where\n  --' Shout it\n  %inline\n  \"upper\" as up\n  count\nup :: Str -> Str\ncount :: [Int] -> Int\nf :: Str -> Str\nf s = up s")
	if fn := p.Manifest.Functions[0]; fn.Source != "upper" || fn.Name != "up" {
		t.Errorf("a block source: %+v", fn)
	}
	wantError(t, "module m (f)\nsource Cpp (\"abs\")\nabs :: Int -> Int\nf :: Int\nf = abs 1", "2:8: a source without 'from' names the language's builtins, which only Python's pool has")
	wantError(t, "module m (f)\nsource Py from \"chem.py\" where\nf :: Int\nf = 1", "2:31: expected the sourced names on indented lines after 'where'")
}

// A cycle of definitions with concrete signatures is recursive: the
// manifest has each as a Def that Apply calls, with the program's other
// definitions inlined into it; only what the commands reach is kept.
func TestRecursiveDefinitions(t *testing.T) {
	p := compileOK(t, program("f", `import root
f :: Int -> Int
f n = even n + 1
even :: Int -> Int
even n = ? n == 0 = 1 : odd (n - 1)
odd :: Int -> Int
odd n = ? n == 0 = 0 : even (n - 1)
unused :: Int -> Int
unused n = unused (count [n])`))
	m := p.Manifest
	if got := exprString(m, m.Commands[0].Body); got != "(apply0($0) + 1)" {
		t.Errorf("body %s", got)
	}
	if len(m.Defs) != 2 || m.Defs[0].Name != "even" || m.Defs[1].Name != "odd" {
		t.Fatalf("defs %+v", m.Defs)
	}
	if got := exprString(m, m.Defs[0].Body); got != "if(($0 == 0), 1, apply1(($0 - 1)))" {
		t.Errorf("even's body %s", got)
	}
	for _, fn := range m.Functions {
		if fn.Name == "count" {
			t.Errorf("a function only an unused recursive definition calls is in the manifest")
		}
	}
}

// A file without a module header is the module main exporting everything,
// as Morloc reads it, whether it is the program or a module it imports.
func TestNoModuleHeader(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"main.loc": "import .lib\nf :: Int -> Int\nf x = g x + 1\n",
		"lib.loc":  "g :: Int -> Int\ng x = x * 2\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Compile(filepath.Join(dir, "main.loc"))
	if err != nil {
		t.Fatal(err)
	}
	m := p.Manifest
	// (*) exports what the module imported unqualified too: g.
	if m.Name != "main" || len(m.Commands) != 2 || m.Commands[0].Name != "f" || m.Commands[1].Name != "g" || exprString(m, m.Commands[0].Body) != "(($0 * 2) + 1)" {
		t.Errorf("module %s, commands %+v", m.Name, m.Commands)
	}
}

// An exported definition without a signature has the type Morloc would
// infer: its body's, its parameters' from their first uses.
func TestExportedValueWithoutSignature(t *testing.T) {
	p := compileOK(t, "module m (xs, s)\nimport root\nxs = map (\\x -> x * 2) [1, 2]\ns = \"a\" <> \"b\"")
	if c := p.Manifest.Commands; len(c) != 2 || c[0].Return.String() != "[Int]" || c[1].Return.String() != "Str" {
		t.Errorf("commands %+v", c)
	}
	wantError(t, "module m (f)\nimport root\nf = id", "1:11: exported 'f' is a function ('id' given 0 of its 1 argument) without a signature")
	wantError(t, "module m (f)\nimport root\nf x = x", "3:3: the type of 'x', a parameter of the exported 'f', cannot be inferred from its uses; give 'f' a signature")
	// A parameter's type is what its first use expects.
	p = compileOK(t, program("g", "g s n = (shout s n, s)"))
	if c := p.Manifest.Commands[0]; len(c.Args) != 2 || c.Args[0].Type.String() != "Str" || c.Args[1].Type.String() != "Int" || c.Return.String() != "(Str, Str)" {
		t.Errorf("inferred %v -> %s", c.Args, c.Return)
	}
}

// A program that makes no command builds, with a warning saying so.
func TestNoCommandsWarns(t *testing.T) {
	p := compileOK(t, "module m (*)\nimport root\nx = 1")
	if len(p.Manifest.Commands) != 0 || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "1:8: warning: the program has no commands") {
		t.Errorf("commands %d, warnings %q", len(p.Manifest.Commands), p.Warnings)
	}
}

// An instance's own type variables are not its class's, whatever their
// names: `instance Pack [(a, b)] (Box (a, b))` of `class Pack a b` checks
// its method at the instance's types (building it once overflowed the
// stack).
func TestInstanceVariablesApart(t *testing.T) {
	compileOK(t, `module m (f)
import root
class Pack a b where
  pk :: a -> b
newtype Box a = [a]
instance Pack [(a, b)] (Box (a, b)) where
  pk xs = xs
f :: Int
f = 1`)
}

// Two definitions of a name are alternatives, as in Morloc: the first is
// used, with a warning.
func TestDefinitionAlternatives(t *testing.T) {
	p := compileOK(t, "module m (f)\nimport root\nf :: Int -> Int\nf x = x + 1\nf x = x + 2")
	if got := exprString(p.Manifest, p.Manifest.Commands[0].Body); got != "($0 + 1)" || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "5:1: warning: 'f' is defined twice (first at 4:1)") {
		t.Errorf("body %s, warnings %q", got, p.Warnings)
	}
}
