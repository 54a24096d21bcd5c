package syntax

import "testing"

// Older or unsupported Morloc forms are errors naming what to write.
func TestOlderFormsNamed(t *testing.T) {
	checkFirstErrors(t, map[string]string{
		"choose a :: [a] -> a":         "2:1: 'choose a ::' names its type variables first, Morloc's older form (removed in 0.68); write `choose :: ...`",
		"pair a b :: a -> b -> (a, b)": "2:1: 'pair a b ::' names its type variables first",
		"fib | 0 = 1":                  "Morloc's refutable clauses (fib | 0 = 1) are not supported: write a guard",
	})
}
