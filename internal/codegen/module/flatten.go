package module

import (
	"path/filepath"

	"github.com/nexus-run/nexus/internal/codegen/syntax"
)

// mcpLang is the source "language" of an MCP server, whose path is a
// command or URL rather than a file.
const mcpLang = "MCP"

// flatten renames every module's terms to their program-wide names and
// puts all modules' items in one file, the entry's header at its top.
func (l *loader) flatten(entry *module) *syntax.File {
	canon := map[target]string{}
	for _, n := range entry.plain {
		if t := entry.scope[n]; canon[t] == "" {
			canon[t] = n
		}
	}
	name := func(t target) string {
		if n := canon[t]; n != "" {
			return n
		}
		return t.mod.key + "." + t.name
	}
	flat := &syntax.File{}
	header := *entry.file.Module
	if header.All {
		header.All, header.Everything, header.Exports = false, true, l.allExports(entry)
	}
	flat.Module = &header
	standard := map[string]bool{}
	mods := append([]*module{entry}, l.order[:len(l.order)-1]...)
	for _, m := range mods {
		ren := map[string]string{}
		for seen, t := range m.scope {
			ren[seen] = name(t)
		}
		avoidCapture(ren, namesIn(m.file))
		r := &renamer{names: ren, quals: map[string]*module{}, standard: map[string]bool{}, sink: l.sink}
		for _, e := range m.edges {
			if e.imp.As != nil && e.to != nil {
				r.quals[e.imp.As.Name] = e.to
			}
			if e.imp.As != nil && e.to == nil {
				r.standard[e.imp.As.Name] = true
			}
		}
		r.file(m.file)
		if m == entry {
			header.Exports = r.exports(header.Exports)
		}
		if !m.entry {
			l.rebaseSources(m)
		}
		for _, e := range m.edges {
			if e.to == nil && !standard[e.imp.Module.Name] {
				standard[e.imp.Module.Name] = true
				flat.Imports = append(flat.Imports, e.imp)
			}
		}
		add(flat, m.file)
		flat.Aliases = append(flat.Aliases, m.typeAs...)
	}
	return flat
}

// allExports is the export list meant by the entry's `(*)`: every term it
// defines or imported unqualified that has a signature, as the checker's
// `(*)` means for one module.
func (l *loader) allExports(entry *module) []syntax.Name {
	var out []syntax.Name
	for _, n := range entry.plain {
		t := entry.scope[n]
		if t.mod.sigs[t.name] {
			out = append(out, syntax.Name{Pos: entry.order[n], Name: n})
		}
	}
	return out
}

// rebaseSources makes the source paths of m, relative to its own folder,
// relative to the root folder the checker reads them from.
func (l *loader) rebaseSources(m *module) {
	for _, s := range sourcesOf(m.file) {
		if s.Lang.Name == mcpLang || filepath.IsAbs(s.Path.Value) {
			continue
		}
		path := filepath.Join(m.dir, s.Path.Value)
		if rel, err := filepath.Rel(l.root, path); err == nil {
			path = rel
		}
		s.Path.Value = path
	}
}

// add appends the items of f to flat, except its header and imports.
func add(flat, f *syntax.File) {
	flat.Sources = append(flat.Sources, f.Sources...)
	flat.Signatures = append(flat.Signatures, f.Signatures...)
	flat.Records = append(flat.Records, f.Records...)
	flat.RecordLangs = append(flat.RecordLangs, f.RecordLangs...)
	flat.Aliases = append(flat.Aliases, f.Aliases...)
	flat.TypeLangs = append(flat.TypeLangs, f.TypeLangs...)
	flat.Effects = append(flat.Effects, f.Effects...)
	flat.Fixities = append(flat.Fixities, f.Fixities...)
	flat.Defs = append(flat.Defs, f.Defs...)
	flat.Classes = append(flat.Classes, f.Classes...)
	flat.Instances = append(flat.Instances, f.Instances...)
}
