package syntax

import (
	"strings"
	"testing"
)

func effectsString(es []Name) string {
	if len(es) == 0 {
		return ""
	}
	names := make([]string, len(es))
	for i, n := range es {
		names[i] = n.Name
	}
	return "<" + strings.Join(names, ", ") + "> "
}

// TestIntrinsicsAndAscription: @name is an atom applied like a function;
// `:: T` (with an effect row) ascribes in parentheses, at the end of a
// body and at the end of a do statement.
func TestIntrinsicsAndAscription(t *testing.T) {
	checkBodies(t, map[string]string{
		"f x = @show x":                             "(@show x)",
		"f = @version":                              "@version",
		"f p = @save 3 [1, 2] p":                    "(@save 3 [1, 2] p)",
		"f s = @catch (@read s :: <Err> Int) 0":     "(@catch ((@read s) :: <Err> Int) 0)",
		"f s = (@read s :: Int) + 1":                "(((@read s) :: Int) + 1)",
		"f p = @load p :: <IO, Err> [Str]":          "((@load p) :: <IO, Err> [Str])",
		"f p = do\n  x <- @load p :: <IO> Int\n  x": "(do x <- ((@load p) :: <IO> Int); x;)",
		"f = g (@save 0) 1":                         "(g (@save 0) 1)",
	})
	checkFirstErrors(t, map[string]string{
		"f x = (x :: Int -> Int)": "a type ascription takes a value's type; function types are not supported in one",
		"f x = (x :: )":           "expected a type, got ')'",
		"f x = (x :: Int":         "expected ',' or ')'",
	})
}
