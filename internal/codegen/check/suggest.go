package check

import (
	"sort"
	"strings"
)

// didYouMean returns ` (did you mean 'x'?)` naming the candidate closest
// to name, or "" when none is close enough to be a likely typo. Case is
// ignored when measuring, and breaks ties.
func didYouMean(name string, candidates []string) string {
	best, bestDist, bestCase := "", -1, false
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	for _, cand := range sorted {
		if cand == name {
			continue
		}
		d := editDistance(strings.ToLower(name), strings.ToLower(cand))
		sameCase := editDistance(name, cand) == d
		if bestDist < 0 || d < bestDist || (d == bestDist && sameCase && !bestCase) {
			best, bestDist, bestCase = cand, d, sameCase
		}
	}
	if best == "" || bestDist > maxTypoDistance(name) {
		return ""
	}
	return " (did you mean '" + best + "'?)"
}

// maxTypoDistance grows with the name: no guess for a one-letter name,
// one slip in a short name, a few in a long one.
func maxTypoDistance(name string) int {
	switch n := len([]rune(name)); {
	case n <= 1:
		return 0
	case n <= 3:
		return 1
	case n <= 6:
		return 2
	}
	return 3
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
