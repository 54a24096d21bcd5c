// Package mathx holds the Go side of the chem example.
package mathx

import (
	"fmt"
	"strings"
)

// Clamp limits x to the range [lo, hi].
func Clamp(lo, hi, x float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// Labels formats each weight with its formula, upper-cased.
func Labels(formulas []string, weights []float64) []string {
	out := make([]string, len(formulas))
	for i, f := range formulas {
		w := 0.0
		if i < len(weights) {
			w = weights[i]
		}
		out[i] = fmt.Sprintf("%s=%.2f", strings.ToUpper(f), w)
	}
	return out
}
