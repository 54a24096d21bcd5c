package check

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/source"
	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
)

// standardModules are the modules `import` accepts. Their type mappings
// are built into the nexus, so importing them only has to be allowed.
var standardModules = func() map[string]bool {
	m := map[string]bool{}
	for _, base := range []string{"root", "base", "map", "list", "math", "str", "string", "json", "types", "conventions", "prelude", "maybe"} {
		m[base] = true
		for _, suffix := range []string{"-py", "-cpp", "-go"} {
			m[base+suffix] = true
		}
	}
	return m
}()

// standardImports lists the standard modules the program imports.
func (c *checker) standardImports() []string {
	var out []string
	for _, im := range c.file.Imports {
		if standardModules[im.Module.Name] {
			out = append(out, im.Module.Name)
		}
	}
	return out
}

// IsStandardModule reports whether name is a module `import` accepts
// without a file of the program's.
func IsStandardModule(name string) bool { return standardModules[name] }

func (c *checker) imports() {
	for _, im := range c.file.Imports {
		name := im.Module.Name
		if standardModules[name] {
			continue
		}
		known := make([]string, 0, len(standardModules))
		for m := range standardModules {
			known = append(known, m)
		}
		c.sink.Errorf(im.Module.Pos, "unknown import '%s'%s; the standard modules are root, base, map, list, math, str, json and types, each also with -py, -cpp or -go", name, suggest.Hint(name, known))
	}
}

// sources finds every sourced name in its file, or declares the tools of
// an MCP server, and declares it.
func (c *checker) sources() {
	for _, s := range c.file.Sources {
		c.warnMisplaced(s)
		if s.Lang.Name == mcpLang {
			c.mcpSource(s)
			continue
		}
		for _, f := range c.sourcedFunctions(s) {
			c.declare(f)
		}
	}
}

// reserved reports, and says, that name is one Morloc reserves for the
// code it generates: names beginning with mlcp_.
func (c *checker) reserved(name string, pos diag.Pos) bool {
	if !strings.HasPrefix(name, "mlcp_") {
		return false
	}
	c.sink.Errorf(pos, "Names beginning with 'mlcp_' are reserved: '%s' (Morloc's generated code uses them); rename it", name)
	return true
}

// builtinFunctions are the names of `source Py ("len" as size)`, the
// language's own builtins: Python's only, found in its builtins module
// when the pool starts.
func (c *checker) builtinFunctions(s *syntax.Source, lang string) []*function {
	if fns, ok := c.operatorsOnly(s, lang); ok {
		return fns
	}
	if lang != manifest.Python {
		c.sink.Errorf(s.Lang.Pos, "a source without 'from' names the language's builtins, which only Python's pool has; write `source %s from \"FILE\" (...)`", s.Lang.Name)
		return nil
	}
	var out []*function
	for _, it := range s.Items {
		if it.Infix {
			if f := c.foreignFunction(it, lang, sourced.BuiltinsFile); f != nil {
				out = append(out, f)
			}
			continue
		}
		out = append(out, &function{name: it.Alias.Name, source: it.Name.Value, lang: lang, path: sourced.BuiltinsFile, pos: it.Alias.Pos, server: -1})
	}
	return out
}

// sourcedFunctions finds the names of a Py, Cpp or Go source line in its
// file and returns them as functions, not yet declared.
func (c *checker) sourcedFunctions(s *syntax.Source) []*function {
	lang, ok := langs[s.Lang.Name]
	if !ok {
		c.sink.Errorf(s.Lang.Pos, "unknown source language '%s' (expected Py, Cpp, Go or MCP)%s", s.Lang.Name, suggest.Hint(s.Lang.Name, []string{"Py", "Cpp", "Go", mcpLang}))
		return nil
	}
	if s.Builtin {
		return c.builtinFunctions(s, lang)
	}
	path := c.abs(s.Path.Value)
	text, ok := c.readSource(path, lang)
	if !ok {
		c.sink.Errorf(s.Path.Pos, "Source file not found: %q (looked for %s)", s.Path.Value, path)
	}
	var out []*function
	for _, it := range s.Items {
		c.sourceItemDoc(it)
		if it.Infix {
			if f := c.foreignFunction(it, lang, path); f != nil {
				out = append(out, f)
			}
			continue
		}
		name, pos := foreignName(it)
		if ok && !source.Defines(lang, text, name) {
			c.sink.Errorf(pos, "%q is not defined in %s%s", name, s.Path.Value, definedHint(lang))
		}
		out = append(out, &function{name: it.Alias.Name, source: name, lang: lang, path: path, pos: it.Alias.Pos, server: -1})
	}
	return out
}

// warnMisplaced warns about the directives of a source line other than
// an MCP server's, which have no effect.
func (c *checker) warnMisplaced(s *syntax.Source) {
	if s.Lang.Name == mcpLang {
		return
	}
	d := doc.Parse(s.Doc)
	c.warnUnknown(d)
	for _, dir := range d.Directives {
		c.sink.Warnf(dir.Pos, "directive '%s' has no effect on a %s source; ignored", dir.Key, s.Lang.Name)
	}
}

// declare adds a sourced function, unless its name is taken.
//
// Sources of one name in several languages are alternatives, as in
// Morloc, which chooses among them; nexus takes the first in the file.
func (c *checker) declare(f *function) {
	if c.reserved(f.name, f.pos) {
		return
	}
	if prev := c.funcs[f.name]; prev != nil {
		if prev.lang == f.lang || prev.lang == manifest.MCP || f.lang == manifest.MCP {
			c.sink.Errorf(f.pos, "Ambiguous source declarations: '%s' is sourced twice (first at %s)", f.name, prev.pos)
		}
		return
	}
	f.index = len(c.funcList)
	c.funcs[f.name] = f
	c.funcList = append(c.funcList, f)
}

func definedHint(lang string) string {
	switch lang {
	case manifest.Python:
		return " (looked for a top-level def, class, assignment or import of it)"
	case manifest.Cpp:
		return " (looked for a function of that name)"
	case manifest.Go:
		return " (looked for a top-level func of that name)"
	}
	return ""
}

// readSource reads a source file once. For a C++ header, the .cpp beside
// it is read too, since a function declared in the header may be defined
// there.
func (c *checker) readSource(path, lang string) (string, bool) {
	if text, ok := c.texts[path]; ok {
		return text, true
	}
	st, err := os.Stat(path)
	if err != nil || st.IsDir() {
		return "", false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	text := string(data)
	if lang == manifest.Cpp {
		cpp := strings.TrimSuffix(path, filepath.Ext(path)) + ".cpp"
		if cpp != path {
			if more, err := os.ReadFile(cpp); err == nil {
				text += "\n" + string(more)
			}
		}
	}
	c.texts[path] = text
	return text, true
}
