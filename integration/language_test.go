package integration

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// One program for each of sections 0, 4 and 10 of Morloc's language digest
// (the lexical layer; generic types and inference; the smaller points),
// built with nexus make and run through the CLI and over MCP. The other
// sections have theirs: typedecl (1), operators (2, 3), records (3.7,
// 3.8, 1.5), intrinsics (5), modules (6), prelude (8).

var lexicalFiles = files{"main.loc": `{- A program of every lexical form
   {- block comments nest -} -}
module lexical (nums, strs, layout, braces, negs)
import root

-- a line comment
nums :: Int -> (Int, Int, Int, Int, Real, Real, Real)
nums x = (0xFF + x, 0o17, 0B101, 0XfF, 1.0e-3, 4.2E5, 1e3)

strs :: Str -> (Str, Str, Str, Str)
strs s = ("tab\there", """line one
  line two""", '''it's''', "hi #{s}!")

layout :: Int -> Int
layout x = y + z
  where
    y = x * 2
    z = let a = 1
            b = 2
        in a + b

braces :: Int -> Int
braces x = do { a <- x + 1; let { b = 2 }; a * b }

negs :: Int -> [Int]
negs x = [-1, x - 1, x-1, 1 + -2, abs -3]
`}

// TestLexical: every literal form, comments that nest, layout, explicit
// braces, negative literals in unary position.
func TestLexical(t *testing.T) {
	p := build(t, lexicalFiles)
	p.okAll([]cliCase{
		{[]string{"nums", "1"}, "[256,15,5,255,0.001,420000,1000]\n"},
		{[]string{"strs", "bo"}, `["tab\there","line one\n  line two","it's","hi bo!"]` + "\n"},
		{[]string{"layout", "2"}, "7\n"},
		{[]string{"braces", "3"}, "8\n"},
		{[]string{"negs", "5"}, "[-1,4,4,-1,3]\n"},
	})
	p.toolsOK([]toolCall{
		{"nums", map[string]any{"_1": 1}, "[256,15,5,255,0.001,420000,1000]"},
		{"braces", map[string]any{"_1": 3}, "8"},
	})
	p.checkClean()
}

var genericFiles = files{"main.loc": `module generics (both, applied, widened, inferred, composed)
import root-py

source Py from "g.py" ("same", "apply_all", "scale", "label")
same :: a -> a
apply_all :: (a -> b) -> [a] -> [b]
scale :: Real -> Real -> Real
label :: Int -> Str

twice :: (a -> a) -> a -> a
twice f x = f (f x)

pairUp f x = (x, f x)

both :: Int -> (Int, Str, [Int])
both n = (same n, same "x", same [n, n])

applied :: [Real] -> ([Real], [Str])
applied xs = (apply_all (scale 10.0) xs, apply_all label [1, 2])

widened :: Real -> (Real, Real)
widened x = (max 1 x, twice (\y -> y * 2) 3)

inferred :: Int -> (Int, Str)
inferred n = pairUp label n

composed :: [Int] -> [Str]
composed xs = map (label . (\x -> x + 1)) xs
`, "g.py": `def same(x):
    return x

def apply_all(f, xs):
    return [f(x) for x in xs]

def scale(k, x):
    return k * x

def label(n):
    return f"#{n}"
`}

// TestGenerics: a generic Python function at three types, a Python
// function taking a function, a generic definition taking a function, a
// definition without a signature inferred where used, an Int literal
// joining Reals, composition of a Python function and a lambda.
func TestGenerics(t *testing.T) {
	p := build(t, genericFiles)
	p.okAll([]cliCase{
		{[]string{"both", "4"}, `[4,"x",[4,4]]` + "\n"},
		{[]string{"applied", "[1.5, 2]"}, `[[15,20],["#1","#2"]]` + "\n"},
		{[]string{"widened", "0.5"}, "[1,12]\n"},
		{[]string{"inferred", "7"}, `[7,"#7"]` + "\n"},
		{[]string{"composed", "[1, 2]"}, `["#2","#3"]` + "\n"},
	})
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "applied", Arguments: map[string]any{"_1": []float64{0.5}}})
	if err != nil || res.IsError || toolText(res) != `[[5],["#1","#2"]]` {
		t.Errorf("applied over MCP: %s, %v", toolText(res), err)
	}
	cs.Close()
	p.checkClean()
}

var smallerFiles = files{"main.loc": `module s10 (names, nonnull, firsts, isnull, blk, alt)
import root-py

source Py from "f.py" where
  %inline
  --' a doc
  "upper"
  "lower" as low

upper :: Str -> Str
low :: Str -> Str

record Person where
  name :: Str
  age :: Int

names :: [Person] -> [Str]
names ps = map .name ps

nonnull :: [?Int] -> Int
nonnull xs = length (filter (!= Null) xs)

firsts :: [(Int, Str)] -> [Int]
firsts xs = map (id . .0) xs

isnull :: ?Int -> Bool
isnull x = x == Null

blk :: Str -> Str
blk s = upper (low s)

source Py ("len" as pylen)
pylen :: Str -> Int
alt :: Str -> Int
alt s = pylen s
`, "f.py": `def upper(s):
    return s.upper()
def lower(s):
    return s.lower()
`}

// TestSmallerPoints: a source in block form with %inline and docstrings,
// a Python builtin sourced without a file, getters as functions and in a
// composition, `!= Null` as a section, `== Null`.
func TestSmallerPoints(t *testing.T) {
	p := build(t, smallerFiles)
	p.okAll([]cliCase{
		{[]string{"names", `[{"name":"a","age":1},{"name":"b","age":2}]`}, `["a","b"]` + "\n"},
		{[]string{"nonnull", "[1, null, 3]"}, "2\n"},
		{[]string{"firsts", `[[1,"a"],[2,"b"]]`}, "[1,2]\n"},
		{[]string{"isnull", "null"}, "true\n"},
		{[]string{"isnull", "0"}, "false\n"},
		{[]string{"blk", "aBc"}, `"ABC"` + "\n"},
		{[]string{"alt", "abcd"}, "4\n"},
	})
	p.toolsOK([]toolCall{
		{"nonnull", map[string]any{"_1": []any{1, nil, 3}}, "2"},
		{"alt", map[string]any{"_1": "abcd"}, "4"},
	})
	p.checkClean()
}

var recursionFiles = files{"main.loc": `module rec (fib, evens, depth, total, spin)
import root-py
source Py from "r.py" ("half")
half :: Int -> Int

fib :: Int -> Int
fib n
  ? n < 2 = n
  : fib (n - 1) + fib (n - 2)

isEven :: Int -> Bool
isEven n = ? n == 0 = True : isOdd (n - 1)
isOdd :: Int -> Bool
isOdd n = ? n == 0 = False : isEven (n - 1)

evens :: [Int] -> [Bool]
evens xs = map isEven xs

depth :: Int -> Int
depth n = ? n <= 1 = 0 : 1 + depth (half n)

loop :: Int -> Int
loop n = loop (n + 1)

total :: [Int] -> Int
total xs = ? length xs == 0 = 0 : .[0] xs + total (.[1:] xs)

spin :: Int -> Int
spin n = loop n
`, "r.py": `def half(n):
    return n // 2
`}

// TestRecursion: recursive definitions (digest 3.1), self- and mutually
// recursive, through a Python function, over a list sliced with a getter;
// one with no base case fails at the depth bound instead of hanging.
func TestRecursion(t *testing.T) {
	p := build(t, recursionFiles)
	p.okAll([]cliCase{
		{[]string{"fib", "20"}, "6765\n"},
		{[]string{"evens", "[0, 3, 10]"}, "[true,false,true]\n"},
		{[]string{"depth", "1000"}, "9\n"},
		{[]string{"total", "[1, 2, 3, 4]"}, "10\n"},
	})
	if msg := p.fails(1, "spin", "0"); !strings.Contains(msg, "loop: recursion deeper than 10000 calls") {
		t.Errorf("spin: %q", msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fib", Arguments: map[string]any{"_1": 15}})
	if err != nil || res.IsError || toolText(res) != "610" {
		t.Errorf("fib over MCP: %s, %v", toolText(res), err)
	}
	cs.Close()
	p.checkClean()
}

var patternFiles = files{"main.loc": `module patterns (swap, greet, spread, sizes, split2, firstTwo)
import root-py
source Py from "p.py" ("divmod_")
divmod_ :: Int -> Int -> (Int, Int)

record Person where
  name :: Str
  age :: Int

swap :: (Int, Str) -> (Str, Int)
swap (a, b) = (b, a)

greet :: Person -> Str
greet {name = n, age = _} = "hi " <> n

spread :: (Int, Int) -> (Int, (Int, Int))
spread p@(lo, hi) = (hi - lo, p)

sizes :: [(Str, [Int])] -> [Int]
sizes xs = map (\(k, v) -> length v) xs

split2 :: Int -> Int -> Int
split2 a b = let (q, r) = divmod_ a b in q * 10 + r

firstTwo :: [(Int, (Str, Bool))] -> [Str]
firstTwo xs = do
  (n, (s, flag)) <- .[0] xs
  [s, show n, show flag]
`, "p.py": `def divmod_(a, b):
    return divmod(a, b)
`}

// TestPatterns: tuple, record and as-patterns (digest 3.1, 3.3, 3.5, 3.6)
// in parameters, lambdas, lets and do binds, nested.
func TestPatterns(t *testing.T) {
	p := build(t, patternFiles)
	p.okAll([]cliCase{
		{[]string{"swap", `[1, "a"]`}, `["a",1]` + "\n"},
		{[]string{"greet", `{"name": "Al", "age": 3}`}, `"hi Al"` + "\n"},
		{[]string{"spread", "[2, 9]"}, "[7,[2,9]]\n"},
		{[]string{"sizes", `[["a", [1, 2]], ["b", []]]`}, "[2,0]\n"},
		{[]string{"split2", "17", "5"}, "32\n"},
		{[]string{"firstTwo", `[[4, ["x", true]]]`}, `["x","4","true"]` + "\n"},
	})
	p.toolsOK([]toolCall{
		{"spread", map[string]any{"_1": []int{2, 9}}, "[7,[2,9]]"},
		{"split2", map[string]any{"_1": 17, "_2": 5}, "32"},
	})
	p.checkClean()
}
