// Package module reads the module graph of a `.loc` program (its local
// imports, `import .helpers`, the files they name and the modules declared
// together in one file) and flattens it into the one syntax.File that
// codegen/check takes, so that the checker's single namespace and every
// later stage stay as they are.
//
// Flattening renames what each module must not see of the others: a term
// of an imported module keeps its name where the program's own module
// (the entry) sees it unqualified, and is otherwise named `key.name` (key
// the module's path, `lib.math`), a name no program can write since a
// qualified name is one level deep. Each module's references are renamed
// to those names through its own scope, so a qualified `h.double`, an
// `import m (mean as avg)` and a name the importer may not see (not
// exported) all resolve as Morloc's module system says. Types are one
// namespace, as in Morloc (a qualifier does not apply to them).
package module

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
)

// module is one module of the program.
type module struct {
	key   string // unique in the program; prefixes its hidden names
	name  string // as declared, or the import path when it declares none
	file  *syntax.File
	dir   string // absolute folder of its file: its source paths are relative to it
	entry bool
	// siblings are the modules declared in the same file, by name: a
	// bare import names them before any file.
	siblings map[string]*module
	edges    []edge

	state   int                 // unvisited, visiting, done: see loader.visit
	defs    map[string]diag.Pos // its own terms
	sigs    map[string]bool     // its own terms with a signature
	scope   map[string]target   // every term name it sees, own and imported
	plain   []string            // the unqualified names of scope, own first, in order
	exports map[string]target   // what an importer may see
	typeAs  []*syntax.TypeAlias // `import m (Path as P)`
	order   map[string]diag.Pos // where a scope name came from
}

// edge is one import of a module; to is nil for a standard module.
type edge struct {
	imp *syntax.Import
	to  *module
}

// target is a term: the module that defines it and its name there.
type target struct {
	mod  *module
	name string
}

const (
	unvisited = iota
	visiting
	done
)

// loader reads the module graph.
type loader struct {
	sink     *diag.Sink
	root     string               // absolute folder of the entry file: local imports start here
	rootShow string               // the same as the user wrote it, for positions
	files    map[string][]*module // parsed files by absolute path
	keys     map[string]bool
	order    []*module // dependencies before their importers
	stack    []*module // the imports being followed, for cycles
}

// Load reads the program whose entry file is path, with text src, and the
// modules it imports, and returns them as one file. Errors go to sink,
// each in the file it is in; the result is nil when loading failed.
func Load(path, src string, sink *diag.Sink) *syntax.File {
	abs, err := filepath.Abs(path)
	if err != nil {
		sink.Errorf(diag.Pos{Line: 1, Col: 1}, "%v", err)
		return nil
	}
	l := &loader{sink: sink, root: filepath.Dir(abs), rootShow: filepath.Dir(path), files: map[string][]*module{}, keys: map[string]bool{}}
	mods := l.parse(abs, "", src, "")
	if sink.HasErrors() {
		return nil
	}
	entry := mods[len(mods)-1]
	entry.entry = true
	if len(mods) == 1 && !l.hasModuleImports(entry) {
		return entry.file // a program of one module: nothing to flatten
	}
	l.visit(entry)
	if sink.HasErrors() {
		return nil
	}
	for _, m := range l.order {
		l.resolve(m)
	}
	if sink.HasErrors() {
		return nil
	}
	return l.flatten(entry)
}

// parse parses the file at abs (shown as show in positions) into its
// modules, keyed under prefix. The last module of a file is the one an
// import of the file means.
func (l *loader) parse(abs, show, src, prefix string) []*module {
	if mods, ok := l.files[abs]; ok {
		return mods
	}
	files := syntax.ParseModules(src, show, l.sink)
	siblings := map[string]*module{}
	var mods []*module
	for i, f := range files {
		m := &module{file: f, dir: filepath.Dir(abs), siblings: siblings}
		if f.Module == nil {
			f.Module = headerless(show)
		}
		m.name = f.Module.Name.Name
		last := i == len(files)-1
		switch {
		case last && prefix != "":
			m.key = prefix
		case prefix != "":
			m.key = prefix + "." + m.name
		default:
			m.key = m.name
		}
		if m.name == "" {
			// `module (*)`: named after its import, or its file.
			m.name = prefix
			if m.name == "" {
				m.name = strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
			}
			f.Module.Name.Name = m.name
		}
		m.key = l.uniqueKey(m.key)
		if m.name != "" {
			siblings[m.name] = m
		}
		mods = append(mods, m)
	}
	l.files[abs] = mods
	return mods
}

func (l *loader) uniqueKey(key string) string {
	if key == "" {
		key = "module"
	}
	k := key
	for i := 2; l.keys[k]; i++ {
		k = fmt.Sprintf("%s%d", key, i)
	}
	l.keys[k] = true
	return k
}

// hasModuleImports reports whether m imports anything but standard
// modules.
func (l *loader) hasModuleImports(m *module) bool {
	for _, im := range m.file.Imports {
		if im.Local || !IsStandard(im.Module.Name) || im.As != nil {
			return true
		}
	}
	return false
}

// visit follows the imports of m depth first, reporting cycles, and puts
// m in l.order after what it imports.
func (l *loader) visit(m *module) {
	if m.state == done {
		return
	}
	m.state = visiting
	l.stack = append(l.stack, m)
	for _, im := range m.file.Imports {
		to := l.find(m, im)
		if to == nil {
			m.edges = append(m.edges, edge{imp: im})
			continue
		}
		if to == m {
			l.sink.Errorf(im.Module.Pos, "module '%s' imports itself", m.name)
			continue
		}
		if to.state == visiting {
			l.sink.Errorf(im.Module.Pos, "import cycle: %s", l.cycle(to))
			continue
		}
		m.edges = append(m.edges, edge{imp: im, to: to})
		l.visit(to)
	}
	l.stack = l.stack[:len(l.stack)-1]
	m.state = done
	l.order = append(l.order, m)
}

// cycle names the modules of the import cycle that returns to m.
func (l *loader) cycle(m *module) string {
	var names []string
	for i := len(l.stack) - 1; i >= 0; i-- {
		names = append([]string{l.stack[i].name}, names...)
		if l.stack[i] == m {
			break
		}
	}
	return strings.Join(append(names, m.name), " -> ")
}

// find resolves an import of m: a module declared beside m, a local file,
// or, for a bare name that is no standard module, a file in the root
// folder. It returns nil for a standard module and after an error.
func (l *loader) find(m *module, im *syntax.Import) *module {
	name := im.Module.Name
	if !im.Local {
		if sib := m.siblings[name]; sib != nil {
			return sib
		}
		if IsStandard(name) {
			return nil
		}
	}
	rel := filepath.FromSlash(strings.ReplaceAll(name, ".", "/"))
	tried := []string{rel + ".loc", filepath.Join(rel, "main.loc")}
	for _, try := range tried {
		abs := filepath.Join(l.root, try)
		data, err := os.ReadFile(abs)
		if err != nil {
			continue
		}
		if !im.Local {
			l.sink.Warnf(im.Module.Pos, "'%s' is not a standard module; found %s in the program's folder: write `import .%s` for a local module", name, try, name)
		}
		mods := l.parse(abs, filepath.Join(l.rootShow, try), string(data), name)
		if len(mods) == 0 {
			return nil
		}
		return mods[len(mods)-1]
	}
	if !im.Local {
		return nil // the checker reports an unknown standard module
	}
	l.sink.Errorf(im.Module.Pos, "module '.%s' not found (looked for %s and %s in %s)", name, filepath.ToSlash(tried[0]), filepath.ToSlash(tried[1]), l.root)
	return nil
}
