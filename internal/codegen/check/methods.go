package check

import (
	"fmt"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// methodFn is a class method given some of its arguments.
type methodFn struct {
	name  string
	class *class
	given []arg
}

// method is name as a class method in scope, or nil: a method of one of
// the program's classes, or of a prelude class the program has an
// instance of (without one, the prelude's builtin serves every use).
func (c *checker) method(name string) *methodFn {
	cl := c.classes.methods[name]
	if cl == nil || cl.prelude && len(cl.instances) == 0 || !cl.methods[name].ok {
		return nil
	}
	if cl.prelude && (c.funcs[name] != nil || c.defs[name] != nil && !c.preludeDefs[name]) {
		return nil // the program's own name hides the prelude's
	}
	return &methodFn{name: name, class: cl}
}

// methodValue is the method used as a value: applied at once when it
// takes no arguments (`mempty`), else waiting for them.
func (m *methodFn) methodValue(c *checker, pos diag.Pos, want *types.Type) value {
	if len(m.class.methods[m.name].params) == 0 {
		return m.call(c, nil, pos, want)
	}
	return m
}

func (m *methodFn) missing() string {
	n := len(m.class.methods[m.name].params)
	return fmt.Sprintf("method '%s' given %d of its %d argument%s", m.name, len(m.given), n, plural(n))
}

func (m *methodFn) apply(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
	all := append(append([]arg(nil), m.given...), args...)
	n := len(m.class.methods[m.name].params)
	if len(all) < n {
		return &methodFn{name: m.name, class: m.class, given: all}
	}
	v := m.call(c, all[:n], pos, want)
	if len(all) > n {
		return c.applyValue(v, all[n:], pos, want)
	}
	return v
}

// call resolves the instance at the types of this use and applies its
// method to exactly the method's arguments.
func (m *methodFn) call(c *checker, all []arg, pos diag.Pos, want *types.Type) value {
	sig := m.class.methods[m.name]
	in := c.instantiate(m.name, sig.params, sig.result, all, pos, want, byNameFns)
	if in == nil || !c.settleResult(sig, in) {
		return nil
	}
	bind := map[string]*types.Type{}
	for i, p := range sig.params {
		match(p, in.params[i], bind)
	}
	match(sig.result, in.result, bind)
	ts := make([]*types.Type, len(m.class.params))
	for i, p := range m.class.params {
		ts[i] = bind[p]
		if ts[i] == nil {
			c.needType(pos, "cannot tell which instance of %s '%s' is used here; write the type expected, as in `(%s :: T)`", m.class.decl.Name.Name, m.name, m.name)
			return nil
		}
		if !ground(ts[i]) && c.alone {
			// A generic definition checked on its own: each use of it
			// resolves the instance at its own types.
			return &manifest.Expr{Kind: manifest.Op, Op: m.name, Type: in.result}
		}
		if !ground(ts[i]) {
			c.needType(pos, "cannot tell which instance of %s '%s' is used here (%s); write the type expected, as in `(%s :: T)`", m.class.decl.Name.Name, m.name, headString(m.class, ts[i:i+1]), m.name)
			return nil
		}
	}
	inst, other := c.findInstance(m.class, ts)
	if other != nil {
		c.sink.Errorf(pos, "ambiguous use of '%s' at %s: instances %s (at %s) and %s (at %s) both apply and neither is more specific",
			m.name, headString(m.class, ts), headString(m.class, inst.types), inst.pos, headString(m.class, other.types), other.pos)
		return nil
	}
	if inst != nil {
		if d := inst.defs[m.name]; d != nil {
			v := (&defFn{d: &definition{decl: d}}).expand(c, in.args, pos, in.result)
			return c.conform(v, in.result, pos)
		}
		if fs := inst.sourced[m.name]; len(fs) > 0 {
			return (&sourcedFn{f: fs[0]}).call(c, in.args, in.result)
		}
	}
	if c.builtinInstance(m.class, ts) {
		return c.builtinMethod(m.name, in.args, pos, want)
	}
	if inst != nil {
		c.sink.Errorf(pos, "instance %s (at %s) does not define '%s', used here", headString(m.class, inst.types), inst.pos, m.name)
		return nil
	}
	c.sink.Errorf(pos, "no instance %s for '%s' here; declare one, as in `instance %s where ...`", headString(m.class, ts), m.name, headString(m.class, ts))
	return nil
}

// builtinMethod applies the prelude's builtin of a method (an operator
// or a named builtin) to arguments elaborated already.
func (c *checker) builtinMethod(name string, args []arg, pos diag.Pos, want *types.Type) value {
	if b := c.builtins[name]; b != nil {
		return c.applyValue(b.methodValue(c, pos, want), args, pos, want)
	}
	if len(args) == 2 {
		return c.standardOp(syntax.Name{Pos: pos, Name: name}, args[0], args[1], want)
	}
	c.sink.Errorf(pos, "'%s' has no builtin for these types", name)
	return nil
}

// methodValue is the builtin as a value: called at once when it takes no
// arguments.
func (b *builtinFn) methodValue(c *checker, pos diag.Pos, want *types.Type) value {
	if len(b.sig.params) == 0 {
		return b.call(c, nil, pos, want)
	}
	return b
}

// applyOp applies operator op to its operands l and r: as a class
// method when it is one in scope (the program has an instance of Eq,
// Ord, Semigroup, ...), else as the standard operator.
func (c *checker) applyOp(op syntax.Name, l, r arg, want *types.Type) value {
	if m := c.method(op.Name); m != nil {
		return m.apply(c, []arg{l, r}, op.Pos, want)
	}
	if c.hidesStandard(op.Name) {
		return c.applyUserOp(op, l, r, want)
	}
	return c.standardOp(op, l, r, want)
}

// checkConstraints checks the class constraints of a generic signature
// at the types of one use (in): each must have an instance there. A
// constraint whose types are not all known (a definition checked on its
// own, or a higher-kinded class such as Foldable) is left to the uses.
func (c *checker) checkConstraints(name string, sig *signature, in *instance, pos diag.Pos) bool {
	if sig.decl == nil || len(sig.decl.Constraints) == 0 {
		return true
	}
	bind := map[string]*types.Type{}
	for i, p := range sig.params {
		match(p, in.params[i], bind)
	}
	match(sig.result, in.result, bind)
	for _, ct := range sig.decl.Constraints {
		nt, isNamed := ct.(*syntax.NamedType)
		if !isNamed || len(nt.Args) == 0 {
			continue
		}
		cl := c.classes.classes[nt.Name]
		if cl == nil || len(nt.Args) != len(cl.params) {
			continue // reported with the signature
		}
		ts := make([]*types.Type, len(nt.Args))
		known := true
		for i, a := range nt.Args {
			rt := c.resolveType(a, nil)
			if rt == nil {
				return false
			}
			ts[i] = subst(rt, bind)
			known = known && ground(ts[i])
		}
		if !known {
			continue
		}
		if inst, _ := c.findInstance(cl, ts); inst == nil && !c.builtinInstance(cl, ts) {
			c.sink.Errorf(pos, "'%s' needs an instance %s here (its signature says %s =>), and there is none", name, headString(cl, ts), headString(cl, argTypes(c, nt)))
			return false
		}
	}
	return true
}

// argTypes is a constraint's types as written, for a message.
func argTypes(c *checker, nt *syntax.NamedType) []*types.Type {
	out := make([]*types.Type, len(nt.Args))
	for i, a := range nt.Args {
		out[i] = c.resolveType(a, nil)
	}
	return out
}
