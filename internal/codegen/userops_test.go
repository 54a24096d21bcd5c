package codegen

import (
	"strings"
	"testing"
)

// A program's own operators: defined in prefix form, signed, sourced from
// a language, given fixities, used infix, as sections and as references.
func TestUserOperators(t *testing.T) {
	wantBodies(t, []bodyCase{
		{"defined and used infix", "(+.) :: Real -> Real -> Real\n(+.) x y = x + y * 2\nf :: Real -> Real\nf x = x +. 1", "($0 + (1.0 * 2.0))", "Real"},
		{"without a signature", "(<+>) a b = a <> \" \" <> b\nf :: Str -> Str\nf s = s <+> \"!\"", `($0 <> (" " <> "!"))`, "Str"},
		{"default fixity infixl 9 binds tighter than +", "(|*|) x y = x * y\nf :: Int -> Int\nf x = x + x |*| 3 |*| 2", "($0 + (($0 * 3) * 2))", "Int"},
		{"declared fixity, infixl 1 looser than +", "infixl 1 |>\n(|>) x g = g x\nf :: Int -> Real\nf x = x + 1 |> shout \"C\" |> upper |> weightPy", `weightPy(upper(shout("C", ($0 + 1))))`, "Real"},
		{"sourced from Python", "source Py from \"chem.py\" (\"shout\" as (*.))\n(*.) :: Str -> Int -> Str\ninfixl 5 *.\nf :: Str -> Str\nf s = upper s *. 2 + 1", "*.(upper($0), (2 + 1))", "Str"},
		{"sourced operator passed as a reference", "source Py from \"chem.py\" (\"shout\" as (*.))\n(*.) :: Str -> Int -> Str\nf :: Str -> Str\nf s = (*.) s 3", "*.($0, 3)", "Str"},
		{"right and left sections", "(-.) :: Real -> Real -> Real\n(-.) x y = x - y\ntwice g x = g (g x)\nf :: Real -> (Real, Real)\nf x = (twice (-. 1.0) x, twice (10.0 -.) x)", "tuple((($0 - 1.0) - 1.0), (10.0 - (10.0 - $0)))", "(Real, Real)"},
		{"an operator of symbols Morloc allows", "(<&~>) x y = x && not' y\nnot' b = ? b = false : true\nf :: Bool -> Bool\nf b = b <&~> b", "($0 && if($0, false, true))", "Bool"},
	})
}

// Mistakes with operators are reported where they are written.
func TestUserOperatorErrors(t *testing.T) {
	wantErrors(t, []errorCase{
		{"an operator defined infix", "x +. y = x\nf :: Str -> Str\nf = upper", "6:3: an operator is defined in prefix form: write (+.) x y = ..., not x +. y = ..."},
		{"an unknown operator", "(+.) x y = x + y\nf :: Int -> Int\nf x = x +.. 1", "8:9: unknown operator '+..' (did you mean '+.'?)"},
		{"a standard operator redefined", "(+) x y = x\nf :: Str -> Str\nf = upper", "6:2: '+' is a standard operator, which the nexus evaluates itself; a program cannot redefine it: give yours another name, such as (+.)"},
		{"two fixities for one operator", "infixl 6 +.\ninfixr 6 +.\n(+.) x y = x + y\nf :: Str -> Str\nf = upper", "7:10: a second fixity for '+.', infixr 6, differs from the first, infixl 6 at 6:10"},
		{"ambiguous chain of user operators", "infix 4 =.\n(=.) x y = x == y\nf :: Int -> Bool\nf x = x =. 1 =. 2", "9:14: ambiguous use of '=.' and '=.'"},
		{"a user operator given the wrong type", "(+.) :: Real -> Real -> Real\n(+.) x y = x + y\nf :: Str -> Real\nf s = s +. 1.0", "9:7: expected Real, got Str"},
	})
}

// An operator is exported and imported like a name, in parentheses; a
// renamed import keeps the operator's fixity, and a module's own
// operators stay its own.
func TestOperatorsAcrossModules(t *testing.T) {
	dir := writeModules(t, map[string]string{
		"ops/main.loc": `module ops ((|+|), (^^^))
infixl 6 |+|
infixr 8 ^^^
(|+|) :: Int -> Int -> Int
(|+|) x y = x + y
(^^^) :: Int -> Int -> Int
(^^^) x y = x * y + hidden
infixr 2 <!>
(<!>) x y = x - y
hidden :: Int
hidden = 3 <!> 2 <!> 1
`,
		"main.loc": `module main (f)
import .ops ((|+|) as (+~), (^^^))
f :: Int -> Int
f x = x +~ 2 ^^^ 3 +~ 1
`,
	})
	p, err := compileIn(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "(($0 + ((2 * 3) + (3 - (2 - 1)))) + 1)"
	if got := exprString(p.Manifest, p.Manifest.Commands[0].Body); got != want {
		t.Errorf("body %s, want %s", got, want)
	}
	dir = writeModules(t, map[string]string{
		"ops/main.loc": "module ops ((|+|))\n(|+|) x y = x + y\n(<!>) x y = x - y\n",
		"main.loc":     "module main (f)\nimport .ops\nf :: Int -> Int\nf x = x <!> 1\n",
	})
	_, err = compileIn(t, dir)
	if err == nil || !strings.Contains(err.Error(), "main.loc:4:9: unknown operator '<!>'") {
		t.Errorf("an operator the module keeps to itself: error %v, want main.loc:4:9: unknown operator '<!>'", err)
	}
}

// bodyCase is a program after the library, exporting f, with f's body as
// exprString writes it and its return type.
type bodyCase struct{ name, text, want, ret string }

// wantBodies checks each case with wantBody.
func wantBodies(t *testing.T, cases []bodyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantBody(t, c.text, c.want, c.ret) })
	}
}

// errorCase is a program after errHeader and the start of one of its
// errors, "line:col: message".
type errorCase struct{ name, text, want string }

// wantErrors checks each case with wantError.
func wantErrors(t *testing.T, cases []errorCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantError(t, errHeader+c.text, c.want) })
	}
}
