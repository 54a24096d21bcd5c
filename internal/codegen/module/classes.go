package module

import "github.com/nexus-run/nexus/internal/codegen/syntax"

// Classes and instances travel with modules: flatten puts every module's
// class and instance declarations in the program, whatever its importers'
// lists name (`import m ()` brings in only its instances). Class names
// are types (one namespace, never renamed); method names are global too,
// so an instance's method keeps its name while the terms its body uses
// are renamed like any of its module's.

// instances renames the bodies of f's instances, not their methods'
// names.
func (r *renamer) instances(f *syntax.File) {
	for _, in := range f.Instances {
		for _, d := range in.Defs {
			method := d.Name
			r.def(d)
			d.Name = method
		}
	}
}

// sourcesOf lists f's source declarations, its instances' included.
func sourcesOf(f *syntax.File) []*syntax.Source {
	out := append([]*syntax.Source(nil), f.Sources...)
	for _, in := range f.Instances {
		out = append(out, in.Sources...)
	}
	return out
}

// methodOf is the class of from, or of a module it imports, that has a
// method called name, or "".
func methodOf(from *module, name string, seen map[*module]bool) string {
	if seen[from] {
		return ""
	}
	seen[from] = true
	for _, c := range from.file.Classes {
		for _, m := range c.Methods {
			if m.Name.Name == name {
				return c.Name.Name
			}
		}
	}
	for _, e := range from.edges {
		if e.to != nil {
			if c := methodOf(e.to, name, seen); c != "" {
				return c
			}
		}
	}
	return ""
}
