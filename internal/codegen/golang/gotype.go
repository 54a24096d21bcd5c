package golang

import (
	"fmt"
	"go/ast"
	"go/token"
	"strconv"
)

// goKind is the shape of a Go type, as far as conversions care.
type goKind int

const (
	goOther   goKind = iota // anything no program type converts to
	goInt                   // every integer type
	goFloat                 // float32, float64
	goString                // string
	goBool                  // bool
	goSlice                 // []E
	goArray                 // [N]E
	goPointer               // *E
	goMap                   // map[K]V
	goStruct                // struct{...}
	goFunc                  // func(...) ...
)

// goType is a Go type as the user's source writes it, resolved through the
// package's type declarations to its shape. It is worked out from the
// syntax alone (no type checker, so no imports to resolve): the types a
// program's values convert to are built from Go's predeclared types and
// the package's own declarations.
type goType struct {
	kind goKind
	// src is how code inside the user's package writes the type: the
	// declared name of a named type, or the type literal.
	src string
	// name is the declared name of a named type, "" for a literal.
	name  string
	elem  *goType // slice, array and pointer element, map value
	key   *goType // map key
	n     int     // array length
	field []goField
	pos   token.Pos // where the type is written or declared
	// fn is a func type's parameters and results.
	fn *funcShape
	// what describes a goOther type for messages ("a type from package
	// time", "an interface").
	what string
}

// funcShape is what a func type takes and returns: its results without a
// last error result, and whether it has one.
type funcShape struct {
	params  []param
	results []result
	withErr bool
}

type goField struct {
	name string
	typ  *goType
	pos  token.Pos
}

// predeclared maps Go's predeclared type names to their kind.
var predeclared = map[string]goKind{
	"int": goInt, "int8": goInt, "int16": goInt, "int32": goInt, "int64": goInt,
	"uint": goInt, "uint8": goInt, "uint16": goInt, "uint32": goInt, "uint64": goInt,
	"uintptr": goInt, "byte": goInt, "rune": goInt,
	"float32": goFloat, "float64": goFloat,
	"string": goString, "bool": goBool,
}

// resolve works out the Go type e, written in p.
func (p *userPackage) resolve(e ast.Expr) *goType {
	switch e := e.(type) {
	case *ast.Ident:
		if _, ok := p.types[e.Name]; ok {
			return p.named(e.Name)
		}
		if k, ok := predeclared[e.Name]; ok {
			return &goType{kind: k, src: e.Name, pos: e.Pos()}
		}
		what := "type " + e.Name
		switch e.Name {
		case "any":
			what = "an interface"
		case "error":
			what = "an error"
		}
		return &goType{kind: goOther, src: e.Name, pos: e.Pos(), what: what}
	case *ast.ParenExpr:
		return p.resolve(e.X)
	case *ast.StarExpr:
		return &goType{kind: goPointer, src: p.exprString(e), elem: p.resolve(e.X), pos: e.Pos()}
	case *ast.ArrayType:
		t := &goType{src: p.exprString(e), elem: p.resolve(e.Elt), pos: e.Pos()}
		if e.Len == nil {
			t.kind = goSlice
			return t
		}
		lit, ok := e.Len.(*ast.BasicLit)
		if !ok || lit.Kind != token.INT {
			return &goType{kind: goOther, src: t.src, pos: e.Pos(), what: "an array whose length is not a number"}
		}
		n, err := strconv.ParseInt(lit.Value, 0, 64)
		if err != nil {
			return &goType{kind: goOther, src: t.src, pos: e.Pos(), what: "an array whose length is not a number"}
		}
		t.kind, t.n = goArray, int(n)
		return t
	case *ast.MapType:
		return &goType{kind: goMap, src: p.exprString(e), key: p.resolve(e.Key), elem: p.resolve(e.Value), pos: e.Pos()}
	case *ast.StructType:
		t := &goType{kind: goStruct, src: p.exprString(e), pos: e.Pos()}
		for _, f := range e.Fields.List {
			ft := p.resolve(f.Type)
			if len(f.Names) == 0 {
				t.field = append(t.field, goField{name: embeddedName(f.Type), typ: ft, pos: f.Pos()})
			}
			for _, n := range f.Names {
				t.field = append(t.field, goField{name: n.Name, typ: ft, pos: n.Pos()})
			}
		}
		return t
	case *ast.SelectorExpr:
		return &goType{kind: goOther, src: p.exprString(e), pos: e.Pos(), what: "a type from another package"}
	case *ast.IndexExpr, *ast.IndexListExpr:
		return &goType{kind: goOther, src: p.exprString(e), pos: e.Pos(), what: "a generic type"}
	case *ast.InterfaceType:
		return &goType{kind: goOther, src: p.exprString(e), pos: e.Pos(), what: "an interface"}
	case *ast.FuncType:
		if e.TypeParams != nil {
			return &goType{kind: goOther, src: p.exprString(e), pos: e.Pos(), what: "a generic function"}
		}
		params, results, withErr := p.signature(e)
		return &goType{kind: goFunc, src: p.exprString(e), pos: e.Pos(), fn: &funcShape{params: params, results: results, withErr: withErr}}
	case *ast.ChanType:
		return &goType{kind: goOther, src: p.exprString(e), pos: e.Pos(), what: "a channel"}
	}
	return &goType{kind: goOther, src: p.exprString(e), pos: e.Pos(), what: fmt.Sprintf("%T", e)}
}

// named resolves the package's type called name, once.
func (p *userPackage) named(name string) *goType {
	if t := p.resolved[name]; t != nil {
		return t
	}
	spec := p.types[name].spec
	t := &goType{name: name, src: name, pos: spec.Name.Pos()}
	p.resolved[name] = t
	if spec.TypeParams != nil {
		t.kind, t.what = goOther, "a generic type"
		return t
	}
	u := p.resolve(spec.Type)
	t.kind, t.elem, t.key, t.n, t.field, t.what, t.fn = u.kind, u.elem, u.key, u.n, u.field, u.what, u.fn
	return t
}

// embeddedName is the field name of an embedded field: its type's name.
func embeddedName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return embeddedName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return embeddedName(e.X)
	case *ast.IndexListExpr:
		return embeddedName(e.X)
	}
	return "_"
}

// describe names t for messages: its source, and what it is when that
// is not plain.
func (t *goType) describe() string {
	if t.kind == goOther && t.what != "" && t.what != "type "+t.src {
		return t.src + " (" + t.what + ")"
	}
	return t.src
}
