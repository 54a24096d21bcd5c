package check

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Type aliases (`type Name p1 = Type`) are transparent: a use of one is
// its body with the parameters replaced, resolved where it is used. Its
// docstring describes every argument of its type (inheritance, below).
//
// Language type maps (`type Lang => Name = "native"`) give a type's
// native form in a language. nexus's pools have the native forms of the
// built-in types built in, so a map of a built-in or of a Morloc
// primitive nexus has no use for is checked and left aside; a map of a
// record is the record's type in that language, as `record Lang => Name =
// "native"` says.

// mapLangs are the language names a type map may use, lower-cased, and
// the pool each stands for; "" for Morloc's languages nexus has no pool
// for, whose maps are left aside.
var mapLangs = map[string]string{
	"py": manifest.Python, "python": manifest.Python, "python3": manifest.Python,
	"cpp": manifest.Cpp, "c++": manifest.Cpp,
	"go": manifest.Go, "golang": manifest.Go,
	"r": "", "rust": "", "c": "", "julia": "", "futhark": "",
}

// morlocPrimitives are the type names of Morloc's prelude that a
// language map may name though nexus has no such type: their maps are
// left aside.
var morlocPrimitives = map[string]bool{
	"Int8": true, "Int16": true, "Int32": true, "Int64": true,
	"UInt8": true, "UInt16": true, "UInt32": true, "UInt64": true, "U8": true,
	"Float32": true, "Float64": true, "Tuple1": true, "Tuple2": true, "Tuple3": true, "Tuple4": true,
	"Tuple5": true, "Tuple6": true, "Tuple7": true, "Tuple8": true, "Tuple9": true,
}

// collectAliases declares every alias, before any type is resolved.
func (c *checker) collectAliases() {
	c.aliases = map[string]*syntax.TypeAlias{}
	for _, a := range c.file.Aliases {
		name := a.Name.Name
		switch {
		case IsBuiltinType(name):
			c.sink.Errorf(a.Name.Pos, "type alias %s has the name of a built-in type", name)
			continue
		case c.aliases[name] != nil:
			c.sink.Errorf(a.Name.Pos, "type %s is declared twice (first at %s)", name, c.aliases[name].Name.Pos)
			continue
		}
		seen := map[string]bool{}
		for _, p := range a.Params {
			if seen[p.Name] {
				c.sink.Errorf(p.Pos, "type alias %s has two parameters named %s", name, p.Name)
			}
			seen[p.Name] = true
		}
		c.aliases[name] = a
		c.typeDoc(doc.Parse(a.Doc), "type "+name)
	}
	for _, r := range c.file.Records {
		if a := c.aliases[r.Name.Name]; a != nil {
			c.sink.Errorf(a.Name.Pos, "type %s is both an alias and a record (at %s)", a.Name.Name, r.Name.Pos)
		}
	}
}

// expandAlias resolves a use of alias a with the written arguments of t.
// path is the chain of records and aliases being resolved, to report an
// alias that stands for itself.
func (c *checker) expandAlias(a *syntax.TypeAlias, t *syntax.NamedType, path []string) *types.Type {
	if len(t.Args) != len(a.Params) {
		c.sink.Errorf(t.Pos, "type %s takes %d type argument%s, but is given %d", a.Name.Name, len(a.Params), plural(len(a.Params)), len(t.Args))
		return nil
	}
	for _, p := range path {
		if p == a.Name.Name {
			cycle := strings.Join(append(path, a.Name.Name), " -> ")
			c.sink.Errorf(a.Name.Pos, "type alias %s stands for itself (%s); recursive types are not supported", a.Name.Name, cycle)
			return nil
		}
	}
	subst := map[string]syntax.Type{}
	for i, p := range a.Params {
		subst[p.Name] = t.Args[i]
	}
	return c.resolveType(substitute(a.Body, subst), append(path, a.Name.Name))
}

// substitute is t with the type variables of subst replaced.
func substitute(t syntax.Type, subst map[string]syntax.Type) syntax.Type {
	if len(subst) == 0 {
		return t
	}
	switch t := t.(type) {
	case *syntax.NamedType:
		if r, ok := subst[t.Name]; ok && len(t.Args) == 0 {
			return r
		}
		args := make([]syntax.Type, len(t.Args))
		for i, a := range t.Args {
			args[i] = substitute(a, subst)
		}
		return &syntax.NamedType{Pos: t.Pos, Name: t.Name, Args: args}
	case *syntax.ListType:
		return &syntax.ListType{Pos: t.Pos, Elem: substitute(t.Elem, subst)}
	case *syntax.OptionalType:
		return &syntax.OptionalType{Pos: t.Pos, Elem: substitute(t.Elem, subst)}
	case *syntax.TupleType:
		items := make([]syntax.Type, len(t.Items))
		for i, it := range t.Items {
			items[i] = substitute(it, subst)
		}
		return &syntax.TupleType{Pos: t.Pos, Items: items}
	case *syntax.FuncType:
		params := make([]syntax.Type, len(t.Params))
		for i, it := range t.Params {
			params[i] = substitute(it, subst)
		}
		return &syntax.FuncType{Pos: t.Pos, Params: params, Result: substitute(t.Result, subst)}
	}
	return t
}

// applyTypeLangs checks the language maps and applies those of records.
func (c *checker) applyTypeLangs() {
	for _, tl := range c.file.TypeLangs {
		lang, ok := mapLangs[strings.ToLower(tl.Lang.Name)]
		if !ok {
			c.sink.Errorf(tl.Lang.Pos, "unknown language '%s' in a type map (expected Py, Cpp or Go, or another of Morloc's languages)%s",
				tl.Lang.Name, suggest.Hint(tl.Lang.Name, []string{"Py", "Cpp", "Go"}))
			continue
		}
		name := tl.Name.Name
		switch {
		case c.aliases[name] != nil:
			c.sink.Errorf(tl.Name.Pos, "type %s is an alias, which takes its language forms from the type it stands for; a type of its own with a native form is a newtype, which is not supported yet", name)
		case c.records[name] != nil:
			rec := c.records[name]
			if lang == "" || rec.typ == nil {
				continue
			}
			if rec.typ.Langs == nil {
				rec.typ.Langs = map[string]string{}
			}
			if prev, dup := rec.typ.Langs[lang]; dup && prev != tl.Native.Value {
				c.sink.Errorf(tl.Pos, "record %s already has a %s type (%q)", name, tl.Lang.Name, prev)
				continue
			}
			rec.typ.Langs[lang] = tl.Native.Value
		case IsBuiltinType(name) || morlocPrimitives[name] || c.nominal.newtypes[name] != nil:
			// Built into the pools; a newtype travels in its body's form.
		default:
			c.sink.Errorf(tl.Name.Pos, "unknown type '%s' in a type map%s", name, suggest.Hint(name, c.typeNames()))
		}
	}
}

// inherit is the docstring d of an argument written as w, with what the
// aliases w names say: walking the alias chain from w toward its root,
// each directive comes from the nearest place that sets it (the use site
// first), and the description from the use site if it has one, else from
// the nearest alias that has one.
func (c *checker) inherit(d doc.Doc, w syntax.Type) doc.Doc {
	var chain []doc.Doc // nearest first
	seen := map[string]bool{}
	for {
		nt, ok := w.(*syntax.NamedType)
		if !ok {
			break
		}
		a := c.aliases[nt.Name]
		if a == nil {
			// A newtype's docstring describes its uses too, and
			// ends the chain (Morloc's reduceArgDoc).
			if n := c.nominal.newtypes[nt.Name]; n != nil {
				chain = append(chain, doc.Parse(n.Doc))
			}
			break
		}
		if seen[a.Name.Name] {
			break
		}
		seen[a.Name.Name] = true
		chain = append(chain, doc.Parse(a.Doc))
		w = a.Body
	}
	if len(chain) == 0 {
		return d
	}
	out := doc.Doc{Lines: d.Lines, Unknown: d.Unknown}
	// Get returns the last directive of a key: the root's go first, the
	// use site's last.
	for i := len(chain) - 1; i >= 0; i-- {
		out.Directives = append(out.Directives, chain[i].Directives...)
	}
	out.Directives = append(out.Directives, d.Directives...)
	if len(out.Lines) == 0 {
		for _, a := range chain {
			if len(a.Lines) > 0 {
				out.Lines = a.Lines
				break
			}
		}
	}
	return out
}
