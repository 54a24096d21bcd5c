package golang

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

// A userPackage is a Go package of the user's, as the pool compiles it:
// the sourced files of one folder that share a package clause, together
// with the other files of that package in the folder (Go compiles a
// package, not a file, so a sourced file may use its siblings' helpers and
// types). A `package main` folder is an exception: its files are often
// separate programs, so only the sourced files of it are compiled.
type userPackage struct {
	dir   string // the user's folder
	name  string // the package clause's name
	files []*userFile
	// funcs and types are the package's top-level functions (and
	// variables of function type) and type declarations.
	funcs map[string]*funcDecl
	types map[string]*typeDecl
	// resolved memoizes named types, so recursive types resolve once.
	resolved map[string]*goType
	fset     *token.FileSet
}

type userFile struct {
	path string // absolute path of the user's file
	src  []byte
	ast  *ast.File
}

// funcDecl is a sourceable function: a func declaration, or a variable
// holding a function literal or declared with a function type.
type funcDecl struct {
	name string
	typ  *ast.FuncType
	pos  token.Pos
}

type typeDecl struct {
	spec *ast.TypeSpec
}

// loadPackages parses the user's Go files and groups them into packages.
// Files are keyed by absolute path; the result is in a stable order.
func loadPackages(paths []string) ([]*userPackage, map[string]*userPackage, error) {
	fset := token.NewFileSet()
	byKey := map[string]*userPackage{}
	byFile := map[string]*userPackage{}
	var pkgs []*userPackage
	sorted := append([]string(nil), paths...)
	sort.Strings(sorted)
	for _, path := range sorted {
		if byFile[path] != nil {
			continue
		}
		f, err := parseFile(fset, path)
		if err != nil {
			return nil, nil, err
		}
		dir := filepath.Dir(path)
		key := dir + "\x00" + f.ast.Name.Name
		p := byKey[key]
		if p == nil {
			p = &userPackage{dir: dir, name: f.ast.Name.Name, fset: fset, funcs: map[string]*funcDecl{}, types: map[string]*typeDecl{}, resolved: map[string]*goType{}}
			byKey[key] = p
			pkgs = append(pkgs, p)
		}
		p.files = append(p.files, f)
		byFile[path] = p
	}
	for _, p := range pkgs {
		if p.name != "main" {
			if err := p.addSiblings(byFile); err != nil {
				return nil, nil, err
			}
		}
		if err := p.index(); err != nil {
			return nil, nil, err
		}
	}
	return pkgs, byFile, nil
}

// addSiblings adds the other files of p's folder that belong to p (same
// package clause, not tests, not excluded by build constraints).
func (p *userPackage) addSiblings(byFile map[string]*userPackage) error {
	entries, err := os.ReadDir(p.dir)
	if err != nil {
		return fmt.Errorf("read %s: %w", p.dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(p.dir, name)
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || byFile[path] != nil {
			continue
		}
		if ok, err := build.Default.MatchFile(p.dir, name); err != nil || !ok {
			continue
		}
		fset := token.NewFileSet()
		clause, err := parser.ParseFile(fset, path, nil, parser.PackageClauseOnly)
		if err != nil || clause.Name.Name != p.name {
			continue
		}
		f, err := parseFile(p.fset, path)
		if err != nil {
			return err
		}
		p.files = append(p.files, f)
		byFile[path] = p
	}
	return nil
}

// parseFile reads and parses one of the user's files. A syntax error is
// reported as the compiler would: file:line:col: message.
func parseFile(fset *token.FileSet, path string) (*userFile, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read Go source: %w", err)
	}
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) {
			lines := make([]string, 0, len(list))
			for i, e := range list {
				if i == 10 {
					lines = append(lines, "(more errors)")
					break
				}
				lines = append(lines, fmt.Sprintf("%s: %s", position(e.Pos), e.Msg))
			}
			return nil, &CompileError{Output: strings.Join(lines, "\n")}
		}
		return nil, err
	}
	return &userFile{path: path, src: src, ast: f}, nil
}

// index collects p's top-level functions and types.
func (p *userPackage) index() error {
	for _, f := range p.files {
		for _, d := range f.ast.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					p.funcs[d.Name.Name] = &funcDecl{name: d.Name.Name, typ: d.Type, pos: d.Name.Pos()}
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						p.types[s.Name.Name] = &typeDecl{spec: s}
					case *ast.ValueSpec:
						p.indexVar(d.Tok, s)
					}
				}
			}
		}
	}
	return nil
}

// indexVar records the variables of function type: `var F func(int) int`
// and `var F = func(x int) int { ... }`.
func (p *userPackage) indexVar(tok token.Token, s *ast.ValueSpec) {
	if tok != token.VAR {
		return
	}
	for i, n := range s.Names {
		var ft *ast.FuncType
		if t, ok := s.Type.(*ast.FuncType); ok {
			ft = t
		} else if s.Type == nil && len(s.Values) == len(s.Names) {
			if lit, ok := s.Values[i].(*ast.FuncLit); ok {
				ft = lit.Type
			}
		}
		if ft != nil {
			p.funcs[n.Name] = &funcDecl{name: n.Name, typ: ft, pos: n.Pos()}
		} else if _, known := p.funcs[n.Name]; !known {
			p.funcs[n.Name] = &funcDecl{name: n.Name, pos: n.Pos()}
		}
	}
}

// position writes a source position as file:line:col, the file relative
// to the working folder when it is inside it.
func position(pos token.Position) string {
	return fmt.Sprintf("%s:%d:%d", diag.DisplayPath(pos.Filename), pos.Line, pos.Column)
}

func (p *userPackage) pos(pos token.Pos) string {
	return position(p.fset.Position(pos))
}

// exprString prints a type expression as Go source.
func (p *userPackage) exprString(e ast.Expr) string {
	var b strings.Builder
	_ = printer.Fprint(&b, p.fset, e)
	return b.String()
}
