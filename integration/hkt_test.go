package integration

import (
	"strings"
	"testing"
)

// hktProgram has a parameterized record with instances of the prelude's
// Functor and Foldable (Morloc definitions) and of a class of its own
// over type constructors (a sourced Python function), and a generic
// definition constrained by Functor used at Box and at List, where the
// prelude's builtins serve it; the prelude's map of a Python function
// over a list stays one pool loop.
var hktProgram = files{
	"main.loc": `module main (incBox, incList, showBox, sumBox, sumList, measureBox, doubled)
import root

record Box a where
  value :: a

instance Functor Box where
  map g b = {value = g (.value b)}

instance Foldable Box where
  fold g z b = g z (.value b)

class Measured f where
  measure :: f a -> Int

instance Measured Box where
  source Py from "box.py" ("box_measure" as measure)

source Py from "box.py" ("double")
double :: Int -> Int

incAll :: Functor f => f Int -> f Int
incAll xs = map (\x -> x + 1) xs

incBox :: Box Int -> Box Int
incBox b = incAll b

incList :: [Int] -> [Int]
incList xs = incAll xs

showBox :: Box Int -> Box Str
showBox b = map show (incAll b)

sumBox :: Box Int -> Int
sumBox b = fold (+) 10 b

sumList :: [Int] -> Int
sumList xs = fold (+) 10 xs

measureBox :: Box Str -> Int
measureBox b = measure b

doubled :: [Int] -> [Int]
doubled xs = map double xs
`,
	"box.py": "def box_measure(b):\n    return len(b['value'])\n\n\ndef double(x):\n    return 2 * x\n",
}

// TestHigherKinded: the program through the CLI and MCP; a use at a
// constructor without an instance and a constructor given too many
// arguments fail the build with the place.
func TestHigherKinded(t *testing.T) {
	p := build(t, hktProgram)
	p.okAll([]cliCase{
		{[]string{"incBox", `{"value": 4}`}, "{\"value\":5}\n"},
		{[]string{"incList", "[1, 2]"}, "[2,3]\n"},
		{[]string{"showBox", `{"value": 4}`}, "{\"value\":\"5\"}\n"},
		{[]string{"sumBox", `{"value": 5}`}, "15\n"},
		{[]string{"sumList", "[1, 2, 3]"}, "16\n"},
		{[]string{"measureBox", `{"value": "abc"}`}, "3\n"},
		{[]string{"doubled", "[1, 2]"}, "[2,4]\n"},
	})

	p.toolsOK([]toolCall{
		{"incBox", map[string]any{"_1": map[string]any{"value": 41}}, `{"value":42}`},
		{"incList", map[string]any{"_1": []any{9}}, `[10]`},
		{"showBox", map[string]any{"_1": map[string]any{"value": 0}}, `{"value":"1"}`},
		{"sumBox", map[string]any{"_1": map[string]any{"value": -10}}, `0`},
		{"measureBox", map[string]any{"_1": map[string]any{"value": "hello"}}, `5`},
	})
	p.checkClean()

	for _, c := range []struct {
		edits []string // pairs: from, to
		want  string
	}{
		{[]string{"incList :: [Int] -> [Int]", "incList :: ?Int -> ?Int"}, "main.loc:29:14: 'incAll' needs an instance Functor Optional here"},
		{[]string{"measureBox :: Box Str -> Int", "measureBox :: Box Str Int -> Int"}, "main.loc:40:15: type Box takes 1 type argument, but is given 2"},
		{[]string{"instance Measured Box where", "instance Measured (Box Int) where"}, "main.loc:16:20: instance Measured: class Measured applies its f to 1 type argument"},
	} {
		if msg := editFails(t, hktProgram, c.edits); !strings.Contains(msg, c.want) {
			t.Errorf("%v: %q, want %q", c.edits, msg, c.want)
		}
	}
}
