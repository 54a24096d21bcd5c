package check

import (
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// builtinTypes are the type names of the subset and how many type
// arguments each takes. `List a` is Morloc's spelling of [a].
var builtinTypes = map[string]int{
	"Int": 0, "Real": 0, "Str": 0, "Bool": 0, "Unit": 0, "Json": 0, "Map": 2, "List": 1,
}

// langs maps a language as written in a program to its pool language.
var langs = map[string]string{"Py": manifest.Python, "Cpp": manifest.Cpp, "Go": manifest.Go}

// resolveType turns a written type into a types.Type, or reports why it
// cannot and returns nil. path is the chain of records being built.
func (c *checker) resolveType(t syntax.Type, path []string) *types.Type {
	switch t := t.(type) {
	case *syntax.UnitType:
		return types.UnitType
	case *syntax.ListType:
		if e := c.resolveType(t.Elem, path); e != nil && c.notFunc(e, t.Elem) {
			return types.ListOf(e)
		}
	case *syntax.OptionalType:
		if e := c.resolveType(t.Elem, path); e != nil && c.notFunc(e, t.Elem) {
			return types.OptionalOf(e)
		}
	case *syntax.TupleType:
		items := make([]*types.Type, len(t.Items))
		for i, it := range t.Items {
			if items[i] = c.resolveType(it, path); items[i] == nil || !c.notFunc(items[i], it) {
				return nil
			}
		}
		return types.TupleOf(items...)
	case *syntax.NamedType:
		return c.resolveNamed(t, path)
	case *syntax.FuncType:
		return c.resolveFuncType(t, path)
	}
	return nil
}

// notFunc reports whether t, a part of a data type written as w, is not a
// function, and reports it when it is: functions travel only as the
// arguments of functions.
func (c *checker) notFunc(t *types.Type, w syntax.Type) bool {
	if t.Kind != types.Func {
		return true
	}
	c.sink.Errorf(w.TypePos(), "a function type (%s) inside a list, tuple, optional or map is not supported; functions can only be arguments", t)
	return false
}

func (c *checker) resolveNamed(t *syntax.NamedType, path []string) *types.Type {
	if a := c.aliases[t.Name]; a != nil {
		return c.expandAlias(a, t, path)
	}
	if nt, ok := c.resolveNominal(t, path); ok {
		return nt
	}
	if st, ok := c.sizedType(t); ok {
		return st
	}
	if ht, ok := c.handleType(t, path); ok {
		return ht
	}
	arity, builtin := builtinTypes[t.Name]
	rec := c.records[t.Name]
	if !builtin && rec == nil && isTypeVar(t.Name) {
		if len(t.Args) > 0 {
			return c.appliedVar(t, path)
		}
		return &types.Type{Kind: types.Var, Name: t.Name}
	}
	if !builtin && rec == nil {
		c.sink.Errorf(t.Pos, "unknown type '%s'%s", t.Name, suggest.Hint(t.Name, c.typeNames()))
		return nil
	}
	if rec != nil {
		arity = 0
	}
	if len(t.Args) != arity {
		c.sink.Errorf(t.Pos, "type %s takes %d type argument%s, but is given %d", t.Name, arity, plural(arity), len(t.Args))
		return nil
	}
	args := make([]*types.Type, len(t.Args))
	for i, a := range t.Args {
		if args[i] = c.resolveType(a, path); args[i] == nil {
			return nil
		}
	}
	switch t.Name {
	case "Int":
		return types.IntType
	case "Real":
		return types.RealType
	case "Str":
		return types.StrType
	case "Bool":
		return types.BoolType
	case "Unit":
		return types.UnitType
	case "Json":
		return types.JSONType
	case "List":
		return types.ListOf(args[0])
	case "Map":
		if holdsJSON(args[0]) {
			c.sink.Errorf(t.Args[0].TypePos(), "a map key cannot be or hold a Json (%s): a decoded JSON object or list is no key in Python or Go; use Str for JSON text", args[0])
			return nil
		}
		return types.MapOf(args[0], args[1])
	}
	return c.recordType(rec, path)
}

// holdsJSON reports whether a value of t is or contains a Json.
func holdsJSON(t *types.Type) bool {
	switch t.Kind {
	case types.JSON:
		return true
	case types.List, types.Optional:
		return holdsJSON(t.Elem)
	case types.Map:
		return holdsJSON(t.Key) || holdsJSON(t.Elem)
	case types.Tuple:
		for _, it := range t.Items {
			if holdsJSON(it) {
				return true
			}
		}
	case types.Record:
		for _, f := range t.Fields {
			if holdsJSON(f.Type) {
				return true
			}
		}
	}
	return false
}

func (c *checker) typeNames() []string {
	names := c.recordNames()
	for n := range c.aliases {
		names = append(names, n)
	}
	for n := range builtinTypes {
		names = append(names, n)
	}
	return names
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
