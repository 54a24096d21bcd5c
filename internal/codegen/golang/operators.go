package golang

import (
	"fmt"
	"go/ast"
	"go/parser"

	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/internal/lazyre"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// A foreign operator (`source Go from "ops.go" ((&^) as (&~))`,
// manifest.Function.Infix) is served by a generated func literal that
// applies it between its two operands, `a &^ b`, with the operands' Go
// types the natural ones of the program's: Go's operators apply to
// numbers, strings and booleans only.

// goOperator is the text of a binary Go operator; the checker allows
// the same (check/foreignops.go), and this keeps anything else out of the
// generated code.
var goOperator = lazyre.New(`^(\+|-|\*|/|%|<<|>>|&|\||\^|&\^|&&|\|\||==|!=|<|<=|>|>=)$`)

// operatorFunc is the func literal that applies spec's operator, as the
// function to call and its declaration for the call's conversions.
func operatorFunc(spec *manifest.Function) (*funcDecl, string, error) {
	if !goOperator().MatchString(spec.Source) {
		return nil, "", fmt.Errorf("go function %s: %q is not a Go operator", spec.Name, spec.Source)
	}
	if len(spec.Args) != 2 {
		return nil, "", fmt.Errorf("go operator %s (%s) takes two operands, not %s", spec.Name, spec.Source, sourced.Signature(spec))
	}
	var ts [3]string
	for i, t := range []*types.Type{spec.Args[0], spec.Args[1], spec.Return} {
		name, ok := basicGoType(t)
		if !ok {
			return nil, "", fmt.Errorf("go operator %s (%s) applies to numbers, strings and booleans, not %s (%s :: %s)", spec.Name, spec.Source, t, spec.Name, sourced.Signature(spec))
		}
		ts[i] = name
	}
	head := fmt.Sprintf("func(a %s, b %s) %s", ts[0], ts[1], ts[2])
	expr, err := parser.ParseExpr(head)
	if err != nil {
		return nil, "", fmt.Errorf("internal error: the func type of Go operator %s does not parse: %w", spec.Name, err)
	}
	ft, ok := expr.(*ast.FuncType)
	if !ok {
		return nil, "", fmt.Errorf("internal error: %s is not a func type", head)
	}
	literal := fmt.Sprintf("(%s { return a %s b })", head, spec.Source)
	return &funcDecl{name: spec.Source, typ: ft}, literal, nil
}

// basicGoType is the Go type of a number, string or boolean of the
// program's.
func basicGoType(t *types.Type) (string, bool) {
	switch t.Kind {
	case types.Int:
		if n, ok := goSized[t.Width]; ok {
			return n, true
		}
		return "int64", true
	case types.Real:
		if t.Width == "F32" {
			return "float32", true
		}
		return "float64", true
	case types.Str:
		return "string", true
	case types.Bool:
		return "bool", true
	}
	return "", false
}

// goSized are the Go types of the sized integer types.
var goSized = map[string]string{
	"I8": "int8", "I16": "int16", "I32": "int32", "I64": "int64",
	"U8": "uint8", "U16": "uint16", "U32": "uint32", "U64": "uint64",
}
