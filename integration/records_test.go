package integration

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordFiles uses records of each form, newtypes, getters and setters,
// evaluated by the nexus, around Python functions that take and return a
// record and a newtype.
var recordFiles = files{
	"main.loc": `module recs (first, title, inner, swap, one, xfirst, at, window, front, rest, evens, backwards, stepped, firstName, setFirst, move, lat, nested, older, rename, mkPair, swapPair, suffixOf, deque)
source Py from "people.py" ("birthday", "suffix")

record Person = Person { name :: Str, age :: Int }
record Py => Person = "dict"

record Pair a b where
  fst :: a
  snd :: b

object Loc where
  latitude :: Real
  longitude :: Real

record XY where
  x :: (Int, Str)
  y :: Int

newtype Path = Str
type Py => Path = "str"
newtype Deque a = List a

birthday :: Person -> Person
suffix :: Path -> Str

first :: (Int, Int) -> Int
first t = .0 t

title :: (Int, Person) -> Str
title t = .1.name t

inner :: ((Int, Int), Int) -> Int
inner t = .0.1 t

swap :: (Int, Str) -> (Str, Int)
swap t = .(.1, .0) t

one :: (Int, Str) -> Str
one t = .(.1) t

xfirst :: Int
xfirst = .x.0 {x = (7, "hi"), y = 9}

at :: [Int] -> Int -> Int
at xs i = .[i] xs

window :: [Int] -> Int -> Int -> [Int]
window xs i j = .[i:j] xs

front :: [Int] -> [Int]
front xs = .[:2] xs

rest :: [Int] -> [Int]
rest xs = .[1:] xs

evens :: [Int] -> [Int]
evens xs = .[::2] xs

backwards :: Str -> Str
backwards s = .[::-1] s

stepped :: [Int] -> Int -> [Int]
stepped xs k = .[::k] xs

firstName :: [Person] -> Str
firstName ps = .[0].name ps

setFirst :: (Int, Int)
setFirst = .(.0 = 99) (1, 2)

move :: Loc -> Loc
move loc = .(.latitude = 1.5, .longitude = -2) loc

lat :: Loc -> Loc
lat loc = (.latitude = 0.7) loc

nested :: (Int, (Str, Bool, Int))
nested = .1.(.0 = "S", .2 = 70) (42, ("J", True, 69))

--' A record through Python and back
older :: Person -> Person
older p = birthday p

rename :: Str -> Person -> Person
rename n p = birthday ((.name = n) p)

mkPair :: Int -> Str -> Pair Int Str
mkPair a b = {snd = b, fst = a}

swapPair :: Pair Int Str -> Pair Str Int
swapPair p = {fst = .snd p, snd = .fst p}

suffixOf :: Path -> Str
suffixOf p = suffix p

deque :: Deque Int
deque = [1, 2, 3]
`,
	"people.py": "def birthday(p):\n    return {\"name\": p[\"name\"], \"age\": p[\"age\"] + 1}\n\n\ndef suffix(p):\n    return p.rsplit(\".\", 1)[-1]\n",
}

// TestRecordsAndGetters: Morloc's records (legacy, parameterized,
// object), newtypes, getters (tuple items, paths, groups, indexes and
// slices with Python's rules) and setters, through the CLI and MCP, with
// a record passed to and returned from Python; fields print in
// declaration order.
func TestRecordsAndGetters(t *testing.T) {
	p := build(t, recordFiles)
	p.okAll([]cliCase{
		{[]string{"first", "[1, 2]"}, "1\n"},
		{[]string{"title", `[1, {"age": 3, "name": "Dune"}]`}, "\"Dune\"\n"},
		{[]string{"inner", "[[1, 3], 2]"}, "3\n"},
		{[]string{"swap", `[1, "a"]`}, "[\"a\",1]\n"},
		{[]string{"one", `[1, "a"]`}, "\"a\"\n"},
		{[]string{"xfirst"}, "7\n"},
		{[]string{"at", "[10, 20, 30]", "1"}, "20\n"},
		{[]string{"at", "--", "[10, 20, 30]", "-1"}, "30\n"},
		{[]string{"window", "[1, 2, 3, 4, 5]", "1", "3"}, "[2,3]\n"},
		{[]string{"window", "--", "[1, 2, 3, 4, 5]", "-2", "100"}, "[4,5]\n"},
		{[]string{"window", "[1, 2, 3]", "2", "1"}, "[]\n"},
		{[]string{"front", "[1, 2, 3]"}, "[1,2]\n"},
		{[]string{"rest", "[1, 2, 3]"}, "[2,3]\n"},
		{[]string{"evens", "[0, 1, 2, 3, 4]"}, "[0,2,4]\n"},
		{[]string{"backwards", "abc"}, "\"cba\"\n"},
		{[]string{"stepped", "--", "[1, 2, 3, 4]", "-2"}, "[4,2]\n"},
		{[]string{"firstName", `[{"name": "Ann", "age": 30}]`}, "\"Ann\"\n"},
		{[]string{"setFirst"}, "[99,2]\n"},
		{[]string{"move", `{"longitude": 0, "latitude": 0}`}, "{\"latitude\":1.5,\"longitude\":-2}\n"},
		{[]string{"lat", `{"longitude": 3, "latitude": 0}`}, "{\"latitude\":0.7,\"longitude\":3}\n"},
		{[]string{"nested"}, "[42,[\"S\",true,70]]\n"},
		{[]string{"older", `{"age": 30, "name": "Ann"}`}, "{\"name\":\"Ann\",\"age\":31}\n"},
		{[]string{"rename", "Bo", `{"name": "Ann", "age": 1}`}, "{\"name\":\"Bo\",\"age\":2}\n"},
		{[]string{"mkPair", "1", "x"}, "{\"fst\":1,\"snd\":\"x\"}\n"},
		{[]string{"swapPair", `{"snd": "s", "fst": 2}`}, "{\"fst\":\"s\",\"snd\":2}\n"},
		{[]string{"suffixOf", "notes.txt"}, "\"txt\"\n"},
		{[]string{"deque"}, "[1,2,3]\n"},
	})
	if msg := p.fails(1, "stepped", "[1, 2]", "0"); !strings.Contains(msg, "slice step cannot be zero") {
		t.Errorf("stepped with a step of 0: %q", msg)
	}
	if msg := p.fails(1, "at", "[1, 2]", "2"); !strings.Contains(msg, "index 2 out of range for a length of 2") {
		t.Errorf("at out of range: %q", msg)
	}

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"older", map[string]any{"_1": map[string]any{"name": "Cy", "age": 9}}, `{"name":"Cy","age":10}`},
		{"nested", nil, `[42,["S",true,70]]`},
		{"window", map[string]any{"_1": []int{1, 2, 3, 4}, "_2": 1, "_3": -1}, "[2,3]"},
		{"swapPair", map[string]any{"_1": map[string]any{"fst": 5, "snd": "t"}}, `{"fst":"t","snd":5}`},
		{"suffixOf", map[string]any{"_1": "a.tar.gz"}, `"gz"`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError || toolText(res) != c.want {
			t.Errorf("%s over MCP: %s, %v; want %s", c.tool, toolText(res), err, c.want)
		}
	}
	cs.Close()
	p.checkClean()
}
