package syntax

import "testing"

// TestForces: `!e` becomes a bind of the nearest do block, left to
// right and inner first, or of a do made at the boundary; the misuses of
// digest 5.4 are errors. The bound names start with a space (no program
// can write them), so they print as " force N".
func TestForces(t *testing.T) {
	checkBodies(t, map[string]string{
		// A do made at the definition's boundary.
		"f = g !x":                            "(do  force 1 <- x; (g  force 1);)",
		"f = (!a, !b)":                        "(do  force 1 <- a;  force 2 <- b; ( force 1,  force 2);)",
		"f = !!x":                             "(do  force 1 <- x;  force 2 <-  force 1;  force 2;)",
		"f = !(g x) + 1":                      "(do  force 1 <- (g x); ( force 1 + 1);)",
		"f p = h !(@load p :: <IO, Err> Int)": "(do  force 1 <- ((@load p) :: <IO, Err> Int); (h  force 1);)",
		// Into the nearest do block, before the statement.
		"f = do\n  a\n  g !x\n  y <- h !z\n  y": "(do a;  force 1 <- x; (g  force 1);  force 2 <- z; y <- (h  force 2); y;)",
		// Boundaries: a lambda's body, a guard's branch, a let.
		"f = map (\\i -> !(g i)) xs":              "(map (\\i -> (do  force 1 <- (g i);  force 1;)) xs)",
		"f x ? x > 0 = !a\n  : b":                 "(? (x > 0) = (do  force 1 <- a;  force 1;) : b)",
		"f = let y = !a in y":                     "(let y = (do  force 1 <- a;  force 1;); in y)",
		"f = do\n  x <- g\n  let y = 1\n  k !x y": "(do x <- g; let (let y = 1;);  force 1 <- x; (k  force 1 y);)",
		// Not the force prefix: an operator that only starts with '!'.
		"f = a != b": "(a != b)",
	})
	checkFirstErrors(t, map[string]string{
		"f = do\n  x <- !g\n  x":      "a '!' on the right of '<-' is one run too many; '<-' runs it already: write x <- ...",
		"f = do\n  !g\n  1":           "a '!' as a statement of its own; the statement runs already: write it without the '!'",
		"f = do\n  let y = h !g\n  y": "a '!' in the 'let' of y would run before the 'let'; bind it with '<-' on a line of its own first",
		"f = g !":                     "expected an expression to run after '!', got end of input",
	})
}
