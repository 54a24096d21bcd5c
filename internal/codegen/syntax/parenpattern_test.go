package syntax

import "testing"

// A pattern in parentheses is that pattern: Morloc writes a record pattern
// so after `let` and before `<-`; a tuple inside it still projects items.
func TestParenthesizedPatterns(t *testing.T) {
	checkBodies(t, map[string]string{
		"f = \\(a) -> a":                  "(\\_pat2_6 -> (let a = _pat2_6; in a))",
		"f r = let ({a = p}) = r in p":    "(let _pat2_11 = r; p = (.a _pat2_11); in p)",
		"f = do\n  ({a = p}) <- g\n  p":   "(do _pat3_3 <- g; let (let p = (.a _pat3_3);); p;)",
		"f = let ((a, b), c) = g in b":    "(let _pat2_9 = g; a = (<.0> (<.0> _pat2_9)); b = (<.1> (<.0> _pat2_9)); c = (<.1> _pat2_9); in b)",
		"f = let (({x = a}), b) = g in a": "(let _pat2_9 = g; a = (.x (<.0> _pat2_9)); b = (<.1> _pat2_9); in a)",
	})
}
