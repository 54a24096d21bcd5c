package syntax

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

// Operators are Morloc's: a maximal run of operator characters is one
// token, so a program may define `+.`, `<&>` or `|>` and use it infix.
// Some runs are punctuation rather than operators (reservedRuns), and
// '<', '>', '*', '-' and '.' alone keep token kinds of their own, being
// punctuation too, though they are still operators in an expression.

// isOpRune reports whether r is an operator character. '\' is not: it
// always starts a lambda.
func isOpRune(r rune) bool {
	switch r {
	case ':', '!', '$', '%', '&', '*', '+', '.', '/', '<', '=', '>', '?', '@', '^', '|', '-', '~', '#':
		return true
	}
	return false
}

// reservedRuns are the operator-character runs that are punctuation.
var reservedRuns = map[string]kind{
	"::": tokDoubleColon, "->": tokArrow, "=>": tokFatArrow, "<-": tokBind,
	"=": tokEquals, ":": tokColon, "?": tokQuestion,
	"<": tokLess, ">": tokGreater, ".": tokDot, "*": tokStar, "-": tokMinus,
}

// unsupportedRuns are reserved runs nexus has no use for: Morloc's
// reserved '|'.
var unsupportedRuns = map[string]string{
	"|": "unexpected '|': it is reserved, and no operator on its own; Morloc's refutable clauses (fib | 0 = 1) are not supported: write a guard (fib n ? n < 2 = 1 : ...)",
}

// operator reads a run of operator characters at the cursor. A run stops
// before a '-' that starts a negative number after punctuation (`=-1`,
// `.[1:-1]`, `.[::-1]`), and before a getter dot or an intrinsic '@'.
func (l *lexer) operator(pos diag.Pos, off int) {
	for l.off < len(l.src) && isOpRune(l.peekRune(0)) {
		r := l.peekRune(0)
		if l.off > off {
			run := l.src[off:l.off]
			if r == '-' && isDigit(l.peekRune(1)) && reservedRuns[run] != 0 {
				break
			}
			if r == '@' && isIdentStart(l.peekRune(1)) {
				break
			}
		}
		l.advance()
	}
	run := l.src[off:l.off]
	if strings.Trim(run, "!") == "" {
		// The force prefix, `!x`, or several, `!!x`.
		for i := range len(run) {
			bang := pos
			bang.Col += i
			l.emit(tokBang, "!", bang, off+i).End = off + i + 1
		}
		return
	}
	if k, ok := reservedRuns[run]; ok {
		l.emit(k, run, pos, off)
		return
	}
	if msg, ok := unsupportedRuns[run]; ok {
		l.sink.Errorf(pos, "%s", msg)
		l.emit(tokInvalid, run, pos, off)
		return
	}
	l.emit(tokOp, run, pos, off)
}

// isOpToken reports whether t is an operator, whatever its token kind.
func isOpToken(t token) bool {
	switch t.kind {
	case tokOp, tokMinus, tokLess, tokGreater, tokStar, tokDot:
		return true
	}
	return false
}

// opName reports whether the tokens n ahead are an operator in
// parentheses, `(+.)`: the name of an operator as a term.
func (p *parser) opName(n int) bool {
	return p.peekAt(n).kind == tokLParen && isOpToken(p.peekAt(n+1)) && p.peekAt(n+2).kind == tokRParen
}

// termName reads the name a signature, a definition or a source binds:
// a name, or an operator in parentheses, `(+.)`, whose Name is the
// operator.
func (p *parser) termName(what string) Name {
	if !p.opName(0) {
		return p.name(what)
	}
	p.next()
	t := p.next()
	p.next()
	return Name{Pos: t.Pos, Name: t.Text}
}

// infixDefinition reports a definition written infix, `x +. y = ...`,
// which Morloc does not accept, naming the prefix form; d is what was read
// so far (its name is the left operand).
func (p *parser) infixDefinition(d *Def) {
	t := p.peek()
	if !isOpToken(t) || len(d.Params) > 0 {
		return
	}
	right := p.peekAt(1)
	if right.kind != tokIdent {
		right.Text = "y"
	}
	p.errorf(t.Pos, "an operator is defined in prefix form: write (%s) %s %s = ..., not %s %s %s = ...", t.Text, d.Name.Name, right.Text, d.Name.Name, t.Text, right.Text)
}

// hole reports `_` in an expression at t: a hole (`filter (isBig _ 3)
// xs`, `zipWith (_, _)`), Morloc's older form of a lambda.
func (p *parser) hole(t token) {
	p.errorf(t.Pos, "%s", holeMessage)
}

// holeMessage is the error for a `_` in an expression.
const holeMessage = "'_' in an expression is a hole, Morloc's older form (removed in 0.82): write a lambda, \\x -> f x y, or a section, (+ 1); '_' stands only for an ignored parameter"
