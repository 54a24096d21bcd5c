package golang

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// param is one parameter of a user's function.
type param struct {
	typ      *goType
	pos      token.Pos // where the parameter's type is written
	variadic bool      // the last parameter, ...T: typ is []T
}

// result is one result of a user's function.
type result struct {
	typ *goType
	pos token.Pos // where its type is written
}

// signature reads a function's parameters and results.
func (p *userPackage) signature(ft *ast.FuncType) (params []param, results []result, withErr bool) {
	for _, f := range ft.Params.List {
		n := max(len(f.Names), 1)
		for i := 0; i < n; i++ {
			if ell, ok := f.Type.(*ast.Ellipsis); ok {
				elem := p.resolve(ell.Elt)
				t := &goType{kind: goSlice, src: "[]" + elem.src, elem: elem, pos: ell.Pos()}
				params = append(params, param{typ: t, pos: f.Type.Pos(), variadic: true})
				continue
			}
			params = append(params, param{typ: p.resolve(f.Type), pos: f.Type.Pos()})
		}
	}
	if ft.Results != nil {
		for _, f := range ft.Results.List {
			n := max(len(f.Names), 1)
			for i := 0; i < n; i++ {
				results = append(results, result{typ: p.resolve(f.Type), pos: f.Type.Pos()})
			}
		}
	}
	if k := len(results); k > 0 {
		if last := results[k-1].typ; last.kind == goOther && last.src == "error" {
			results, withErr = results[:k-1], true
		}
	}
	return params, results, withErr
}

// call writes the function that serves fn: it decodes the arguments, calls
// the user's function and encodes what it returns.
//
// Parameters correspond to the program's arguments one to one, except that
// () arguments may be left out of the Go function (`now :: () -> Int` is a
// Go `func Now() int`). Results are nothing (for ()), one value, or one
// value per item of a tuple result (`divmod :: Int -> Int -> (Int, Int)` is
// a Go `func DivMod(a, b int) (int, int)`), each optionally followed by an
// error, whose message is then the call's failure.
func (c *converters) call(fn Function) (string, error) {
	spec := fn.Spec
	decl, callee := c.p.funcs[spec.Source], spec.Source
	if spec.Infix {
		var err error
		if decl, callee, err = operatorFunc(spec); err != nil {
			return "", err
		}
	}
	if decl == nil {
		return "", fmt.Errorf("%s: no top-level func %s in package %s", diag.DisplayPath(fn.File), spec.Source, c.p.name)
	}
	if decl.typ == nil {
		return "", fmt.Errorf("%s: %s is a variable whose type is not written; declare it as a func, or write its func type", c.p.pos(decl.pos), spec.Source)
	}
	if decl.typ.TypeParams != nil {
		return "", fmt.Errorf("%s: %s is generic; nexus calls functions whose parameter types are written out", c.p.pos(decl.pos), spec.Source)
	}
	params, results, withErr := c.p.signature(decl.typ)
	sig := fmt.Sprintf("%s :: %s", spec.Name, sourced.Signature(spec))
	// A first parameter of type context.Context is not the program's: it
	// receives the call's context, through which the function reports its
	// progress (gopool.Progress).
	withCtx := len(params) > 0 && params[0].typ.src == "context.Context"
	if withCtx {
		params = params[1:]
	}

	args := spec.Args
	skipUnits := false
	if len(params) != len(args) {
		if len(params) != countNonUnit(args) {
			return "", fmt.Errorf("%s: %s takes %d parameters, but the program declares %d (%s)", c.p.pos(decl.pos), spec.Source, len(params), len(args), sig)
		}
		skipUnits = true
	}

	var b strings.Builder
	name := c.newName("call")
	b.WriteString(code("\n// {0} serves {1} (function {2}): {3}.\nfunc {0}($ctx {5}.Context, $args *{4}.Decoder, $result *{4}.Encoder) error {\n",
		name, spec.Source, spec.ID, sig, mp, ctxPkg))
	var callArgs []string
	if withCtx {
		callArgs = append(callArgs, code("$ctx"))
	} else {
		b.WriteString(code("\t_ = $ctx\n"))
	}
	pi := 0
	for i, a := range args {
		if skipUnits && a.Kind == types.Unit {
			b.WriteString(code(`	if $err := {0}.DecodeUnit($args); $err != nil {
		return {0}.ArgError({1}, $err)
	}
`, rt, i))
			continue
		}
		pm := params[pi]
		pi++
		d, err := c.dec(a, pm.typ)
		if err != nil {
			return "", c.paramError(spec, sig, pi, pm, err)
		}
		b.WriteString(code(`	$a{0}, $err := {1}($args)
	if $err != nil {
		return {2}.ArgError({0}, $err)
	}
`, i, d, rt))
		v := code("$a{0}", i)
		if pm.variadic {
			v += "..."
		}
		callArgs = append(callArgs, v)
	}
	call := fmt.Sprintf("%s(%s)", callee, strings.Join(callArgs, ", "))

	ret := spec.Return
	var outs []string
	for i := range results {
		outs = append(outs, code("$r{0}", i))
	}
	if withErr {
		outs = append(outs, code("$err"))
	}
	switch {
	case len(outs) == 0:
		fmt.Fprintf(&b, "\t%s\n", call)
	case withErr && len(results) == 0:
		b.WriteString(code(`	if $err := {0}; $err != nil {
		return $err
	}
`, call))
	default:
		b.WriteString(code("\t{0} := {1}\n", strings.Join(outs, ", "), call))
		if withErr {
			b.WriteString(code("\tif $err != nil {\n\t\treturn $err\n\t}\n"))
		}
	}

	switch {
	case len(results) == 0 || ret.Kind == types.Unit:
		if len(results) == 0 && ret.Kind != types.Unit {
			return "", fmt.Errorf("%s: %s returns no value, but the program declares it returns %s (%s)", c.p.pos(decl.pos), spec.Source, ret, sig)
		}
		for i := range results {
			b.WriteString(code("\t_ = $r{0}\n", i))
		}
		b.WriteString(code("\treturn $result.EncodeNil()\n"))
	case len(results) == 1:
		e, err := c.enc(ret, results[0].typ)
		if err != nil {
			return "", c.resultError(spec, sig, results[0], err)
		}
		b.WriteString(code(`	if $err := {0}($result, $r0); $err != nil {
		return {1}.ResultError($err)
	}
	return nil
`, e, rt))
	case ret.Kind == types.Tuple && len(ret.Items) == len(results):
		b.WriteString(code(`	if $err := $result.EncodeArrayLen({0}); $err != nil {
		return $err
	}
`, len(results)))
		for i, it := range ret.Items {
			e, err := c.enc(it, results[i].typ)
			if err != nil {
				return "", c.resultError(spec, sig, results[i], err)
			}
			b.WriteString(code(`	if $err := {0}($result, $r{1}); $err != nil {
		return {2}.ResultError({2}.Index($err, {1}))
	}
`, e, i, rt))
		}
		b.WriteString("\treturn nil\n")
	default:
		return "", fmt.Errorf("%s: %s returns %d values, but the program declares it returns %s (%s); several results stand for the items of a tuple", c.p.pos(decl.pos), spec.Source, len(results), ret, sig)
	}
	b.WriteString("}\n")
	c.code.WriteString(b.String())
	return name, nil
}

func (c *converters) paramError(spec *manifest.Function, sig string, n int, pm param, err error) error {
	return c.located(pm.pos, fmt.Sprintf("%s's parameter %d has type %s, which cannot hold the program's %s (%s)", spec.Source, n, pm.typ.src, spec.Args[n-1], sig), err)
}

func (c *converters) resultError(spec *manifest.Function, sig string, r result, err error) error {
	return c.located(r.pos, fmt.Sprintf("%s returns %s, which cannot hold the program's %s (%s)", spec.Source, r.typ.src, spec.Return, sig), err)
}

// located explains a mismatch found in a type written at pos: where and
// what, then, when the type that does not fit is declared elsewhere (a
// struct type, a field of one), where that is and why.
func (c *converters) located(pos token.Pos, what string, err error) error {
	var m *mismatch
	if !errors.As(err, &m) {
		return err
	}
	msg := fmt.Sprintf("%s: %s", c.p.pos(pos), what)
	if m.pos != pos && m.pos.IsValid() {
		return fmt.Errorf("%s;\n%s: %s", msg, c.p.pos(m.pos), m.msg)
	}
	return fmt.Errorf("%s: %s", msg, m.msg)
}

func countNonUnit(ts []*types.Type) int {
	n := 0
	for _, t := range ts {
		if t.Kind != types.Unit {
			n++
		}
	}
	return n
}
