package check

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest/types"
)

// Newtypes and parameterized records are types of their own, known by
// name. A newtype (`newtype Path = Str`) has its body's form (the same
// JSON, the same native value in a pool) but is not interchangeable with
// it: its type is the body's with Name set, and types.Equal compares
// names. Only a literal may stand for a newtype directly (`"/tmp"` as a
// Path), as a number literal stands for a Real. A parameterized record
// (`record Pair a b where`) is a record per use: `Pair Int Str` is the
// record named so, its fields' parameters replaced.

// nominalTypes are the newtypes and the uses of parameterized records.
type nominalTypes struct {
	newtypes map[string]*syntax.Newtype
	// instances are the parameterized records built so far, by name
	// with arguments ("Pair Int Str").
	instances map[string]*types.Type
	// templates are the parameterized types at their own parameters,
	// by name (hkt.go).
	templates map[string]*types.Type
	// packable are the newtypes with a Packable instance, packs the
	// Packs of each of their uses by name with arguments, packers their
	// instances' functions by language (packable.go).
	packable map[string]bool
	packs    map[string]map[string]*types.Packing
	packers  map[string]map[string]*packer
}

// collectNewtypes declares every newtype, before any type is resolved.
func (c *checker) collectNewtypes() {
	c.nominal = nominalTypes{newtypes: map[string]*syntax.Newtype{}, instances: map[string]*types.Type{}}
	for _, nt := range c.file.Newtypes {
		name := nt.Name.Name
		switch {
		case nt.Body == nil && (IsBuiltinType(name) || morlocPrimitives[name]):
			continue // Morloc's declaration of a built-in type (packable.go)
		case IsBuiltinType(name):
			c.sink.Errorf(nt.Name.Pos, "newtype %s has the name of a built-in type", name)
			continue
		case c.aliases[name] != nil:
			c.sink.Errorf(nt.Name.Pos, "type %s is both an alias (at %s) and a newtype", name, c.aliases[name].Name.Pos)
			continue
		case c.nominal.newtypes[name] != nil:
			c.sink.Errorf(nt.Name.Pos, "newtype %s is declared twice (first at %s)", name, c.nominal.newtypes[name].Name.Pos)
			continue
		}
		c.nominal.newtypes[name] = nt
		c.typeDoc(doc.Parse(nt.Doc), "newtype "+name)
	}
	for _, r := range c.file.Records {
		if nt := c.nominal.newtypes[r.Name.Name]; nt != nil {
			c.sink.Errorf(nt.Name.Pos, "type %s is both a newtype and a record (at %s)", nt.Name.Name, r.Name.Pos)
		}
	}
	c.packableHeads()
}

// resolveNominal resolves t when it names a newtype or a parameterized
// record; ok is false when it names neither.
func (c *checker) resolveNominal(t *syntax.NamedType, path []string) (out *types.Type, ok bool) {
	if nt := c.nominal.newtypes[t.Name]; nt != nil {
		return c.newtype(nt, t, path), true
	}
	if rec := c.records[t.Name]; rec != nil && len(rec.decl.Params) > 0 {
		return c.instantiateRecord(rec, t, path), true
	}
	return nil, false
}

// typeArgs checks that t gives one argument per parameter and returns
// them by parameter name.
func (c *checker) typeArgs(t *syntax.NamedType, params []syntax.Name) (map[string]syntax.Type, bool) {
	if len(t.Args) != len(params) {
		c.sink.Errorf(t.Pos, "type %s takes %d type argument%s, but is given %d", t.Name, len(params), plural(len(params)), len(t.Args))
		return nil, false
	}
	subst := map[string]syntax.Type{}
	for i, p := range params {
		subst[p.Name] = t.Args[i]
	}
	return subst, true
}

// inPath reports a type that stands for itself through path.
func (c *checker) inPath(name string, t *syntax.NamedType, path []string) bool {
	for _, p := range path {
		if p == name {
			c.sink.Errorf(t.Pos, "type %s contains itself (%s); recursive types are not supported", name, strings.Join(append(path, name), " -> "))
			return true
		}
	}
	return false
}

// newtype is the type of a use t of the newtype nt: its body's, named.
func (c *checker) newtype(nt *syntax.Newtype, t *syntax.NamedType, path []string) *types.Type {
	subst, ok := c.typeArgs(t, nt.Params)
	if !ok || nt.Body == nil || c.inPath(nt.Name.Name, t, path) {
		return nil // a primitive without a wire form is reported (packable.go)
	}
	path = append(path, nt.Name.Name)
	name, ok := c.appliedName(nt.Name.Name, nt.Params, subst, path)
	if !ok {
		return nil
	}
	body := c.resolveType(substitute(nt.Body, subst), path)
	if body == nil {
		return nil
	}
	named := *body
	named.Name = name
	named.Packs = c.packsOf(nt.Name.Name, name)
	return c.applied(&named, nt.Name.Name, t.Args, path)
}

// appliedName is the name of a type applied to its arguments, `Pair Int
// Str` or `Deque [Int]`, what its values are known by; ok is false after
// an error in an argument.
func (c *checker) appliedName(base string, params []syntax.Name, subst map[string]syntax.Type, path []string) (string, bool) {
	name := base
	for _, p := range params {
		at := c.resolveType(subst[p.Name], path)
		if at == nil {
			return "", false
		}
		arg := at.String()
		if strings.Contains(arg, " ") && !strings.HasPrefix(arg, "(") && !strings.HasPrefix(arg, "[") {
			arg = "(" + arg + ")"
		}
		name += " " + arg
	}
	return name, true
}

// isNewtype reports whether t is a newtype's.
func isNewtype(t *types.Type) bool { return t.Kind != types.Record && t.Name != "" }

// newtypeBody is the newtype t's body type.
func newtypeBody(t *types.Type) *types.Type {
	body := *t
	body.Name, body.Packs = "", nil
	return &body
}

// recordTemplate stands for a parameterized record before it is used: a
// record without fields, which only carries the language maps that
// every use gets.
func (c *checker) recordTemplate(rec *record) *types.Type {
	if rec.typ == nil {
		rec.typ = &types.Type{Kind: types.Record, Name: rec.decl.Name.Name, Fields: []types.Field{}, Langs: map[string]string{}}
		rec.state = 2
	}
	return rec.typ
}

// instantiateRecord is the record rec used as t, its parameters replaced by
// t's arguments.
func (c *checker) instantiateRecord(rec *record, t *syntax.NamedType, path []string) *types.Type {
	subst, ok := c.typeArgs(t, rec.decl.Params)
	if !ok || c.inPath(rec.decl.Name.Name, t, path) {
		return nil
	}
	path = append(path, rec.decl.Name.Name)
	name, ok := c.appliedName(rec.decl.Name.Name, rec.decl.Params, subst, path)
	if !ok {
		return nil
	}
	if done := c.nominal.instances[name]; done != nil {
		return done
	}
	out := &types.Type{Kind: types.Record, Name: name, Doc: rec.typ.Doc, Fields: []types.Field{}, Langs: rec.typ.Langs}
	for _, fd := range rec.decl.Fields {
		ft := c.resolveType(substitute(fd.Type, subst), path)
		if ft == nil {
			return nil
		}
		out.Fields = append(out.Fields, types.Field{Name: fd.Name.Name, Type: ft})
	}
	c.nominal.instances[name] = c.applied(out, rec.decl.Name.Name, t.Args, path)
	return out
}
