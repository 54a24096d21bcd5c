package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Typeclasses and instances. A class names methods whose signatures have
// the class's variables free; an instance gives them at some types, by
// Morloc definitions or by sourced functions. Since definitions are
// inlined, every use of a method is at concrete types: the method's
// signature is instantiated there (instantiate), the class variables'
// types pick the most specific instance, and the use becomes the
// instance's definition inlined or a call of its sourced function.
//
// The prelude's classes (Eq, Ord, Semigroup, Monoid, Show, Integral,
// Numeric, RealLike; prelude/root.loc) have the builtins as their
// instances for the built-in types: a use of `show` or `==` goes to a
// user instance when one matches its types, else to the builtin, as
// before. A prelude method with no user instance at all is left to the
// builtin path untouched.

// class is a resolved class declaration.
type class struct {
	decl    *syntax.Class
	params  []string
	methods map[string]*signature // the class variables free
	supers  []*syntax.NamedType
	prelude bool // declared by the prelude, with the builtins as instances
	// instances are the program's instances of the class, in the order
	// they are declared.
	instances []*classInstance
}

// classInstance is one head of an instance declaration.
type classInstance struct {
	class *class
	types []*types.Type // the head's types; a type variable matches any
	pos   diag.Pos
	decl  *syntax.Instance
	defs  map[string]*syntax.Def
	// sourced are the methods bound to sourced functions, by method
	// name, in the order of the languages in langOrder.
	sourced map[string][]*function
}

// classTable is what the checker knows of classes.
type classTable struct {
	classes map[string]*class
	methods map[string]*class // method name to its class
	// preludeDecls are the prelude's class declarations, added by
	// addPrelude before the program's are collected.
	preludeDecls []*syntax.Class
}

// langOrder is the order in which an instance's sourced methods are
// preferred when it has one in several languages: the first language
// that has the method wins (Python, then C++, then Go).
var langOrder = []string{manifest.Python, manifest.Cpp, manifest.Go}

// collectClasses resolves the prelude's and the program's classes, then
// the program's instances, and checks the classes named in signatures'
// constraints.
func (c *checker) collectClasses() {
	t := &c.classes
	t.classes, t.methods = map[string]*class{}, map[string]*class{}
	for _, d := range t.preludeDecls {
		c.declareClass(d, true)
	}
	for _, d := range c.file.Classes {
		c.declareClass(d, false)
	}
	for _, in := range c.file.Instances {
		c.declareInstance(in)
	}
	for _, cl := range c.classesInOrder() {
		c.checkSupers(cl)
	}
	for _, s := range c.file.Signatures {
		for _, ct := range s.Constraints {
			c.knownConstraint(ct)
		}
	}
}

// declareClass adds one class declaration.
func (c *checker) declareClass(d *syntax.Class, prelude bool) {
	t := &c.classes
	if prev := t.classes[d.Name.Name]; prev != nil {
		if prev.prelude && !prelude {
			c.sink.Errorf(d.Name.Pos, "class '%s' is the prelude's already; give yours another name", d.Name.Name)
		} else {
			c.sink.Errorf(d.Name.Pos, "class '%s' is declared twice (first at %s)", d.Name.Name, prev.decl.Name.Pos)
		}
		return
	}
	cl := &class{decl: d, methods: map[string]*signature{}, prelude: prelude}
	c.checkClassKinds(d)
	for _, p := range d.Params {
		cl.params = append(cl.params, p.Name)
	}
	for _, s := range d.Supers {
		if nt, ok := s.(*syntax.NamedType); ok {
			cl.supers = append(cl.supers, nt)
		}
	}
	for _, s := range d.Methods {
		name := s.Name.Name
		// A program's method hides a prelude class's of the same name
		// (Packable's pack), as its definitions hide the prelude's.
		if other := t.methods[name]; other != nil && !prelude && !other.prelude {
			c.sink.Errorf(s.Name.Pos, "method '%s' is already a method of class %s", name, other.decl.Name.Name)
			continue
		}
		if !prelude && (c.defs[name] != nil || c.funcs[name] != nil) {
			c.sink.Errorf(s.Name.Pos, "method '%s' of class %s is also defined or sourced in the program; a method is given in instances", name, d.Name.Name)
			continue
		}
		cl.methods[name] = c.resolveSignature(s)
		t.methods[name] = cl
	}
	t.classes[d.Name.Name] = cl
}

// classOf is the class named n, or nil after reporting it unknown.
func (c *checker) classOf(n string, pos diag.Pos) *class {
	if cl := c.classes.classes[n]; cl != nil {
		return cl
	}
	names := make([]string, 0, len(c.classes.classes))
	for k := range c.classes.classes {
		names = append(names, k)
	}
	hint := suggest.Hint(n, names)
	if hint == "" && len(c.standardImports()) == 0 {
		hint = " (the prelude's classes, such as Show and Eq, come with `import root`)"
	}
	c.sink.Errorf(pos, "unknown class '%s'%s", n, hint)
	return nil
}

// knownConstraint checks that a constraint names a known class with as
// many types as it has parameters (Morloc's bare `Ord =>` names the
// class alone).
func (c *checker) knownConstraint(ct syntax.Type) {
	nt, ok := ct.(*syntax.NamedType)
	if !ok {
		c.sink.Errorf(ct.TypePos(), "a constraint is a class applied to types, like `Eq a`")
		return
	}
	cl := c.classOf(nt.Name, nt.Pos)
	if cl != nil && len(nt.Args) != 0 && len(nt.Args) != len(cl.params) {
		c.sink.Errorf(nt.Pos, "class %s takes %d type%s, not %d", nt.Name, len(cl.params), plural(len(cl.params)), len(nt.Args))
	}
}

// declareInstance adds each head of an instance declaration.
func (c *checker) declareInstance(in *syntax.Instance) {
	defs := map[string]*syntax.Def{}
	var heads []*classInstance
	for _, h := range in.Heads {
		cl := c.classOf(h.Name, h.Pos)
		if cl == nil {
			continue
		}
		if len(h.Args) != len(cl.params) {
			c.sink.Errorf(h.Pos, "class %s takes %d type%s, but the instance gives %d", h.Name, len(cl.params), plural(len(cl.params)), len(h.Args))
			continue
		}
		ci := &classInstance{class: cl, pos: h.Pos, decl: in, defs: defs, sourced: map[string][]*function{}}
		ok := true
		for _, a := range h.Args {
			if nt, isNamed := a.(*syntax.NamedType); isNamed && c.aliases[nt.Name] != nil {
				c.sink.Errorf(a.TypePos(), "instance %s %s: '%s' is an alias; instances are declared on the type it stands for", h.Name, nt.Name, nt.Name)
				ok = false
				continue
			}
			rt := c.resolveHead(a)
			ok = ok && rt != nil
			ci.types = append(ci.types, rt)
		}
		if !ok || !c.checkHeadKinds(h, cl, ci.types) {
			continue
		}
		for _, other := range cl.instances {
			if sameTypes(other.types, ci.types) {
				c.sink.Errorf(h.Pos, "instance %s is declared twice (first at %s)", headString(cl, ci.types), other.pos)
				ok = false
			}
		}
		if ok {
			cl.instances = append(cl.instances, ci)
			heads = append(heads, ci)
		}
	}
	if len(heads) == 0 {
		return
	}
	methodOf := func(n syntax.Name) bool {
		for _, h := range heads {
			if h.class.methods[n.Name] == nil {
				c.sink.Errorf(n.Pos, "'%s' is not a method of class %s%s", n.Name, h.class.decl.Name.Name, suggest.Hint(n.Name, methodNames(h.class)))
				return false
			}
		}
		return true
	}
	for _, d := range in.Defs {
		if prev := defs[d.Name.Name]; prev != nil {
			c.sink.Errorf(d.Name.Pos, "method '%s' is defined twice in this instance (first at %s)", d.Name.Name, prev.Name.Pos)
			continue
		}
		if methodOf(d.Name) {
			defs[d.Name.Name] = d
		}
	}
	for _, s := range in.Sigs {
		methodOf(s.Name)
	}
	for _, s := range in.Sources {
		if s.Lang.Name == mcpLang {
			c.sink.Errorf(s.Lang.Pos, "an MCP server's tools cannot be methods; source the method from Py, Cpp or Go, or define it")
			continue
		}
		for _, f := range c.sourcedFunctions(s) {
			if !methodOf(syntax.Name{Pos: f.pos, Name: f.name}) {
				continue
			}
			if defs[f.name] != nil {
				c.sink.Errorf(f.pos, "method '%s' is both defined (at %s) and sourced in this instance", f.name, defs[f.name].Name.Pos)
				continue
			}
			for _, h := range heads {
				c.instanceMethod(h, f)
			}
		}
	}
}

// instanceMethod binds f, a sourced function, as a method of instance h:
// its signature is the method's at the instance's types.
func (c *checker) instanceMethod(h *classInstance, f *function) {
	for _, g := range h.sourced[f.name] {
		if g.lang == f.lang {
			c.sink.Errorf(f.pos, "method '%s' is sourced twice in %s for this instance (first at %s)", f.name, langName(f.lang), g.pos)
			return
		}
	}
	m := h.class.methods[f.name]
	if !m.ok {
		return
	}
	bind := instanceBind(h.class.params, h.types)
	g := *f
	g.sig = &signature{decl: m.decl, ok: true, result: subst(m.result, bind)}
	for _, p := range m.params {
		g.sig.params = append(g.sig.params, subst(p, bind))
	}
	g.index = len(c.funcList)
	c.funcList = append(c.funcList, &g)
	list := append(h.sourced[f.name], &g)
	sort.SliceStable(list, func(i, j int) bool { return langRank(list[i].lang) < langRank(list[j].lang) })
	h.sourced[f.name] = list
}

func langRank(lang string) int {
	for i, l := range langOrder {
		if l == lang {
			return i
		}
	}
	return len(langOrder)
}

// checkSupers checks that each instance of cl has an instance of each of
// cl's superclasses at its types.
func (c *checker) checkSupers(cl *class) {
	for _, sup := range cl.supers {
		sc := c.classes.classes[sup.Name]
		if sc == nil {
			c.classOf(sup.Name, sup.Pos)
			continue
		}
		for _, in := range cl.instances {
			bind := instanceBind(cl.params, in.types)
			var ts []*types.Type
			for _, a := range sup.Args {
				if rt := c.resolveType(a, nil); rt != nil {
					ts = append(ts, subst(rt, bind))
				}
			}
			if len(ts) != len(sc.params) {
				continue
			}
			if found, _ := c.findInstance(sc, ts); found == nil && !c.builtinInstance(sc, ts) {
				c.sink.Errorf(in.pos, "instance %s needs an instance %s, its superclass (class %s => %s)", headString(cl, in.types), headString(sc, ts), sup.Name, cl.decl.Name.Name)
			}
		}
	}
}

// findInstance is the most specific instance of cl matching ts, or nil;
// with a second instance as specific as the first, both are returned.
func (c *checker) findInstance(cl *class, ts []*types.Type) (*classInstance, *classInstance) {
	var found []*classInstance
	for _, in := range cl.instances {
		if matchesAll(in.types, ts) {
			found = append(found, in)
		}
	}
	var best *classInstance
	for _, in := range found {
		if best == nil || matchesAll(best.types, in.types) && !matchesAll(in.types, best.types) {
			best = in
		}
	}
	for _, in := range found {
		if in != best && !(matchesAll(in.types, best.types) && !matchesAll(best.types, in.types)) {
			return best, in
		}
	}
	return best, nil
}

// matchesAll reports whether the patterns match the types, one variable
// standing for one type throughout.
func matchesAll(patterns, ts []*types.Type) bool {
	m := map[string]*types.Type{}
	for i := range patterns {
		if !matchExact(patterns[i], ts[i], m) {
			return false
		}
	}
	return true
}

// matchExact is match without the numeric and optional leniencies: an
// instance at Int is not one at Real.
func matchExact(pattern, have *types.Type, m map[string]*types.Type) bool {
	if pattern.Kind == types.Var {
		if prev, ok := m[pattern.Name]; ok {
			return types.Equal(prev, have)
		}
		m[pattern.Name] = have
		return true
	}
	if pattern.Kind != have.Kind {
		return false
	}
	return match(pattern, have, m)
}

// builtinInstance reports whether the builtins serve prelude class cl at
// ts, as Morloc's root-py instances do.
func (c *checker) builtinInstance(cl *class, ts []*types.Type) bool {
	if !cl.prelude || len(ts) != 1 {
		return false
	}
	k := ts[0].Kind
	switch cl.decl.Name.Name {
	case "Eq", "Ord", "Show":
		return true
	case "Semigroup", "Monoid":
		return k == types.Str || k == types.List
	case "Integral", "RealLike":
		return k == types.Int || k == types.Real
	case "Numeric":
		return k == types.Real
	case "Functor", "Foldable":
		return k == types.Con && ts[0].Name == "List" && len(ts[0].Items) == 0
	}
	return false
}

func sameTypes(a, b []*types.Type) bool {
	for i := range a {
		if !types.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// headString writes an instance head, `Show Person`.
func headString(cl *class, ts []*types.Type) string {
	var b strings.Builder
	b.WriteString(cl.decl.Name.Name)
	for _, t := range ts {
		s := t.String()
		if strings.ContainsAny(s, " ") && !strings.HasPrefix(s, "[") && !strings.HasPrefix(s, "(") {
			s = "(" + s + ")"
		}
		fmt.Fprintf(&b, " %s", s)
	}
	return b.String()
}

func methodNames(cl *class) []string {
	out := make([]string, 0, len(cl.methods))
	for n := range cl.methods {
		out = append(out, n)
	}
	return out
}

// checkInstances checks each Morloc-defined method of each instance on
// its own, at the instance's types, so that an error in a method no
// command uses is found too.
func (c *checker) checkInstances() {
	for _, cl := range c.classesInOrder() {
		c.checkInstancesOf(cl)
	}
}

// classesInOrder lists the classes as declared, the prelude's first, so
// that their errors come in a stable order.
func (c *checker) classesInOrder() []*class {
	var out []*class
	for _, d := range append(append([]*syntax.Class(nil), c.classes.preludeDecls...), c.file.Classes...) {
		if cl := c.classes.classes[d.Name.Name]; cl != nil && cl.decl == d {
			out = append(out, cl)
		}
	}
	return out
}

func (c *checker) checkInstancesOf(cl *class) {
	for _, in := range cl.instances {
		bind := instanceBind(cl.params, in.types)
		for _, d := range in.decl.Defs {
			name := d.Name.Name
			m := cl.methods[name]
			if in.defs[name] != d {
				continue
			}
			if m == nil || !m.ok || checkedAtUses(cl, m) {
				continue
			}
			if len(d.Params) > len(m.params) {
				c.sink.Errorf(d.Params[len(m.params)].Pos, "%s has %d parameter%s, but the method's signature gives %d argument%s",
					name, len(d.Params), plural(len(d.Params)), len(m.params), plural(len(m.params)))
				continue
			}
			args := make([]arg, len(m.params))
			for i, p := range m.params {
				args[i] = arg{val: &manifest.Expr{Kind: manifest.Var, Type: subst(p, bind), Ref: i}, pos: d.Name.Pos}
			}
			result := subst(m.result, bind)
			c.startBudget(len(args))
			v := (&defFn{d: &definition{decl: d}}).expand(c, args, d.Name.Pos, result)
			c.conform(v, result, d.Body.ExprPos())
		}
	}
}

// instanceBind binds a class's parameters to an instance's types, the
// instance's own type variables renamed apart first: `instance Pack [(a,
// b)] (Box (a, b))` of `class Pack a b` must not read the instance's a as
// the class's.
func instanceBind(params []string, ts []*types.Type) map[string]*types.Type {
	rename := map[string]*types.Type{}
	bind := make(map[string]*types.Type, len(params))
	for i, p := range params {
		bind[p] = freshVars(ts[i], rename, 0)
	}
	return bind
}
