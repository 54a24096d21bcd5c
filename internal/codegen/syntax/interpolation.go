package syntax

import "strings"

// interpolation follows the code of a `#{...}` part while its string is
// read: the code is kept as written, to be parsed by the parser's
// interpolate, so a string inside it (`#{intercalate ", " xs}`) and a
// lambda's backslash (`#{f (\x -> x)}`) are not the outer string's end
// nor its escapes.
type interpolation struct {
	depth int  // open braces, the `#{` one included; 0 outside code
	quote bool // inside a string of the code
}

// interpolated copies the next rune of a `#{...}` part to b, with what
// it escapes inside a string of the code.
func (l *lexer) interpolated(code *interpolation, b *strings.Builder) {
	r := l.advance()
	b.WriteRune(r)
	switch {
	case code.quote && r == '\\' && l.off < len(l.src) && l.peekRune(0) != '\n':
		b.WriteRune(l.advance())
	case r == '"':
		code.quote = !code.quote
	case code.quote:
	case r == '{':
		code.depth++
	case r == '}':
		code.depth--
	}
}

// partEnd is the index just past the '}' closing the `#{` part whose code
// starts at text[start], or -1 when it is not closed. Braces are counted
// and strings of the code skipped, as the lexer read them.
func partEnd(text string, start int) int {
	depth, quote := 1, false
	for j := start; j < len(text); j++ {
		switch c := text[j]; {
		case quote && c == '\\':
			j++
		case c == '"':
			quote = !quote
		case quote:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}
