// Package peers holds the peer benchmark's three functions, as nexus's Go
// pool runs them (integration/peers builds them with `nexus make`) and as
// the Go SDK peer calls them in its own process.
package peers

import "strings"

// Trivial returns x unchanged.
func Trivial(x int) int { return x }

// Shout returns s reversed and in upper case.
func Shout(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return strings.ToUpper(string(r))
}

// Total returns the sum of xs.
func Total(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum
}
