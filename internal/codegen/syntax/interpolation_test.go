package syntax

import "testing"

// The code of a `#{...}` part is read as written: a string in it, with
// its escapes and braces, and a lambda's backslash belong to the code,
// not to the outer string.
func TestInterpolatedCode(t *testing.T) {
	checkBodies(t, map[string]string{
		`f xs = "items: #{g ", " xs}."`:           `("items: " <> (g ", " xs) <> ".")`,
		`f = "#{g "a\"}b" 1}"`:                    `((g "a\"}b" 1) <> "")`,
		`f xs = "#{fold (\a b -> a <> b) "" xs}"`: `((fold (\a b -> (a <> b)) "" xs) <> "")`,
		`f x = "a\tb #{x} \"q\""`:                 `("a\tb " <> x <> " \"q\"")`,
		`f = """x=#{g "y"}"""`:                    `("x=" <> (g "y"))`,
	})
	checkFirstErrors(t, map[string]string{
		`f x = "a #{g "b}"`: "'#{' without its closing '}' in the string",
	})
}
