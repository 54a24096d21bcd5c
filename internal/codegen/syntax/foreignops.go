package syntax

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

// Foreign operators (Morloc's digest, 2.5): a source item may name an
// operator of the foreign language rather than a function, `(+)` (the
// program's + is the language's), `(+) as (<>)`, or any text between
// backticks, `` `and` as (&&) ``, which always needs an `as`. The pool
// applies the operator between the two arguments, `a + b`. Which
// operators a language has is the checker's to say (check/foreignops.go).

// backtick reads a backtick name at the cursor, `and`: the text up to
// the next backtick on the same line. Backtick names are legal only in
// source lists; Morloc has no backtick-infix application.
func (l *lexer) backtick(pos diag.Pos, off int) {
	l.advance()
	start := l.off
	for l.off < len(l.src) && l.peekRune(0) != '`' && l.peekRune(0) != '\n' {
		l.advance()
	}
	if l.off >= len(l.src) || l.peekRune(0) != '`' {
		l.sink.Errorf(pos, "unterminated backtick name: a foreign operator's text is written between backticks on one line, as in `and` as (&&)")
		l.emit(tokInvalid, l.src[off:l.off], pos, off)
		return
	}
	text := l.src[start:l.off]
	l.advance()
	l.emit(tokBacktick, text, pos, off)
}

// foreignOperator reads a source item that is a foreign operator into it,
// and reports whether it was one.
func (p *parser) foreignOperator(it *SourceItem) bool {
	t := p.peek()
	switch {
	case t.kind == tokBacktick:
		p.next()
		it.Name, it.Infix = StringLit{Pos: t.Pos, Value: t.Text}, true
		if strings.TrimSpace(t.Text) == "" {
			p.errorf(t.Pos, "an empty backtick name; write the foreign operator's text between the backticks, as in `and` as (&&)")
			return true
		}
		if !p.isWord("as") {
			p.errorf(t.Pos, "the backtick name `%s` needs 'as' and the program's operator: `%s` as (%s)", t.Text, t.Text, backtickAlias(t.Text))
			return true
		}
		p.next()
		it.Alias = p.sourceAlias()
		return true
	case p.opName(0):
		op := p.termName("an operator in parentheses")
		it.Name, it.Alias, it.Infix = StringLit{Pos: op.Pos, Value: op.Name}, op, true
		if p.isWord("as") {
			p.next()
			it.Alias = p.sourceAlias()
		}
		return true
	case t.kind == tokLParen:
		p.errorf(t.Pos, "expected an operator in parentheses, like (+), as a sourced foreign operator")
		return true
	}
	return false
}

// backtickAlias suggests the program's operator for a backtick name: the
// standard one of Python's `and` and `or`, else one to be named.
func backtickAlias(text string) string {
	switch strings.TrimSpace(text) {
	case "and":
		return "&&"
	case "or":
		return "||"
	}
	return "<op>"
}
