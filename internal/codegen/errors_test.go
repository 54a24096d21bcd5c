package codegen

import (
	"fmt"
	"strings"
	"testing"
)

// errHeader is five lines; the text of each case starts on line 6.
const errHeader = `module m (f)
source Py from "chem.py" ("upper", "shout", "count")
upper :: Str -> Str
shout :: Str -> Int -> Str
count :: [Int] -> Int
`

// TestErrors checks the message and the exact line and column of each
// kind of build error. A case whose text starts with "module" is a whole
// program; otherwise it follows errHeader. want is a prefix of one of the
// reported errors.
func TestErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"syntax error", "f :: Str ->", "6:12: expected a type, got end of input"},

		{"unknown type", "f :: Strng -> Str\nf = upper", "6:6: unknown type 'Strng' (did you mean 'Str'?)"},
		{"unknown type in a record", "record R where\n  x :: Innt\nf :: Str -> Str\nf = upper", "7:8: unknown type 'Innt' (did you mean 'Int'?)"},
		{"unknown type inside a list", "f :: [Reall] -> Str\nf _ = \"x\"", "6:7: unknown type 'Reall' (did you mean 'Real'?)"},
		{"type with the wrong number of arguments", "f :: Map Str -> Str\nf _ = \"x\"", "6:6: type Map takes 2 type arguments, but is given 1"},
		{"recursive record", "record R where\n  r :: R\nf :: Str -> Str\nf = upper", "6:8: record R contains itself (R -> R); records cannot be recursive"},
		{"alias standing for itself", "type X = X\nf :: X -> Str\nf _ = \"x\"", "6:6: type alias X stands for itself (X -> X); recursive types are not supported"},
		{"recursive alias", "type T = [T]\nf :: T -> Str\nf _ = \"x\"", "6:6: type alias T stands for itself (T -> T)"},
		{"alias with the wrong number of arguments", "type Pair a b = (a, b)\nf :: Pair Int -> Str\nf _ = \"x\"", "7:6: type Pair takes 2 type arguments, but is given 1"},
		{"alias with an unknown type", "type Name = Strr\nf :: Name -> Str\nf = upper", "6:13: unknown type 'Strr' (did you mean 'Str'?)"},
		{"alias with a built-in name", "type Int = Str\nf :: Str -> Str\nf = upper", "6:6: type alias Int has the name of a built-in type"},
		{"alias declared twice", "type A = Str\ntype A = Int\nf :: Str -> Str\nf = upper", "7:6: type A is declared twice (first at 6:6)"},
		{"language map of an alias", "type Name = Str\ntype Py => Name = \"str\"\nf :: Str -> Str\nf = upper", "7:12: type Name is an alias, which takes its language forms from the type it stands for"},
		{"language map in an unknown language", "type Pyy => Int = \"int\"\nf :: Str -> Str\nf = upper", "6:6: unknown language 'Pyy' in a type map (expected Py, Cpp or Go, or another of Morloc's languages) (did you mean 'Py'?)"},
		{"language map of an unknown type", "type Py => Strr = \"str\"\nf :: Str -> Str\nf = upper", "6:12: unknown type 'Strr' in a type map (did you mean 'Str'?)"},
		{"undeclared effect", "f :: Str -> <IO, Rand> Str\nf = upper", "6:18: effect 'Rand' is not declared; declare it with `effect Rand`"},
		{"undeclared effect, a typo", "effect Rand\nf :: Str -> <Rnd> Str\nf = upper", "7:14: effect 'Rnd' is not declared; declare it with `effect Rnd` (did you mean 'Rand'?)"},
		{"two effect variables", "f :: Str -> <IO, e, r> Str\nf = upper", "6:21: an effect row has at most one effect variable; 'r' is a second"},
		{"composing a value", "f :: Str -> Str\nf s = upper . s", "7:13: '.' composes functions; a value cannot be composed"},
		{"definition cycle through an operator", "f :: Int -> Int\nf x = g x + 1\ng x = f x * 2", "8:7: definition cycle f -> g -> f"},
		{"unknown name in an operand of an unused definition", "f :: Str -> Str\nf = upper\ng x = x + lenght x", "8:11: unknown name 'lenght'"},
		{"guard condition not a Bool", "f :: Int -> Int\nf n ? n = 1 : 2", "7:7: expected Bool, got Int"},
		{"guard branches of two types", "f :: Int -> Str\nf n = ? n > 0 = \"a\" : 1", "7:23: expected Str, got Int"},
		{"guard branches of two types inferred", "g n = ? n > 0 = \"a\" : 1\nf :: Int -> Str\nf n = upper (g n)", "6:23: expected Str, got Int"},
		{"where binding shadowing a parameter", "f :: Int -> Int\nf x = x where\n  x = 1", "8:3: where-clause binding 'x' shadows a parameter of 'f'"},
		{"where binding twice", "f :: Int -> Int\nf x = y where\n  y = 1\n  y = 2", "9:3: duplicate binding 'y' in the where-clause of 'f' (first at 8:3)"},
		{"where bindings in a cycle", "f :: Int -> Int\nf x = a where\n  a = b + 1\n  b = a", "8:3: where-clause bindings in a cycle, a -> b -> a"},
		{"unknown name in a where binding", "f :: Int -> Int\nf x = a where\n  a = x + bb", "8:11: unknown name 'bb'"},
		{"where binding against its signature", "f :: Int -> Str\nf x = y where\n  y :: Str\n  y = 1", "9:7: expected Str, got Int"},
		{"let binding of the wrong type", "f :: Str -> Int\nf s = let u = upper s in u", "7:26: expected Int, got Str"},
		{"unknown name in a let", "f :: Int -> Int\nf x = let y = x + 1 in y + z", "7:28: unknown name 'z'"},
		{"let binding out of its scope", "f :: Int -> Int\nf x = (let y = x in y) + y", "7:26: unknown name 'y'"},
		{"do block ending with a bind", "f :: Str -> Str\nf s = do\n  x <- upper s", "7:7: a 'do' block ends with an expression, its value; this one ends with a binding"},
		{"unknown name in a lambda", "app g x = g x\nf :: Int -> Int\nf x = app (\\y -> y + z) x", "8:22: unknown name 'z'"},
		{"interpolating an Int", "f :: Int -> Str\nf n = \"n = #{n}\"", "7:14: expected Str, got Int"},
		{"Null where no optional is", "f :: Int\nf = Null", "7:5: Null stands for an optional value (?T), not Int"},
		{"operator on the wrong type", "f :: Str -> Str\nf s = s + \"x\"", "7:9: '+' applies to Int and Real, not Str"},
		{"operands of two types", "f :: Int -> Str -> Bool\nf n s = n == s", "7:14: expected Int, got Str"},
		{"Int division", "f :: Int -> Int\nf n = n / 2", "7:9: '/' divides Reals, and an operand is an Int: use '//' for the Int quotient, or toReal to divide as Reals"},
		{"ambiguous chain", "f :: Str -> Str\nf s = s <> s + s", "7:14: ambiguous use of '<>' and '+'"},
		{"comparing lists", "f :: [Int] -> Bool\nf xs = xs < xs", "7:11: '<' compares Int, Real or Str, not [Int]"},
		{"negating a string", "f :: Str -> Str\nf s = -s", "7:7: '-' negates an Int or a Real, not Str"},
		{"a fixity that differs", "infixr 6 +\nf :: Str -> Str\nf = upper", "6:10: fixity infixr 6 for '+' differs from its standard one, infixl 6"},
		{"a fixity for an unknown operator", "infixl 5 +.\nf :: Str -> Str\nf = upper", "6:10: fixity for '+.', which the program does not define: define it with `(+.) x y = ...` or source a function as it, `(\"name\" as (+.))`"},
		{"language of an unknown record", "record Py => Q = \"dict\"\nf :: Str -> Str\nf = upper", "6:14: unknown record 'Q'"},

		{"unknown name", "f :: Str -> Str\nf s = uper s", "7:7: unknown name 'uper' (did you mean 'upper'?)"},
		{"unknown name in an unused definition", "f :: Str -> Str\nf = upper\ng x = shuot x 1", "8:7: unknown name 'shuot' (did you mean 'shout'?)"},
		{"unknown import", "import rooty\nf :: Str -> Str\nf = upper", "6:8: unknown import 'rooty' (did you mean 'root'?)"},
		{"unknown source language", "module m (f)\nsource R from \"x.r\" (\"y\")", "2:8: unknown source language 'R' (expected Py, Cpp, Go or MCP)"},
		{"missing source file", "module m (upper)\nsource Py from \"gone.py\" (\"upper\")\nupper :: Str -> Str", "2:16: Source file not found: \"gone.py\" (looked for /"},
		{"name not in a Python source", "module m (nope)\nsource Py from \"chem.py\" (\"nope\")\nnope :: Str -> Str", "2:27: \"nope\" is not defined in chem.py (looked for a top-level def, class, assignment or import of it)"},
		{"name not in a C++ source", "module m (nope)\nsource Cpp from \"stats.hpp\" (\"nope\" as nope)\nnope :: Str -> Str", "2:30: \"nope\" is not defined in stats.hpp (looked for a function of that name)"},
		{"name not in a Go source", "module m (clamp)\nsource Go from \"mathx.go\" (\"clamp\")\nclamp :: Real -> Real", "2:28: \"clamp\" is not defined in mathx.go (looked for a top-level func of that name)"},
		{"export with no definition", "", "1:11: exported 'f' is not defined"},
		{"export with a typo", "module m (uper)\nsource Py from \"chem.py\" (\"upper\")\nupper :: Str -> Str", "1:11: exported 'uper' is not defined (did you mean 'upper'?)"},
		{"sourced function with no signature", "module m (f)\nsource Py from \"chem.py\" (\"upper\", \"count\")\nupper :: Str -> Str\nf :: Str -> Str\nf = upper", "2:36: sourced function 'count' has no type signature"},
		{"exported function with no signature", "f = upper", "1:11: exported 'f' is a function ('upper' given 0 of its 1 argument) without a signature"},
		{"signature with nothing behind it", "g :: Int\nf :: Str -> Str\nf = upper", "6:1: 'g' has a signature but is neither sourced nor defined"},
		{"defined twice with different values", "f :: Int\nf = 1\nf = 2", "8:1: 'f' is defined twice with different values, 1 (at 7:1) and 2"},
		{"more parameters than the signature", "f :: Str -> Str\nf a b = upper a", "7:5: f has 2 parameters, but its signature gives 1 argument"},
		{"definition cycle", "f :: Int\nf = g\ng = f", "8:5: definition cycle f -> g -> f: recursive definitions need a signature of concrete types each, and g has no signature"},
		{"generic self reference", "f :: a -> a\nf x = f x", "7:7: definition cycle f -> f: recursive definitions need a signature of concrete types each, and f has a generic signature"},

		{"wrong argument count", "f :: Str -> Str\nf s = upper s s", "7:7: 'upper' takes 1 argument, but is given 2"},
		{"type mismatch", "f :: Int -> Str\nf x = upper x", "7:13: expected Str, got Int"},
		{"type mismatch of a literal", "f :: Str -> Str\nf s = shout s \"x\"", "7:15: expected Int, got Str"},
		{"Real where an Int is expected", "f :: Str -> Str\nf s = shout s 1.5", "7:15: expected Int, got Real"},
		{"result type mismatch", "f :: Str -> Int\nf s = upper s", "7:7: expected Int, got Str"},
		{"missing arguments", "f :: Str -> Str\nf s = shout s", "7:7: expected Str, got 'shout' given 1 of its 2 arguments"},
		{"value applied", "f :: Str -> Str\nf s = s s", "7:7: a value of type Str is not a function, but is given 1 argument"},
		{"list of mixed types", "record R where\n  a :: Int\nf :: Int\nf = .a [1, \"x\"]", "9:12: list elements differ in type: expected Int, got Str"},
		{"empty list of unknown type", "record R where\n  a :: Int\nf :: Int\nf = .a []", "9:8: cannot tell the element type of this empty list"},
		{"throw of unknown type", "record R where\n  a :: Int\nf :: Int\nf = .a (@throw \"x\")", "9:9: cannot tell the type of this @throw"},
		{"Json map key", "f :: Map Json Int -> Str\nf _ = \"x\"", "6:10: a map key cannot be or hold a Json (Json): a decoded JSON object or list is no key in Python or Go; use Str for JSON text"},
		{"Json inside a map key", "f :: Map (Int, [Json]) Int -> Str\nf _ = \"x\"", "6:10: a map key cannot be or hold a Json ((Int, [Json]))"},
		{"Json where a Str is expected", "f :: Json -> Str\nf j = upper j", "7:13: expected Str, got Json"},
		{"list literal where a Json is expected", "f :: Json\nf = [1, 2]", "7:5: expected Json, got a list (a literal Json is an Int, Real, Str, Bool or (); a Json list or object comes from an argument or a function)"},
		{"tuple literal where a Json is expected", "f :: [Json]\nf = [(1, 2)]", "7:6: expected Json, got a tuple of 2 items (a literal Json"},
		{"record literal where a Json is expected", "f :: ?Json\nf = {a = 1}", "7:5: expected Json, got a record (a literal Json"},
		{"getter on a non-record", "f :: Str -> Int\nf s = .x s", "7:10: '.x' needs a record, got Str"},
		{"unknown field", "record R where\n  a :: Int\nf :: R -> Int\nf r = .aa r", "9:7: record R has no field 'aa' (did you mean 'a'?)"},
		{"unknown field in a record literal", "record R where\n  a :: Int\n  b :: ?Str\nf :: R\nf = {a = 1, c = 2}", "10:13: record R has no field 'c'"},
		{"missing field in a record literal", "record R where\n  a :: Int\n  b :: ?Str\nf :: R\nf = {b = \"x\"}", "10:5: record R is missing field 'a'"},

		{"short option that is not a letter", "f ::\n  --' arg: -1\n  Str ->\n  Str\nf = upper", "7:12: arg: short option '-1' is not a letter"},
		{"short option of two letters", "f ::\n  --' arg: -ab\n  Str ->\n  Str\nf = upper", "7:12: arg: short option '-ab' must be one letter; write --ab for a long option"},
		{"duplicate option", "f ::\n  --' arg: --x\n  Str ->\n  --' arg: -y/--x\n  Int ->\n  Str\nf = shout", "9:15: option --x is used twice in command f (first at 7:12)"},
		{"duplicate between option and flag", "f ::\n  --' arg: -x\n  Str ->\n  --' true: -x\n  Bool ->\n  Str\nf s _ = upper s", "9:13: option -x is used twice in command f (first at 7:12)"},
		{"option clashing with -h", "f ::\n  --' arg: -h\n  Str ->\n  Str\nf = upper", "7:12: option -h is reserved for help"},
		{"flag clashing with --help", "f ::\n  --' true: --help\n  Bool ->\n  Str\nf _ = \"x\"", "7:13: option --help is reserved for help"},
		{"action clashing with an option", "--' with: --x=count\nf ::\n  --' arg: --x\n  [Int] ->\n  [Int]\nf xs = xs", "6:11: option --x is used twice in command f (first at 8:12)"},
		{"default that does not type-check", "f ::\n  Str ->\n  --' arg: --n\n  --' default: \"x\"\n  Int ->\n  Str\nf = shout", "9:16: default: '\"x\"' is not a valid Int: expected an integer, got the string \"x\""},
		{"default that is not JSON", "f ::\n  Str ->\n  --' arg: --n\n  --' @default three\n  Int ->\n  Str\nf = shout", "9:16: default: 'three' is not a valid Int: not valid JSON"},
		{"field default that does not type-check", "record R where\n  --' default: 1.5\n  a :: Int\nf :: Str -> Str\nf = upper", "7:16: default: '1.5' is not a valid Int"},
		{"default on a positional", "f ::\n  --' default: \"a\"\n  Str ->\n  Str\nf = upper", "7:7: default: applies to an option or a flag"},
		{"underscore name", "f ::\n  --' name: _x\n  Str ->\n  Str\nf = upper", "7:13: name: '_x' must not start with '_' (names starting with '_' are reserved)"},
		{"command name with a space", "--' name: bad name!\nf :: Str -> Str\nf = upper", "6:11: command name 'bad name!' must match ^[a-zA-Z0-9_-]{1,64}$, which is what MCP clients accept as a tool name"},
		{"command name too long", "--' name: " + strings.Repeat("a", 65) + "\nf :: Str -> Str\nf = upper", "6:11: command name '" + strings.Repeat("a", 65) + "' must match"},
		{"exported name that is not a tool name", "module m (f')\nsource Py from \"chem.py\" (\"upper\")\nupper :: Str -> Str\nf' :: Str -> Str\nf' = upper", "1:11: command name 'f'' must match"},
		{"two commands with one name", "module m (f, g)\nsource Py from \"chem.py\" (\"upper\")\nupper :: Str -> Str\n--' name: g\nf :: Str -> Str\nf = upper\ng :: Str -> Str\ng = upper", "1:14: two commands are named g (the first at 4:11)"},
		{"many on a positional that is not last", "f ::\n  --' many: true\n  [Int] ->\n  Str ->\n  Str\nf _ s = upper s", "7:7: many: applies only to the last positional argument (or to an option)"},
		{"many on a non-list", "f ::\n  --' @many\n  Str ->\n  Str\nf = upper", "7:7: many: needs a list type, and this argument is Str"},
		{"many on a flag", "f ::\n  --' true: --x\n  --' many: true\n  Bool ->\n  Str\nf _ = \"x\"", "8:7: many: applies to the last positional argument or to an option, not to a flag"},
		{"many with a bad value", "f ::\n  --' many: lots\n  [Int] ->\n  Int\nf = count", "7:13: many: expected true or false, got 'lots'"},
		{"stdin on an option", "f ::\n  --' arg: --s\n  --' stdin: true\n  Str ->\n  Str\nf = upper", "8:7: stdin: applies only to the last positional argument, not to an option"},
		{"stdin on a positional that is not last", "f ::\n  --' stdin: true\n  Str ->\n  Int ->\n  Str\nf = shout", "7:7: stdin: applies only to the last positional argument"},
		{"flag on a non-Bool", "f ::\n  --' true: --on\n  Str ->\n  Str\nf = upper", "7:7: true: makes a flag, which needs a Bool argument; this one is Str"},
		{"flag and option at once", "f ::\n  --' arg: --a\n  --' true: --b\n  Bool ->\n  Str\nf _ = \"x\"", "7:7: an argument is either an option (arg:) or a flag (true:/false:), not both"},
		{"render of a non-Str", "--' render: --n=len\nf :: Str -> Str\nf = upper\nlen :: Str -> Int\nlen _ = 1", "6:17: render: 'len' returns Int, but a render function must return Str"},
		{"with taking the wrong type", "--' with: -c/--count=count\nf :: Str -> Str\nf = upper", "6:22: with: 'count' takes [Int], but the command returns Str"},
		{"with that is not a function", "--' with: --w=count [1]\nf :: Str -> Str\nf = upper", "6:15: a value of type Int is not a function, but is given 1 argument"},
		{"action without a function", "--' with: --w\nf :: Str -> Str\nf = upper", "6:14: with: expected -s/--long=function"},
		{"empty title", "--' title:\nf :: Str -> Str\nf = upper", "6:11: title: needs the command's display name"},
		{"icon over http", "--' icon: http://example.com/i.png\nf :: Str -> Str\nf = upper", "6:11: icon: 'http://example.com/i.png' is not an https:// URL or a data:image/ URI"},
		{"icon that is a path", "--' @icon icons/i.png\nf :: Str -> Str\nf = upper", "6:11: icon: 'icons/i.png' is not an https:// URL or a data:image/ URI"},
		{"icon of two words", "--' icon: https://example.com/a.png https://example.com/b.png\nf :: Str -> Str\nf = upper", "6:11: icon: 'https://example.com/a.png https://example.com/b.png' is not one URL: it holds white space"},
		{"action with a syntax error", "--' with: --w=upper )\nf :: Str -> Str\nf = upper", "6:21: unexpected ')' after the expression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.text
			if !strings.HasPrefix(src, "module") && src != "f = 1" {
				src = errHeader + src
			}
			wantError(t, src, tt.want)
		})
	}
}

// TestSeveralErrorsAtOnce checks that independent problems are all
// reported by one build, in order.
func TestSeveralErrorsAtOnce(t *testing.T) {
	errs := compileErrors(t, `module m (f, g, h, missing)
import nowhere
source Py from "chem.py" ("upper", "nope")
upper :: Str -> Str
nope :: Str -> Str
f :: Strng -> Str
f = upper
g :: Str -> Str
g s = upper 1
h ::
  --' arg: -1
  Str ->
  Str
h = upper
`)
	want := []string{
		"1:20: exported 'missing' is not defined",
		"2:8: unknown import 'nowhere'",
		"3:36: \"nope\" is not defined in chem.py",
		"6:6: unknown type 'Strng' (did you mean 'Str'?)",
		"9:13: expected Str, got Int",
		"11:12: arg: short option '-1' is not a letter",
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(errs), len(want), strings.Join(errs, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(errs[i], want[i]) {
			t.Errorf("error %d: %q, want %q", i, errs[i], want[i])
		}
	}
}

// TestExponentialInlining checks that definitions that double at every
// level stop with an error rather than exhausting memory.
func TestExponentialInlining(t *testing.T) {
	text := "d0 x = upper x\n"
	for i := 1; i <= 30; i++ {
		text += fmt.Sprintf("d%d x = d%d (d%d x)\n", i, i-1, i-1)
	}
	text += "f :: Str -> Str\nf = d30"
	errs := compileErrors(t, errHeader+text)
	if len(errs) != 1 || !strings.Contains(errs[0], "inlining the definitions used here grows too large") {
		t.Errorf("errors: %q", errs)
	}
}
