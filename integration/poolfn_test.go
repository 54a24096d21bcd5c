package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// poolFnFiles maps, filters and folds C++ and Go functions over lists
// through the prelude (every loop the C++ and Go pools run themselves),
// passes functions to C++ and Go functions of the user's, and mixes two
// pools in one loop, which the nexus runs.
var poolFnFiles = files{
	"main.loc": `module poolfn (cppLoops, goLoops, cppScaled, goScaled, cppTwice, goTwice, cppCrash, goCrash, mixed)
import root

source Cpp from "lib.hpp" ("inc", "add", "isBig", "gt", "sameTens", "dup", "applyTwice", "boom")
inc :: Int -> Int
add :: Int -> Int -> Int
isBig :: Int -> Bool
gt :: Int -> Int -> Bool
sameTens :: Int -> Int -> Bool
dup :: Int -> [Int]
applyTwice :: (Int -> Int) -> Int -> Int
boom :: Int -> Int

source Go from "lib.go" ("Inc" as incG, "Add" as addG, "IsBig" as isBigG, "Gt" as gtG, "SameTens" as sameTensG, "Dup" as dupG, "ApplyTwice" as applyTwiceG, "Boom" as boomG)
incG :: Int -> Int
addG :: Int -> Int -> Int
isBigG :: Int -> Bool
gtG :: Int -> Int -> Bool
sameTensG :: Int -> Int -> Bool
dupG :: Int -> [Int]
applyTwiceG :: (Int -> Int) -> Int -> Int
boomG :: Int -> Int

cppLoops :: [Int] -> ([Int], [Int], Int, [Int], Bool, Bool, ?Int, [Int], ([Int], [Int]), [Int], [Int], [Int], [Int], [[Int]])
cppLoops xs = (map inc xs, filter isBig xs, fold add 0 xs, zipWith add xs xs, any isBig xs, all isBig xs, find isBig xs, concatMap dup xs, partition isBig xs, takeWhile isBig xs, dropWhile isBig xs, scanl add 0 xs, sortBy gt xs, groupBy sameTens xs)

goLoops :: [Int] -> ([Int], [Int], Int, [Int], Bool, Bool, ?Int, [Int], ([Int], [Int]), [Int], [Int], [Int], [Int], [[Int]])
goLoops xs = (map incG xs, filter isBigG xs, fold addG 0 xs, zipWith addG xs xs, any isBigG xs, all isBigG xs, find isBigG xs, concatMap dupG xs, partition isBigG xs, takeWhile isBigG xs, dropWhile isBigG xs, scanl addG 0 xs, sortBy gtG xs, groupBy sameTensG xs)

--' A function given some of its arguments
cppScaled :: Int -> [Int] -> [Int]
cppScaled k xs = map (add k) xs

goScaled :: Int -> [Int] -> [Int]
goScaled k xs = map (\x -> addG x k) xs

--' User functions that take functions
cppTwice :: Int -> Int
cppTwice x = applyTwice (add 3) x

goTwice :: Int -> Int
goTwice x = applyTwiceG (addG 3) x

cppCrash :: [Int] -> [Int]
cppCrash xs = map boom xs

goCrash :: [Int] -> [Int]
goCrash xs = map boomG xs

--' Functions of two pools: the nexus runs the loop
mixed :: [Int] -> [Int]
mixed xs = map (\x -> addG (add x 1) 2) xs
`,
	"lib.hpp": `#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

inline std::int64_t inc(std::int64_t x) { return x + 1; }
inline std::int64_t add(std::int64_t a, std::int64_t b) { return a + b; }
inline bool isBig(std::int64_t x) { return x > 2; }
inline bool gt(std::int64_t a, std::int64_t b) { return a > b; }
inline bool sameTens(std::int64_t a, std::int64_t b) { return a / 10 == b / 10; }
inline std::vector<std::int64_t> dup(std::int64_t x) { return {x, x}; }
inline int applyTwice(const std::function<int(int)>& f, int x) { return f(f(x)); }
inline std::int64_t boom(std::int64_t x) {
  if (x == 0) throw std::invalid_argument("boom at zero");
  return x;
}
`,
	"lib.go": `package lib

func Inc(x int) int             { return x + 1 }
func Add(a, b int) int          { return a + b }
func IsBig(x int64) bool        { return x > 2 }
func Gt(a, b int) bool          { return a > b }
func SameTens(a, b int) bool    { return a/10 == b/10 }
func Dup(x int) []int           { return []int{x, x} }
func ApplyTwice(f func(int) int, x int) int { return f(f(x)) }

func Boom(x int) int {
	if x == 0 {
		panic("boom at zero")
	}
	return x
}
`,
}

// TestPoolFunctions: the prelude's loops over C++ and Go functions give
// what Morloc's definitions say (the expected values are worked out from
// them for xs = [3, 1, 12, 15, 2]), each as one call of the pool's own
// loop; user functions of both pools take functions of their pool, given
// some arguments; through the CLI and over MCP.
func TestPoolFunctions(t *testing.T) {
	p := build(t, poolFnFiles)
	loops := "[[4,2,13,16,3],[3,12,15],33,[6,2,24,30,4],true,false,3,[3,3,1,1,12,12,15,15,2,2],[[3,12,15],[1,2]],[3],[1,12,15,2],[0,3,4,16,31,33],[15,12,3,2,1],[[3,1],[12,15],[2]]]\n"
	p.okAll([]cliCase{
		{[]string{"cppLoops", "[3,1,12,15,2]"}, loops},
		{[]string{"goLoops", "[3,1,12,15,2]"}, loops},
		{[]string{"cppLoops", "[]"}, "[[],[],0,[],false,true,null,[],[[],[]],[],[],[0],[],[]]\n"},
		{[]string{"goLoops", "[]"}, "[[],[],0,[],false,true,null,[],[[],[]],[],[],[0],[],[]]\n"},
		{[]string{"cppScaled", "10", "[1,2]"}, "[11,12]\n"},
		{[]string{"goScaled", "10", "[1,2]"}, "[11,12]\n"},
		{[]string{"cppTwice", "4"}, "10\n"},
		{[]string{"goTwice", "4"}, "10\n"},
		{[]string{"mixed", "[3,1]"}, "[6,4]\n"},
	})
	for _, c := range []struct {
		cmd  string
		want []string
	}{
		{"cppCrash", []string{"boom at zero", "boom (lib.hpp)", "morloc_map (nexus_prelude.hpp)"}},
		{"goCrash", []string{"boom at zero", "boomG, given as a function argument"}},
	} {
		msg := p.fails(1, c.cmd, "[1,0]")
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s [1,0]: %q lacks %q", c.cmd, msg, w)
			}
		}
	}
	checkPoolLoops(t, filepath.Join(p.dir, "prog-build", "manifest.json"))

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"cppLoops", map[string]any{"_1": []int{3, 1, 12, 15, 2}}, strings.TrimSpace(loops)},
		{"goLoops", map[string]any{"_1": []int{3, 1, 12, 15, 2}}, strings.TrimSpace(loops)},
		{"cppTwice", map[string]any{"_1": 4}, "10"},
		{"goScaled", map[string]any{"_1": 10, "_2": []int{1, 2}}, "[11,12]"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError || toolText(res) != c.want {
			t.Errorf("%s over MCP: %s, %v; want %s", c.tool, toolText(res), err, c.want)
		}
	}
	cs.Close()
	p.checkClean()
}

// checkPoolLoops checks in the built manifest that every item of
// cppLoops and goLoops is one call of the pool's loop, given a reference
// to the user's function.
func checkPoolLoops(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type expr struct {
		Kind string  `json:"kind"`
		Ref  int     `json:"ref"`
		Args []*expr `json:"args"`
	}
	var m struct {
		Functions []struct {
			Name   string `json:"name"`
			Source string `json:"source"`
			Pool   string `json:"pool"`
		} `json:"functions"`
		Commands []struct {
			Name string `json:"name"`
			Body *expr  `json:"body"`
		} `json:"commands"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"cppLoops": "cpp", "goLoops": "go"}
	for _, c := range m.Commands {
		pool, ok := want[c.Name]
		if !ok {
			continue
		}
		delete(want, c.Name)
		if c.Body.Kind != "tuple" || len(c.Body.Args) != 14 {
			t.Fatalf("%s: body is a %s of %d items, want a tuple of 14", c.Name, c.Body.Kind, len(c.Body.Args))
		}
		for i, call := range c.Body.Args {
			f := m.Functions[call.Ref]
			if call.Kind != "call" || f.Pool != pool || !strings.HasPrefix(f.Source, "morloc_") {
				t.Errorf("%s item %d: a %s of %s (%s, pool %q), want one call of the %s pool's loop", c.Name, i+1, call.Kind, f.Name, f.Source, f.Pool, pool)
				continue
			}
			if fn := call.Args[0]; fn.Kind != "fnref" || m.Functions[fn.Ref].Pool != pool {
				t.Errorf("%s item %d: %s is given a %s, want a reference to a %s function", c.Name, i+1, f.Name, fn.Kind, pool)
			}
		}
	}
	for name := range want {
		t.Errorf("the manifest has no command %s", name)
	}
}
