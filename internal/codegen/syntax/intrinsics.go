package syntax

import "github.com/nexus-run/nexus/internal/codegen/diag"

// Intrinsic is `@name` other than @throw (`@show`, `@load`, ...): a
// built-in function, applied like any other (`@show x` is an App).
type Intrinsic struct {
	Pos  diag.Pos
	Name string
}

// Ascription is `e :: T` (in parentheses, or ending a definition's body
// or a do statement): e checked against T. Type.Effects is the effect
// row written before the type (`<Err> Int`), if any.
type Ascription struct {
	Pos  diag.Pos // of the '::'
	Expr Expr
	Type *SigType
}

func (e *Intrinsic) ExprPos() diag.Pos  { return e.Pos }
func (e *Ascription) ExprPos() diag.Pos { return e.Expr.ExprPos() }

// intrinsic reads `@name` after its token was taken.
func (p *parser) intrinsic(t token) Expr {
	if t.Text == "" {
		p.errorf(t.Pos, "expected an intrinsic name after '@', such as @show or @load")
	}
	return &Intrinsic{Pos: t.Pos, Name: t.Text}
}

// ascription reads `:: <effects> T` after e, when it follows; else e.
func (p *parser) ascription(e Expr) Expr {
	t := p.peek()
	if p.failed || t.kind != tokDoubleColon || t.First && t.Pos.Col <= p.stopCol {
		return e
	}
	p.next()
	st := &SigType{Effects: p.effects(), Type: p.typ()}
	if p.peek().kind == tokArrow {
		p.errorf(p.peek().Pos, "a type ascription takes a value's type; function types are not supported in one")
	}
	return &Ascription{Pos: t.Pos, Expr: e, Type: st}
}
