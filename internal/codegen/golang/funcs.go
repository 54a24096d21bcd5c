package golang

import (
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/manifest/types"
)

// funcDec writes the body of the decoder of a function argument (a
// program's function type, sent as a reference to a function of the pool,
// gopool.FuncRef) into gt, the Go func type the user's function declares:
// a func value that encodes its arguments as the program's types, calls
// the function inside the pool and decodes its result.
//
// When gt returns an error besides its result, a failure of the function
// is that error; otherwise the func value panics with it (a
// *gopool.FuncError), and the runtime reports the failure, not a panic.
func (c *converters) funcDec(t *types.Type, gt *goType) (string, error) {
	if gt.kind != goFunc {
		return "", c.wrongKind(t, gt)
	}
	fn := gt.fn
	if len(fn.params) != len(t.Items) {
		return "", c.mismatch(gt, "%s needs %s, not %s", t, needs(t), gt.describe())
	}
	unit := t.Elem.Kind == types.Unit
	if len(fn.results) != 1 && !(unit && len(fn.results) == 0) {
		return "", c.mismatch(gt, "%s needs %s, not %s", t, needs(t), gt.describe())
	}
	params := make([]string, len(fn.params))
	encs := make([]string, len(fn.params))
	for i, pm := range fn.params {
		if pm.variadic {
			return "", c.mismatch(gt, "%s needs %s, not the variadic %s", t, needs(t), gt.describe())
		}
		e, err := c.enc(t.Items[i], pm.typ)
		if err != nil {
			return "", err
		}
		params[i] = code("$p{0} {1}", i, pm.typ.src)
		encs[i] = code("\t\t\tfunc($e *{0}.Encoder) error { return {1}($e, $p{2}) },\n", mp, e, i)
	}
	var results, read, ret string
	switch {
	case len(fn.results) == 1:
		d, err := c.dec(t.Elem, fn.results[0].typ)
		if err != nil {
			return "", err
		}
		results = fn.results[0].typ.src
		read = code("func($d *{0}.Decoder) error {\n\t\t\tvar $err error\n\t\t\t$r, $err = {1}($d)\n\t\t\treturn $err\n\t\t}", mp, d)
		ret = code("$r")
	default:
		read = code("func($d *{0}.Decoder) error { return {1}.DecodeUnit($d) }", mp, rt)
	}
	var b strings.Builder
	b.WriteString(code("\t$ref, $err := {0}.DecodeFuncRef($d)\n\tif $err != nil {\n\t\treturn $v, $err\n\t}\n", rt))
	sig := "(" + strings.Join(params, ", ") + ")"
	switch {
	case fn.withErr && results != "":
		sig += " (" + results + ", error)"
	case fn.withErr:
		sig += " error"
	case results != "":
		sig += " " + results
	}
	b.WriteString(code("\treturn func{0} {\n", sig))
	if results != "" {
		b.WriteString(code("\t\tvar $r {0}\n", results))
	}
	b.WriteString(code("\t\t$err := $ref.Call([]func(*{0}.Encoder) error{\n", mp))
	for _, e := range encs {
		b.WriteString(e)
	}
	fmt.Fprintf(&b, "\t\t}, %s)\n", read)
	switch {
	case fn.withErr && ret != "":
		b.WriteString(code("\t\treturn {0}, $err\n", ret))
	case fn.withErr:
		b.WriteString(code("\t\treturn $err\n"))
	default:
		b.WriteString(code("\t\tif $err != nil {\n\t\t\tpanic($err)\n\t\t}\n"))
		if ret != "" {
			b.WriteString(code("\t\treturn {0}\n", ret))
		}
	}
	b.WriteString("\t}, nil\n")
	return b.String(), nil
}
