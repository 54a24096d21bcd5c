package cpp_test

import (
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/codegen/cpp"
	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/manifest/types"
)

// A foreign operator is an inline lambda applying it between the
// operands, registered without an address; one sourced without a file
// includes nothing.
func TestSourceForeignOperator(t *testing.T) {
	plus := spec(0, "|+|", "+", types.IntType, types.IntType, types.IntType)
	plus.Infix = true
	and := spec(1, "&.", "and", types.BoolType, types.BoolType, types.BoolType)
	and.Infix = true
	text, err := cpp.Source([]cpp.Function{{Spec: plus, File: sourced.OperatorsFile}, {Spec: and, File: "/src/ops.hpp"}})
	if err != nil {
		t.Fatal(err)
	}
	src := string(text)
	for _, want := range []string{
		`0, "|+|", "operator + (C++)", 2,`,
		"[](const auto& nexus_a, const auto& nexus_b) -> decltype(nexus_a + nexus_b) {",
		"return nexus_a + nexus_b;",
		`1, "&.", "operator and (ops.hpp)", 2,`,
		"return nexus_a and nexus_b;",
		`#include "/src/ops.hpp"`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("main.cpp lacks %s:\n%s", want, src)
		}
	}
	if strings.Contains(src, sourced.OperatorsFile) {
		t.Errorf("main.cpp includes %s:\n%s", sourced.OperatorsFile, src)
	}
}

// What main.cpp cannot apply as an operator is refused.
func TestSourceForeignOperatorErrors(t *testing.T) {
	for _, c := range []struct {
		source string
		args   []*types.Type
		want   string
	}{
		{"+; system(\"x\")", []*types.Type{types.IntType, types.IntType}, `is not a C++ operator`},
		{"+", []*types.Type{types.IntType}, "takes two operands, not Int -> Int"},
		{"+", []*types.Type{types.UnitType, types.IntType}, "takes two operands, not () -> Int -> Int"},
	} {
		s := spec(0, "op", c.source, types.IntType, c.args...)
		s.Infix = true
		_, err := cpp.Source([]cpp.Function{{Spec: s, File: sourced.OperatorsFile}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %v: error %v, want %q", c.source, c.args, err, c.want)
		}
	}
}
