package check

import (
	"fmt"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// signatures resolves every signature and attaches it to its function.
func (c *checker) signatures() {
	for _, s := range c.file.Signatures {
		name := s.Name.Name
		if prev := c.sigs[name]; prev != nil {
			c.sink.Errorf(s.Name.Pos, "'%s' has two type signatures (first at %s)", name, prev.decl.Name.Pos)
			continue
		}
		c.sigs[name] = c.resolveSignature(s)
	}
	for _, f := range c.funcList {
		sig := c.sigs[f.name]
		if sig == nil {
			c.sink.Errorf(f.pos, "%s", missingSignature(f))
			continue
		}
		f.sig = sig
		if sig.ok && f.infix && !c.checkInfixArity(f, sig) {
			sig.ok = false
		}
		if sig.ok && c.handleParams(sig, "'"+f.name+"', a sourced function,", true) {
			sig.ok = false
		}
		if sig.ok && poolPrelude[f.lang] == nil {
			for i, p := range sig.params {
				if p.Kind == types.Func {
					c.sink.Errorf(sig.decl.Params[i].Type.TypePos(), "%s takes a function (%s): only Python, C++ and Go functions can take functions, and %s is an MCP tool", f.name, p, f.name)
					sig.ok = false
				}
			}
		}
		if f.lang == manifest.MCP {
			sig.tool = true
			if sig.ok {
				c.toolParams(f)
			}
		}
	}
}

// resolveSignature resolves the types of s; ok is false when one does
// not resolve (reported).
func (c *checker) resolveSignature(s *syntax.Signature) *signature {
	sig := &signature{decl: s, ok: c.checkKinds(s)}
	for _, p := range s.Params {
		t := c.resolveType(p.Type, nil)
		sig.ok = sig.ok && t != nil
		sig.params = append(sig.params, t)
	}
	sig.result = c.resolveType(s.Result.Type, nil)
	sig.ok = sig.ok && sig.result != nil
	return sig
}

// definitions declares every definition and matches it with its
// signature.
func (c *checker) definitions() {
	for _, d := range c.file.Defs {
		name := d.Name.Name
		if c.reserved(name, d.Name.Pos) {
			continue
		}
		if prev := c.defs[name]; prev != nil {
			c.alternativeDefinition(prev, d)
			continue
		}
		if f := c.funcs[name]; f != nil {
			// A definition beside a source of the name is an alternative
			// implementation, as in Morloc; nexus calls the source. An
			// MCP server's tool has none.
			if f.lang == manifest.MCP {
				c.sink.Errorf(d.Name.Pos, "'%s' is both an MCP tool (at %s) and defined here", name, f.pos)
			}
			continue
		}
		def := &definition{decl: d, sig: c.sigs[name]}
		c.defs[name] = def
		seen := map[string]bool{}
		for _, p := range d.Params {
			if p.Name != "_" && seen[p.Name] {
				c.sink.Errorf(p.Pos, "parameter '%s' appears twice in the definition of %s", p.Name, name)
			}
			seen[p.Name] = true
		}
		if def.sig != nil && len(d.Params) > len(def.sig.params) {
			c.sink.Errorf(d.Params[len(def.sig.params)].Pos, "%s has %d parameter%s, but its signature gives %d argument%s",
				name, len(d.Params), plural(len(d.Params)), len(def.sig.params), plural(len(def.sig.params)))
			def.broken = true
		}
	}
	for _, s := range c.file.Signatures {
		name := s.Name.Name
		if c.funcs[name] == nil && c.defs[name] == nil {
			c.sink.Errorf(s.Name.Pos, "'%s' has a signature but is neither sourced nor defined", name)
		}
	}
}

// checkDefinitions resolves the names in every definition, rejects
// cycles, and checks each definition that has a signature on its own, so
// that errors in a definition no command uses are found too.
func (c *checker) checkDefinitions() {
	edges := map[string][]syntax.Name{}
	for _, d := range c.file.Defs {
		def := c.defs[d.Name.Name]
		if def == nil || def.decl != d {
			continue
		}
		params := map[string]bool{}
		for _, p := range d.Params {
			params[p.Name] = true
		}
		check := func(v *syntax.Var, local map[string]bool) {
			switch {
			case local[v.Name]:
			case c.defs[v.Name] != nil:
				edges[d.Name.Name] = append(edges[d.Name.Name], syntax.Name{Pos: v.Pos, Name: v.Name})
			case c.funcs[v.Name] != nil, c.builtins[v.Name] != nil, c.method(v.Name) != nil:
			default:
				names := c.namesInScope(nil)
				for p := range local {
					names = append(names, p)
				}
				c.sink.Errorf(v.Pos, "unknown name '%s'%s", v.Name, suggest.Hint(v.Name, names))
			}
		}
		inScope := map[string]bool{}
		for p := range params {
			inScope[p] = true
		}
		for _, b := range d.Where {
			inScope[b.Name.Name] = true
		}
		walkVars(d.Body, func(v *syntax.Var) { check(v, inScope) })
		c.checkWhere(d, params, inScope, check)
	}
	c.findCycles(edges)
	c.alone = true
	defer func() { c.alone = false }()
	c.checkInstances()
	for _, d := range c.file.Defs {
		def := c.defs[d.Name.Name]
		if def == nil || def.decl != d || def.broken || def.sig == nil || !def.sig.ok {
			continue
		}
		if generic(def.sig.params, def.sig.result) {
			// Checked at the types of each use, where it is inlined.
			continue
		}
		if def.recursive {
			c.recDef(def)
			continue
		}
		args := make([]arg, len(def.sig.params))
		for i, t := range def.sig.params {
			args[i] = arg{val: &manifest.Expr{Kind: manifest.Var, Type: t, Ref: i}, pos: d.Name.Pos}
		}
		c.startBudget(len(def.sig.params))
		v := (&defFn{d: def}).expand(c, args, d.Name.Pos, def.sig.result)
		c.conform(v, def.sig.result, d.Body.ExprPos())
	}
}

// findCycles reports each cycle of definitions once and marks its members
// broken: definitions are inlined, so none may refer to itself.
func (c *checker) findCycles(edges map[string][]syntax.Name) {
	const (
		unvisited = iota
		onStack
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(name string)
	visit = func(name string) {
		state[name] = onStack
		stack = append(stack, name)
		for _, ref := range edges[name] {
			switch state[ref.Name] {
			case unvisited:
				visit(ref.Name)
			case onStack:
				start := len(stack) - 1
				for stack[start] != ref.Name {
					start--
				}
				cycle := append(append([]string(nil), stack[start:]...), ref.Name)
				c.recursion(stack[start:], cycle, ref.Pos)
			}
		}
		stack = stack[:len(stack)-1]
		state[name] = done
	}
	for _, d := range c.file.Defs {
		if state[d.Name.Name] == unvisited && c.defs[d.Name.Name] != nil {
			visit(d.Name.Name)
		}
	}
}

// walkVars calls fn on every variable in e.
func walkVars(e syntax.Expr, fn func(*syntax.Var)) {
	switch e := e.(type) {
	case *syntax.Var:
		fn(e)
	case *syntax.App:
		walkVars(e.Fun, fn)
		for _, a := range e.Args {
			walkVars(a, fn)
		}
	case *syntax.ListLit:
		for _, x := range e.Elems {
			walkVars(x, fn)
		}
	case *syntax.TupleLit:
		for _, x := range e.Items {
			walkVars(x, fn)
		}
	case *syntax.RecordLit:
		for _, f := range e.Fields {
			walkVars(f.Value, fn)
		}
	case *syntax.Infix:
		for _, x := range e.Operands {
			walkVars(x, fn)
		}
	case *syntax.Negate:
		walkVars(e.Expr, fn)
	case *syntax.Lambda:
		params := map[string]bool{}
		for _, p := range e.Params {
			params[p.Name] = true
		}
		walkVars(e.Body, func(v *syntax.Var) {
			if !params[v.Name] {
				fn(v)
			}
		})
	case *syntax.Do:
		bound := map[string]bool{}
		inner := func(v *syntax.Var) {
			if !bound[v.Name] {
				fn(v)
			}
		}
		for _, st := range e.Stmts {
			for _, b := range st.Let {
				walkVars(b.Value, inner)
				bound[b.Name.Name] = true
			}
			if st.Expr != nil {
				walkVars(st.Expr, inner)
			}
			if st.Bind != nil {
				bound[st.Bind.Name] = true
			}
		}
	case *syntax.Let:
		// A binding's name is local to the bindings after it and the body.
		bound := map[string]bool{}
		inner := func(v *syntax.Var) {
			if !bound[v.Name] {
				fn(v)
			}
		}
		for _, b := range e.Bindings {
			walkVars(b.Value, inner)
			bound[b.Name.Name] = true
		}
		if e.Body != nil {
			walkVars(e.Body, inner)
		}
	case *syntax.Guard:
		for _, b := range e.Branches {
			walkVars(b.Cond, fn)
			walkVars(b.Value, fn)
		}
		walkVars(e.Default, fn)
	case *syntax.Section:
		if e.Left != nil {
			walkVars(e.Left, fn)
		}
		if e.Right != nil {
			walkVars(e.Right, fn)
		}
	case *syntax.Throw:
		walkVars(e.Message, fn)
	case *syntax.Ascription:
		walkVars(e.Expr, fn)
	}
}

// alternativeDefinition handles a second definition d of a name defined
// at prev. Morloc takes several definitions of a name as alternatives
// and chooses one; nexus uses the first, and says so. Two literal values
// that differ (`foo = 1` and `foo = 2`) are an error, as Morloc's value
// checker makes them.
func (c *checker) alternativeDefinition(prev *definition, d *syntax.Def) {
	name := d.Name.Name
	a, b := literalText(prev.decl.Body), literalText(d.Body)
	if a != "" && b != "" && a != b && len(prev.decl.Params) == 0 && len(d.Params) == 0 {
		c.sink.Errorf(d.Name.Pos, "'%s' is defined twice with different values, %s (at %s) and %s", name, a, prev.decl.Name.Pos, b)
		return
	}
	c.sink.Warnf(d.Name.Pos, "'%s' is defined twice (first at %s): Morloc takes the definitions as alternatives; nexus uses the first", name, prev.decl.Name.Pos)
}

// literalText is a literal body as written, or "".
func literalText(e syntax.Expr) string {
	switch e := e.(type) {
	case *syntax.IntLit:
		return fmt.Sprint(e.Value)
	case *syntax.RealLit:
		return fmt.Sprint(e.Value)
	case *syntax.StrLit:
		return fmt.Sprintf("%q", e.Value)
	case *syntax.BoolLit:
		return fmt.Sprint(e.Value)
	}
	return ""
}
