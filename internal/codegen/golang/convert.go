package golang

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"

	"github.com/nexus-run/nexus/internal/lazyre"
	"github.com/nexus-run/nexus/manifest/types"
)

// converters writes the conversion functions of one user package: for
// each pair of a program type and the Go type that holds it, a decoder
// from the msgpack form and an encoder back, generated once and shared.
// The code is direct and typed (no reflection), and calls the runtime's
// generic helpers for leaf values.
type converters struct {
	p    *userPackage
	code strings.Builder
	decs map[string]string // pair key -> the expression to call
	encs map[string]string
	n    int
	// byID is the pool's functions by manifest id: packable newtypes
	// name their pack and unpack so.
	byID map[int]Function
}

func newConverters(p *userPackage, byID map[int]Function) *converters {
	return &converters{p: p, decs: map[string]string{}, encs: map[string]string{}, byID: byID}
}

// mismatch is a Go type that cannot hold a program type.
type mismatch struct {
	pos token.Pos // where the Go type is written or declared
	msg string
}

func (m *mismatch) Error() string { return m.msg }

func (c *converters) mismatch(gt *goType, format string, args ...any) error {
	return &mismatch{pos: gt.pos, msg: fmt.Sprintf(format, args...)}
}

// Runtime and msgpack package names in generated code; unusual, so they
// cannot clash with the user's package-level names.
const (
	rt = "nexus_rt"
	mp = "nexus_mp"
	// ctxPkg is package context in the generated code.
	ctxPkg = "nexus_ctx"
)

func pairKey(t *types.Type, gt *goType) string {
	return t.String() + "\x00" + gt.src
}

func (c *converters) newName(kind string) string {
	c.n++
	return fmt.Sprintf("%s%s%d", prefix, kind, c.n)
}

// needs is the message for a Go type of the wrong kind.
func needs(t *types.Type) string {
	switch t.Kind {
	case types.Int:
		return "an integer type such as int or int64"
	case types.Real:
		return "float64 or float32"
	case types.Str:
		return "string or []byte"
	case types.Bool:
		return "bool"
	case types.Unit:
		return "struct{}"
	case types.List:
		return "a slice"
	case types.Optional:
		return "a pointer (nil is none)"
	case types.Map:
		return "a map"
	case types.Tuple:
		return fmt.Sprintf("a struct with %d fields, one per item", len(t.Items))
	case types.Record:
		if name := recordGoName(t); name != "" {
			return "the struct " + name
		}
		return "a struct with its fields"
	case types.JSON:
		return "any (holding what encoding/json decodes: map[string]any, []any, float64, string, bool or nil)"
	case types.Func:
		params := "parameters"
		if len(t.Items) == 1 {
			params = "parameter"
		}
		return fmt.Sprintf("a func type with %d %s and one result, maybe followed by an error", len(t.Items), params)
	}
	return "?"
}

func (c *converters) wrongKind(t *types.Type, gt *goType) error {
	return c.mismatch(gt, "%s needs %s, not %s", t, needs(t), gt.describe())
}

// dec returns an expression F such that F(d) decodes a value of t into gt
// and returns (gt, error).
func (c *converters) dec(t *types.Type, gt *goType) (string, error) {
	key := pairKey(t, gt)
	if f, ok := c.decs[key]; ok {
		return f, nil
	}
	f, err := c.genDec(t, gt)
	if err != nil {
		return "", err
	}
	c.decs[key] = f
	return f, nil
}

// enc returns an expression F such that F(e, v) encodes v, a gt holding a
// value of t, and returns an error.
func (c *converters) enc(t *types.Type, gt *goType) (string, error) {
	key := pairKey(t, gt)
	if f, ok := c.encs[key]; ok {
		return f, nil
	}
	f, err := c.genEnc(t, gt)
	if err != nil {
		return "", err
	}
	c.encs[key] = f
	return f, nil
}

// leaf returns the runtime helper for a leaf type, or "".
func leaf(t *types.Type, gt *goType) (string, bool) {
	switch {
	case t.Kind == types.Int && gt.kind == goInt:
		return "Int", true
	case t.Kind == types.Real && gt.kind == goFloat:
		return "Real", true
	case t.Kind == types.Str && gt.kind == goString:
		return "Str", true
	case t.Kind == types.Str && gt.kind == goSlice && (gt.elem.src == "byte" || gt.elem.src == "uint8"):
		// A Str holds any bytes; a Go function may take or give them as
		// a []byte (an image, a media result).
		return "Bytes", true
	case t.Kind == types.Bool && gt.kind == goBool:
		return "Bool", true
	}
	return "", false
}

// isAny reports whether gt is the empty interface, the Go type of a Json.
func isAny(gt *goType) bool {
	return gt.kind == goOther && (gt.src == "any" || gt.src == "interface{}")
}

// code expands a template of generated code: $name is a local variable
// (written nexus_name, so that it cannot hide a name of the user's
// package), and {0}, {1}... are the arguments.
func code(tmpl string, args ...any) string {
	out := localVar().ReplaceAllString(tmpl, prefix+"$1")
	for i, a := range args {
		out = strings.ReplaceAll(out, fmt.Sprintf("{%d}", i), fmt.Sprint(a))
	}
	return out
}

var localVar = lazyre.New(`\$([a-z][a-zA-Z0-9]*)`)

func (c *converters) decFunc(gt *goType, body string) string {
	name := c.newName("dec")
	c.code.WriteString(code("\nfunc {0}($d *{1}.Decoder) ($v {2}, $err error) {\n", name, mp, gt.src) + body + "}\n")
	return name
}

func (c *converters) encFunc(gt *goType, body string) string {
	name := c.newName("enc")
	c.code.WriteString(code("\nfunc {0}($e *{1}.Encoder, $v {2}) error {\n", name, mp, gt.src) + body + "}\n")
	return name
}

func (c *converters) genDec(t *types.Type, gt *goType) (string, error) {
	if p := packing(t); p != nil {
		if f, ok, err := c.packedDec(t, gt, p); ok {
			return f, err
		}
	}
	if gt.kind == goPointer && t.Kind != types.Optional {
		// A pointer where the value cannot be none: Go functions often
		// take structs by pointer.
		elem, err := c.dec(t, gt.elem)
		if err != nil {
			return "", err
		}
		return c.decFunc(gt, code(`	$x, $err := {0}($d)
	return &$x, $err
`, elem)), nil
	}
	if h, ok := leaf(t, gt); ok {
		return fmt.Sprintf("%s.Decode%s[%s]", rt, h, gt.src), nil
	}
	if t.Kind == types.JSON {
		if !isAny(gt) {
			return "", c.wrongKind(t, gt)
		}
		return rt + ".DecodeJSON", nil
	}
	var b strings.Builder
	switch t.Kind {
	case types.Unit:
		if gt.kind != goStruct || len(gt.field) != 0 {
			return "", c.wrongKind(t, gt)
		}
		b.WriteString(code("\treturn $v, {0}.DecodeUnit($d)\n", rt))
	case types.List:
		if gt.kind != goSlice {
			return "", c.wrongKind(t, gt)
		}
		if t.Elem.Kind == types.Real && gt.elem.kind == goFloat {
			b.WriteString(code(`	$n, $err := {0}.DecodeLen($d, false, -1)
	if $err != nil {
		return $v, $err
	}
	$v = make({1}, $n)
	return $v, {0}.DecodeReals($d, $v)
`, rt, gt.src))
			break
		}
		elem, err := c.dec(t.Elem, gt.elem)
		if err != nil {
			return "", err
		}
		b.WriteString(code(`	$n, $err := {0}.DecodeLen($d, false, -1)
	if $err != nil {
		return $v, $err
	}
	$v = make({1}, $n)
	for $i := range $v {
		if $v[$i], $err = {2}($d); $err != nil {
			return $v, {0}.Index($err, $i)
		}
	}
	return $v, nil
`, rt, gt.src, elem))
	case types.Optional:
		if gt.kind != goPointer {
			return "", c.wrongKind(t, gt)
		}
		elem, err := c.dec(t.Elem, gt.elem)
		if err != nil {
			return "", err
		}
		b.WriteString(code(`	$none, $err := {0}.DecodeNone($d)
	if $none || $err != nil {
		return nil, $err
	}
	$x, $err := {1}($d)
	return &$x, $err
`, rt, elem))
	case types.Map:
		if gt.kind != goMap {
			return "", c.wrongKind(t, gt)
		}
		key, err := c.dec(t.Key, gt.key)
		if err != nil {
			return "", err
		}
		val, err := c.dec(t.Elem, gt.elem)
		if err != nil {
			return "", err
		}
		b.WriteString(code(`	$n, $err := {0}.DecodeLen($d, true, -1)
	if $err != nil {
		return $v, $err
	}
	$v = make({1}, $n)
	for $i := 0; $i < $n; $i++ {
		$k, $err := {2}($d)
		if $err != nil {
			return $v, {0}.Index($err, $i)
		}
		$x, $err := {3}($d)
		if $err != nil {
			return $v, {0}.Index($err, $i)
		}
		$v[$k] = $x
	}
	return $v, nil
`, rt, gt.src, key, val))
	case types.Tuple:
		items, err := c.tupleItems(t, gt)
		if err != nil {
			return "", err
		}
		b.WriteString(code(`	if _, $err = {0}.DecodeLen($d, false, {1}); $err != nil {
		return $v, $err
	}
`, rt, len(t.Items)))
		for i, it := range t.Items {
			f, err := c.dec(it, items[i].typ)
			if err != nil {
				return "", err
			}
			b.WriteString(code(`	if $v{0}, $err = {1}($d); $err != nil {
		return $v, {2}.Index($err, {3})
	}
`, items[i].access, f, rt, i))
		}
		b.WriteString(code("\treturn $v, nil\n"))
	case types.Record:
		fields, err := c.recordFields(t, gt)
		if err != nil {
			return "", err
		}
		b.WriteString(code(`	$n, $err := {0}.DecodeLen($d, true, -1)
	if $err != nil {
		return $v, $err
	}
	for $i := 0; $i < $n; $i++ {
		$key, $err := $d.DecodeString()
		if $err != nil {
			return $v, $err
		}
		switch $key {
`, rt))
		for i, f := range t.Fields {
			fd, err := c.dec(f.Type, fields[i].typ)
			if err != nil {
				return "", err
			}
			b.WriteString(code(`		case {0}:
			if $v{1}, $err = {2}($d); $err != nil {
				return $v, {3}.At($err, {4})
			}
`, strconv.Quote(f.Name), fields[i].access, fd, rt, strconv.Quote("."+f.Name)))
		}
		b.WriteString(code(`		default:
			if $err := $d.Skip(); $err != nil {
				return $v, $err
			}
		}
	}
	return $v, nil
`))
	case types.Func:
		body, err := c.funcDec(t, gt)
		if err != nil {
			return "", err
		}
		b.WriteString(body)
	default:
		return "", c.wrongKind(t, gt)
	}
	return c.decFunc(gt, b.String()), nil
}

func (c *converters) genEnc(t *types.Type, gt *goType) (string, error) {
	if p := packing(t); p != nil {
		if f, ok, err := c.packedEnc(t, gt, p); ok {
			return f, err
		}
	}
	if gt.kind == goPointer && t.Kind != types.Optional {
		elem, err := c.enc(t, gt.elem)
		if err != nil {
			return "", err
		}
		return c.encFunc(gt, code(`	if $v == nil {
		return {0}.ErrNil
	}
	return {1}($e, *$v)
`, rt, elem)), nil
	}
	if h, ok := leaf(t, gt); ok {
		return fmt.Sprintf("%s.Encode%s[%s]", rt, h, gt.src), nil
	}
	if t.Kind == types.JSON {
		if !isAny(gt) {
			return "", c.wrongKind(t, gt)
		}
		return rt + ".EncodeJSON", nil
	}
	var b strings.Builder
	switch t.Kind {
	case types.Unit:
		if gt.kind != goStruct || len(gt.field) != 0 {
			return "", c.wrongKind(t, gt)
		}
		b.WriteString(code("\treturn $e.EncodeNil()\n"))
	case types.List:
		if gt.kind != goSlice {
			return "", c.wrongKind(t, gt)
		}
		if t.Elem.Kind == types.Real && gt.elem.kind == goFloat {
			b.WriteString(code(`	if $err := $e.EncodeArrayLen(len($v)); $err != nil {
		return $err
	}
	return {0}.EncodeReals($e, $v)
`, rt))
			break
		}
		elem, err := c.enc(t.Elem, gt.elem)
		if err != nil {
			return "", err
		}
		b.WriteString(code(`	if $err := $e.EncodeArrayLen(len($v)); $err != nil {
		return $err
	}
	for $i, $x := range $v {
		if $err := {0}($e, $x); $err != nil {
			return {1}.Index($err, $i)
		}
	}
	return nil
`, elem, rt))
	case types.Optional:
		if gt.kind != goPointer {
			return "", c.wrongKind(t, gt)
		}
		elem, err := c.enc(t.Elem, gt.elem)
		if err != nil {
			return "", err
		}
		b.WriteString(code(`	if $v == nil {
		return $e.EncodeNil()
	}
	return {0}($e, *$v)
`, elem))
	case types.Map:
		if gt.kind != goMap {
			return "", c.wrongKind(t, gt)
		}
		key, err := c.enc(t.Key, gt.key)
		if err != nil {
			return "", err
		}
		val, err := c.enc(t.Elem, gt.elem)
		if err != nil {
			return "", err
		}
		b.WriteString(code(`	if $err := $e.EncodeMapLen(len($v)); $err != nil {
		return $err
	}
`))
		switch gt.key.kind {
		case goInt, goFloat, goString:
			b.WriteString(code("\t$keys := {0}.SortedKeys($v)\n", rt))
		default:
			b.WriteString(code(`	$keys, $err := {0}.SortedKeysFunc($v, {1})
	if $err != nil {
		return $err
	}
`, rt, key))
		}
		b.WriteString(code(`	for $i, $k := range $keys {
		if $err := {0}($e, $k); $err != nil {
			return {2}.Index($err, $i)
		}
		if $err := {1}($e, $v[$k]); $err != nil {
			return {2}.Index($err, $i)
		}
	}
	return nil
`, key, val, rt))
	case types.Tuple:
		items, err := c.tupleItems(t, gt)
		if err != nil {
			return "", err
		}
		b.WriteString(code(`	if $err := $e.EncodeArrayLen({0}); $err != nil {
		return $err
	}
`, len(t.Items)))
		for i, it := range t.Items {
			f, err := c.enc(it, items[i].typ)
			if err != nil {
				return "", err
			}
			b.WriteString(code(`	if $err := {0}($e, $v{1}); $err != nil {
		return {2}.Index($err, {3})
	}
`, f, items[i].access, rt, i))
		}
		b.WriteString("\treturn nil\n")
	case types.Record:
		fields, err := c.recordFields(t, gt)
		if err != nil {
			return "", err
		}
		b.WriteString(code(`	if $err := $e.EncodeMapLen({0}); $err != nil {
		return $err
	}
`, len(t.Fields)))
		for i, f := range t.Fields {
			fe, err := c.enc(f.Type, fields[i].typ)
			if err != nil {
				return "", err
			}
			b.WriteString(code(`	if $err := $e.EncodeString({0}); $err != nil {
		return $err
	}
	if $err := {1}($e, $v{2}); $err != nil {
		return {3}.At($err, {4})
	}
`, strconv.Quote(f.Name), fe, fields[i].access, rt, strconv.Quote("."+f.Name)))
		}
		b.WriteString("\treturn nil\n")
	default:
		return "", c.wrongKind(t, gt)
	}
	return c.encFunc(gt, b.String()), nil
}

// part is where a tuple item or record field lives in a Go value: the
// selector or index to write after it (".Mean", "[1]"), and its type.
type part struct {
	access string
	typ    *goType
}

// tupleItems maps a tuple's items to a Go struct's fields in order, or to
// the elements of an array.
func (c *converters) tupleItems(t *types.Type, gt *goType) ([]part, error) {
	switch gt.kind {
	case goArray:
		if gt.n != len(t.Items) {
			return nil, c.mismatch(gt, "%s needs %s (or an array of %d), not %s", t, needs(t), len(t.Items), gt.describe())
		}
		parts := make([]part, gt.n)
		for i := range parts {
			parts[i] = part{access: fmt.Sprintf("[%d]", i), typ: gt.elem}
		}
		return parts, nil
	case goStruct:
		if len(gt.field) != len(t.Items) {
			return nil, c.mismatch(gt, "%s needs %s, but %s has %d", t, needs(t), gt.describe(), len(gt.field))
		}
		parts := make([]part, len(gt.field))
		for i, f := range gt.field {
			if f.name == "_" {
				return nil, c.mismatch(gt, "%s needs %s, but %s has a blank field", t, needs(t), gt.describe())
			}
			parts[i] = part{access: "." + f.name, typ: f.typ}
		}
		return parts, nil
	}
	return nil, c.wrongKind(t, gt)
}

// recordFields finds the Go field of each of the record's fields: the one
// of the same name, else the one whose name differs only in case (mean
// and Mean), else only in case and underscores (tmp_dir and TmpDir). Go
// fields the record lacks are left alone.
func (c *converters) recordFields(t *types.Type, gt *goType) ([]part, error) {
	if gt.kind != goStruct {
		return nil, c.wrongKind(t, gt)
	}
	if want := recordGoName(t); want != "" && gt.name != "" && gt.name != want && !strings.HasSuffix(want, "."+gt.name) {
		return nil, c.mismatch(gt, "record %s is the Go type %s (record Go => %s = %q), not %s", t.Name, want, t.Name, want, gt.src)
	}
	parts := make([]part, len(t.Fields))
	for i, f := range t.Fields {
		gf, err := c.fieldFor(t, gt, f.Name)
		if err != nil {
			return nil, err
		}
		parts[i] = part{access: "." + gf.name, typ: gf.typ}
	}
	return parts, nil
}

func (c *converters) fieldFor(t *types.Type, gt *goType, name string) (*goField, error) {
	squash := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	for _, match := range []func(string) bool{
		func(g string) bool { return g == name },
		func(g string) bool { return strings.EqualFold(g, name) },
		func(g string) bool { return squash(g) == squash(name) },
	} {
		var found []*goField
		for i := range gt.field {
			if match(gt.field[i].name) {
				found = append(found, &gt.field[i])
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		default:
			return nil, c.mismatch(gt, "record %s's field %s matches both %s and %s of %s", t.Name, name, found[0].name, found[1].name, gt.describe())
		}
	}
	return nil, c.mismatch(gt, "record %s's field %s has no matching field in %s (fields match by name, ignoring case)", t.Name, name, gt.describe())
}
