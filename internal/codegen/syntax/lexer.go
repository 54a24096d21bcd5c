package syntax

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

// lexer turns `.loc` text into tokens, dropping comments and keeping
// docstrings as Doc tokens. Errors go to the sink; lexing always goes on to
// the end so that later errors are found too.
type lexer struct {
	src  string
	off  int
	line int
	col  int
	file string // of every position, see diag.Pos
	sink *diag.Sink

	toks     []token
	lastLine int // line of the last token, to mark the first token of a line
	// brackets are the open brackets, true for a getter's `.(` or `.[`,
	// and closedGetter says the last token closed one: a '.' right after
	// it goes on with the getter chain (`.[0].x`).
	brackets     []bool
	closedGetter bool
}

func lex(src string, start diag.Pos, sink *diag.Sink) []token {
	l := &lexer{src: src, line: start.Line, col: start.Col, file: start.File, sink: sink, lastLine: -1}
	l.run()
	return l.toks
}

func (l *lexer) pos() diag.Pos { return diag.Pos{Line: l.line, Col: l.col, File: l.file} }

func (l *lexer) peekRune(ahead int) rune {
	off := l.off
	for i := 0; ; i++ {
		if off >= len(l.src) {
			return -1
		}
		r, size := utf8.DecodeRuneInString(l.src[off:])
		if i == ahead {
			return r
		}
		off += size
	}
}

func (l *lexer) advance() rune {
	r, size := utf8.DecodeRuneInString(l.src[l.off:])
	l.off += size
	if r == '\n' {
		l.line++
		l.col = 1
	} else {
		l.col++
	}
	return r
}

func (l *lexer) emit(kind kind, text string, pos diag.Pos, offset int) *token {
	t := token{kind: kind, Text: text, Pos: pos, Offset: offset, End: l.off, First: pos.Line != l.lastLine}
	l.lastLine = pos.Line
	l.trackBrackets(kind)
	l.toks = append(l.toks, t)
	return &l.toks[len(l.toks)-1]
}

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }
func isIdentRune(r rune) bool {
	return r == '_' || r == '\'' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// prevEndsValueAdjacent reports whether the previous token ends a value
// and touches the current position, so a '.' here is composition (f.g) and
// not a getter.
func (l *lexer) prevEndsValueAdjacent() bool {
	t, ok := l.touching()
	if !ok {
		return false
	}
	switch t.kind {
	case tokIdent, tokInt, tokReal, tokString, tokRParen, tokRBracket, tokRBrace, tokGetter:
		return true
	}
	return false
}

// touching is the previous token when it ends at the cursor.
func (l *lexer) touching() (token, bool) {
	if len(l.toks) == 0 || l.toks[len(l.toks)-1].End != l.off {
		return token{}, false
	}
	return l.toks[len(l.toks)-1], true
}

func (l *lexer) run() {
	for l.off < len(l.src) {
		r := l.peekRune(0)
		pos, off := l.pos(), l.off
		switch {
		case r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == '\f':
			l.advance()
		case r == '-' && l.peekRune(1) == '-':
			l.comment()
		case r == '{' && l.peekRune(1) == '-':
			l.blockComment()
		case isIdentStart(r):
			for l.off < len(l.src) && isIdentRune(l.peekRune(0)) {
				l.advance()
			}
			l.qualified(off)
			text := l.src[off:l.off]
			if text == "_" {
				l.emit(tokUnderscore, text, pos, off)
			} else {
				l.emit(tokIdent, text, pos, off)
			}
		case isDigit(r) || (r == '-' && isDigit(l.peekRune(1)) && !l.prevEndsValueAdjacent()):
			l.number()
		case r == '"' || strings.HasPrefix(l.src[l.off:], "'''"):
			l.str()
		case r == '.' && l.startsGetterStep():
			l.getterStep(pos, off)
		case r == '.' && isIdentStart(l.peekRune(1)) && !l.prevEndsValueAdjacent():
			l.advance()
			start := l.off
			for l.off < len(l.src) && isIdentRune(l.peekRune(0)) {
				l.advance()
			}
			l.emit(tokGetter, l.src[start:l.off], pos, off)
		case r == '@' && isIdentStart(l.peekRune(1)):
			l.advance()
			start := l.off
			for l.off < len(l.src) && isIdentRune(l.peekRune(0)) {
				l.advance()
			}
			l.emit(tokAt, l.src[start:l.off], pos, off)
		default:
			l.punct(r, pos, off)
		}
	}
	l.emit(tokEOF, "", l.pos(), l.off)
}

var oneCharPunct = map[rune]kind{
	'(': tokLParen, ')': tokRParen, '[': tokLBracket, ']': tokRBracket,
	'{': tokLBrace, '}': tokRBrace, ',': tokComma, ';': tokSemi, '\\': tokBackslash,
}

func (l *lexer) punct(r rune, pos diag.Pos, off int) {
	if isOpRune(r) {
		l.operator(pos, off)
		return
	}
	if r == '`' {
		l.backtick(pos, off)
		return
	}
	l.advance()
	if k, ok := oneCharPunct[r]; ok {
		l.emit(k, string(r), pos, off)
		return
	}
	l.sink.Errorf(pos, "unexpected character %q", r)
	l.emit(tokInvalid, string(r), pos, off)
}

// markedLine emits the rest of line, which starts with a three-character
// mark (`--'`, `--*`), as a token of kind whose text follows the mark.
func (l *lexer) markedLine(k kind, line string, pos diag.Pos, off int) {
	l.advance()
	l.advance()
	l.advance()
	textPos := l.pos()
	for l.off < len(l.src) && l.peekRune(0) != '\n' {
		l.advance()
	}
	t := l.emit(k, strings.TrimRight(line[3:], " \t\r"), pos, off)
	t.TextPos = textPos
}

// comment reads a `--` line comment or a `--'` docstring line.
func (l *lexer) comment() {
	pos, off := l.pos(), l.off
	end := strings.IndexByte(l.src[l.off:], '\n')
	if end < 0 {
		end = len(l.src) - l.off
	}
	line := l.src[l.off : l.off+end]
	if strings.HasPrefix(line, "--'") {
		l.markedLine(tokDoc, line, pos, off)
		return
	}
	if strings.HasPrefix(line, "--*") {
		// A group line means something only inside an export list;
		// splitItems drops it anywhere else, where it is a comment.
		l.markedLine(tokGroupLine, line, pos, off)
		return
	}
	for l.off < len(l.src) && l.peekRune(0) != '\n' {
		l.advance()
	}
}

// blockComment reads a `{- ... -}` comment; they nest, as in Haskell.
func (l *lexer) blockComment() {
	pos := l.pos()
	depth := 0
	for l.off < len(l.src) {
		switch {
		case strings.HasPrefix(l.src[l.off:], "{-"):
			depth++
			l.advance()
			l.advance()
		case strings.HasPrefix(l.src[l.off:], "-}"):
			depth--
			l.advance()
			l.advance()
			if depth == 0 {
				return
			}
		default:
			l.advance()
		}
	}
	l.sink.Errorf(pos, "unterminated block comment: '{-' without '-}'")
}

func (l *lexer) number() {
	pos, off := l.pos(), l.off
	if l.peekRune(0) == '-' {
		l.advance()
	}
	kind := tokInt
	if base, name := radix(l.peekRune(1)); l.peekRune(0) == '0' && base != 0 {
		// 0xFF, 0o755, 0b101: an integer in another base.
		l.advance()
		l.advance()
		digits := 0
		for digitIn(l.peekRune(0), base) {
			l.advance()
			digits++
		}
		if digits == 0 || isIdentRune(l.peekRune(0)) {
			for l.off < len(l.src) && isIdentRune(l.peekRune(0)) {
				l.advance()
			}
			l.sink.Errorf(pos, "malformed %s literal: %s", name, l.src[off:l.off])
			l.emit(tokInvalid, l.src[off:l.off], pos, off)
			return
		}
		l.emit(tokInt, l.src[off:l.off], pos, off)
		return
	}
	for isDigit(l.peekRune(0)) {
		l.advance()
	}
	if l.peekRune(0) == '.' && isDigit(l.peekRune(1)) {
		kind = tokReal
		l.advance()
		for isDigit(l.peekRune(0)) {
			l.advance()
		}
	}
	if e := l.peekRune(0); e == 'e' || e == 'E' {
		n := 1
		if s := l.peekRune(1); s == '+' || s == '-' {
			n = 2
		}
		if isDigit(l.peekRune(n)) {
			kind = tokReal
			for i := 0; i < n; i++ {
				l.advance()
			}
			for isDigit(l.peekRune(0)) {
				l.advance()
			}
		}
	}
	if r := l.peekRune(0); isIdentStart(r) {
		for l.off < len(l.src) && isIdentRune(l.peekRune(0)) {
			l.advance()
		}
		l.sink.Errorf(pos, "malformed number %q", l.src[off:l.off])
		l.emit(tokInvalid, l.src[off:l.off], pos, off)
		return
	}
	l.emit(kind, l.src[off:l.off], pos, off)
}

// radix is the base an integer literal's prefix letter (0x, 0o, 0b)
// gives, with the base's name; 0 for another letter.
func radix(r rune) (int, string) {
	switch r {
	case 'x', 'X':
		return 16, "hexadecimal"
	case 'o', 'O':
		return 8, "octal"
	case 'b', 'B':
		return 2, "binary"
	}
	return 0, ""
}

// digitIn reports whether r is a digit of base.
func digitIn(r rune, base int) bool {
	switch {
	case r >= '0' && r <= '9':
		return int(r-'0') < base
	case base == 16 && (r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'):
		return true
	}
	return false
}

var simpleEscapes = map[rune]rune{'n': '\n', 't': '\t', 'r': '\r', '\\': '\\', '"': '"', '\'': '\'', '0': 0, 'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v'}

// hexEscapes gives the number of hex digits each hex escape takes.
var hexEscapes = map[rune]int{'x': 2, 'u': 4, 'U': 8}

// str reads a string literal, decoding its escapes: \n \t \r \\ \" \' \0
// \a \b \f \v, \xHH, \uHHHH and \UHHHHHHHH.
func (l *lexer) str() {
	pos, off := l.pos(), l.off
	quote := l.peekRune(0)
	triple := strings.HasPrefix(l.src[l.off:], strings.Repeat(string(quote), 3))
	if triple {
		l.advance()
		l.advance()
	}
	l.advance()
	var b strings.Builder
	var code interpolation
	for {
		if code.depth > 0 && l.off < len(l.src) && l.peekRune(0) != '\n' {
			l.interpolated(&code, &b)
			continue
		}
		if l.off >= len(l.src) || (!triple && l.peekRune(0) == '\n') {
			closing := string(quote)
			if triple {
				closing = strings.Repeat(closing, 3)
			}
			if code.depth > 0 {
				l.sink.Errorf(pos, "'#{' without its closing '}' in the string")
			} else {
				l.sink.Errorf(pos, "unterminated string: expected a closing '%s'", closing)
			}
			l.emit(tokInvalid, l.src[off:l.off], pos, off)
			return
		}
		escPos := l.pos()
		if triple && strings.HasPrefix(l.src[l.off:], strings.Repeat(string(quote), 3)) {
			l.advance()
			l.advance()
			l.advance()
			break
		}
		r := l.advance()
		if !triple && r == '"' {
			break
		}
		if r == '#' && l.off < len(l.src) && l.peekRune(0) == '{' {
			code.depth = 1
			b.WriteRune(r)
			b.WriteRune(l.advance())
			continue
		}
		if triple && r == '\\' && l.off < len(l.src) && l.peekRune(0) == '\'' {
			b.WriteRune(l.advance())
			continue
		}
		if r != '\\' {
			b.WriteRune(r)
			continue
		}
		if l.off >= len(l.src) {
			continue
		}
		e := l.advance()
		if v, ok := simpleEscapes[e]; ok {
			b.WriteRune(v)
			continue
		}
		digits := hexEscapes[e]
		if digits == 0 {
			l.sink.Errorf(escPos, "unknown escape sequence '\\%c' in string", e)
			continue
		}
		hexStart := l.off
		for i := 0; i < digits && l.off < len(l.src); i++ {
			if !strings.ContainsRune("0123456789abcdefABCDEF", l.peekRune(0)) {
				break
			}
			l.advance()
		}
		v, err := strconv.ParseUint(l.src[hexStart:l.off], 16, 32)
		if l.off-hexStart != digits || err != nil || !utf8.ValidRune(rune(v)) {
			l.sink.Errorf(escPos, "malformed escape sequence '\\%c%s': expected %d hex digits", e, l.src[hexStart:l.off], digits)
			continue
		}
		b.WriteRune(rune(v))
	}
	text := b.String()
	if triple {
		text = dedent(text)
	}
	l.emit(tokString, text, pos, off)
}

// dedent is the text of a triple-quoted string as Morloc reads it: without
// its first line when that is blank, nor its last when that is blank, and
// without the leading spaces all its non-blank lines share.
func dedent(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	lines := strings.Split(s, "\n")
	if strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if n := len(lines); n > 0 && strings.TrimSpace(lines[n-1]) == "" {
		lines = lines[:n-1]
	}
	common := -1
	for _, line := range lines {
		if strings.TrimSpace(line) == "" {
			continue
		}
		n := len(line) - len(strings.TrimLeft(line, " "))
		if common < 0 || n < common {
			common = n
		}
	}
	for i, line := range lines {
		if len(line) >= common && common > 0 {
			lines[i] = line[common:]
		} else if strings.TrimSpace(line) == "" {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}
