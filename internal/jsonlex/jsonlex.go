// Package jsonlex is JSON's lexical grammar for the hand-written readers
// that pass over large messages faster than encoding/json: where the white
// space between tokens ends, where a number ends (and, with Float, its
// value), and the comma or bracket after an item. The typed reader of
// manifest/types and the message validator of internal/nexus/jsonrpc both use it,
// so the two agree on what a number is.
package jsonlex

import "encoding/binary"

// MaxDepth is the deepest nesting of arrays and objects that nexus reads,
// exactly encoding/json's own limit: a message is checked against it
// before encoding/json reads parts of it, so that what passes the check is
// never refused later for its depth, and what is too deep is said to be.
const MaxDepth = 10000

// Space returns the index of the first byte of d at or after i that is
// not JSON white space.
func Space(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// ItemEnd reads what follows an item of an array or object closed by
// close, from d[i] on and past white space: a comma (more items follow) or
// close (the end). It returns the index just past it; ok is false when it
// is neither.
func ItemEnd(d []byte, i int, close byte) (next int, more, ok bool) {
	i = Space(d, i)
	if i >= len(d) {
		return i, false, false
	}
	switch d[i] {
	case ',':
		return i + 1, true, true
	case close:
		return i + 1, false, true
	}
	return i, false, false
}

// Number returns the end of the JSON number that starts at d[i], and
// whether one does: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func Number(d []byte, i int) (int, bool) {
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i)
	default:
		return i, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return i, false
		}
		i = digits(d, i)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return i, false
		}
		i = digits(d, i)
	}
	return i, true
}

func digits(d []byte, i int) int {
	for len(d)-i >= 8 && allDigits(binary.LittleEndian.Uint64(d[i:])) {
		i += 8
	}
	for i < len(d) && isDigit(d[i]) {
		i++
	}
	return i
}

// allDigits reports whether the eight bytes of x are ASCII digits.
func allDigits(x uint64) bool {
	return ((x+0x4646464646464646)|(x-0x3030303030303030))&0x8080808080808080 == 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
