package module

import (
	"sort"
	"unicode"
	"unicode/utf8"

	"github.com/nexus-run/nexus/internal/codegen/check"
	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
)

// IsStandard reports whether name is a standard module (root, root-py,
// ...): one the nexus knows without a file.
func IsStandard(name string) bool { return check.IsStandardModule(name) }

// resolve computes the scope and the exports of m, whose imports are
// resolved already (l.order puts them first).
func (l *loader) resolve(m *module) {
	m.defs, m.sigs = map[string]diag.Pos{}, map[string]bool{}
	m.scope, m.order, m.exports = map[string]target{}, map[string]diag.Pos{}, map[string]target{}
	f := m.file
	for _, d := range f.Defs {
		m.defs[d.Name.Name] = d.Name.Pos
	}
	for _, s := range f.Sources {
		for _, it := range s.Items {
			m.defs[it.Alias.Name] = it.Alias.Pos
		}
	}
	for _, s := range f.Signatures {
		m.sigs[s.Name.Name] = true
		if _, ok := m.defs[s.Name.Name]; !ok {
			m.defs[s.Name.Name] = s.Name.Pos
		}
	}
	own := make([]string, 0, len(m.defs))
	for n := range m.defs {
		own = append(own, n)
	}
	sort.Slice(own, func(i, j int) bool { return before(m.defs[own[i]], m.defs[own[j]]) })
	for _, n := range own {
		m.scope[n], m.order[n] = target{m, n}, m.defs[n]
		m.plain = append(m.plain, n)
	}
	var imported []string // unqualified, for `(*)`
	for _, e := range m.edges {
		if e.to == nil {
			continue
		}
		for _, seen := range l.importEdge(m, e) {
			if e.imp.As == nil {
				imported = append(imported, seen)
			}
		}
	}
	l.exportsOf(m, imported)
}

// importEdge adds to m's scope what the import e brings and returns the
// names it added.
func (l *loader) importEdge(m *module, e edge) []string {
	im, from := e.imp, e.to
	type item struct {
		name, as syntax.Name
	}
	var items []item
	if im.List {
		for _, it := range im.Items {
			if isType(it.Name.Name) {
				l.importType(m, from, it)
				continue
			}
			if c := methodOf(from, it.Name.Name, map[*module]bool{}); c != "" {
				l.sink.Errorf(it.Name.Pos, "'%s' is a method of class %s: import the class instead, as in `import %s (%s)`, which brings its methods", it.Name.Name, c, from.name, c)
				continue
			}
			if _, ok := from.exports[it.Name.Name]; !ok {
				l.sink.Errorf(it.Name.Pos, "module '%s' does not export '%s'%s", from.name, it.Name.Name, suggest.Hint(it.Name.Name, keys(from.exports)))
				continue
			}
			items = append(items, item{it.Name, it.Alias})
		}
	} else {
		names := keys(from.exports)
		sort.Strings(names)
		for _, n := range names {
			items = append(items, item{syntax.Name{Pos: im.Module.Pos, Name: n}, syntax.Name{Pos: im.Module.Pos, Name: n}})
		}
	}
	var added []string
	for _, it := range items {
		seen := it.as.Name
		if im.As != nil {
			seen = im.As.Name + "." + seen
		}
		t := from.exports[it.name.Name]
		if prev, ok := m.scope[seen]; ok {
			if prev != t {
				l.sink.Errorf(it.as.Pos, "'%s' is imported from '%s' but is also %s (at %s)", seen, from.name, l.describe(m, prev), m.order[seen])
			}
			continue
		}
		m.scope[seen], m.order[seen] = t, it.as.Pos
		if im.As == nil {
			m.plain = append(m.plain, seen)
		}
		added = append(added, seen)
	}
	return added
}

// describe says where a name of m's scope comes from.
func (l *loader) describe(m *module, t target) string {
	if t.mod == m {
		return "defined in module '" + m.name + "'"
	}
	return "imported from '" + t.mod.name + "'"
}

// importType handles a type in an import list: types are one namespace,
// so only a renaming (`Path as P`) does anything, declaring the alias.
func (l *loader) importType(m *module, from *module, it syntax.ImportItem) {
	types := typesOf(from, map[*module]bool{})
	if !types[it.Name.Name] {
		names := make([]string, 0, len(types))
		for n := range types {
			names = append(names, n)
		}
		l.sink.Errorf(it.Name.Pos, "module '%s' has no type '%s'%s", from.name, it.Name.Name, suggest.Hint(it.Name.Name, names))
		return
	}
	if it.Alias.Name == it.Name.Name {
		return
	}
	m.typeAs = append(m.typeAs, &syntax.TypeAlias{
		Pos:  it.Alias.Pos,
		Name: it.Alias,
		Body: &syntax.NamedType{Pos: it.Name.Pos, Name: it.Name.Name},
	})
}

// exportsOf fills m.exports from its header: `(*)` is every term it
// defines and every one it imported unqualified; a list names them, and
// naming something else is an error.
func (l *loader) exportsOf(m *module, imported []string) {
	h := m.file.Module
	if h.All {
		for n := range m.defs {
			m.exports[n] = m.scope[n]
		}
		for _, n := range imported {
			m.exports[n] = m.scope[n]
		}
		return
	}
	for _, ex := range h.Exports {
		if isType(ex.Name) {
			continue
		}
		t, ok := m.scope[ex.Name]
		if !ok {
			if !m.entry { // the checker reports the entry's, as for any program
				l.sink.Errorf(ex.Pos, "module '%s' does not export '%s': it is neither defined nor imported there%s", m.name, ex.Name, suggest.Hint(ex.Name, m.plain))
			}
			continue
		}
		m.exports[ex.Name] = t
	}
}

// isType reports whether an import or export names a type or class
// (upper case) rather than a term or an operator.
func isType(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

func keys(m map[string]target) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func before(a, b diag.Pos) bool {
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}

// typesOf is every type declared in m or in a module it imports: types
// are one namespace, so an import list may name any of them.
func typesOf(m *module, seen map[*module]bool) map[string]bool {
	out := map[string]bool{}
	if seen[m] {
		return out
	}
	seen[m] = true
	for _, r := range m.file.Records {
		out[r.Name.Name] = true
	}
	for _, a := range m.file.Aliases {
		out[a.Name.Name] = true
	}
	for _, c := range m.file.Classes {
		out[c.Name.Name] = true
	}
	for _, e := range m.edges {
		if e.to != nil {
			for n := range typesOf(e.to, seen) {
				out[n] = true
			}
		}
	}
	return out
}
