package check

import (
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// A record literal where no record is expected, and that no one declared
// record fits, has an anonymous structural record type, as in Morloc
// (digest 3.8): `.x.0 {x = (7, "hi"), y = 9}` is 7. Its type is a Record
// named by its fields, `{x = (Int, Str), y = Int}`, in the literal's
// order, so two literals with the same fields in the same order have the
// same type and the value prints its fields in that order. The nexus
// evaluates such records like declared ones (getters, setters, @show,
// printing); a pool has no type for one, so a pool function or a command
// needs a declared record instead (requireDeclared).

// anonymousRecord elaborates e, whose fields are given once each, to a
// record of the anonymous type its fields' types make.
func (c *checker) anonymousRecord(e *syntax.RecordLit, sc *scope) value {
	exprs := make([]syntax.Expr, len(e.Fields))
	for i, f := range e.Fields {
		exprs[i] = f.Value
	}
	items, ok := c.elabAll(exprs, sc, func(int) *types.Type { return nil })
	if !ok {
		return nil
	}
	t := &types.Type{Kind: types.Record}
	fields := make([]string, len(items))
	for i, f := range e.Fields {
		t.Fields = append(t.Fields, types.Field{Name: f.Name.Name, Type: items[i].Type})
		fields[i] = f.Name.Name
	}
	t.Name = anonymousName(t.Fields)
	return build(manifest.MakeRecord, t, items, fields)
}

// anonymousName is the name of the anonymous record of fields, the type
// as Morloc writes a record type: {x = Int, y = Str}.
func anonymousName(fields []types.Field) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Name + " = " + f.Type.String()
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// isAnonymous reports whether t is an anonymous record type.
func isAnonymous(t *types.Type) bool {
	return t.Kind == types.Record && strings.HasPrefix(t.Name, "{")
}

// anonymousInside is the first anonymous record type in t, or nil.
func anonymousInside(t *types.Type) *types.Type {
	var found *types.Type
	types.Holds(t, func(u *types.Type) bool {
		if found == nil && isAnonymous(u) {
			found = u
		}
		return found != nil
	})
	return found
}

// asDeclared is e, a value of an anonymous record type, where the declared
// record want is expected: the same value when both have the same fields
// of the same types (a record is a map of its fields at runtime), nil
// when they differ.
func asDeclared(e *manifest.Expr, want *types.Type) *manifest.Expr {
	if !isAnonymous(e.Type) || want.Kind != types.Record || isAnonymous(want) || len(want.Fields) != len(e.Type.Fields) {
		return nil
	}
	for _, f := range e.Type.Fields {
		wf := want.Field(f.Name)
		if wf == nil || !types.Equal(wf.Type, f.Type) {
			return nil
		}
	}
	if e.Kind == manifest.Lit {
		if out, err := relit(want, e.Value); err == nil {
			return out
		}
		return nil
	}
	out := *e
	out.Type = want
	return &out
}

// requireDeclared reports, at pos, a type of a use that runs in a pool or
// is a command's (what) that holds an anonymous record: such a record
// must be declared, with a map to the pool's language. It returns false
// when it reported.
func (c *checker) requireDeclared(t *types.Type, what string, pos diag.Pos) bool {
	anon := anonymousInside(t)
	if anon == nil {
		return true
	}
	var decl strings.Builder
	for _, f := range anon.Fields {
		fmt.Fprintf(&decl, "; %s :: %s", f.Name, f.Type)
	}
	c.sink.Errorf(pos, "%s holds %s, the anonymous type of a record literal, which only the nexus can handle; declare a record (`record R where%s`, with a language map such as `record Py => R = \"dict\"`) and give the literal that type, in a signature or as ({...} :: R)",
		what, anon, decl.String())
	return false
}

// anonymousIn reports whether a type of in, an instance of a generic
// function, holds an anonymous record.
func anonymousIn(in *instance) bool {
	for _, t := range append([]*types.Type{in.result}, in.params...) {
		if anonymousInside(t) != nil {
			return true
		}
	}
	return false
}

// declaredForPool reports whether the instance in of f, a generic sourced
// function called with args, has only types f's pool can convert; it
// reports the first anonymous record at the argument or call that has it.
func (c *checker) declaredForPool(f *function, in *instance, args []arg) bool {
	for i, t := range in.params {
		what := fmt.Sprintf("argument %d of %s (run in the %s pool)", i+1, f.name, langName(f.lang))
		if !c.requireDeclared(t, what, args[i].pos) {
			return false
		}
	}
	return c.requireDeclared(in.result, fmt.Sprintf("the result of %s (run in the %s pool)", f.name, langName(f.lang)), args[0].pos)
}
