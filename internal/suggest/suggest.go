// Package suggest is the "did you mean" of nexus's error messages: the
// candidate closest to a word that was not understood (an unknown command
// or option of a program's CLI, an unknown name, type, field or import in
// a .loc program), when one is close enough to be a likely typo.
package suggest

import (
	"slices"
	"strings"
)

// Closest returns the candidate closest to word, or "" when none is close
// enough to be a likely typo. Close is within a few edits, case ignored
// (see maxEdits; a swap of neighbours is one edit), or else the only
// candidate that word begins, for a word of two letters or more. Among
// equally close candidates, one that differs from word in no more than
// case wins, then the first in sort order, so that the answer does not
// depend on the order of candidates. word itself is never suggested.
func Closest(word string, candidates []string) string {
	sorted := slices.Clone(candidates)
	slices.Sort(sorted)
	lower := strings.ToLower(word)
	best, bestDist, bestCase := "", -1, false
	for _, c := range sorted {
		if c == word {
			continue
		}
		d := distance(lower, strings.ToLower(c))
		sameCase := distance(word, c) == d
		if bestDist < 0 || d < bestDist || (d == bestDist && sameCase && !bestCase) {
			best, bestDist, bestCase = c, d, sameCase
		}
	}
	if best != "" && bestDist <= maxEdits(word) {
		return best
	}
	return onlyPrefixed(word, sorted)
}

// Hint is " (did you mean 'x'?)" naming Closest, or "" when there is none:
// the end of an error message.
func Hint(word string, candidates []string) string {
	if c := Closest(word, candidates); c != "" {
		return " (did you mean '" + c + "'?)"
	}
	return ""
}

// maxEdits grows with the word: no guess for a one-letter word, one slip
// in a short word, a few in a long one.
func maxEdits(word string) int {
	switch n := len([]rune(word)); {
	case n <= 1:
		return 0
	case n <= 3:
		return 1
	case n <= 6:
		return 2
	}
	return 3
}

// onlyPrefixed returns the one candidate of sorted that begins with word,
// case ignored, or "" when none or several do or word is too short to
// say.
func onlyPrefixed(word string, sorted []string) string {
	if len([]rune(word)) < 2 {
		return ""
	}
	lower := strings.ToLower(word)
	found := ""
	for _, c := range sorted {
		if c == word || c == found || !strings.HasPrefix(strings.ToLower(c), lower) {
			continue
		}
		if found != "" {
			return ""
		}
		found = c
	}
	return found
}

// distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent runes, each
// one edit (Levenshtein's would count a swap, the commonest slip, as two).
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// d[i][j] is the distance between x[:i] and y[:j].
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
