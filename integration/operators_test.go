package integration

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// operatorFiles uses Morloc's standard operators, evaluated by the nexus,
// around a Python function.
var operatorFiles = files{
	"main.loc": `module calc (area, stats, split, label, square, clamp, spread, ticks, steps, scaled, greet, positive)
source Py from "calc.py" ("mean", "tick")
mean :: [Real] -> Real
tick :: Int -> Int

--' The area of a circle
area :: Real -> Real
area r = 3.0 * r ** 2

stats :: [Real] -> (Real, Bool)
stats xs = (mean xs * 2 - 1, mean xs >= 2 && xs != [])

split :: Int -> Int -> (Int, Int)
split a b = (a // b, a % b)

label :: Str -> Str
label s = s <> "!" <> s

square :: Int -> Int
square x = x * x

clamp :: Real -> Real -> Real -> Real
clamp lo hi x
  ? x < lo = lo
  ? x > hi = hi
  : x

--' How far the values stray from their mean
spread :: [Real] -> Str
spread xs
  ? wide = "wide"
  : "narrow"
  where
    wide = squared (mean xs - limit) > 1.0
    squared v = v * v
    limit :: Real
    limit = 2

--' A let's value is computed once: tick counts its calls
ticks :: Int -> Int
ticks x =
  let t = tick x
      u = t * 10
  in t + t + u

--' A do block: a bind runs once, a statement runs in its turn
steps :: Int -> Int
steps x = do
  a <- tick x
  tick 0
  b <- tick 0
  a * 100 + b

scaled :: [Real] -> Real
scaled xs = (\m -> m * 2) (mean xs)

greet :: Str -> Str
greet s = "hi #{s}, #{s <> s}!"

positive :: Int -> ?Int
positive x = ? x > 0 = x : Null
`,
	"calc.py": "def mean(xs):\n    return sum(xs) / len(xs)\n\ncalls = 0\n\ndef tick(x):\n    global calls\n    calls += 1\n    return calls + x\n",
}

// TestOperators: arithmetic, comparisons, connectives, concatenation,
// guards, where clauses, lets (computed once), do blocks and lambdas
// through the CLI and MCP, floor division and modulo as Morloc has them,
// and an Int overflow failing the command with its reason.
func TestOperators(t *testing.T) {
	p := build(t, operatorFiles)
	p.okAll([]cliCase{
		{[]string{"area", "2"}, "12\n"},
		{[]string{"stats", "[1, 2, 3]"}, "[3,true]\n"},
		{[]string{"stats", "[1]"}, "[1,false]\n"},
		{[]string{"split", "--", "-7", "2"}, "[-4,1]\n"},
		{[]string{"label", "hey"}, "\"hey!hey\"\n"},
		{[]string{"clamp", "0", "10", "12.5"}, "10\n"},
		{[]string{"clamp", "--", "0", "10", "-3"}, "0\n"},
		{[]string{"clamp", "0", "10", "4.5"}, "4.5\n"},
		{[]string{"spread", "[1, 2, 3]"}, "\"narrow\"\n"},
		{[]string{"spread", "[5, 6]"}, "\"wide\"\n"},
		{[]string{"ticks", "0"}, "12\n"},
		{[]string{"steps", "0"}, "103\n"},
		{[]string{"scaled", "[1, 2, 3]"}, "4\n"},
		{[]string{"greet", "bo"}, "\"hi bo, bobo!\"\n"},
		{[]string{"positive", "3"}, "3\n"},
		{[]string{"positive", "0"}, ""}, // an absent value prints nothing
	})
	if msg := p.fails(1, "square", "9999999999"); !strings.Contains(msg, "9999999999 * 9999999999: integer overflow") {
		t.Errorf("square 9999999999: %q", msg)
	}

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "stats", Arguments: map[string]any{"_1": []float64{2, 4}}})
	if err != nil || res.IsError || toolText(res) != "[5,true]" {
		t.Errorf("stats over MCP: %s, %v", toolText(res), err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "split", Arguments: map[string]any{"_1": 7, "_2": -2}})
	if err != nil || res.IsError || toolText(res) != "[-4,-1]" {
		t.Errorf("split over MCP: %s, %v", toolText(res), err)
	}
	cs.Close()
	p.checkClean()
}
