package cpp

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/internal/lazyre"
	"github.com/nexus-run/nexus/manifest/types"
)

// A foreign operator (`source Cpp ((+) as (|+|))`, manifest.Function.Infix)
// is served by an inline lambda that applies it between its two operands,
// `a + b`: C++ finds the operator for the operands' types, a built-in one
// or an overload the user's header declares.

// cppOperator is the text of a binary C++ operator, symbols or one of the
// alternative tokens; the checker allows fewer (check/foreignops.go), and
// this keeps anything else out of main.cpp.
var cppOperator = lazyre.New(`^([-+*/%<>=!&|^]{1,3}|and|or|xor|bitand|bitor|not_eq)$`)

// checkOperator rejects a foreign operator main.cpp cannot apply.
func checkOperator(f Function) error {
	if !cppOperator().MatchString(f.Spec.Source) {
		return fmt.Errorf("C++ function %s: %q is not a C++ operator", f.Spec.Name, f.Spec.Source)
	}
	if len(f.Spec.Args) != 2 || f.Spec.Args[0].Kind == types.Unit || f.Spec.Args[1].Kind == types.Unit {
		return fmt.Errorf("C++ operator %s (%s) takes two operands, not %s", f.Spec.Name, f.Spec.Source, sourced.Signature(f.Spec))
	}
	if strings.ContainsAny(f.File, "\"\n\r") {
		return fmt.Errorf("C++ function %s: the header's path %q cannot be #included; rename its folder", f.Spec.Name, f.File)
	}
	return nil
}

// operatorRegistration writes the nexus::function(...) entry of a foreign
// operator: targs are its result and parameters, as for a function. It has
// no address, so the runtime reads the operands as their natural types.
func operatorRegistration(f Function, targs []string) string {
	origin := "operator " + f.Spec.Source + " (C++)"
	if f.File != sourced.OperatorsFile {
		origin = "operator " + f.Spec.Source + " (" + filepath.Base(f.File) + ")"
	}
	op := f.Spec.Source
	var b strings.Builder
	fmt.Fprintf(&b, "      // %d: %s\n", f.Spec.ID, describe(f))
	fmt.Fprintf(&b, "      ::nexus::function<%s>(\n", strings.Join(targs, ", "))
	fmt.Fprintf(&b, "          %d, %s, %s, 2,\n", f.Spec.ID, cppString(f.Spec.Name), cppString(origin))
	fmt.Fprintf(&b, "          [](const auto& nexus_a, const auto& nexus_b) -> decltype(nexus_a %s nexus_b) {\n", op)
	fmt.Fprintf(&b, "            return nexus_a %s nexus_b;\n", op)
	b.WriteString("          },\n")
	b.WriteString("          nullptr),\n")
	return b.String()
}
