package syntax

import (
	"fmt"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

// Force is `!e` (digest 5.4): run e here. The parser never leaves one in
// a definition's body where it can hoist it: each becomes a `<-` bind of
// the nearest do block, in the order the forces are written (an inner
// one first, so `!!x` runs x and then its value), before the statement
// it is in; where there is no do block, one is made at the boundary.
// Boundaries: a definition's body, a lambda's, a guard's conditions and
// branches, an ascription, a `let`'s values and body, an operator
// section's operand. Since nexus runs every expression where it is
// evaluated, the bind is all `!` has to mean.
type Force struct {
	Pos  diag.Pos
	Expr Expr
}

func (e *Force) ExprPos() diag.Pos { return e.Pos }

// force reads `!` and the atom it forces.
func (p *parser) force() Expr {
	t := p.next()
	p.forces++
	if !p.startsAtom(p.peek()) && p.peek().kind != tokBang {
		p.errorf(p.peek().Pos, "expected an expression to run after '!', got %s", p.peek().describe())
		return &UnitLit{Pos: t.Pos}
	}
	return &Force{Pos: t.Pos, Expr: p.atom()}
}

// hoistForces rewrites body, a definition's, when the parser read a '!'
// in it.
func (p *parser) hoistForces(body Expr, before int) Expr {
	if p.forces == before || body == nil || p.failed {
		return body
	}
	h := &hoister{p: p}
	return h.boundary(body)
}

// hoister turns forces into do binds; n numbers the names it binds,
// which no program can write.
type hoister struct {
	p *parser
	n int
}

// boundary rewrites e, a place forces do not hoist out of: the forces in
// it become binds of a do block made around it.
func (h *hoister) boundary(e Expr) Expr {
	if e == nil {
		return nil
	}
	if d, ok := e.(*Do); ok {
		return h.do(d)
	}
	var binds []DoStmt
	e = h.expr(e, &binds)
	if len(binds) == 0 {
		return e
	}
	return &Do{Pos: e.ExprPos(), Stmts: append(binds, DoStmt{Expr: e})}
}

// expr rewrites e, appending the forces it hoists out of e to binds.
func (h *hoister) expr(e Expr, binds *[]DoStmt) Expr {
	switch e := e.(type) {
	case *Force:
		inner := h.expr(e.Expr, binds)
		h.n++
		name := Name{Pos: e.Pos, Name: fmt.Sprintf(" force %d", h.n)}
		*binds = append(*binds, DoStmt{Bind: &name, Expr: inner})
		return &Var{Pos: e.Pos, Name: name.Name}
	case *App:
		e.Fun = h.expr(e.Fun, binds)
		h.all(e.Args, binds)
	case *Infix:
		h.all(e.Operands, binds)
	case *Negate:
		e.Expr = h.expr(e.Expr, binds)
	case *ListLit:
		h.all(e.Elems, binds)
	case *TupleLit:
		h.all(e.Items, binds)
	case *RecordLit:
		for i := range e.Fields {
			e.Fields[i].Value = h.expr(e.Fields[i].Value, binds)
		}
	case *Throw:
		e.Message = h.expr(e.Message, binds)
	case *Do:
		return h.do(e)
	case *Lambda:
		e.Body = h.boundary(e.Body)
	case *Guard:
		for i := range e.Branches {
			e.Branches[i].Cond = h.boundary(e.Branches[i].Cond)
			e.Branches[i].Value = h.boundary(e.Branches[i].Value)
		}
		e.Default = h.boundary(e.Default)
	case *Let:
		for i := range e.Bindings {
			e.Bindings[i].Value = h.boundary(e.Bindings[i].Value)
		}
		e.Body = h.boundary(e.Body)
	case *Ascription:
		e.Expr = h.boundary(e.Expr)
	case *Section:
		e.Left = h.boundary(e.Left)
		e.Right = h.boundary(e.Right)
	}
	return e
}

func (h *hoister) all(es []Expr, binds *[]DoStmt) {
	for i := range es {
		es[i] = h.expr(es[i], binds)
	}
}

// do rewrites a do block: the forces of a statement become binds just
// before it.
func (h *hoister) do(d *Do) Expr {
	var out []DoStmt
	for _, st := range d.Stmts {
		if st.Let != nil {
			for _, b := range st.Let {
				var binds []DoStmt
				h.expr(b.Value, &binds)
				if len(binds) > 0 {
					h.p.errorf(firstWritten(binds), "a '!' in the 'let' of %s would run before the 'let'; bind it with '<-' on a line of its own first", b.Name.Name)
					return d
				}
			}
			out = append(out, st)
			continue
		}
		if f, ok := st.Expr.(*Force); ok {
			if st.Bind != nil {
				h.p.errorf(f.Pos, "a '!' on the right of '<-' is one run too many; '<-' runs it already: write %s <- ...", st.Bind.Name)
			} else {
				h.p.errorf(f.Pos, "a '!' as a statement of its own; the statement runs already: write it without the '!'")
			}
			return d
		}
		var binds []DoStmt
		st.Expr = h.expr(st.Expr, &binds)
		out = append(append(out, binds...), st)
	}
	d.Stmts = out
	return d
}

// firstWritten is the position of the force written first among binds
// (an inner force is bound before the one around it).
func firstWritten(binds []DoStmt) diag.Pos {
	first := binds[0].Bind.Pos
	for _, b := range binds[1:] {
		if p := b.Bind.Pos; p.Line < first.Line || p.Line == first.Line && p.Col < first.Col {
			first = p
		}
	}
	return first
}
