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
	sink *diag.Sink

	toks     []token
	lastLine int // line of the last token, to mark the first token of a line
}

func lex(src string, start diag.Pos, sink *diag.Sink) []token {
	l := &lexer{src: src, line: start.Line, col: start.Col, sink: sink, lastLine: -1}
	l.run()
	return l.toks
}

func (l *lexer) pos() diag.Pos { return diag.Pos{Line: l.line, Col: l.col} }

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
	if len(l.toks) == 0 {
		return false
	}
	t := l.toks[len(l.toks)-1]
	if t.End != l.off {
		return false
	}
	switch t.kind {
	case tokIdent, tokInt, tokReal, tokString, tokRParen, tokRBracket, tokRBrace, tokGetter:
		return true
	}
	return false
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
			text := l.src[off:l.off]
			if text == "_" {
				l.emit(tokUnderscore, text, pos, off)
			} else {
				l.emit(tokIdent, text, pos, off)
			}
		case isDigit(r) || (r == '-' && isDigit(l.peekRune(1)) && !l.prevEndsValueAdjacent()):
			l.number()
		case r == '"':
			l.str()
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

var twoCharPunct = map[string]kind{"::": tokDoubleColon, "->": tokArrow, "=>": tokFatArrow, "<-": tokBind}

var oneCharPunct = map[rune]kind{
	'=': tokEquals, '(': tokLParen, ')': tokRParen, '[': tokLBracket, ']': tokRBracket,
	'{': tokLBrace, '}': tokRBrace, ',': tokComma, '?': tokQuestion, '<': tokLess,
	'>': tokGreater, '.': tokDot, '*': tokStar, '-': tokMinus, ':': tokColon, '\\': tokBackslash,
}

// twoCharOps and oneCharOps are the operators that are tokOp; '<', '>',
// '*', '-' and '.' keep kinds of their own, being also punctuation.
var (
	twoCharOps = map[string]bool{"&&": true, "||": true, "==": true, "!=": true, "<=": true, ">=": true, "<>": true, "**": true, "//": true, "++": true}
	oneCharOps = map[rune]bool{'+': true, '/': true, '%': true, '$': true}
)

func (l *lexer) punct(r rune, pos diag.Pos, off int) {
	if l.off+2 <= len(l.src) && twoCharOps[l.src[l.off:l.off+2]] {
		l.advance()
		l.advance()
		l.emit(tokOp, l.src[off:l.off], pos, off)
		return
	}
	if oneCharOps[r] {
		l.advance()
		l.emit(tokOp, string(r), pos, off)
		return
	}
	if l.off+2 <= len(l.src) {
		if k, ok := twoCharPunct[l.src[l.off:l.off+2]]; ok {
			l.advance()
			l.advance()
			l.emit(k, l.src[off:l.off], pos, off)
			return
		}
	}
	l.advance()
	if k, ok := oneCharPunct[r]; ok {
		l.emit(k, string(r), pos, off)
		return
	}
	l.sink.Errorf(pos, "unexpected character %q", r)
	l.emit(tokInvalid, string(r), pos, off)
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
		l.advance()
		l.advance()
		l.advance()
		textPos := l.pos()
		for l.off < len(l.src) && l.peekRune(0) != '\n' {
			l.advance()
		}
		t := l.emit(tokDoc, strings.TrimRight(line[3:], " \t\r"), pos, off)
		t.TextPos = textPos
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
	l.advance()
	var b strings.Builder
	for {
		if l.off >= len(l.src) || l.peekRune(0) == '\n' {
			l.sink.Errorf(pos, "unterminated string: expected a closing '\"'")
			l.emit(tokInvalid, l.src[off:l.off], pos, off)
			return
		}
		escPos := l.pos()
		r := l.advance()
		if r == '"' {
			break
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
	l.emit(tokString, b.String(), pos, off)
}
