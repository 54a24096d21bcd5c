package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// userOpsFiles is a program with its own operators (defined, and sourced
// from Python), sized number types in Python, C++ and Go signatures, and
// Morloc's older spellings that nexus accepts.
var userOpsFiles = files{
	"main.loc": `module userops (addup, twice8, mix, pipe, greet, bumped, total, inc8, half, scale32, small, firsts, sign, pick, orZero, deq, wide)
import root
import maybe

source Py from "ops.py" ("add" as (+.), "scale32")
source Cpp from "bytes.hpp" ("inc8", "twice8")
source Go from "half.go" ("Half" as halve)

infixl 6 +.
(+.) :: Real -> Real -> Real
scale32 :: F32 -> F32
inc8 :: U8 -> U8
twice8 :: U8 -> U8
halve :: I16 -> I16

infixl 1 |>
(|>) x g = g x

infixr 5 <+>
(<+>) :: Str -> Str -> Str
(<+>) a b = a <> " " <> b

addup :: Real -> Real -> Real
addup x y = x +. y

mix :: Real -> Real -> Real
mix x y = x +. y * 2.0

twice :: Int -> Int
twice x = x * 2

pipe :: Int -> Int
pipe x = x + 1 |> twice |> twice

greet :: Str -> Str -> Str
greet a b = a <+> b <+> "!"

bumped :: [Real] -> [Real]
bumped xs = map (+. 0.5) xs

total :: [Real] -> Real
total xs = fold (+.) 0.0 xs

half :: I16 -> I16
half x = halve x

small :: U8
small = 200

firsts :: [Int] -> (Int, Int, [Int], [Int])
firsts xs = (head xs, at 1 xs, slice 1 3 xs, reverse xs)

sign :: Int -> Str
sign = branch (\x -> x >= 0) (\x -> "plus") (\x -> "minus")

pick :: Bool -> Int
pick b = ifelse b 1 2

orZero :: ?Int -> Int
orZero x = fromMaybeWith 0 x

deq :: [Int] -> [Int]
deq xs = toDeque xs

--' Doubles a number
--' name: widen
wide :: Int32 -> Int32
wide x = x * 2
`,
	"ops.py":    "def add(x, y):\n    return x + y\n\ndef scale32(x):\n    return x * 2\n",
	"bytes.hpp": "#pragma once\n#include <cstdint>\n\ninline std::uint8_t inc8(std::uint8_t x) { return static_cast<std::uint8_t>(x + 1); }\n\ntemplate <typename T>\nT twice8(T x) { return static_cast<T>(x * 2); }\n",
	"half.go":   "package half\n\nfunc Half(x int16) int16 { return x / 2 }\n",
}

// TestUserOperators: a program's own operators with their fixities, as
// sections and references passed to the prelude's higher-order functions
// over a Python function; sized types in Python, C++ (uint8_t, wrapping
// as C++ does) and Go (int16) signatures, range-checked on the command
// line and over MCP, and the native type of a C++ template's U8; and the
// older spellings that nexus accepts.
func TestUserOperators(t *testing.T) {
	p := build(t, userOpsFiles)
	p.okAll([]cliCase{
		{[]string{"addup", "1.5", "2"}, "3.5\n"},
		{[]string{"mix", "1", "2"}, "5\n"},
		{[]string{"pipe", "3"}, "16\n"},
		{[]string{"greet", "hi", "bo"}, "\"hi bo !\"\n"},
		{[]string{"bumped", "[1, 2]"}, "[1.5,2.5]\n"},
		{[]string{"total", "[1, 2, 3.5]"}, "6.5\n"},
		{[]string{"inc8", "254"}, "255\n"},
		{[]string{"inc8", "255"}, "0\n"},
		{[]string{"twice8", "200"}, "144\n"}, // a template instantiated with std::uint8_t
		{[]string{"half", "--", "-300"}, "-150\n"},
		{[]string{"scale32", "1.25"}, "2.5\n"},
		{[]string{"small"}, "200\n"},
		{[]string{"firsts", "[5, 6, 7, 8]"}, "[5,6,[6,7],[8,7,6,5]]\n"},
		{[]string{"sign", "--", "-4"}, "\"minus\"\n"},
		{[]string{"sign", "0"}, "\"plus\"\n"},
		{[]string{"pick", "false"}, "2\n"},
		{[]string{"orZero", "null"}, "0\n"},
		{[]string{"orZero", "4"}, "4\n"},
		{[]string{"deq", "[1, 2]"}, "[1,2]\n"},
		{[]string{"widen", "21"}, "42\n"}, // the older `name:` directive
	})
	if msg := p.fails(2, "inc8", "256"); !strings.Contains(msg, "256 overflows U8, whose values are 0 to 255") {
		t.Errorf("inc8 256: %q", msg)
	}
	if msg := p.fails(2, "half", "40000"); !strings.Contains(msg, "40000 overflows I16, whose values are -32768 to 32767") {
		t.Errorf("half 40000: %q", msg)
	}

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "total", Arguments: map[string]any{"_1": []float64{0.5, 1}}})
	if err != nil || res.IsError || toolText(res) != "1.5" {
		t.Errorf("total over MCP: %s, %v", toolText(res), err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "inc8", Arguments: map[string]any{"_1": 300}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "300 overflows U8") {
		t.Errorf("inc8 300 over MCP: %s, %v; want an error saying it overflows U8", toolText(res), err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name != "inc8" {
			continue
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(schema), `"maximum":255`) || !strings.Contains(string(schema), `"minimum":0`) {
			t.Errorf("inc8's input schema %s, want the bounds of U8", schema)
		}
	}
	cs.Close()
	p.checkClean()
}

// TestUserOperatorBuildErrors: mistakes with operators and sized literals
// stop the build with the place and the supported form.
func TestUserOperatorBuildErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"module m (f)\nf :: Int -> Int\nx +. y = x\nf x = x", "main.loc:3:3: an operator is defined in prefix form: write (+.) x y = ..., not x +. y = ..."},
		{"module m (f)\nf :: U8\nf = 1000", "main.loc:3:5: Integer literal 1000 overflows U8, whose values are 0 to 255"},
		{"module m (f)\nf :: [Int] -> [Int]\nf xs = map (add _ 1) xs", "main.loc:3:17: '_' in an expression is a hole"},
	} {
		if msg := makeFails(t, files{"main.loc": c.text}); !strings.Contains(msg, c.want) {
			t.Errorf("%q: %s, want %s", c.text, msg, c.want)
		}
	}
}
