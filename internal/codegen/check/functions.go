package check

import (
	"fmt"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// sourcedFn is a sourced function given some of its arguments.
type sourcedFn struct {
	f     *function
	given []arg
}

func (s *sourcedFn) missing() string {
	n := len(s.f.sig.params)
	return fmt.Sprintf("'%s' given %d of its %d argument%s", s.f.name, len(s.given), n, plural(n))
}

func (s *sourcedFn) apply(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
	all := append(append([]arg(nil), s.given...), args...)
	n := len(s.f.sig.params)
	switch {
	case len(all) < n:
		return &sourcedFn{f: s.f, given: all}
	case len(all) > n:
		c.sink.Errorf(pos, "'%s' takes %d argument%s, but is given %d", s.f.name, n, plural(n), len(all))
		return nil
	}
	return s.call(c, all, want)
}

func (s *sourcedFn) call(c *checker, all []arg, want *types.Type) value {
	if generic(s.f.sig.params, s.f.sig.result) {
		return s.callGeneric(c, all, want)
	}
	exprs := make([]*manifest.Expr, len(all))
	ok := true
	for i, a := range all {
		v := c.force(a, s.f.sig.params[i])
		if v == nil {
			ok = false
			continue
		}
		exprs[i] = v.(*manifest.Expr)
	}
	if !ok {
		return nil
	}
	return &manifest.Expr{Kind: manifest.Call, Type: s.f.sig.result, Ref: s.f.index, Args: exprs}
}

// defFn is a definition given some of its arguments.
type defFn struct {
	d     *definition
	given []arg
}

// arity is how many arguments the definition takes: its signature's, or
// its parameters' without one.
func (f *defFn) arity() int {
	if f.d.sig != nil {
		return len(f.d.sig.params)
	}
	return len(f.d.decl.Params)
}

func (f *defFn) missing() string {
	n := f.arity()
	return fmt.Sprintf("'%s' given %d of its %d argument%s", f.d.decl.Name.Name, len(f.given), n, plural(n))
}

func (f *defFn) apply(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
	all := append(append([]arg(nil), f.given...), args...)
	k := f.arity()
	switch {
	case len(all) < k:
		return &defFn{d: f.d, given: all}
	case f.d.sig != nil && len(all) > k:
		c.sink.Errorf(pos, "'%s' takes %d argument%s, but is given %d", f.d.decl.Name.Name, k, plural(k), len(all))
		return nil
	}
	return f.expand(c, all, pos, want)
}

// expand inlines the definition applied to all (at least its arity).
// Arguments past the parameters (an eta-reduced definition such as
// `h = f . g`, or a definition returning a function) are applied to what
// the body gives.
func (f *defFn) expand(c *checker, all []arg, pos diag.Pos, want *types.Type) value {
	d := f.d
	sig := d.sig
	if sig != nil && generic(sig.params, sig.result) {
		in := c.instantiate(d.decl.Name.Name, sig.params, sig.result, all[:len(sig.params)], pos, want, byNameFns)
		if in == nil {
			return nil
		}
		if !c.checkConstraints(d.decl.Name.Name, sig, in, pos) {
			return nil
		}
		all = append(in.args, all[len(sig.params):]...)
		sig = &signature{params: in.params, result: in.result, ok: true}
		if !ground(in.result) {
			sig.result = want
		}
	} else if sig != nil {
		ok := true
		checked := make([]arg, len(all))
		for i, a := range all {
			v := c.force(a, sig.params[i])
			ok = ok && v != nil
			checked[i] = arg{val: v, pos: a.pos}
		}
		if !ok {
			return nil
		}
		all = checked
	}
	sc := &scope{vars: map[string]arg{}}
	params := d.decl.Params
	for i, p := range params {
		if p.Name != "_" {
			sc.vars[p.Name] = all[i]
		}
	}
	extra := all[len(params):]
	resultWant := want
	if sig != nil {
		resultWant = sig.result
	}
	var bodyWant *types.Type
	if len(extra) == 0 {
		bodyWant = resultWant
	}
	v := c.elab(d.decl.Body, c.whereScope(d.decl, sc), bodyWant)
	if len(extra) > 0 {
		v = c.applyValue(v, extra, pos, resultWant)
		v = c.conform(v, resultWant, pos)
	}
	return v
}

// getterFn is `.field`.
type getterFn struct {
	field string
	pos   diag.Pos
}

func (g *getterFn) missing() string {
	return fmt.Sprintf("the getter '.%s' without its record", g.field)
}

func (g *getterFn) apply(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
	v := c.force(args[0], nil)
	if v == nil {
		return nil
	}
	r, ok := v.(*manifest.Expr)
	if !ok {
		c.sink.Errorf(args[0].pos, "'.%s' needs a record, got %s", g.field, v.(fnValue).missing())
		return nil
	}
	if r.Type.Kind != types.Record {
		c.sink.Errorf(args[0].pos, "'.%s' needs a record, got %s", g.field, r.Type)
		return nil
	}
	get := c.getField(r, g.field, g.pos)
	if get == nil {
		return nil
	}
	return c.applyValue(get, args[1:], pos, want)
}

// composeFn is f . g . h.
type composeFn struct {
	fns []fnValue
}

func (f *composeFn) missing() string { return "a composition without its argument" }

func (f *composeFn) apply(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
	last := len(f.fns) - 1
	v := f.fns[last].apply(c, args[:1], pos, nil)
	for i := last - 1; i >= 0 && v != nil; i-- {
		next := []arg{{val: v, pos: pos}}
		var w *types.Type
		if i == 0 {
			next = append(next, args[1:]...)
			w = want
		}
		v = f.fns[i].apply(c, next, pos, w)
	}
	return v
}
