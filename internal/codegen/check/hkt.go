package check

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest/types"
)

// Higher-kinded type variables: `f a` in a signature is a type variable
// applied to arguments (a types.Var with Items), and f stands for a type
// constructor (a types.Con): List, Optional, Map given its key, or a
// program's parameterized record or newtype, given some of its arguments
// (`Box`, `Pair Str`). Matching `f a` against `[Int]` binds f to List and
// a to Int; against `Box Int`, f to Box. A program's type carries the
// constructor it was applied to (types.Type.Applied) and a Con carries the
// type at its own parameters (its template), so that subst can apply a
// constructor without the checker. Classes over such variables (`class
// Functor f where map :: (a -> b) -> f a -> f b`) are ordinary classes
// whose instances are constructors (`instance Functor Box`).

// builtinCons are the built-in type constructors and how many arguments
// each takes.
var builtinCons = map[string]int{"List": 1, "Optional": 1, "Map": 2}

// appliedVar resolves `f a ...`, a type variable applied to arguments.
func (c *checker) appliedVar(t *syntax.NamedType, path []string) *types.Type {
	args := make([]*types.Type, len(t.Args))
	for i, a := range t.Args {
		if args[i] = c.resolveType(a, path); args[i] == nil || !c.notFunc(args[i], a) {
			return nil
		}
	}
	return &types.Type{Kind: types.Var, Name: t.Name, Items: args}
}

// conArity is how many arguments the constructor con takes in all.
func conArity(con *types.Type) int {
	if n, ok := builtinCons[con.Name]; ok {
		return n
	}
	if con.Elem == nil || con.Elem.Applied == nil {
		return 0
	}
	return len(con.Elem.Applied.Items)
}

// applyHead is head, a Con or a (higher-kinded) Var, applied to args.
func applyHead(head *types.Type, args []*types.Type) *types.Type {
	all := append(append([]*types.Type(nil), head.Items...), args...)
	if head.Kind == types.Var {
		return &types.Type{Kind: types.Var, Name: head.Name, Items: all}
	}
	if len(all) != conArity(head) {
		return &types.Type{Kind: types.Con, Name: head.Name, Items: all, Elem: head.Elem}
	}
	switch head.Name {
	case "List":
		return types.ListOf(all[0])
	case "Optional":
		return types.OptionalOf(all[0])
	case "Map":
		return types.MapOf(all[0], all[1])
	}
	tpl := head.Elem
	bind := map[string]*types.Type{}
	for i, p := range tpl.Applied.Items {
		bind[p.Name] = all[i]
	}
	body := *tpl
	body.Applied = nil // the template's own application, not one inside it
	out := replaceParams(&body, bind)
	name := head.Name
	for _, a := range all {
		name += " " + argString(a)
	}
	out.Name = name
	out.Applied = &types.Type{Kind: types.Con, Name: head.Name, Items: all, Elem: tpl}
	return out
}

// argString writes a type as an argument in a type's name, as
// appliedName does.
func argString(t *types.Type) string {
	s := t.String()
	if strings.Contains(s, " ") && !strings.HasPrefix(s, "(") && !strings.HasPrefix(s, "[") {
		s = "(" + s + ")"
	}
	return s
}

// replaceParams is a template with its parameters replaced, in one pass
// (an argument's own variables are not replaced again), into record
// fields and the program's types applied inside it.
func replaceParams(t *types.Type, bind map[string]*types.Type) *types.Type {
	if t == nil {
		return nil
	}
	if t.Applied != nil {
		items := make([]*types.Type, len(t.Applied.Items))
		for i, it := range t.Applied.Items {
			items[i] = replaceParams(it, bind)
		}
		return applyHead(&types.Type{Kind: types.Con, Name: t.Applied.Name, Elem: t.Applied.Elem}, items)
	}
	out := *t
	switch t.Kind {
	case types.Var:
		if len(t.Items) == 0 {
			if r, ok := bind[t.Name]; ok {
				return r
			}
			return t
		}
		items := make([]*types.Type, len(t.Items))
		for i, it := range t.Items {
			items[i] = replaceParams(it, bind)
		}
		if r, ok := bind[t.Name]; ok {
			return applyHead(r, items)
		}
		out.Items = items
		return &out
	case types.Record:
		out.Fields = make([]types.Field, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = replaceParams(f.Type, bind)
			out.Fields[i] = f
		}
		return &out
	}
	out.Elem = replaceParams(t.Elem, bind)
	out.Key = replaceParams(t.Key, bind)
	if t.Items != nil {
		out.Items = make([]*types.Type, len(t.Items))
		for i, it := range t.Items {
			out.Items[i] = replaceParams(it, bind)
		}
	}
	return &out
}

// substApplied is subst of `f a ...` (t, a Var with Items): f's binding
// applied to the arguments.
func substApplied(t *types.Type, m map[string]*types.Type) *types.Type {
	items := make([]*types.Type, len(t.Items))
	for i, it := range t.Items {
		items[i] = subst(it, m)
	}
	head := &types.Type{Kind: types.Var, Name: t.Name}
	if r, ok := m[t.Name]; ok && (r.Kind == types.Con || r.Kind == types.Var) {
		head = subst(r, m)
		if head.Kind == types.Var && head.Name == t.Name && len(head.Items) == 0 && len(r.Items) == 0 {
			head = r
		}
	}
	return applyHead(head, items)
}

// substNominal is subst of a program's type applied to arguments that
// hold variables (`Box a`).
func substNominal(t *types.Type, m map[string]*types.Type) *types.Type {
	items := make([]*types.Type, len(t.Applied.Items))
	for i, it := range t.Applied.Items {
		items[i] = subst(it, m)
	}
	return applyHead(&types.Type{Kind: types.Con, Name: t.Applied.Name, Elem: t.Applied.Elem}, items)
}

// decompose splits have into a constructor and its last n arguments, as
// `f a` (n = 1) sees it: [Int] is List and Int, Map Str Int is (Map Str)
// and Int, Box Int is Box and Int; ok is false when have is not a
// constructor applied to n arguments or more.
func decompose(have *types.Type, n int) (head *types.Type, args []*types.Type, ok bool) {
	var name string
	var all []*types.Type
	var tpl *types.Type
	switch {
	case have.Applied != nil:
		name, all, tpl = have.Applied.Name, have.Applied.Items, have.Applied.Elem
	case have.Name != "" && have.Kind != types.Var && have.Kind != types.Con:
		return nil, nil, false // a newtype without parameters
	case have.Kind == types.List:
		name, all = "List", []*types.Type{have.Elem}
	case have.Kind == types.Optional:
		name, all = "Optional", []*types.Type{have.Elem}
	case have.Kind == types.Map:
		name, all = "Map", []*types.Type{have.Key, have.Elem}
	case have.Kind == types.Var || have.Kind == types.Con:
		if len(have.Items) < n {
			return nil, nil, false
		}
		k := len(have.Items) - n
		return &types.Type{Kind: have.Kind, Name: have.Name, Items: have.Items[:k], Elem: have.Elem}, have.Items[k:], true
	default:
		return nil, nil, false
	}
	if len(all) < n {
		return nil, nil, false
	}
	k := len(all) - n
	return &types.Type{Kind: types.Con, Name: name, Items: all[:k], Elem: tpl}, all[k:], true
}

// matchApplied is match of `f a ...` (pattern) against have.
func matchApplied(pattern, have *types.Type, m map[string]*types.Type) bool {
	head, args, ok := decompose(have, len(pattern.Items))
	if !ok {
		return false
	}
	if !match(&types.Type{Kind: types.Var, Name: pattern.Name}, head, m) {
		return false
	}
	for i, p := range pattern.Items {
		if !match(p, args[i], m) {
			return false
		}
	}
	return true
}

// matchCons is match of two constructors, or of two of the program's
// types applied to arguments.
func matchCons(pattern, have *types.Type, m map[string]*types.Type) bool {
	if pattern.Name != have.Name || len(pattern.Items) != len(have.Items) {
		return false
	}
	for i := range pattern.Items {
		if !match(pattern.Items[i], have.Items[i], m) {
			return false
		}
	}
	return true
}

// template is the program's parameterized type name at its own
// parameters, which a Con applies (applyHead). ok is false when name is
// no parameterized record or newtype.
func (c *checker) template(name string) (*types.Type, bool) {
	var params []syntax.Name
	if nt := c.nominal.newtypes[name]; nt != nil {
		params = nt.Params
	} else if rec := c.records[name]; rec != nil {
		params = rec.decl.Params
	}
	if len(params) == 0 {
		return nil, false
	}
	if c.nominal.templates == nil {
		c.nominal.templates = map[string]*types.Type{}
	}
	if tpl, done := c.nominal.templates[name]; done {
		return tpl, tpl != nil
	}
	c.nominal.templates[name] = nil
	t := &syntax.NamedType{Name: name}
	for _, p := range params {
		t.Args = append(t.Args, &syntax.NamedType{Pos: p.Pos, Name: p.Name})
	}
	tpl := c.resolveType(t, nil)
	if tpl == nil {
		return nil, false
	}
	con := &types.Type{Kind: types.Con, Name: name, Elem: tpl}
	for _, p := range params {
		con.Items = append(con.Items, &types.Type{Kind: types.Var, Name: p.Name})
	}
	tpl.Applied = con
	c.nominal.templates[name] = tpl
	return tpl, true
}

// settleResult finds the variables of a method's result that only its
// function arguments tell (`fmap (\x -> x + 1) box` is a Box of what the
// lambda returns), elaborating each such argument once its parameters'
// types are known; in, instantiated with the function arguments left by
// name, gets the result. It reports false after an error.
func (c *checker) settleResult(sig *signature, in *instance) bool {
	if ground(in.result) {
		return true
	}
	m := map[string]*types.Type{}
	for i, p := range sig.params {
		match(p, in.params[i], m)
	}
	match(sig.result, in.result, m)
	for k, t := range m {
		if t.Kind == types.Var && t.Name == k && len(t.Items) == 0 {
			delete(m, k)
		}
	}
	for i, p := range sig.params {
		pt := subst(p, m)
		if pt.Kind != types.Func || ground(pt.Elem) || !groundAll(pt.Items) || in.args[i].val != nil {
			continue
		}
		if c.lambdaOf(in.args[i], pt, m) == nil {
			return false
		}
	}
	in.result = subst(sig.result, m)
	return true
}

// applied records on out, the program's type name applied to args, the
// constructor it is, for matching `f a` against it.
func (c *checker) applied(out *types.Type, name string, args []syntax.Type, path []string) *types.Type {
	if out == nil {
		return nil
	}
	tpl, ok := c.template(name)
	if !ok {
		return out
	}
	items := make([]*types.Type, len(args))
	for i, a := range args {
		if items[i] = c.resolveType(a, path); items[i] == nil {
			return out
		}
	}
	out.Applied = &types.Type{Kind: types.Con, Name: name, Items: items, Elem: tpl}
	return out
}

// resolveHead resolves a type of an instance head: a constructor given
// fewer arguments than it takes (`List`, `Map Str`, `Box`) is a Con.
func (c *checker) resolveHead(a syntax.Type) *types.Type {
	nt, ok := a.(*syntax.NamedType)
	if !ok {
		return c.resolveType(a, nil)
	}
	con := &types.Type{Kind: types.Con, Name: nt.Name}
	if _, builtin := builtinCons[nt.Name]; !builtin {
		tpl, ok := c.template(nt.Name)
		if !ok {
			return c.resolveType(a, nil)
		}
		con.Elem = tpl
	}
	if len(nt.Args) >= conArity(con) {
		return c.resolveType(a, nil)
	}
	for _, x := range nt.Args {
		t := c.resolveType(x, nil)
		if t == nil {
			return nil
		}
		con.Items = append(con.Items, t)
	}
	return con
}

// kindOf is how many more arguments a type of an instance head takes:
// 0 for a type, 1 for List or Box.
func kindOf(t *types.Type) int {
	if t.Kind != types.Con {
		return 0
	}
	return conArity(t) - len(t.Items)
}

// classKinds is, for each parameter of a class, how many arguments its
// methods apply it to (1 for f in `Functor f`, 0 for a in `Eq a`).
func classKinds(cl *class) []int {
	out := make([]int, len(cl.params))
	for i, p := range cl.params {
		for _, s := range cl.decl.Methods {
			if n, ok := varArities(s)[p]; ok {
				out[i] = n.arity
				break
			}
		}
	}
	return out
}

// checkClassKinds reports a class variable that the methods apply to
// different numbers of arguments (`f a` in one, `f a b` in another).
func (c *checker) checkClassKinds(d *syntax.Class) {
	first := map[string]arityUse{}
	for _, s := range d.Methods {
		for _, p := range d.Params {
			use, ok := varArities(s)[p.Name]
			if !ok {
				continue
			}
			f, seen := first[p.Name]
			if !seen {
				first[p.Name] = use
				continue
			}
			if f.arity != use.arity {
				c.sink.Errorf(use.at.Pos, "class %s: %s is applied to %d type argument%s here and to %d at %s; a class variable stands for one kind of type",
					d.Name.Name, p.Name, use.arity, plural(use.arity), f.arity, f.at.Pos)
				return
			}
		}
	}
}

// checkHeadKinds checks that each type of an instance head is a
// constructor of the kind the class's parameter is used at.
func (c *checker) checkHeadKinds(h *syntax.NamedType, cl *class, ts []*types.Type) bool {
	kinds := classKinds(cl)
	for i, t := range ts {
		if got := kindOf(t); got != kinds[i] {
			c.sink.Errorf(h.Args[i].TypePos(), "instance %s: class %s applies its %s to %d type argument%s, so its instance is a type constructor taking %d (like %s), but %s takes %d",
				h.Name, h.Name, cl.params[i], kinds[i], plural(kinds[i]), kinds[i], kindExample(kinds[i]), t, got)
			return false
		}
	}
	return true
}

func kindExample(n int) string {
	switch n {
	case 0:
		return "Int"
	case 1:
		return "List"
	}
	return "Map"
}

// arityUse is how many arguments a type variable is applied to at one
// place of a signature.
type arityUse struct {
	arity int
	at    *syntax.NamedType
}

// varArities is, for each type variable of a signature, its first use.
func varArities(s *syntax.Signature) map[string]arityUse {
	out := map[string]arityUse{}
	walkSigVars(s, func(nt *syntax.NamedType) {
		if _, seen := out[nt.Name]; !seen {
			out[nt.Name] = arityUse{arity: len(nt.Args), at: nt}
		}
	})
	return out
}

// checkKinds reports a type variable applied to a different number of
// arguments in two places of one signature (`f a` and `f a b`).
func (c *checker) checkKinds(s *syntax.Signature) bool {
	first := varArities(s)
	ok := true
	walkSigVars(s, func(nt *syntax.NamedType) {
		if f := first[nt.Name]; f.at != nt && f.arity != len(nt.Args) && ok {
			c.sink.Errorf(nt.Pos, "type variable %s is applied to %d type argument%s here and to %d at %s; a variable stands for one kind of type",
				nt.Name, len(nt.Args), plural(len(nt.Args)), f.arity, f.at.Pos)
			ok = false
		}
	})
	return ok
}

// walkSigVars calls visit on each use of a type variable in a
// signature's types (not its constraints, where a class names it bare).
func walkSigVars(s *syntax.Signature, visit func(*syntax.NamedType)) {
	var walk func(t syntax.Type)
	walk = func(t syntax.Type) {
		switch t := t.(type) {
		case *syntax.NamedType:
			if isTypeVar(t.Name) {
				visit(t)
			}
			for _, a := range t.Args {
				walk(a)
			}
		case *syntax.ListType:
			walk(t.Elem)
		case *syntax.OptionalType:
			walk(t.Elem)
		case *syntax.TupleType:
			for _, it := range t.Items {
				walk(it)
			}
		case *syntax.FuncType:
			for _, p := range t.Params {
				walk(p)
			}
			walk(t.Result)
		}
	}
	for _, p := range s.Params {
		walk(p.Type)
	}
	walk(s.Result.Type)
}

// checkedAtUses reports whether a method of cl is checked only where it
// is used, not on its own at its instance (checkInstances): when it takes
// a function (`map`), which a method on its own cannot apply, or when cl
// is over type constructors, where the method's own variables stay
// unknown (`Map Str a`) and the builtins need known types.
func checkedAtUses(cl *class, sig *signature) bool {
	for _, k := range classKinds(cl) {
		if k > 0 {
			return true
		}
	}
	for _, p := range sig.params {
		if p.Kind == types.Func {
			return true
		}
	}
	return false
}
