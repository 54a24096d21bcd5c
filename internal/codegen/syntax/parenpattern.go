package syntax

import "github.com/nexus-run/nexus/internal/codegen/diag"

// parenPattern reads what follows the '(' of a pattern: a tuple `(a, b)`,
// or one pattern in parentheses, which is that pattern (Morloc writes a
// record pattern after `let` or before `<-` so, `let ({a = p}) = r`). The
// first item is read against a placeholder, replaced afterwards by the
// tuple's first item or by the whole value, once it is known which.
func (p *parser) parenPattern(target Expr, binds []LetBinding) []LetBinding {
	first := p.peek().Pos
	hole := &Var{Pos: first}
	at := len(binds)
	binds = p.subPattern(hole, binds)
	var value Expr = target
	if p.peek().kind == tokComma {
		value = tupleItem(first, 0, target)
	}
	for i := range binds[at:] {
		binds[at+i].Value = fill(binds[at+i].Value, hole, value)
	}
	for i := 1; !p.failed && p.peek().kind == tokComma; i++ {
		p.next()
		binds = p.subPattern(tupleItem(p.peek().Pos, i, target), binds)
	}
	return binds
}

// tupleItem is `.i target`.
func tupleItem(pos diag.Pos, i int, target Expr) Expr {
	return &App{Pos: pos, Fun: &Access{Pos: pos, Steps: []Step{{Pos: pos, Kind: StepItem, Index: i}}}, Args: []Expr{target}}
}

// fill replaces hole by value in e, a projection subPattern built: the
// hole itself or getters applied to it.
func fill(e Expr, hole *Var, value Expr) Expr {
	if e == Expr(hole) {
		return value
	}
	if app, ok := e.(*App); ok {
		for i, a := range app.Args {
			app.Args[i] = fill(a, hole, value)
		}
	}
	return e
}
