package check

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/source"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
)

// standardModules are the modules `import` accepts. Their type mappings
// are built into the nexus, so importing them only has to be allowed.
var standardModules = func() map[string]bool {
	m := map[string]bool{}
	for _, base := range []string{"root", "base", "map", "list", "math", "str", "string", "json", "types", "conventions", "prelude"} {
		m[base] = true
		for _, suffix := range []string{"-py", "-cpp", "-go"} {
			m[base+suffix] = true
		}
	}
	return m
}()

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
		lang, ok := langs[s.Lang.Name]
		if !ok {
			c.sink.Errorf(s.Lang.Pos, "unknown source language '%s' (expected Py, Cpp, Go or MCP)%s", s.Lang.Name, suggest.Hint(s.Lang.Name, []string{"Py", "Cpp", "Go", mcpLang}))
			continue
		}
		path := c.abs(s.Path.Value)
		text, ok := c.readSource(path, lang)
		if !ok {
			c.sink.Errorf(s.Path.Pos, "source file %q not found (looked for %s)", s.Path.Value, path)
		}
		for _, it := range s.Items {
			if ok && !source.Defines(lang, text, it.Name.Value) {
				c.sink.Errorf(it.Name.Pos, "%q is not defined in %s%s", it.Name.Value, s.Path.Value, definedHint(lang))
			}
			c.declare(&function{name: it.Alias.Name, source: it.Name.Value, lang: lang, path: path, pos: it.Alias.Pos, server: -1})
		}
	}
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
func (c *checker) declare(f *function) {
	if prev := c.funcs[f.name]; prev != nil {
		c.sink.Errorf(f.pos, "'%s' is sourced twice (first at %s)", f.name, prev.pos)
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
