package check

import (
	"fmt"

	"github.com/nexus-run/nexus/manifest/types"
)

// Schemes: the generic type of a function value before it is applied,
// which instantiate uses when a generic function's arguments leave a
// variable open that only a function argument can tell. In `fold (<>)
// mempty people`, `people` says the elements are Persons, and (<>) being
// `x -> x -> x` then says the accumulator is one too, which `mempty`
// needs to know.

// schemed is a function value whose generic type is known.
type schemed interface {
	scheme() (params []*types.Type, result *types.Type, ok bool)
}

func (f *opFn) scheme() ([]*types.Type, *types.Type, bool) {
	if f.left != nil || f.right != nil {
		return nil, nil, false
	}
	x := &types.Type{Kind: types.Var, Name: "x"}
	switch f.op.Name {
	case "<>", "+", "-", "*", "/", "//", "%", "**":
		return []*types.Type{x, x}, x, true
	case "==", "!=", "<", "<=", ">", ">=":
		return []*types.Type{x, x}, types.BoolType, true
	case "&&", "||":
		return []*types.Type{types.BoolType, types.BoolType}, types.BoolType, true
	}
	return nil, nil, false
}

func (b *builtinFn) scheme() ([]*types.Type, *types.Type, bool) {
	return b.sig.params[len(b.given):], b.sig.result, len(b.given) == 0
}

func (s *sourcedFn) scheme() ([]*types.Type, *types.Type, bool) {
	return s.f.sig.params, s.f.sig.result, len(s.given) == 0
}

func (f *defFn) scheme() ([]*types.Type, *types.Type, bool) {
	if f.d.sig == nil || !f.d.sig.ok || len(f.given) > 0 {
		return nil, nil, false
	}
	return f.d.sig.params, f.d.sig.result, true
}

// unifyScheme binds the variables of ft, a function parameter's type, in
// m by unifying it with the scheme of the function value v, whose own
// variables are renamed apart first (n numbers the renaming); it reports
// whether it learnt anything.
func unifyScheme(ft *types.Type, v value, m map[string]*types.Type, n int) bool {
	s, ok := v.(schemed)
	if !ok {
		return false
	}
	params, result, ok := s.scheme()
	if !ok || len(params) != len(ft.Items) {
		return false
	}
	rename := map[string]*types.Type{}
	fresh := func(t *types.Type) *types.Type { return freshVars(t, rename, n) }
	trial := make(map[string]*types.Type, len(m))
	for k, t := range m {
		trial[k] = t
	}
	for i, p := range params {
		if !unify(ft.Items[i], fresh(p), trial) {
			return false
		}
	}
	if !unify(ft.Elem, fresh(result), trial) {
		return false
	}
	learnt := false
	for k, t := range trial {
		if _, had := m[k]; !had {
			learnt = true
		}
		m[k] = t
	}
	return learnt
}

// freshVars is t with its variables renamed apart ("x" becomes "x'n").
func freshVars(t *types.Type, rename map[string]*types.Type, n int) *types.Type {
	if t == nil {
		return nil
	}
	switch t.Kind {
	case types.Var:
		r, ok := rename[t.Name]
		if !ok {
			r = &types.Type{Kind: types.Var, Name: fmt.Sprintf("%s'%d", t.Name, n)}
			rename[t.Name] = r
		}
		if len(t.Items) == 0 {
			return r
		}
		// An applied variable, `f a`: its head renamed, its arguments too.
		items := make([]*types.Type, len(t.Items))
		for i, it := range t.Items {
			items[i] = freshVars(it, rename, n)
		}
		return &types.Type{Kind: types.Var, Name: r.Name, Items: items}
	case types.List, types.Optional:
		return &types.Type{Kind: t.Kind, Elem: freshVars(t.Elem, rename, n)}
	case types.Map:
		return types.MapOf(freshVars(t.Key, rename, n), freshVars(t.Elem, rename, n))
	case types.Tuple, types.Func:
		items := make([]*types.Type, len(t.Items))
		for i, it := range t.Items {
			items[i] = freshVars(it, rename, n)
		}
		return &types.Type{Kind: t.Kind, Items: items, Elem: freshVars(t.Elem, rename, n)}
	}
	return t
}

// unify makes a and b the same type by binding the variables of either
// in m, and reports whether it could.
func unify(a, b *types.Type, m map[string]*types.Type) bool {
	a, b = resolve(a, m), resolve(b, m)
	switch {
	case a == nil || b == nil:
		return a == b
	case a.Kind == types.Var && b.Kind == types.Var && a.Name == b.Name:
		return true
	case a.Kind == types.Var:
		m[a.Name] = b
		return true
	case b.Kind == types.Var:
		m[b.Name] = a
		return true
	case a.Kind != b.Kind:
		return false
	}
	switch a.Kind {
	case types.List, types.Optional:
		return unify(a.Elem, b.Elem, m)
	case types.Map:
		return unify(a.Key, b.Key, m) && unify(a.Elem, b.Elem, m)
	case types.Tuple, types.Func:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !unify(a.Items[i], b.Items[i], m) {
				return false
			}
		}
		return a.Kind == types.Tuple || unify(a.Elem, b.Elem, m)
	}
	return types.Equal(a, b)
}

// resolve follows t's binding in m while it is a bound variable.
func resolve(t *types.Type, m map[string]*types.Type) *types.Type {
	for i := 0; t != nil && t.Kind == types.Var && i < 100; i++ {
		r, ok := m[t.Name]
		if !ok || r == t {
			break
		}
		t = r
	}
	return t
}
