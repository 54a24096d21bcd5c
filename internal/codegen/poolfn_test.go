package codegen

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/manifest"
)

// poolFnFiles is a program with C++ and Go functions, some taking
// functions, and the prelude's loops over them.
var poolFnFiles = map[string]string{
	"lib.hpp": "#pragma once\n#include <cstdint>\n#include <functional>\n" +
		"inline std::int64_t addC(std::int64_t a, std::int64_t b) { return a + b; }\n" +
		"inline bool bigC(std::int64_t x) { return x > 2; }\n" +
		"inline std::int64_t twiceC(std::function<std::int64_t(std::int64_t)> f, std::int64_t x) { return f(f(x)); }\n",
	"lib.go": "package lib\n\nfunc AddG(a, b int) int { return a + b }\n\nfunc TwiceG(f func(int) int, x int) int { return f(f(x)) }\n",
	"main.loc": `module m (*)
import root

source Cpp from "lib.hpp" ("addC", "bigC", "twiceC")
source Go from "lib.go" ("AddG" as addG, "TwiceG" as twiceG)
addC :: Int -> Int -> Int
bigC :: Int -> Bool
twiceC :: (Int -> Int) -> Int -> Int
addG :: Int -> Int -> Int
twiceG :: (Int -> Int) -> Int -> Int

mapC :: [Int] -> [Int]
mapC xs = map (addC 3) xs

filterC :: [Int] -> [Int]
filterC xs = filter bigC xs

foldG :: [Int] -> Int
foldG xs = fold addG 0 xs

userC :: Int -> Int
userC x = twiceC (addC x) 4

userG :: Int -> Int
userG x = twiceG (\y -> addG y 1) x

mixed :: [Int] -> [Int]
mixed xs = map (\x -> addG (addC x 1) 2) xs
`,
}

// fnString writes a call of a pool function, a FnRef and its Params the
// way the tests below expect them.
func fnString(m *manifest.Manifest, e *manifest.Expr) string {
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = fnString(m, a)
	}
	switch e.Kind {
	case manifest.Call:
		f := m.Functions[e.Ref]
		return fmt.Sprintf("%s:%s(%s)", f.Pool, f.Source, strings.Join(args, ", "))
	case manifest.FnRef:
		f := m.Functions[e.Ref]
		return fmt.Sprintf("&%s:%s(%s)", f.Pool, f.Source, strings.Join(args, ", "))
	case manifest.Param:
		return fmt.Sprintf("_%d", e.Ref)
	case manifest.Var:
		return fmt.Sprintf("$%d", e.Ref)
	case manifest.Lit:
		return string(e.Value)
	}
	return fmt.Sprintf("%s(%s)", e.Kind, strings.Join(args, ", "))
}

// TestPoolFunctionArguments: C++ and Go functions take functions of their
// own pool, and a prelude loop over a C++ or Go function is one call of
// that pool's copy of the loop (sourced.PreludeFile), given a reference
// to the function; a loop over functions of two pools stays in the nexus.
func TestPoolFunctionArguments(t *testing.T) {
	p, err := Compile(filepath.Join(writeModules(t, poolFnFiles), "main.loc"))
	if err != nil {
		t.Fatal(err)
	}
	validate(t, p.Manifest)
	want := map[string]string{
		"mapC":    "cpp:morloc_map(&cpp:addC(3, _0), $0)",
		"filterC": "cpp:morloc_filter(&cpp:bigC(_0), $0)",
		"foldG":   "go:morloc_fold(&go:AddG(_0, _1), 0, $0)",
		"userC":   "cpp:twiceC(&cpp:addC($0, _0), 4)",
		"userG":   "go:TwiceG(&go:AddG(_0, 1), $0)",
		"mixed":   "op(lambda(go:AddG(cpp:addC($1, 1), 2)), $0)",
	}
	for _, c := range p.Manifest.Commands {
		if w, ok := want[c.Name]; ok {
			if got := fnString(p.Manifest, c.Body); got != w {
				t.Errorf("%s: %s, want %s", c.Name, got, w)
			}
			delete(want, c.Name)
		}
	}
	for name := range want {
		t.Errorf("no command %s", name)
	}
	for _, f := range p.Manifest.Functions {
		if strings.HasPrefix(f.Source, "morloc_") && p.Sources[f.ID] != sourced.PreludeFile {
			t.Errorf("%s comes from %s, not the pool's prelude", f.Source, p.Sources[f.ID])
		}
	}
}

// An MCP tool cannot take a function: it runs in no pool of the program's.
func TestMCPToolTakesNoFunction(t *testing.T) {
	loc := "module m (f)\nsource MCP from \"uvx mcp-server-time\" (\"get_current_time\" as now)\nnow :: (Str -> Str) -> Str\nf :: Str\nf = \"x\"\n"
	_, err := Compile(filepath.Join(writeModules(t, map[string]string{"main.loc": loc}), "main.loc"))
	if err == nil || !strings.Contains(err.Error(), "main.loc:3:9: now takes a function (Str -> Str): only Python, C++ and Go functions can take functions, and now is an MCP tool") {
		t.Errorf("got %v", err)
	}
}

// The same loop at the same types over functions of two pools is one
// instance in each pool.
func TestPoolLoopPerLanguage(t *testing.T) {
	files := map[string]string{"lib.hpp": poolFnFiles["lib.hpp"], "lib.go": poolFnFiles["lib.go"],
		"main.loc": strings.Replace(poolFnFiles["main.loc"], "foldG xs = fold addG 0 xs", "foldG xs = fold addG (fold addC 0 xs) xs", 1)}
	p, err := Compile(filepath.Join(writeModules(t, files), "main.loc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Manifest.Commands {
		if c.Name == "foldG" {
			if got, want := fnString(p.Manifest, c.Body), "go:morloc_fold(&go:AddG(_0, _1), cpp:morloc_fold(&cpp:addC(_0, _1), 0, $0), $0)"; got != want {
				t.Errorf("foldG: %s, want %s", got, want)
			}
		}
	}
}
