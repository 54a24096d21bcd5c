// Package golang generates and builds a program's Go pool inside its build
// folder.
//
// The pool is a Go module (nexuspool) built with `go build`:
//
//	pools/go/
//	  go.mod, go.sum       the nexus module's requirements, and a replace
//	                       pointing module github.com/nexus-run/nexus at ./nexus
//	  nexus/               the runtime (pools/go) and package proto, written
//	                       from copies embedded in the nexus binary
//	  user/NAME/           each Go package of the user's: the sourced files
//	                       (and, for a non-main package, the other files of
//	                       its folder), plus nexus_pool.go, generated
//	  main.go              imports the user packages and calls gopool.Serve
//	  pool                 the binary the manifest launches
//
// A user's file may declare any package name. It is copied into a package
// of its own with a //line directive in front, so compile errors and panic
// stack traces name the user's file and lines; a `package main` file gets a
// package name derived from its file name, since main cannot be imported.
// The user's Go code may import the standard library and the modules the
// nexus itself is built with, not other modules.
//
// The generated nexus_pool.go lives inside the user's package, so it can
// call unexported functions and name unexported types. It holds direct,
// typed conversion code for every argument and result (see converters),
// worked out from the Go types the user's functions declare, read from the
// source (see goType): the program says Int, the function says int8, and
// the generated code converts to int8 and fails clearly when a value does
// not fit. A Go type that cannot hold the program's type is a build error
// at the user's line. How program types meet Go types:
//
//   - Int: any integer type; Real: float64 or float32; Str: string; Bool:
//     bool; a named type over one of these too (type Celsius float64).
//   - [T]: a slice; Map K V: a map (sent back sorted by key, since a Go
//     map has no order); ?T: a pointer, nil is none. A pointer also holds
//     a value that is not optional (func F(s *Settings)).
//   - Tuples: any struct with one field per item, in order, or an array
//     when all items share a type. There is no type mapping for tuples in
//     the language, so the struct the function declares is the mapping.
//   - Records: a struct whose fields match the record's by name, exactly,
//     else ignoring case (mean and Mean), else also ignoring underscores
//     (tmp_dir and TmpDir). A `record Go => R = "T"` mapping must name the
//     struct the function uses.
//   - (): no parameter (`now :: () -> Int` is `func Now() int`) or
//     struct{}; as a result, no result.
//   - Results: one value, or one per item of a tuple result, optionally
//     followed by an error, whose message is then the call's failure. A
//     variadic last parameter takes a list.
package golang

import (
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/manifest"
	gopool "github.com/nexus-run/nexus/pools/go"
)

// Function is one sourced Go function to serve.
type Function = sourced.Function

// Names inside the generated module.
const (
	// BinaryName is the pool's executable inside its folder.
	BinaryName = "pool"
	// runtimeDir holds the copy of the nexus module.
	runtimeDir = "nexus"
	// generatedFile is the generated file inside each user package.
	generatedFile = "nexus_pool.go"
)

// modulePath is the generated pool's module: the first element of the
// runtime's UserPackages, under which stack traces show user packages by
// their own names.
var modulePath, _, _ = strings.Cut(gopool.UserPackages, "/")

// prefix starts every name the generated code declares in a user's
// package.
const prefix = gopool.GeneratedPrefix

// Write writes the Go pool's module into dir (creating it), builds it, and
// returns the pool's launch command for the manifest, using
// manifest.BuildDirVar paths. dir must be inside buildDir.
//
// A user's Go code that does not compile is a *CompileError, whose
// messages name the user's files and lines.
func Write(dir, buildDir string, fns []Function) ([]string, error) {
	rel, err := filepath.Rel(buildDir, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("go pool folder %s is not inside the build folder %s", dir, buildDir)
	}
	m, err := generate(fns)
	if err != nil {
		return nil, err
	}
	if err := m.write(dir); err != nil {
		return nil, err
	}
	reusePrevious(dir, buildDir, rel)
	if err := buildPool(dir, m); err != nil {
		return nil, err
	}
	return []string{manifest.BuildDirVar + "/" + filepath.ToSlash(filepath.Join(rel, BinaryName))}, nil
}

// module is a generated pool module, ready to write.
type module struct {
	files map[string][]byte // path inside the module -> contents
	// copies maps a copied user file's path inside the module to the
	// user's file, to point compiler messages at the user's file.
	copies map[string]string
}

// generate works out the whole module for fns.
func generate(fns []Function) (*module, error) {
	sorted, err := sourced.Sorted("go", fns)
	if err != nil {
		return nil, err
	}
	sorted, loops, err := preludeLoops(sorted)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(sorted))
	for i, f := range sorted {
		paths[i] = f.File
	}
	pkgs, byFile, err := loadPackages(paths)
	if err != nil {
		return nil, err
	}
	byID := map[int]Function{}
	for _, f := range sorted {
		byID[f.Spec.ID] = f
	}
	m := &module{files: map[string][]byte{}, copies: map[string]string{}}
	dirs := map[string]bool{}
	var imports []string
	for _, p := range pkgs {
		name, dir := packageNames(p, dirs)
		c := newConverters(p, byID)
		var regs strings.Builder
		for _, f := range sorted {
			if byFile[f.File] != p {
				continue
			}
			call, err := c.call(f)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&regs, "\t%s.Register(%d, %s.Function{Name: %q, Args: %d, Call: %s})\n",
				rt, f.Spec.ID, rt, f.Spec.Name, len(f.Spec.Args), call)
		}
		gen, err := generatedPackageFile(name, regs.String(), c.code.String())
		if err != nil {
			return nil, err
		}
		m.files[dir+"/"+generatedFile] = gen
		for _, f := range p.files {
			target := dir + "/" + copyName(f.path)
			if _, clash := m.files[target]; clash {
				return nil, fmt.Errorf("%s: a Go source may not be called %s", diag.DisplayPath(f.path), generatedFile)
			}
			m.files[target] = copyWithLine(f, p, name)
			m.copies[target] = f.path
		}
		imports = append(imports, modulePath+"/"+dir)
	}
	m.files["main.go"] = mainFile(imports, loops)
	m.files["go.mod"] = poolGoMod()
	m.files["go.sum"] = gopool.GoSum()
	return m, nil
}

// packageNames picks the generated package's name and folder (user/NAME),
// unique within the module.
func packageNames(p *userPackage, taken map[string]bool) (name, dir string) {
	name = p.name
	if name == "main" {
		name = identifier(strings.TrimSuffix(filepath.Base(p.files[0].path), ".go"))
	}
	base := strings.TrimPrefix(gopool.UserPackages, modulePath+"/") + name
	dir = base
	for i := 2; taken[dir]; i++ {
		dir = fmt.Sprintf("%s%d", base, i)
	}
	taken[dir] = true
	return name, dir
}

// identifier turns a file name into a package name.
func identifier(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == '_' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	name := b.String()
	if name == "" || unicode.IsDigit(rune(name[0])) || name == "main" || isKeyword(name) {
		name = "user_" + name
	}
	return name
}

func isKeyword(s string) bool {
	switch s {
	case "break", "case", "chan", "const", "continue", "default", "defer", "else",
		"fallthrough", "for", "func", "go", "goto", "if", "import", "interface",
		"map", "package", "range", "return", "select", "struct", "switch", "type", "var":
		return true
	}
	return false
}

// copyName is the name of a copy of a user's file: its own, unless Go
// would take it for a test.
func copyName(path string) string {
	name := filepath.Base(path)
	if strings.HasSuffix(name, "_test.go") {
		name = strings.TrimSuffix(name, ".go") + "_.go"
	}
	return name
}

// copyWithLine returns the user's file with a //line directive in front,
// so the compiler and the runtime report positions in the user's file, and
// with its package clause renamed to name.
func copyWithLine(f *userFile, p *userPackage, name string) []byte {
	src := f.src
	if f.ast.Name.Name != name {
		off := p.fset.Position(f.ast.Name.Pos()).Offset
		src = append(append(append([]byte{}, src[:off]...), name...), src[off+len(f.ast.Name.Name):]...)
	}
	return append([]byte("//line "+f.path+":1:1\n"), src...)
}

// generatedPackageFile is nexus_pool.go of a user package.
func generatedPackageFile(pkg, registrations, code string) ([]byte, error) {
	var b strings.Builder
	b.WriteString("// Code generated by `nexus make`: how the Go pool calls the functions of\n")
	b.WriteString("// this package. DO NOT EDIT; rebuild the program instead.\n\n")
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t%s %q\n\t%s %q\n\t%s %q\n)\n\n", pkg, ctxPkg, "context", rt, gopool.ImportPath, mp, "github.com/vmihailenco/msgpack/v5")
	b.WriteString("func init() {\n" + registrations + "}\n")
	b.WriteString(code)
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("internal error: the generated Go code does not parse: %w\n%s", err, b.String())
	}
	return out, nil
}

// mainFile is main.go: it imports the user packages, whose init functions
// register their functions, registers the prelude's loops the program
// runs in the pool, and serves.
func mainFile(imports []string, loops []Function) []byte {
	var b strings.Builder
	b.WriteString("// Code generated by `nexus make`: the Go pool of this program. DO NOT EDIT;\n")
	b.WriteString("// rebuild the program instead.\n\npackage main\n\nimport (\n")
	fmt.Fprintf(&b, "\tgopool %q\n\n", gopool.ImportPath)
	for _, im := range imports {
		fmt.Fprintf(&b, "\t_ %q\n", im)
	}
	b.WriteString(")\n\n")
	if len(loops) > 0 {
		b.WriteString("func init() {\n")
		for _, f := range loops {
			fmt.Fprintf(&b, "\tgopool.RegisterPrelude(%d, %q, %q)\n", f.Spec.ID, f.Spec.Source, f.Spec.Name)
		}
		b.WriteString("}\n\n")
	}
	b.WriteString("func main() {\n\tgopool.Serve()\n}\n")
	return []byte(b.String())
}

// preludeLoops splits the prelude's loops (sourced.PreludeFile: part of
// the runtime, pools/go/prelude.go) from the user's functions.
func preludeLoops(fns []Function) (user, loops []Function, err error) {
	for _, f := range fns {
		if f.File != sourced.PreludeFile {
			user = append(user, f)
			continue
		}
		if !gopool.HasPrelude(f.Spec.Source) {
			return nil, nil, fmt.Errorf("the Go pool's runtime has no prelude function %s (for %s)", f.Spec.Source, f.Spec.Name)
		}
		loops = append(loops, f)
	}
	return user, loops, nil
}

// poolGoMod is the generated module's go.mod: the nexus module's go
// version and requirements, and the nexus module itself from ./nexus.
func poolGoMod() []byte {
	text := string(gopool.GoMod(modulePath))
	text += fmt.Sprintf("\nrequire %s %s\n\nreplace %s => ./%s\n", gopool.ModulePath, gopool.ModuleVersion, gopool.ModulePath, runtimeDir)
	return []byte(text)
}

// write writes the module into dir.
func (m *module) write(dir string) error {
	if err := gopool.WriteModule(filepath.Join(dir, runtimeDir)); err != nil {
		return err
	}
	names := make([]string, 0, len(m.files))
	for name := range m.files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("write go pool: %w", err)
		}
		if err := os.WriteFile(path, m.files[name], 0o644); err != nil {
			return fmt.Errorf("write go pool: %w", err)
		}
	}
	return nil
}
