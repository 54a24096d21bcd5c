package check

import (
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Recursive definitions (`fib n = ? n < 2 = n : fib (n - 1) + fib (n -
// 2)`) cannot be inlined, which would never end: a cycle of definitions,
// each with a signature of concrete types, becomes manifest Defs that the
// nexus calls (manifest.Apply), the rest of the program still inlined
// into them and around them. A guard evaluates only the branch taken, so
// a recursion with a base case ends; one without fails at a depth bound.

// recursion handles a cycle of definitions, members (cycle is the path
// written out, first name again last): recursive when each has a
// concrete signature, else an error naming one without.
func (c *checker) recursion(members, cycle []string, pos diag.Pos) {
	for _, n := range members {
		d := c.defs[n]
		if d.sig == nil || !d.sig.ok || generic(d.sig.params, d.sig.result) {
			for _, m := range members {
				c.defs[m].broken = true
			}
			why := "has no signature"
			if d.sig != nil {
				why = "has a generic signature"
			}
			c.sink.Errorf(pos, "definition cycle %s: recursive definitions need a signature of concrete types each, and %s %s", strings.Join(cycle, " -> "), n, why)
			return
		}
	}
	for _, n := range members {
		c.defs[n].recursive = true
	}
}

// recFn is a recursive definition given some of its arguments.
type recFn struct {
	d     *definition
	given []arg
}

func (f *recFn) missing() string {
	n := len(f.d.sig.params)
	return fmt.Sprintf("'%s' given %d of its %d argument%s", f.d.decl.Name.Name, len(f.given), n, plural(n))
}

func (f *recFn) apply(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
	all := append(append([]arg(nil), f.given...), args...)
	n := len(f.d.sig.params)
	switch {
	case len(all) < n:
		return &recFn{d: f.d, given: all}
	case len(all) > n:
		c.sink.Errorf(pos, "'%s' takes %d argument%s, but is given %d", f.d.decl.Name.Name, n, plural(n), len(all))
		return nil
	}
	return f.call(c, all, pos)
}

// call is the Apply of the definition to exactly its arguments.
func (f *recFn) call(c *checker, all []arg, pos diag.Pos) value {
	exprs := make([]*manifest.Expr, len(all))
	for i, a := range all {
		v := c.force(a, f.d.sig.params[i])
		if v == nil {
			return nil
		}
		exprs[i] = v.(*manifest.Expr)
	}
	return &manifest.Expr{Kind: manifest.Apply, Type: f.d.sig.result, Ref: c.recDef(f.d), Args: exprs}
}

// recDef is the index in c.recDefs of d's manifest.Def, made (its body
// elaborated, with a budget of its own) the first time it is asked for.
func (c *checker) recDef(d *definition) int {
	if d.compiled {
		return d.rec
	}
	d.compiled, d.rec = true, len(c.recDefs)
	def := &manifest.Def{Name: d.decl.Name.Name, Params: d.sig.params, Return: d.sig.result}
	c.recDefs = append(c.recDefs, def)
	steps, nesting, exhausted, slots := c.steps, c.nesting, c.exhausted, c.slots
	defer func() { c.steps, c.nesting, c.exhausted, c.slots = steps, nesting, exhausted, slots }()
	c.startBudget(len(d.sig.params))
	args := make([]arg, len(d.sig.params))
	for i, t := range d.sig.params {
		args[i] = arg{val: &manifest.Expr{Kind: manifest.Var, Type: t, Ref: i}, pos: d.decl.Name.Pos}
	}
	v := (&defFn{d: d}).expand(c, args, d.decl.Name.Pos, d.sig.result)
	if e, ok := c.conform(v, d.sig.result, d.decl.Body.ExprPos()).(*manifest.Expr); ok {
		def.Body = e
	}
	return d.rec
}
