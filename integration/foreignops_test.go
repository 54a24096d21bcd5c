package integration

import (
	"strings"
	"testing"
)

// foreignOpFiles source operators of Python, C++ and Go (Morloc's
// digest, 2.5): each pool applies its own operator infix, with its own
// language's meaning (C++'s % truncates, Python's * repeats a string).
var foreignOpFiles = files{
	"main.loc": `module ops (plus, repeat, both, either, member, sumInt, cmod, cand, gomask, gocat, bumped)
import root

source Py ((+) as (|+|))
%inline source Py from "core.py" ((*))
source Py from "lib.py" (` + "`and`" + ` as (&&), ` + "`or`" + ` as (||), ` + "`in`" + ` as (<?>))
source Cpp ((%) as (%.), ` + "`and`" + ` as (&.))
source Go from "ops.go" ((&^) as (&~), (+) as (+~))

instance Semigroup Int where
  source Py ((+) as (<>))

(|+|) :: Int -> Int -> Int
(*) :: Str -> Int -> Str
(&&) :: Bool -> Bool -> Bool
(||) :: Bool -> Bool -> Bool
(<?>) :: Int -> [Int] -> Bool
(%.) :: Int -> Int -> Int
(&.) :: Bool -> Bool -> Bool
(&~) :: Int -> Int -> Int
(+~) :: Str -> Str -> Str

plus :: Int -> Int -> Int
plus a b = a |+| b |+| 1

--' Python's * repeats a string; the program's * is Python's
repeat :: Str -> Int -> Str
repeat s n = s * n

both :: Bool -> Bool -> Bool
both a b = a && b

either :: Bool -> Bool -> Bool
either a b = a || b && False

member :: Int -> [Int] -> Bool
member x xs = x <?> xs

--' Int's Semigroup instance is Python's +
sumInt :: Int -> Int -> Int
sumInt a b = a <> b <> 0

--' C++'s % truncates toward zero
cmod :: Int -> Int -> Int
cmod a b = a %. b

cand :: Bool -> Bool -> Bool
cand a b = a &. b

gomask :: Int -> Int -> Int
gomask a b = a &~ b

gocat :: Str -> Str -> Str
gocat a b = (+~ "!") (a +~ b)

bumped :: [Int] -> [Int]
bumped xs = map ((|+|) 10) xs
`,
	"core.py": "# Python's operators need no definitions.\n",
	"lib.py":  "# Python's keyword operators need no definitions.\n",
	"ops.go":  "package ops\n",
}

// TestForeignOperators: operators sourced from each language, applied
// infix by their pools, through the CLI and over MCP.
func TestForeignOperators(t *testing.T) {
	p := build(t, foreignOpFiles)
	p.okAll([]cliCase{
		{[]string{"plus", "2", "3"}, "6\n"},
		{[]string{"repeat", "ab", "3"}, "\"ababab\"\n"},
		{[]string{"both", "true", "false"}, "false\n"},
		{[]string{"either", "true", "false"}, "true\n"},
		{[]string{"member", "2", "[1, 2]"}, "true\n"},
		{[]string{"member", "5", "[1, 2]"}, "false\n"},
		{[]string{"sumInt", "3", "4"}, "7\n"},
		{[]string{"cmod", "--", "-7", "2"}, "-1\n"},
		{[]string{"cand", "true", "true"}, "true\n"},
		{[]string{"gomask", "12", "10"}, "4\n"},
		{[]string{"gocat", "a", "b"}, "\"ab!\"\n"},
		{[]string{"bumped", "[1, 2]"}, "[11,12]\n"},
	})
	p.toolsOK([]toolCall{
		{"repeat", map[string]any{"_1": "xy", "_2": 2}, `"xyxy"`},
		{"cmod", map[string]any{"_1": 7, "_2": -2}, "1"},
		{"gomask", map[string]any{"_1": 7, "_2": 5}, "2"},
	})
	p.checkClean()
}

// Mistakes in foreign operators stop nexus make with their line and
// column.
func TestForeignOperatorErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"a backtick name without as", "module m (f)\nsource Py from \"lib.py\" (`and`)\nf :: Int -> Int\nf x = x\n",
			"main.loc:2:26: the backtick name `and` needs 'as' and the program's operator: `and` as (&&)"},
		{"an operator Go does not have", "module m (f)\nsource Go from \"ops.go\" ((**) as (**.))\n(**.) :: Int -> Int -> Int\nf :: Int -> Int\nf x = x **. 2\n",
			"main.loc:2:27: '**' is not an operator of Go"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := makeFails(t, files{"main.loc": c.src, "lib.py": "\n", "ops.go": "package ops\n"})
			if !strings.Contains(msg, c.want) {
				t.Errorf("nexus make: %q, want %q", msg, c.want)
			}
		})
	}
}
