package integration

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
)

// packedProgram passes lists of reals and integers, alone and inside a
// record, a tuple, a list, a map and an optional, to Python, which the nexus
// sends them to packed (docs/pool-protocol.md, "Packed lists"), and through
// the C++ and Go pools, which get arrays.
var packedProgram = files{
	"lists.py": `
def ident(x):
    return x


def shape(x):
    """The Python types of x, each kind once: list(float) for a list of
    floats, so the test sees plain lists of float and int, never an array."""
    if isinstance(x, (list, tuple)):
        inner = ",".join(sorted({shape(e) for e in x})) if isinstance(x, list) else ",".join(shape(e) for e in x)
        return f"{type(x).__name__}({inner})"
    if isinstance(x, dict):
        return "dict(" + ",".join(f"{k}:{shape(v)}" for k, v in x.items()) + ")"
    return type(x).__name__


def total(xs):
    return sum(xs)
`,
	"lists.hpp": `
#include <cstdint>
#include <vector>

inline std::vector<double> reals(std::vector<double> xs) { return xs; }
inline std::vector<std::int64_t> ints(std::vector<std::int64_t> xs) { return xs; }
`,
	"lists.go": `
package lists

func Reals(xs []float64) []float64 { return xs }

func Ints(xs []int64) []int64 { return xs }
`,
	"main.loc": `
module packed (*)
import root-py
import root-cpp
import root-go
source Py from "lists.py"
  ( "ident" as pyReals, "ident" as pyInts, "ident" as pySample, "ident" as pyPair
  , "ident" as pyGrid, "ident" as pyMaybe, "shape" as shapeSample, "shape" as shapePair
  , "shape" as shapeGrid, "total" as pyTotal, "ident" as pyByName
  )
source Cpp from "lists.hpp" ("reals" as cppReals, "ints" as cppInts)
source Go from "lists.go" ("Reals" as goReals, "Ints" as goInts)

record Sample where
  xs :: [Real]
  ns :: [Int]
  label :: Str
  more :: ?[Real]
record Py => Sample = "dict"

pyReals :: [Real] -> [Real]
pyInts :: [Int] -> [Int]
pySample :: Sample -> Sample
pyPair :: ([Int], [Real]) -> ([Int], [Real])
pyGrid :: [[Real]] -> [[Real]]
pyMaybe :: ?[Int] -> ?[Int]
shapeSample :: Sample -> Str
shapePair :: ([Int], [Real]) -> Str
shapeGrid :: [[Real]] -> Str
pyTotal :: [Real] -> Real
pyByName :: Map Str [Int] -> Map Str [Int]
cppReals :: [Real] -> [Real]
cppInts :: [Int] -> [Int]
goReals :: [Real] -> [Real]
goInts :: [Int] -> [Int]

--' Through every pool and back.
allReals :: [Real] -> [Real]
allReals xs = goReals (cppReals (pyReals xs))

allInts :: [Int] -> [Int]
allInts xs = goInts (cppInts (pyInts xs))
`,
}

// packedCases are calls of packedProgram and their exact output: the
// reals and integers at the edges of their types, and empty lists, in
// every place a packed list may be.
var packedCases = []struct {
	cmd, in, out string
}{
	{"pyReals", `[-0.0, 0.0, 1e308, -1e308, 5e-324, 0.1, 1.7976931348623157e308, 3]`, `[-0,0,1e+308,-1e+308,5e-324,0.1,1.7976931348623157e+308,3]`},
	{"pyReals", `[2.5]`, `[2.5]`},
	{"pyReals", `[]`, `[]`},
	{"pyInts", `[-9223372036854775808, 9223372036854775807, 0, -1, 4294967296]`, `[-9223372036854775808,9223372036854775807,0,-1,4294967296]`},
	{"pyInts", `[7]`, `[7]`},
	{"pyInts", `[]`, `[]`},
	{"pySample", `{"xs":[-0.0,1e308],"ns":[-9223372036854775808],"label":"a"}`, `{"xs":[-0,1e+308],"ns":[-9223372036854775808],"label":"a","more":null}`},
	{"pySample", `{"xs":[],"ns":[],"label":"","more":[5e-324]}`, `{"xs":[],"ns":[],"label":"","more":[5e-324]}`},
	{"shapeSample", `{"xs":[1,2.5],"ns":[1],"label":"a","more":[]}`, `"dict(xs:list(float),ns:list(int),label:str,more:list())"`},
	{"pyPair", `[[9223372036854775807],[-0.0]]`, `[[9223372036854775807],[-0]]`},
	{"pyPair", `[[],[]]`, `[[],[]]`},
	{"shapePair", `[[1,2],[0.5]]`, `"tuple(list(int),list(float))"`},
	{"pyGrid", `[[1],[],[2.5,-1e308]]`, `[[1],[],[2.5,-1e+308]]`},
	{"shapeGrid", `[[1],[],[2.5,3]]`, `"list(list(),list(float))"`},
	{"pyMaybe", `[-9223372036854775808]`, `[-9223372036854775808]`},
	{"pyMaybe", `[]`, `[]`},
	{"pyTotal", `[0.5, 0.25, 2]`, `2.75`},
	{"pyByName", `{"b":[9223372036854775807],"a":[]}`, `{"a":[],"b":[9223372036854775807]}`},
	{"cppReals", `[-0.0, 1e308, 5e-324, 3]`, `[-0,1e+308,5e-324,3]`},
	{"goReals", `[-0.0, 1e308, 5e-324, 3]`, `[-0,1e+308,5e-324,3]`},
	{"cppInts", `[-9223372036854775808, 9223372036854775807]`, `[-9223372036854775808,9223372036854775807]`},
	{"goInts", `[-9223372036854775808, 9223372036854775807]`, `[-9223372036854775808,9223372036854775807]`},
	{"allReals", `[-0.0, 0.0, 1e308, -1e308, 5e-324, 0.1, 1.7976931348623157e308, 3]`, `[-0,0,1e+308,-1e+308,5e-324,0.1,1.7976931348623157e+308,3]`},
	{"allReals", `[]`, `[]`},
	{"allInts", `[-9223372036854775808, 9223372036854775807, 0, -1]`, `[-9223372036854775808,9223372036854775807,0,-1]`},
	{"allInts", `[]`, `[]`},
}

// TestPackedLists runs packedCases on the command line, checks that only
// the Python pool is marked as reading packed lists, and that a list too
// large to check by eye comes back bit for bit from every pool.
func TestPackedLists(t *testing.T) {
	p := build(t, packedProgram)
	m, err := manifest.Load(filepath.Join(p.launcher+"-build", manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, pool := range m.Pools {
		if want := pool.Lang == manifest.Python; pool.PackedLists != want {
			t.Errorf("the %s pool's packed_lists is %v, want %v", pool.Lang, pool.PackedLists, want)
		}
	}
	for _, c := range packedCases {
		if got := p.ok(c.cmd, c.in); got != c.out+"\n" {
			t.Errorf("%s %s = %q, want %q", c.cmd, c.in, got, c.out+"\n")
		}
	}
	if got := p.ok("--keep-null", "pyMaybe", "null"); got != "null\n" {
		t.Errorf("pyMaybe null = %q, want null", got)
	}
	for _, c := range []struct{ cmd, in, want string }{
		{"pyReals", `[1, NaN]`, `expected [Real] as JSON or a file holding it, got "[1, NaN]"`},
		{"pyReals", `[1e309]`, `at [0]: the number 1e309 is beyond the range of a Real`},
		{"pyInts", `[1, 9223372036854775808]`, `at [1]: integer 9223372036854775808 does not fit in 64 bits`},
		{"pyInts", `[1.5]`, `at [0]: expected an integer, got the number 1.5`},
		{"pySample", `{"xs":[1],"ns":[-9223372036854775809],"label":""}`, `at .ns[0]: integer -9223372036854775809 does not fit in 64 bits`},
	} {
		if stderr := p.fails(2, c.cmd, c.in); !strings.Contains(stderr, c.want) {
			t.Errorf("%s %s: stderr %q lacks %q", c.cmd, c.in, stderr, c.want)
		}
	}

	big := make([]float64, 100_000)
	ints := make([]int64, len(big))
	for i := range big {
		big[i] = float64(i)/7 - 5000
		ints[i] = int64(i)*92233720368547 - math.MaxInt64/2
	}
	big[17] = math.Copysign(0, -1)
	arg := filepath.Join(t.TempDir(), "big.json")
	for _, cmd := range []string{"pyReals", "allReals"} {
		writeJSON(t, arg, big)
		var back []float64
		readJSON(t, p.ok(cmd, arg), &back)
		if len(back) != len(big) {
			t.Fatalf("%s: %d reals back, want %d", cmd, len(back), len(big))
		}
		for i := range big {
			if math.Float64bits(back[i]) != math.Float64bits(big[i]) {
				t.Fatalf("%s: item %d is %v, want %v", cmd, i, back[i], big[i])
			}
		}
	}
	for _, cmd := range []string{"pyInts", "allInts"} {
		writeJSON(t, arg, ints)
		var back []int64
		readJSON(t, p.ok(cmd, arg), &back)
		if fmt.Sprint(back) != fmt.Sprint(ints) {
			t.Fatalf("%s: %d integers back, not the %d sent", cmd, len(back), len(ints))
		}
	}
}

// TestPackedListsOverMCP runs packedCases as tools/call requests, each
// argument given as its JSON value.
func TestPackedListsOverMCP(t *testing.T) {
	p := build(t, packedProgram)
	c := startMCPConn(t, p)
	c.initialize("2025-06-18")
	for i, tc := range packedCases {
		r := c.callTool(i, tc.cmd, map[string]json.RawMessage{"_1": json.RawMessage(tc.in)})
		if r.Error != nil {
			t.Errorf("%s %s: %s", tc.cmd, tc.in, r.Line)
			continue
		}
		res := r.tool(t)
		if res.IsError || res.Content[0].Text != tc.out {
			t.Errorf("%s %s = %q (isError %v), want %q", tc.cmd, tc.in, res.Content[0].Text, res.IsError, tc.out)
		}
	}
	c.close()
}

// TestPackedListsOldManifest: a manifest written before packed lists
// (no packed_lists) may go with a Python runtime that does not read them:
// its pool gets arrays, with the same results. And the flag is what
// decides: set on the Go pool, whose runtime reads no packed list, it
// makes the call fail there.
func TestPackedListsOldManifest(t *testing.T) {
	p := build(t, packedProgram)
	path := filepath.Join(p.launcher+"-build", manifest.FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	pools := m["pools"].([]any)
	setPacked := func(lang string) {
		for _, pool := range pools {
			pool := pool.(map[string]any)
			delete(pool, "packed_lists")
			if pool["lang"] == lang {
				pool["packed_lists"] = true
			}
		}
		writeJSON(t, path, m)
	}
	setPacked("")
	for _, c := range packedCases {
		if got := p.ok(c.cmd, c.in); got != c.out+"\n" {
			t.Errorf("without packed_lists: %s %s = %q, want %q", c.cmd, c.in, got, c.out+"\n")
		}
	}
	setPacked(manifest.Go)
	if got := p.ok("pyReals", "[1.5]"); got != "[1.5]\n" {
		t.Errorf("pyReals [1.5] = %q, want [1.5]", got)
	}
	res := p.run("goReals", "[1.5]")
	if res.code != 1 || !strings.Contains(res.stderr, "goReals") {
		t.Errorf("goReals [1.5] sent packed to the Go pool: exit %d, stderr %q; want a failed call", res.code, res.stderr)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%.200s: %v", out, err)
	}
}
