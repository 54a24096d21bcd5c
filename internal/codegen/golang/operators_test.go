package golang

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest/types"
)

// operator is a foreign operator for the tests, sourced from file.
func operator(id int, text, file string, ret *types.Type, args ...*types.Type) Function {
	f := spec(id, text, file, ret, args...)
	f.Spec.Name, f.Spec.Infix = "op"+text, true
	return f
}

// A foreign operator is a func literal applying it between operands of
// the program's natural Go types, in the package of its file.
func TestGenerateForeignOperator(t *testing.T) {
	dir := srcFiles(t, map[string]string{"m.go": "package m\n\nfunc Twice(x int) int { return 2 * x }\n"})
	file := filepath.Join(dir, "m.go")
	m, err := generate([]Function{
		spec(0, "Twice", file, I, I),
		operator(1, "&^", file, I, I, I),
		operator(2, "+", file, S, S, S),
		operator(3, "<=", file, B, &types.Type{Kind: types.Real, Width: "F32"}, R),
	})
	if err != nil {
		t.Fatal(err)
	}
	gen := string(m.files["user/m/nexus_pool.go"])
	for _, want := range []string{
		"(func(a int64, b int64) int64 { return a &^ b })(nexus_a0, nexus_a1)",
		"(func(a string, b string) string { return a + b })(nexus_a0, nexus_a1)",
		"(func(a float32, b float64) bool { return a <= b })(nexus_a0, nexus_a1)",
		"Twice(nexus_a0)",
	} {
		if !strings.Contains(gen, want) {
			t.Errorf("generated code lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(gen)
	}
}

// What Go cannot apply as an operator is refused.
func TestGenerateForeignOperatorErrors(t *testing.T) {
	file := filepath.Join(srcFiles(t, map[string]string{"m.go": "package m\n"}), "m.go")
	for _, c := range []struct {
		fn   Function
		want string
	}{
		{operator(0, "and", file, B, B, B), `"and" is not a Go operator`},
		{operator(0, "+", file, I, I), "takes two operands, not Int -> Int"},
		{operator(0, "+", file, types.ListOf(I), types.ListOf(I), types.ListOf(I)), "applies to numbers, strings and booleans, not [Int]"},
	} {
		_, err := generate([]Function{c.fn})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.fn.Spec.Source, err, c.want)
		}
	}
}
