package check

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Generic signatures: a lower-case type name is a type variable (types.Var),
// quantified over its signature, and `(a -> b)` is a function type. Since
// definitions are inlined, every use of a generic function is checked at
// the types its arguments have there: instantiate finds the types its
// variables stand for at one use, from the arguments and the type
// expected of the result, and the manifest gets a concrete copy of a
// generic sourced function per instance (instanceOf).

// isTypeVar reports whether a written type name is a type variable.
func isTypeVar(name string) bool {
	for _, r := range name {
		return unicode.IsLower(r)
	}
	return false
}

// subst is t with the variables bound in m replaced.
func subst(t *types.Type, m map[string]*types.Type) *types.Type {
	if t == nil || len(m) == 0 {
		return t
	}
	if t.Applied != nil && !ground(t) {
		return substNominal(t, m)
	}
	switch t.Kind {
	case types.Var:
		if len(t.Items) > 0 {
			return substApplied(t, m)
		}
		if r, ok := m[t.Name]; ok && r != t {
			if r.Kind == types.Var && r.Name == t.Name {
				return r
			}
			// The binding may mention other bound variables (unify's
			// chains), but not, through them, this one again: an
			// instance's own `a` in a class's `a` := [(a, b)] is
			// another variable, and following it would never end.
			return subst(r, without(m, t.Name))
		}
	case types.List, types.Optional:
		return &types.Type{Kind: t.Kind, Elem: subst(t.Elem, m)}
	case types.Handle:
		return types.HandleOf(t.Name, subst(t.Elem, m))
	case types.Map:
		return types.MapOf(subst(t.Key, m), subst(t.Elem, m))
	case types.Tuple, types.Func:
		items := make([]*types.Type, len(t.Items))
		for i, it := range t.Items {
			items[i] = subst(it, m)
		}
		out := &types.Type{Kind: t.Kind, Items: items}
		if t.Kind == types.Func {
			out.Elem = subst(t.Elem, m)
		}
		return out
	}
	return t
}

// without is m without the binding of name (m itself when it has none).
func without(m map[string]*types.Type, name string) map[string]*types.Type {
	if _, ok := m[name]; !ok {
		return m
	}
	out := make(map[string]*types.Type, len(m)-1)
	for k, t := range m {
		if k != name {
			out[k] = t
		}
	}
	return out
}

// ground reports whether t holds no type variable.
func ground(t *types.Type) bool {
	if t == nil {
		return true
	}
	if t.Applied != nil {
		return groundAll(t.Applied.Items)
	}
	switch t.Kind {
	case types.Var:
		return false
	case types.Con:
		return groundAll(t.Items)
	case types.List, types.Optional, types.Handle:
		return ground(t.Elem)
	case types.Map:
		return ground(t.Key) && ground(t.Elem)
	case types.Tuple, types.Func:
		for _, it := range t.Items {
			if !ground(it) {
				return false
			}
		}
		return ground(t.Elem)
	}
	return true
}

// generic reports whether a signature has a type variable or takes a
// function.
func generic(params []*types.Type, result *types.Type) bool {
	for _, p := range params {
		if !ground(p) || p.Kind == types.Func {
			return true
		}
	}
	return !ground(result)
}

// match binds the variables of pattern so that it is have, in m, and
// reports whether it could. A variable bound to Int may be rebound to
// Real (an Int literal before a Real one: `max 1 2.5`); the values
// bound earlier are checked against the final binding afterwards. An
// Optional pattern takes a plain value (T where ?T is expected).
func match(pattern, have *types.Type, m map[string]*types.Type) bool {
	if pattern == nil || have == nil {
		return pattern == have
	}
	if pattern.Kind == types.Var && len(pattern.Items) > 0 {
		return matchApplied(pattern, have, m)
	}
	if pattern.Applied != nil && have.Applied != nil && !ground(pattern) {
		return matchCons(pattern.Applied, have.Applied, m)
	}
	if pattern.Kind == types.Var {
		prev, ok := m[pattern.Name]
		switch {
		case !ok:
			m[pattern.Name] = have
			return true
		case types.Equal(prev, have):
			return true
		case prev.Kind == types.Int && have.Kind == types.Real:
			m[pattern.Name] = have
			return true
		case prev.Kind == types.Real && have.Kind == types.Int:
			return true
		case prev.Kind == types.Optional && types.Equal(prev.Elem, have):
			// A T where ?T was expected.
			return true
		}
		return false
	}
	if pattern.Kind == types.Optional && have.Kind != types.Optional {
		return match(pattern.Elem, have, m)
	}
	if pattern.Kind != have.Kind {
		return false
	}
	switch pattern.Kind {
	case types.List, types.Optional:
		return match(pattern.Elem, have.Elem, m)
	case types.Handle:
		return pattern.Name == have.Name && match(pattern.Elem, have.Elem, m)
	case types.Map:
		return match(pattern.Key, have.Key, m) && match(pattern.Elem, have.Elem, m)
	case types.Tuple, types.Func:
		if len(pattern.Items) != len(have.Items) {
			return false
		}
		for i := range pattern.Items {
			if !match(pattern.Items[i], have.Items[i], m) {
				return false
			}
		}
		if pattern.Kind == types.Func {
			return match(pattern.Elem, have.Elem, m)
		}
		return true
	case types.Record:
		return pattern.Name == have.Name
	case types.Con:
		return matchCons(pattern, have, m)
	}
	return true
}

// lowering says what instantiate makes of an argument that is a function.
type lowering int

const (
	// byNameFns leaves it unevaluated, for a definition's body to apply.
	byNameFns lowering = iota
	// lambdaFns makes it a manifest Lambda, for a builtin.
	lambdaFns
)

// instance is a generic function's use: its arguments, elaborated (a
// function argument lowered as asked), and its types there.
type instance struct {
	args   []arg // val set, except function arguments left by name
	params []*types.Type
	result *types.Type
}

// instantiate elaborates args against the generic params of name and
// finds the types its variables stand for: arguments whose expected type
// is known are checked against it, others are inferred and matched;
// function arguments wait until the types of their parameters are known
// (from the other arguments), and their results then bind more
// variables. want, the type expected of the result, settles variables
// the arguments leave open (`mempty`, `read s`).
func (c *checker) instantiate(name string, params []*types.Type, result *types.Type, args []arg, pos diag.Pos, want *types.Type, lower lowering) *instance {
	m := map[string]*types.Type{}
	if want != nil && !ground(result) && len(args) == len(params) {
		// The type expected of the result says what its variables are
		// first (`twice (\y -> y * 2) 3` where a Real is expected is
		// about Reals); an argument of another type is an error then.
		tried := map[string]*types.Type{}
		if match(result, want, tried) {
			m = tried
		}
	}
	out := &instance{args: make([]arg, len(args))}
	done := make([]bool, len(args))
	left := len(args)
	usedWant := false
	for left > 0 {
		progress := false
		for i, a := range args {
			if done[i] {
				continue
			}
			p := subst(params[i], m)
			if p.Kind == types.Func {
				if lower == byNameFns {
					out.args[i] = a
					done[i], left, progress = true, left-1, true
					continue
				}
				if !groundAll(p.Items) {
					continue
				}
				lam := c.lambdaOf(a, p, m)
				if lam == nil {
					return nil
				}
				out.args[i] = arg{val: lam, pos: a.pos}
				done[i], left, progress = true, left-1, true
				continue
			}
			var v value
			if ground(p) && (ground(params[i]) || c.needsContext(a)) {
				v = c.force(a, p)
			} else {
				var lacked bool
				v, lacked = c.withoutContext(func() value { return c.force(a, nil) })
				switch {
				case lacked && !ground(p):
					// A later argument or the result may tell its type.
					continue
				case lacked:
					v = c.force(a, p)
				case c.openBinding(v):
					if !ground(p) {
						continue
					}
					v = c.conform(v, p, a.pos)
				default:
					if e, ok := v.(*manifest.Expr); ok && !match(params[i], e.Type, m) {
						c.sink.Errorf(a.pos, "argument %d of %s: expected %s, got %s", i+1, name, subst(p, m), e.Type)
						return nil
					}
				}
			}
			if v == nil {
				return nil
			}
			if f, ok := v.(fnValue); ok {
				c.sink.Errorf(a.pos, "argument %d of %s: expected %s, got %s", i+1, name, p, f.missing())
				return nil
			}
			out.args[i] = arg{val: v, pos: a.pos}
			done[i], left, progress = true, left-1, true
		}
		if progress {
			continue
		}
		if want != nil && !usedWant && !ground(subst(result, m)) {
			usedWant = true
			if match(subst(result, m), want, m) {
				continue
			}
		}
		// Stuck: a function argument's own type may tell what the others
		// leave open (`fold (<>) mempty xs`).
		learnt := false
		for i, a := range args {
			if p := subst(params[i], m); !done[i] && p.Kind == types.Func && lower != byNameFns {
				if unifyScheme(p, c.force(a, nil), m, i) {
					learnt = true
				}
			}
		}
		if learnt {
			continue
		}
		for i := range args {
			if !done[i] && subst(params[i], m).Kind != types.Func {
				// An argument that cannot tell its type says why.
				if v := c.force(args[i], nil); v == nil {
					return nil
				}
			}
		}
		for i := range args {
			if !done[i] {
				c.needType(args[i].pos, "cannot tell the types of the arguments of the function given to %s (%s); give it a signature or an argument of a known type", name, subst(params[i], m))
				return nil
			}
		}
	}
	out.result = subst(result, m)
	if !ground(out.result) && want != nil && match(out.result, want, m) {
		out.result = subst(result, m)
	}
	if !ground(out.result) && lower != byNameFns {
		c.needType(pos, "cannot tell what type %s returns here (%s); write the type expected, as in `(%s ... :: T)` or a signature", name, out.result, name)
		return nil
	}
	out.params = make([]*types.Type, len(params))
	for i, p := range params {
		out.params[i] = subst(p, m)
		v := out.args[i].val
		if e, ok := v.(*manifest.Expr); ok && e.Kind != manifest.Lambda && ground(out.params[i]) {
			// An Int literal bound a variable later found to be Real.
			if v = c.conform(e, out.params[i], out.args[i].pos); v == nil {
				return nil
			}
			out.args[i].val = v
		}
	}
	return out
}

// needsContext reports whether a's type cannot be inferred without the
// type expected of it: Null, an empty list, a lambda, a builtin value
// such as mempty or emptyMap, an intrinsic. Other arguments of a
// generic parameter are inferred first and then matched, so that the
// argument that tells a variable's type is not the first one alone
// (`max 1 x` with a Real x is a max of Reals).
func (c *checker) needsContext(a arg) bool {
	if a.val != nil {
		return false
	}
	e := a.expr
	if app, ok := e.(*syntax.App); ok {
		e = app.Fun
	}
	switch e := e.(type) {
	case *syntax.NullLit, *syntax.Lambda, *syntax.Intrinsic:
		return true
	case *syntax.ListLit:
		return len(e.Elems) == 0
	case *syntax.Var:
		local := false
		if a.sc != nil {
			_, local = a.sc.vars[e.Name]
		}
		b := c.builtins[e.Name]
		return !local && b != nil && len(b.sig.params) == 0
	}
	return false
}

func groundAll(ts []*types.Type) bool {
	for _, t := range ts {
		if !ground(t) {
			return false
		}
	}
	return true
}

// lambdaOf lowers a, a function argument whose parameter types ft.Items
// are known, to a manifest Lambda: its body is the function applied to
// new variables. The body's type binds the variables of ft's result in m.
func (c *checker) lambdaOf(a arg, ft *types.Type, m map[string]*types.Type) *manifest.Expr {
	f := c.force(a, nil)
	if f == nil {
		return nil
	}
	fv, ok := f.(fnValue)
	if !ok {
		c.sink.Errorf(a.pos, "expected a function %s, got a value of type %s", ft, f.(*manifest.Expr).Type)
		return nil
	}
	base := c.slots
	vars := make([]arg, len(ft.Items))
	for i, t := range ft.Items {
		vars[i] = arg{val: &manifest.Expr{Kind: manifest.Var, Type: t, Ref: base + i}, pos: a.pos}
	}
	c.slots += len(vars)
	var want *types.Type
	if r := subst(ft.Elem, m); ground(r) {
		want = r
	}
	body := fv.apply(c, vars, a.pos, want)
	c.slots = base
	if body == nil {
		return nil
	}
	e, ok := body.(*manifest.Expr)
	if !ok {
		c.sink.Errorf(a.pos, "the function given here takes more arguments than the %d of %s: %s", len(ft.Items), ft, body.(fnValue).missing())
		return nil
	}
	if !match(ft.Elem, e.Type, m) {
		c.sink.Errorf(a.pos, "the function given here returns %s, where %s is expected", e.Type, subst(ft.Elem, m))
		return nil
	}
	return &manifest.Expr{Kind: manifest.Lambda, Type: types.FuncOf(e.Type, ft.Items...), Ref: base, Args: []*manifest.Expr{e}}
}

// fnRefOf is lam as a reference to a function of pool lang, when lam's
// body is one call of such a function whose arguments are lam's own, each
// at most once and in any order, or values that do not depend on them:
// what a pool function that takes a function can be given. Otherwise nil.
func fnRefOf(lam *manifest.Expr, lang string, fns []*function) *manifest.Expr {
	body := lam.Args[0]
	if body.Kind != manifest.Call || fns[body.Ref].lang != lang {
		return nil
	}
	base, n := lam.Ref, len(lam.Type.Items)
	args := make([]*manifest.Expr, len(body.Args))
	used := make([]bool, n)
	for i, a := range body.Args {
		if a.Kind == manifest.Var && a.Ref >= base {
			k := a.Ref - base
			if used[k] {
				return nil
			}
			used[k] = true
			args[i] = &manifest.Expr{Kind: manifest.Param, Type: a.Type, Ref: k}
			continue
		}
		if refersFrom(a, base) {
			return nil
		}
		args[i] = a
	}
	for _, u := range used {
		if !u {
			return nil
		}
	}
	return &manifest.Expr{Kind: manifest.FnRef, Type: lam.Type, Ref: body.Ref, Args: args}
}

// refersFrom reports whether e uses a variable numbered base or more that
// it does not bind itself.
func refersFrom(e *manifest.Expr, base int) bool {
	switch e.Kind {
	case manifest.Var:
		return e.Ref >= base
	case manifest.Let:
		return refersFrom(e.Args[0], base) || (len(e.Args) > 1 && refersFromBelow(e.Args[1], base, e.Ref))
	case manifest.Lambda:
		return refersFromBelow(e.Args[0], base, e.Ref)
	}
	for _, a := range e.Args {
		if a != nil && refersFrom(a, base) {
			return true
		}
	}
	return false
}

// refersFromBelow is refersFrom for the body of a binder whose own
// variables start at own (at or after base): those are not free.
func refersFromBelow(e *manifest.Expr, base, own int) bool {
	if own < base {
		return refersFrom(e, base)
	}
	var free bool
	var walk func(e *manifest.Expr)
	walk = func(e *manifest.Expr) {
		if e == nil || free {
			return
		}
		if e.Kind == manifest.Var && e.Ref >= base && e.Ref < own {
			free = true
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	walk(e)
	return free
}

// instanceOf is the sourced function f at the types of one use: f itself
// when its signature is concrete, else a copy with the concrete types,
// one per distinct instance, so the manifest has one function per
// instance, each with the types its pool converts.
func (c *checker) instanceOf(f *function, params []*types.Type, result *types.Type) *function {
	if !generic(f.sig.params, f.sig.result) {
		return f
	}
	var key strings.Builder
	// The language too: every pool's prelude has the same path and names.
	fmt.Fprintf(&key, "%s|%s|%s|%s", f.lang, f.path, f.source, f.name)
	for _, p := range params {
		fmt.Fprintf(&key, "|%s", p)
	}
	fmt.Fprintf(&key, "|%s", result)
	if g := c.instances[key.String()]; g != nil {
		return g
	}
	g := *f
	g.sig = &signature{decl: f.sig.decl, params: params, result: result, ok: true, tool: f.sig.tool}
	g.index = len(c.funcList)
	c.funcList = append(c.funcList, &g)
	if c.instances == nil {
		c.instances = map[string]*function{}
	}
	c.instances[key.String()] = &g
	return &g
}

// resolveFuncType resolves `(a -> b)`.
func (c *checker) resolveFuncType(t *syntax.FuncType, path []string) *types.Type {
	params := make([]*types.Type, len(t.Params))
	for i, p := range t.Params {
		if params[i] = c.resolveType(p, path); params[i] == nil {
			return nil
		}
	}
	r := c.resolveType(t.Result, path)
	if r == nil {
		return nil
	}
	return types.FuncOf(r, params...)
}

// callGeneric calls a sourced function whose signature has type variables
// or takes a function, at the types of this use. A function argument
// must be a function of the same pool (possibly given some arguments, or
// a lambda calling one): the pool calls it itself.
func (s *sourcedFn) callGeneric(c *checker, all []arg, want *types.Type) value {
	pos := s.f.pos
	if len(all) > 0 {
		pos = all[0].pos
	}
	in := c.instantiate(s.f.name, s.f.sig.params, s.f.sig.result, all, pos, want, lambdaFns)
	if in == nil || !c.checkConstraints(s.f.name, s.f.sig, in, all[0].pos) {
		return nil
	}
	exprs := make([]*manifest.Expr, len(all))
	for i, a := range in.args {
		e := a.val.(*manifest.Expr)
		if e.Kind == manifest.Lambda {
			ref := fnRefOf(e, s.f.lang, c.funcList)
			if ref == nil {
				c.sink.Errorf(a.pos, "argument %d of %s must be a %s function (or one given some of its arguments), since %s runs in the %s pool and calls it there", i+1, s.f.name, langName(s.f.lang), s.f.name, langName(s.f.lang))
				return nil
			}
			e = ref
		}
		exprs[i] = e
	}
	if !c.declaredForPool(s.f, in, all) {
		return nil
	}
	g := c.instanceOf(s.f, in.params, in.result)
	return &manifest.Expr{Kind: manifest.Call, Type: in.result, Ref: g.index, Args: exprs}
}

// langName is a pool language as a program writes it.
func langName(lang string) string {
	for name, l := range langs {
		if l == lang {
			return name
		}
	}
	return lang
}

// sigString writes a resolved signature's type.
func sigString(sig *signature) string {
	return types.FuncOf(sig.result, sig.params...).String()
}
