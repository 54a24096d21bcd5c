package check

import (
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// A definition's `where` bindings are local definitions: each sees the
// definition's parameters and every other binding (order does not
// matter), and, like every definition, is inlined where it is used, so
// bindings may not refer to each other in a cycle. A binding with
// parameters is a local function; one with a signature is checked
// against it.

// whereScope is sc, a definition's parameters, with d's where bindings.
func (c *checker) whereScope(d *syntax.Def, sc *scope) *scope {
	if len(d.Where) == 0 {
		return sc
	}
	ws := sc.extend(len(d.Where))
	sigs := map[string]*syntax.Signature{}
	for _, s := range d.WhereSigs {
		sigs[s.Name.Name] = s
	}
	for _, b := range d.Where {
		lf := &localFn{def: b, sc: ws}
		if s := sigs[b.Name.Name]; s != nil {
			lf.params, lf.result = c.resolveSig(s)
			lf.typed = lf.result != nil
		}
		if len(b.Params) == 0 && !lf.typed {
			ws.vars[b.Name.Name] = arg{expr: b.Body, sc: ws, pos: b.Name.Pos}
			continue
		}
		if len(b.Params) == 0 {
			ws.vars[b.Name.Name] = arg{expr: &ascribed{e: b.Body, t: lf.result}, sc: ws, pos: b.Name.Pos}
			continue
		}
		ws.vars[b.Name.Name] = arg{val: lf, pos: b.Name.Pos}
	}
	return ws
}

// resolveSig resolves the types of a where binding's signature; nil
// result when one does not resolve (reported).
func (c *checker) resolveSig(s *syntax.Signature) ([]*types.Type, *types.Type) {
	params := make([]*types.Type, len(s.Params))
	for i, p := range s.Params {
		if params[i] = c.resolveType(p.Type, nil); params[i] == nil {
			return nil, nil
		}
	}
	return params, c.resolveType(s.Result.Type, nil)
}

// ascribed is e checked against t (a where binding's signature), an
// expression of the checker's own.
type ascribed struct {
	e syntax.Expr
	t *types.Type
}

func (a *ascribed) ExprPos() diag.Pos { return a.e.ExprPos() }

// localFn is a where binding with parameters, given some arguments.
type localFn struct {
	def    *syntax.Def
	sc     *scope
	given  []arg
	typed  bool // a signature gives params and result
	params []*types.Type
	result *types.Type
}

func (f *localFn) missing() string {
	n := len(f.def.Params)
	return fmt.Sprintf("'%s' given %d of its %d argument%s", f.def.Name.Name, len(f.given), n, plural(n))
}

func (f *localFn) apply(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
	all := append(append([]arg(nil), f.given...), args...)
	n := len(f.def.Params)
	if len(all) < n {
		g := *f
		g.given = all
		return &g
	}
	sc := f.sc.extend(n)
	for i, p := range f.def.Params {
		a := all[i]
		if f.typed && i < len(f.params) {
			a = arg{val: c.force(a, f.params[i]), pos: a.pos}
			if a.val == nil {
				return nil
			}
		}
		if p.Name != "_" {
			sc.vars[p.Name] = a
		}
	}
	extra := all[n:]
	bodyWant := want
	if f.typed {
		bodyWant = f.result
	}
	if len(extra) > 0 {
		bodyWant = nil
	}
	v := c.elab(f.def.Body, c.whereScope(f.def, sc), bodyWant)
	if len(extra) > 0 {
		v = c.applyValue(v, extra, pos, want)
	}
	return v
}

// checkWhere checks d's where clause: no binding twice, none shadowing
// one of d's params, no cycle among them; names is given each name a
// binding's body uses with the names visible there (visible, d's, and the
// bindings'), for the caller's own check.
func (c *checker) checkWhere(d *syntax.Def, params, visible map[string]bool, names func(v *syntax.Var, local map[string]bool)) {
	if len(d.Where) == 0 {
		return
	}
	bound := map[string]*syntax.Def{}
	for _, b := range d.Where {
		switch {
		case params[b.Name.Name] && bound[b.Name.Name] == nil:
			c.sink.Errorf(b.Name.Pos, "where-clause binding '%s' shadows a parameter of '%s'", b.Name.Name, d.Name.Name)
		case bound[b.Name.Name] != nil:
			c.sink.Errorf(b.Name.Pos, "duplicate binding '%s' in the where-clause of '%s' (first at %s)", b.Name.Name, d.Name.Name, bound[b.Name.Name].Name.Pos)
		}
		bound[b.Name.Name] = b
	}
	for _, s := range d.WhereSigs {
		if bound[s.Name.Name] == nil {
			c.sink.Errorf(s.Name.Pos, "signature of '%s' in a where-clause without its definition", s.Name.Name)
		}
	}
	scope := map[string]bool{}
	for n := range visible {
		scope[n] = true
	}
	for n := range bound {
		scope[n] = true
	}
	edges := map[string][]string{}
	for _, b := range d.Where {
		inner := map[string]bool{}
		for n := range scope {
			inner[n] = true
		}
		for _, p := range b.Params {
			inner[p.Name] = true
		}
		for _, w := range b.Where {
			inner[w.Name.Name] = true
		}
		walkVars(b.Body, func(v *syntax.Var) {
			if bound[v.Name] != nil && !paramOf(b, v.Name) {
				edges[b.Name.Name] = append(edges[b.Name.Name], v.Name)
			}
			names(v, inner)
		})
		own := map[string]bool{}
		for _, p := range b.Params {
			own[p.Name] = true
		}
		c.checkWhere(b, own, inner, names)
	}
	// A cycle among the bindings: inlining would never end.
	state := map[string]int{}
	var visit func(n string, path []string) bool
	visit = func(n string, path []string) bool {
		switch state[n] {
		case 1:
			cycle := append(path, n)
			for i, m := range cycle {
				if m == n {
					cycle = cycle[i:]
					break
				}
			}
			c.sink.Errorf(bound[n].Name.Pos, "where-clause bindings in a cycle, %s: they are inlined, so they cannot be recursive", strings.Join(cycle, " -> "))
			return true
		case 2:
			return false
		}
		state[n] = 1
		for _, m := range edges[n] {
			if visit(m, append(path, n)) {
				return true
			}
		}
		state[n] = 2
		return false
	}
	for _, b := range d.Where {
		if visit(b.Name.Name, nil) {
			break
		}
	}
}

func paramOf(d *syntax.Def, name string) bool {
	for _, p := range d.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// let elaborates `let a = e1 ... in body`. Each binding's value is
// computed once, before the body, in order: it takes a variable slot of
// its own (manifest Let), so that a call in it runs once however often
// the name is used. A literal needs no slot: it is used as written, so
// that `let k = 2 in x * k` reads 2 as a Real beside a Real x.
func (c *checker) let(l *syntax.Let, sc *scope, want *types.Type) value {
	// The slots taken here are free again once the body is elaborated,
	// or a binding failed.
	base := c.slots
	defer func() { c.slots = base }()
	inner := sc
	var values []*manifest.Expr
	for i, b := range l.Bindings {
		v := c.valueOf(c.boundValue(l, i, inner, want), b.Value.ExprPos())
		if v == nil {
			return nil
		}
		e := v.(*manifest.Expr)
		if e.Kind == manifest.Lit {
			inner = inner.with(b.Name.Name, arg{expr: b.Value, sc: inner, pos: b.Name.Pos})
		} else {
			inner = inner.with(b.Name.Name, arg{val: &manifest.Expr{Kind: manifest.Var, Type: e.Type, Ref: c.slots}, pos: b.Name.Pos})
			c.slots++
			values = append(values, e)
		}
	}
	if l.Body == nil {
		return nil
	}
	body := c.elab(l.Body, inner, want)
	out, ok := body.(*manifest.Expr)
	if !ok || out == nil {
		if len(values) > 0 && body != nil {
			c.sink.Errorf(l.Pos, "a 'let' whose value is a function is not supported yet")
			return nil
		}
		return body
	}
	for i := len(values) - 1; i >= 0; i-- {
		out = &manifest.Expr{Kind: manifest.Let, Type: out.Type, Args: []*manifest.Expr{values[i], out}}
	}
	return out
}

// lambda is `\x y -> body`: a local function of the scope it is written
// in.
func (c *checker) lambda(l *syntax.Lambda, sc *scope) value {
	return &localFn{def: &syntax.Def{Pos: l.Pos, Name: syntax.Name{Pos: l.Pos, Name: "lambda"}, Params: l.Params, Body: l.Body}, sc: sc}
}

// byName is `let` bindings of a do block, which bind without running:
// each name stands for its expression, evaluated where it is used (the
// checker's own expression).
type byName struct {
	pos      diag.Pos
	bindings []syntax.LetBinding
	body     syntax.Expr
}

func (b *byName) ExprPos() diag.Pos { return b.pos }

// doBlock elaborates a do block as a chain of lets: `x <- e` and a bare
// statement before the last are computed once, in order (the bare one's
// value dropped); `let` statements bind without running; the last
// statement is the block's value.
func (c *checker) doBlock(d *syntax.Do, sc *scope, want *types.Type) value {
	if len(d.Stmts) == 0 {
		c.sink.Errorf(d.Pos, "an empty 'do' block")
		return nil
	}
	last := d.Stmts[len(d.Stmts)-1]
	if last.Bind != nil || last.Let != nil {
		c.sink.Errorf(d.Pos, "a 'do' block ends with an expression, its value; this one ends with a binding")
		return nil
	}
	e := last.Expr
	for i := len(d.Stmts) - 2; i >= 0; i-- {
		st := d.Stmts[i]
		switch {
		case st.Let != nil:
			e = &byName{pos: d.Pos, bindings: st.Let, body: e}
		case st.Bind != nil:
			e = &syntax.Let{Pos: st.Bind.Pos, Bindings: []syntax.LetBinding{{Name: *st.Bind, Value: st.Expr}}, Body: e}
		default:
			// Run for its effects: bound to a name no program can write.
			e = &syntax.Let{Pos: st.Expr.ExprPos(), Bindings: []syntax.LetBinding{{Name: syntax.Name{Pos: st.Expr.ExprPos(), Name: fmt.Sprintf(" statement %d", i)}, Value: st.Expr}}, Body: e}
		}
	}
	return c.elab(e, sc, want)
}

// named elaborates byName bindings.
func (c *checker) named(b *byName, sc *scope, want *types.Type) value {
	inner := sc
	for _, bd := range b.bindings {
		inner = inner.with(bd.Name.Name, arg{expr: bd.Value, sc: inner, pos: bd.Name.Pos})
	}
	return c.elab(b.body, inner, want)
}

// null is `Null` against want, which must be optional (or Json).
func (c *checker) null(n *syntax.NullLit, want *types.Type) value {
	if want == nil {
		c.needType(n.Pos, "Null stands for an optional value (?T), not an unknown type")
		return nil
	}
	if want.Kind != types.Optional && want.Kind != types.JSON {
		c.sink.Errorf(n.Pos, "Null stands for an optional value (?T), not %s", want)
		return nil
	}
	return &manifest.Expr{Kind: manifest.Lit, Type: want, Value: []byte("null")}
}
