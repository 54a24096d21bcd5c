package golang

import (
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Packable newtypes. A newtype with a Packable instance sourced from Go
// (`instance Packable Str Path where source Go from "paths.go" ("ToPath"
// as pack, "FromPath" as unpack)`) is, in Go, the type its pack function
// returns (which its type map, `type Go => Path = "Path"`, must name when
// it has one). A Go function declares that type where the program says
// Path, in lists, pointers, tuples and record fields too; the generated
// decoder reads the wire form as pack's parameter and calls pack, the
// encoder calls unpack and writes what it returns. An error pack or
// unpack returns is the call's failure. pack and unpack are called
// directly, so they must be in the package of the functions that take
// or return the newtype.

// packFunc is a packable newtype's pack or unpack function in the user's
// package.
type packFunc struct {
	name          string
	param, result *goType
	withErr       bool
}

// packFunc finds the pack or unpack (method) of newtype t, function id.
func (c *converters) packFunc(t *types.Type, method string, id int) (*packFunc, error) {
	f, ok := c.byID[id]
	if !ok {
		return nil, fmt.Errorf("newtype %s: its %s (function %d) is not a function of the Go pool", t.Name, method, id)
	}
	if f.Spec.Infix {
		return nil, fmt.Errorf("newtype %s: its %s is the operator %s; source a named function", t.Name, method, f.Spec.Source)
	}
	decl := c.p.funcs[f.Spec.Source]
	if decl == nil || !c.p.has(f.File) {
		return nil, fmt.Errorf("%s: newtype %s's %s %s is not in package %s (%s), which has functions taking or returning %s; the generated code calls pack and unpack directly, so put them in that package",
			diag.DisplayPath(f.File), t.Name, method, f.Spec.Source, c.p.name, diag.DisplayPath(c.p.dir), t.Name)
	}
	if decl.typ == nil || decl.typ.TypeParams != nil {
		return nil, fmt.Errorf("%s: %s, the %s of newtype %s, must be a func whose parameter types are written out", c.p.pos(decl.pos), f.Spec.Source, method, t.Name)
	}
	params, results, withErr := c.p.signature(decl.typ)
	if len(params) != 1 || len(results) != 1 || params[0].variadic {
		return nil, fmt.Errorf("%s: %s, the %s of newtype %s, must take one value and return one (maybe followed by an error)", c.p.pos(decl.pos), f.Spec.Source, method, t.Name)
	}
	return &packFunc{name: f.Spec.Source, param: params[0].typ, result: results[0].typ, withErr: withErr}, nil
}

// packerFor finds the pack or unpack (method, function id) of the
// newtype t for a value of type gt: the newtype's Go type is what pack
// returns and unpack takes. It returns nil and ok false when gt is a
// pointer to another type, which the caller converts as any pointer.
func (c *converters) packerFor(t *types.Type, gt *goType, method string, id int) (f *packFunc, ok bool, err error) {
	f, err = c.packFunc(t, method, id)
	if err != nil {
		return nil, true, err
	}
	native, verb := f.result, "returns"
	if method == "unpack" {
		native, verb = f.param, "takes"
	}
	if gt.src == native.src {
		return f, true, nil
	}
	if gt.kind == goPointer {
		return nil, false, nil
	}
	return nil, true, c.mismatch(gt, "%s is %s in Go, what its %s function %s %s, not %s", t, native.src, method, f.name, verb, gt.describe())
}

// has tells whether path is one of the package's files.
func (p *userPackage) has(path string) bool {
	for _, f := range p.files {
		if f.path == path {
			return true
		}
	}
	return false
}

// packedDec decodes the packable newtype t, packed as p, into gt. ok is
// false when gt is a pointer to the newtype's Go type, which the caller
// decodes as any pointer.
func (c *converters) packedDec(t *types.Type, gt *goType, p *types.Packing) (f string, ok bool, err error) {
	pack, ok, err := c.packerFor(t, gt, "pack", p.Pack)
	if pack == nil {
		return "", ok, err
	}
	if p.Native != "" && !strings.Contains(t.Name, " ") && p.Native != pack.result.src {
		return "", true, c.mismatch(pack.result, "newtype %s is the Go type %s (type Go => %s = %q), but its pack function %s returns %s", t.Name, p.Native, t.Name, p.Native, pack.name, pack.result.src)
	}
	wire, err := c.dec(wireForm(t), pack.param)
	if err != nil {
		return "", true, err
	}
	ret := "return {1}($w), nil"
	if pack.withErr {
		ret = "return {1}($w)"
	}
	return c.decFunc(gt, code(`	$w, $err := {0}($d)
	if $err != nil {
		return $v, $err
	}
	`+ret+"\n", wire, pack.name)), true, nil
}

// packedEnc encodes gt, holding the packable newtype t packed as p; ok
// is false as for packedDec.
func (c *converters) packedEnc(t *types.Type, gt *goType, p *types.Packing) (f string, ok bool, err error) {
	unpack, ok, err := c.packerFor(t, gt, "unpack", p.Unpack)
	if unpack == nil {
		return "", ok, err
	}
	wire, err := c.enc(wireForm(t), unpack.result)
	if err != nil {
		return "", true, err
	}
	call := "\t$w := {1}($v)\n"
	if unpack.withErr {
		call = "\t$w, $err := {1}($v)\n\tif $err != nil {\n\t\treturn $err\n\t}\n"
	}
	return c.encFunc(gt, code(call+"\treturn {0}($e, $w)\n", wire, unpack.name)), true, nil
}

// wireForm is the body of the packable newtype t: what the nexus sends.
func wireForm(t *types.Type) *types.Type {
	body := *t
	body.Name, body.Packs = "", nil
	return &body
}

// packing is t's Go packing, or nil.
func packing(t *types.Type) *types.Packing { return t.Packs[manifest.Go] }
