// Package check is the semantic half of the `.loc` front end: it takes a
// parsed file and produces the manifest of the program, or reports why it
// cannot.
//
// It resolves types and records, finds every sourced function in its
// source file, type-checks definitions against their signatures, inlines
// definitions into the commands that use them (the manifest has calls of
// sourced functions only), and turns signatures and their docstring
// directives into the command-line and MCP surface of each command.
// Errors and warnings go to a diag.Sink; checking goes on after an error
// so that one build reports as many problems as it can.
package check

import (
	"path/filepath"
	"sort"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Result is a checked program.
type Result struct {
	// Manifest lists the pools by language only; pool generators fill in
	// their launch commands.
	Manifest *manifest.Manifest
	// Sources maps a function id to the absolute path of its source file.
	Sources map[int]string
}

// Check checks f, parsed from a file in folder dir (source paths are
// relative to it). It returns nil when it reported an error to sink.
func Check(f *syntax.File, dir string, sink *diag.Sink) *Result {
	c := &checker{
		file:    f,
		dir:     dir,
		sink:    sink,
		records: map[string]*record{},
		funcs:   map[string]*function{},
		sigs:    map[string]*signature{},
		defs:    map[string]*definition{},
		texts:   map[string]string{},

		builtins:    map[string]*builtinFn{},
		preludeDefs: map[string]bool{},
	}
	if f.Module == nil {
		sink.Errorf(diag.Pos{Line: 1, Col: 1}, "missing module header: expected `module NAME (exported names)` or `module NAME (*)`")
		return nil
	}
	c.imports()
	c.collectAliases()
	c.collectNewtypes()
	c.collectRecords()
	c.applyTypeLangs()
	c.checkMimes()
	c.checkGeneratedStructs()
	c.collectFixities()
	c.sources()
	c.signatures()
	c.checkEffects()
	c.definitions()
	c.loadPrelude(c.standardImports())
	c.collectClasses()
	c.collectPacking()
	c.checkDefinitions()
	c.checkBodyEffects()
	moduleText, epilogue := c.moduleDoc(f.Module.Doc)
	m := &manifest.Manifest{
		Nexus:     manifest.NexusVersion,
		Name:      f.Module.Name.Name,
		Doc:       moduleText,
		Epilogue:  epilogue,
		Pools:     []manifest.Pool{},
		Functions: []manifest.Function{},
		Commands:  c.commands(),
	}
	m.Groups = c.commandGroups(m.Commands)
	if sink.HasErrors() {
		return nil
	}
	if len(m.Commands) == 0 {
		sink.Warnf(f.Module.Name.Pos, "the program has no commands: export a definition or sourced function that has a signature (module %s (name, ...))", m.Name)
	}
	sources := c.linkFunctions(m)
	return &Result{Manifest: m, Sources: sources}
}

// checker holds what is known about the program while it is checked.
type checker struct {
	file *syntax.File
	dir  string
	sink *diag.Sink

	records  map[string]*record
	aliases  map[string]*syntax.TypeAlias
	nominal  nominalTypes
	funcs    map[string]*function // sourced functions by program name
	funcList []*function          // in source order
	servers  []*server            // the `source MCP` declarations, in order
	sigs     map[string]*signature
	defs     map[string]*definition
	texts    map[string]string // source file contents by absolute path
	// instances are the concrete copies of generic sourced functions, by
	// name and types (instanceOf).
	instances map[string]*function
	// builtins are the prelude's builtins in scope, preludeDefs the
	// prelude's definitions (in defs), poolPreludes the pools' copies of
	// builtins declared so far (prelude.go).
	builtins     map[string]*builtinFn
	preludeDefs  map[string]bool
	poolPreludes map[string]*function
	// inferring maps the placeholder types of the parameters of a
	// definition whose signature is being inferred to what they were
	// found to be, nil while unknown (inferSignature).
	inferring map[string]*types.Type
	later     laterState // laterinference.go
	// recDefs are the recursive definitions made so far (recursion.go).
	recDefs []*manifest.Def
	classes classTable // classes.go
	// alone is set while definitions are checked on their own, at the
	// type variables of their signatures rather than at a use's types.
	alone bool

	steps     int  // elaboration steps taken, see maxSteps
	nesting   int  // elaborations in progress, see maxNesting
	exhausted bool // the step budget ran out and was reported
	// slots is the number of variables of the body being elaborated:
	// its arguments, then the values of the lets around the expression
	// being elaborated (see let).
	slots int

	// userFixities are the fixities the program declares for its own
	// operators (userops.go).
	userFixities map[string]fixity
}

// function is a sourced function.
type function struct {
	name   string // in the program
	source string // in its language
	lang   string
	path   string // absolute; empty for an MCP tool
	pos    diag.Pos
	index  int // in funcList
	sig    *signature

	// For an MCP tool (lang is manifest.MCP) only.
	server int      // in checker.servers
	params []string // the tool's argument names; see manifest.Function.Params

	infix bool // a foreign operator (foreignops.go)
}

// signature is a resolved type signature.
type signature struct {
	decl   *syntax.Signature
	params []*types.Type
	result *types.Type
	ok     bool // every type resolved
	tool   bool // the signature of an MCP tool
}

// definition is a `name args = body` with its signature, if any.
type definition struct {
	decl *syntax.Def
	sig  *signature
	// broken is set for definitions in a cycle that cannot be recursive;
	// uses of them are not checked further, the cycle having been
	// reported.
	broken bool
	// recursive is set for definitions in a cycle of definitions with
	// concrete signatures: they are called (a manifest.Def), not inlined
	// (recursion.go).
	recursive bool
	compiled  bool // its manifest.Def is made, at index rec
	rec       int
}

// linkFunctions puts in m the sourced functions the commands call, in
// source order, numbers them, renumbers the calls, and lists the pools
// and MCP servers they need.
func (c *checker) linkFunctions(m *manifest.Manifest) map[int]string {
	used := map[int]bool{}
	defIDs := map[int]int{} // c.recDefs index -> m.Defs index
	var exprs []*manifest.Expr
	seen := map[*manifest.Expr]bool{}
	var walk func(e *manifest.Expr)
	walk = func(e *manifest.Expr) {
		if e == nil || seen[e] {
			return
		}
		seen[e] = true
		exprs = append(exprs, e)
		if e.Kind == manifest.Call || e.Kind == manifest.FnRef {
			used[e.Ref] = true
		}
		if e.Kind == manifest.Apply {
			if _, ok := defIDs[e.Ref]; !ok {
				defIDs[e.Ref] = len(m.Defs)
				m.Defs = append(m.Defs, *c.recDefs[e.Ref])
				walk(c.recDefs[e.Ref].Body)
			}
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	for i := range m.Commands {
		walk(m.Commands[i].Body)
		for _, a := range m.Commands[i].Actions {
			walk(a.Body)
		}
	}
	ids := map[int]int{}
	sources := map[int]string{}
	langs := map[string]bool{}
	servers := map[int]int{} // checker.servers index -> m.Servers index
	c.linkPacking(used)
	for _, f := range c.funcList {
		if !used[f.index] {
			continue
		}
		id := len(m.Functions)
		ids[f.index] = id
		fn := manifest.Function{
			ID: id, Name: f.name, Source: f.source, Pool: f.lang,
			Args: append([]*types.Type{}, f.sig.params...), Return: f.sig.result,
			Infix: f.infix,
		}
		if f.lang == manifest.MCP {
			fn.Server, fn.Params = c.linkServer(m, f.server, servers), f.params
		} else {
			sources[id] = f.path
			langs[f.lang] = true
		}
		m.Functions = append(m.Functions, fn)
	}
	c.renumberPacking(ids)
	for _, e := range exprs {
		switch e.Kind {
		case manifest.Call, manifest.FnRef:
			e.Ref = ids[e.Ref]
		case manifest.Apply:
			e.Ref = defIDs[e.Ref]
		}
	}
	for _, lang := range []string{manifest.Python, manifest.Cpp, manifest.Go} {
		if langs[lang] {
			m.Pools = append(m.Pools, manifest.Pool{Lang: lang})
		}
	}
	return sources
}

// linkServer returns the index in m.Servers of c.servers[i], adding it
// the first time a command calls one of its tools: like pools, only the
// servers the commands use are in the manifest.
func (c *checker) linkServer(m *manifest.Manifest, i int, linked map[int]int) int {
	if j, ok := linked[i]; ok {
		return j
	}
	linked[i] = len(m.Servers)
	m.Servers = append(m.Servers, c.servers[i].spec)
	return linked[i]
}

// sourceOrder sorts names by the position they were declared at.
func sourceOrder(names []string, pos func(string) diag.Pos) {
	sort.SliceStable(names, func(i, j int) bool {
		a, b := pos(names[i]), pos(names[j])
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

func (c *checker) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(c.dir, path)
}
