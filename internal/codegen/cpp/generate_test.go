package cpp_test

import (
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/codegen/cpp"
	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

func spec(id int, name, source string, ret *types.Type, args ...*types.Type) *manifest.Function {
	return &manifest.Function{ID: id, Name: name, Source: source, Pool: manifest.Cpp, Args: args, Return: ret}
}

func TestSource(t *testing.T) {
	text, err := cpp.Source([]cpp.Function{
		{Spec: spec(3, "scaled", "scale", types.ListOf(types.RealType), types.RealType, types.ListOf(types.RealType)), File: "/src/stats.hpp"},
		{Spec: spec(1, "answer", "ns::answer", types.IntType, types.UnitType, types.MapOf(types.StrType, types.OptionalOf(point))), File: "/src/other.hpp"},
		{Spec: spec(5, "moved", "move", point, point), File: "/src/stats.hpp"},
		{Spec: spec(6, "doc", "doc", types.JSONType, types.ListOf(types.OptionalOf(types.JSONType))), File: "/src/stats.hpp"},
	})
	if err != nil {
		t.Fatal(err)
	}
	src := string(text)
	for _, want := range []string{
		`#include "nexus_pool.hpp"`,
		`#include "/src/other.hpp"`,
		`#include "/src/stats.hpp"`,
		// Records: field lists by name, the struct from the global namespace.
		"struct Record<::geo::point> {",
		`static constexpr const char* name = "Point";`,
		`field("x", &::geo::point::x),`,
		`field("tags", &::geo::point::tags));`,
		// Natural types, and positions that skip () arguments.
		"::nexus::function<::nexus::Result<::std::vector<double>>, ::nexus::Param<0, double>, ::nexus::Param<1, ::std::vector<double>>>(",
		"::nexus::function<::nexus::Result<::std::int64_t>, ::nexus::Param<1, ::std::map<::std::string, ::std::optional<::geo::point>>>>(",
		`1, "answer", "ns::answer (other.hpp)", 2,`,
		// A Json is the string of its JSON text.
		"::nexus::function<::nexus::Result<::std::string>, ::nexus::Param<0, ::std::vector<::std::optional<::std::string>>>>(",
		// The call without argument-dependent lookup, and the address.
		"return (scale)(static_cast<decltype(nexus_args)&&>(nexus_args)...);",
		"::nexus::signature<decltype(nexus_dependent)>(&ns::answer)",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("main.cpp lacks %q:\n%s", want, src)
		}
	}
	// Functions in id order, each header included once.
	if strings.Index(src, `"answer"`) > strings.Index(src, `"scaled"`) || strings.Count(src, "stats.hpp\"\n") != 1 {
		t.Errorf("functions out of order or a header included twice:\n%s", src)
	}
	if strings.Count(src, "struct Record<") != 1 {
		t.Errorf("the record is described more than once:\n%s", src)
	}
}

func TestSourceErrors(t *testing.T) {
	unmapped := &types.Type{Kind: types.Record, Name: "Settings", Fields: []types.Field{{Name: "n", Type: types.IntType}}}
	other := &types.Type{Kind: types.Record, Name: "Other", Langs: map[string]string{"cpp": "geo::point"},
		Fields: []types.Field{{Name: "y", Type: types.IntType}}}
	badField := &types.Type{Kind: types.Record, Name: "Odd", Langs: map[string]string{"cpp": "odd"},
		Fields: []types.Field{{Name: "class-name", Type: types.IntType}}}
	cases := []struct {
		name string
		fns  []cpp.Function
		want string
	}{
		{"no functions", nil, "without functions"},
		{"record without a C++ type", []cpp.Function{{Spec: spec(0, "f", "f", types.IntType, unmapped), File: "/a.hpp"}},
			`record Settings has no C++ type; map it to your struct with record Cpp => Settings = "struct_name", or have one generated with record Cpp => Settings = "struct"`},
		{"two records, one struct", []cpp.Function{{Spec: spec(0, "f", "f", point, other), File: "/a.hpp"}},
			"both map to the C++ type geo::point but have different fields"},
		{"field that is no C++ name", []cpp.Function{{Spec: spec(0, "f", "f", badField), File: "/a.hpp"}},
			`field "class-name" cannot be a C++ member name`},
		{"not a C++ name", []cpp.Function{{Spec: spec(0, "f", "f(1)", types.IntType), File: "/a.hpp"}},
			`"f(1)" is not a C++ function name`},
		{"relative header", []cpp.Function{{Spec: spec(0, "f", "f", types.IntType), File: "a.hpp"}},
			"not an absolute path"},
		{"header that cannot be included", []cpp.Function{{Spec: spec(0, "f", "f", types.IntType), File: "/we\"ird/a.hpp"}},
			"cannot be #included"},
		{"id given twice", []cpp.Function{{Spec: spec(0, "f", "f", types.IntType), File: "/a.hpp"}, {Spec: spec(0, "g", "g", types.IntType), File: "/a.hpp"}},
			"id 0 given twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := cpp.Source(c.fns)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// TestSourceFunctions: a function argument is a std::function of the
// natural types, and a prelude loop is the template in nexus_prelude.hpp,
// included once, in place of a user's header.
func TestSourceFunctions(t *testing.T) {
	intFn := types.FuncOf(types.IntType, types.IntType)
	pred := types.FuncOf(types.BoolType, types.IntType, types.StrType)
	text, err := cpp.Source([]cpp.Function{
		{Spec: spec(0, "applyTwice", "applyTwice", types.IntType, intFn, types.IntType), File: "/src/hof.hpp"},
		{Spec: spec(1, "map", "morloc_map", types.ListOf(types.IntType), intFn, types.ListOf(types.IntType)), File: sourced.PreludeFile},
		{Spec: spec(2, "filter", "morloc_filter", types.ListOf(types.IntType), pred, types.ListOf(types.IntType)), File: sourced.PreludeFile},
	})
	if err != nil {
		t.Fatal(err)
	}
	src := string(text)
	for _, want := range []string{
		`#include "/src/hof.hpp"`,
		`#include "nexus_prelude.hpp"`,
		"// 0: applyTwice :: (Int -> Int) -> Int -> Int (hof.hpp)",
		"::nexus::Param<0, ::std::function<::std::int64_t(::std::int64_t)>>",
		"::nexus::Param<0, ::std::function<bool(::std::int64_t, ::std::string)>>",
		"// 1: morloc_map, sourced as map :: (Int -> Int) -> [Int] -> [Int] (nexus_prelude.hpp)",
		`1, "map", "morloc_map (nexus_prelude.hpp)", 2,`,
		"return (::nexus::prelude::morloc_filter)(static_cast<decltype(nexus_args)&&>(nexus_args)...);",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("main.cpp lacks %q:\n%s", want, src)
		}
	}
	if strings.Count(src, "nexus_prelude.hpp\"") != 1 || strings.Contains(src, sourced.PreludeFile) {
		t.Errorf("the prelude is not included once, as the runtime's header:\n%s", src)
	}
}
