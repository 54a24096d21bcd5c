package syntax

import (
	"fmt"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

// Irrefutable patterns (Morloc's parameters, lambda parameters, let and
// do bindings): a tuple `(a, b)`, a record `{x = a, y = _}`, an as-pattern
// `v@(a, b)`, nested. Morloc makes them projections, and so does the
// parser: the value gets a name of its own (the as-pattern's, or a fresh
// one no program can write), and each name in the pattern is bound to a
// getter applied to it (`a = .0 v`). Lists cannot be destructured.

// startsPattern reports whether the next token starts a pattern other
// than a plain name or `_`.
func (p *parser) startsPattern() bool {
	t := p.peek()
	return t.kind == tokLParen || t.kind == tokLBrace || (t.kind == tokIdent && !keywords[t.Text] && p.isAt(1))
}

// isAt reports whether the token k ahead is an '@' touching both its
// neighbours (`v@(a, b)`).
func (p *parser) isAt(k int) bool {
	t := p.peekAt(k)
	return t.Text == "@" && t.Offset == p.peekAt(k-1).End && p.peekAt(k+1).Offset == t.End
}

// param reads a parameter, a name or `_` or a pattern, of a definition
// or a lambda; ok is false, and nothing read, when the next token starts
// none. binds are the pattern's names bound to projections of n.
func (p *parser) param() (n Name, binds []LetBinding, ok bool) {
	t := p.peek()
	switch {
	case t.kind == tokUnderscore:
		p.next()
		return Name{Pos: t.Pos, Name: "_"}, nil, true
	case p.startsPattern():
		n, binds = p.pattern()
		return n, binds, !p.failed
	case t.kind == tokIdent && !keywords[t.Text]:
		p.next()
		return Name{Pos: t.Pos, Name: t.Text}, nil, true
	}
	return Name{}, nil, false
}

// pattern reads a pattern whose value is named n (an as-pattern's name,
// or a fresh one); binds bind the names inside it.
func (p *parser) pattern() (n Name, binds []LetBinding) {
	t := p.peek()
	if t.kind == tokIdent && p.isAt(1) {
		p.next()
		p.next() // @
		n = Name{Pos: t.Pos, Name: t.Text}
	} else {
		// A name of the pattern's place, which no program can write.
		n = Name{Pos: t.Pos, Name: fmt.Sprintf("_pat%d_%d", t.Pos.Line, t.Pos.Col)}
	}
	binds = p.subPattern(&Var{Pos: n.Pos, Name: n.Name}, binds)
	return n, binds
}

// subPattern reads a pattern for the value of target, adding its bindings
// to binds.
func (p *parser) subPattern(target Expr, binds []LetBinding) []LetBinding {
	t := p.peek()
	switch {
	case t.kind == tokUnderscore:
		p.next()
	case t.kind == tokIdent && !keywords[t.Text] && p.isAt(1):
		n, inner := p.pattern()
		binds = append(binds, LetBinding{Name: n, Value: target})
		binds = append(binds, inner...)
	case t.kind == tokIdent && !keywords[t.Text]:
		p.next()
		binds = append(binds, LetBinding{Name: Name{Pos: t.Pos, Name: t.Text}, Value: target})
	case t.kind == tokLParen:
		p.next()
		saved := p.stopCol
		p.stopCol = 0
		binds = p.parenPattern(target, binds)
		p.stopCol = saved
		p.expect(tokRParen, "',' or ')' closing the tuple pattern")
	case t.kind == tokLBrace:
		p.next()
		saved := p.stopCol
		p.stopCol = 0
		for !p.failed {
			f := p.name("a field name in the record pattern")
			p.expect(tokEquals, "'=' and a pattern after the field name")
			binds = p.subPattern(&App{Pos: f.Pos, Fun: &Getter{Pos: f.Pos, Field: f.Name}, Args: []Expr{target}}, binds)
			if p.peek().kind != tokComma {
				break
			}
			p.next()
		}
		p.stopCol = saved
		p.expect(tokRBrace, "',' or '}' closing the record pattern")
	case t.kind == tokLBracket:
		p.errorf(t.Pos, "a list cannot be destructured by a pattern; use .[i] or the prelude's uncons")
	default:
		p.errorf(t.Pos, "expected a pattern (a name, '_', a tuple or a record), got %s", t.describe())
	}
	return binds
}

// patternDefs are binds as where bindings of a definition.
func patternDefs(binds []LetBinding) []*Def {
	defs := make([]*Def, len(binds))
	for i, b := range binds {
		defs[i] = &Def{Pos: b.Name.Pos, Name: b.Name, Body: b.Value}
	}
	return defs
}

// bindPattern wraps body in a let of binds, if there are any.
func bindPattern(pos diag.Pos, binds []LetBinding, body Expr) Expr {
	if len(binds) == 0 {
		return body
	}
	return &Let{Pos: pos, Bindings: binds, Body: body}
}
