package check

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Streams (digest 5.2): the handle types IFile a, IStream a and OStream a
// and the intrinsics that open, read, write and close them. Every stream
// intrinsic is evaluated by the nexus (dispatch/streams.go), which keeps
// the handles one evaluation of a command opens and closes them when it
// ends. A handle's type is fixed where it is made: @open, @append,
// @stdin, @stdout and @stderr take the type of their context, in
// practice an ascription (`s <- @open p :: <IO, Err> IStream Int`).

// addStreamIntrinsics puts the stream intrinsics into specs.
func addStreamIntrinsics(specs map[string]*intrinsicSpec) {
	io, ioErr := []string{"IO"}, []string{"IO", "Err"}
	for name, spec := range map[string]*intrinsicSpec{
		"open":    {1, ioErr, "Str -> <IO, Err> h", opener("open", "")},
		"append":  {1, ioErr, "Str -> <IO, Err> OStream a", opener("append", types.OStream)},
		"close":   {1, io, "h -> <IO> ()", onHandle("close", "", func(*types.Type) *types.Type { return types.UnitType })},
		"next":    {1, ioErr, "IStream a -> <IO, Err> [a]", onHandle("next", types.IStream, types.ListOf)},
		"stream":  {1, io, "IFile a -> <IO> IStream a", onHandle("stream", types.IFile, func(e *types.Type) *types.Type { return types.HandleOf(types.IStream, e) })},
		"flush":   {1, ioErr, "OStream a -> <IO, Err> ()", onHandle("flush", types.OStream, func(*types.Type) *types.Type { return types.UnitType })},
		"flen":    {1, ioErr, "IFile a -> <IO, Err> Int", onHandle("flen", types.IFile, func(*types.Type) *types.Type { return types.IntType })},
		"write":   {3, ioErr, "Int -> OStream a -> [a] -> <IO, Err> ()", write},
		"concat":  {2, ioErr, "[Str] -> Str -> <IO, Err> ()", concatFiles},
		"fschema": {1, ioErr, "Str -> <IO, Err> Str", fschema},
		"stdin":   {0, ioErr, "<IO, Err> IStream a", stdio("stdin", types.IStream)},
		"stdout":  {0, io, "<IO> OStream a", stdio("stdout", types.OStream)},
		"stderr":  {0, io, "<IO> OStream a", stdio("stderr", types.OStream)},
		"tell":    {0, io, "<IO> Int", tell},
	} {
		specs[name] = spec
	}
}

// handleType resolves `IFile a`, `IStream a` and `OStream a`; ok is false
// when t names none of them.
func (c *checker) handleType(t *syntax.NamedType, path []string) (*types.Type, bool) {
	switch t.Name {
	case types.IFile, types.IStream, types.OStream:
	default:
		return nil, false
	}
	if len(t.Args) != 1 {
		c.sink.Errorf(t.Pos, "type %s takes 1 type argument, its elements' type (%s Int), but is given %d", t.Name, t.Name, len(t.Args))
		return nil, true
	}
	elem := c.resolveType(t.Args[0], path)
	if elem == nil || !c.notFunc(elem, t.Args[0]) {
		return nil, true
	}
	return types.HandleOf(t.Name, elem), true
}

// wantHandle reports whether want is a handle of kind (any handle when
// kind is ""), and reports it at pos when it is not.
func (c *checker) wantHandle(name, kind string, want *types.Type, pos diag.Pos) bool {
	if want != nil && want.Kind == types.Handle && (kind == "" || want.Name == kind) {
		return true
	}
	what := "IFile a, IStream a or OStream a"
	example := "IStream Str"
	if kind != "" {
		what, example = kind+" a", kind+" Str"
	}
	spec := intrinsicSpecs[name]
	row := "<" + strings.Join(spec.effects, ", ") + "> "
	if want == nil {
		c.needType(pos, "cannot tell the handle @%s makes; ascribe it, as in (@%s%s :: %s%s)", name, name, pathParam(spec), row, example)
		return false
	}
	c.sink.Errorf(pos, "@%s makes a handle (%s), but %s is expected here", name, what, want)
	return false
}

func pathParam(spec *intrinsicSpec) string {
	if spec.arity == 0 {
		return ""
	}
	return " path"
}

// opener is @open or @append: a path in, a handle of the ascribed type
// (of kind, when set) out.
func opener(name, kind string) func(*checker, []arg, diag.Pos, *types.Type) value {
	return func(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
		p := c.argValue(args[0], types.StrType)
		if p == nil || !c.wantHandle(name, kind, want, pos) {
			return nil
		}
		return &manifest.Expr{Kind: manifest.Intrinsic, Op: name, Type: want, Args: []*manifest.Expr{p}}
	}
}

// handleArg elaborates a as a handle of kind (any when ""), the argument
// of @name.
func (c *checker) handleArg(a arg, name, kind string) *manifest.Expr {
	x := c.anyValue(a, "@"+name)
	if x == nil {
		return nil
	}
	if x.Type.Kind != types.Handle || kind != "" && x.Type.Name != kind {
		what := "a handle (IFile, IStream or OStream)"
		if kind != "" {
			what = "an " + kind
		}
		c.sink.Errorf(a.pos, "@%s takes %s, got %s", name, what, x.Type)
		return nil
	}
	return x
}

// onHandle is an intrinsic of one handle of kind whose result's type
// follows from the handle's element type.
func onHandle(name, kind string, result func(elem *types.Type) *types.Type) func(*checker, []arg, diag.Pos, *types.Type) value {
	return func(c *checker, args []arg, pos diag.Pos, _ *types.Type) value {
		h := c.handleArg(args[0], name, kind)
		if h == nil {
			return nil
		}
		return &manifest.Expr{Kind: manifest.Intrinsic, Op: name, Type: result(h.Type.Elem), Args: []*manifest.Expr{h}}
	}
}

// write is `@write level out xs`: xs a list of out's elements.
func write(c *checker, args []arg, pos diag.Pos, _ *types.Type) value {
	level := c.argValue(args[0], types.IntType)
	out := c.handleArg(args[1], "write", types.OStream)
	if level == nil || out == nil {
		return nil
	}
	xs := c.argValue(args[2], types.ListOf(out.Type.Elem))
	if xs == nil {
		return nil
	}
	return &manifest.Expr{Kind: manifest.Intrinsic, Op: "write", Type: types.UnitType, Args: []*manifest.Expr{level, out, xs}}
}

// concatFiles is `@concat paths out`.
func concatFiles(c *checker, args []arg, pos diag.Pos, _ *types.Type) value {
	paths := c.argValue(args[0], types.ListOf(types.StrType))
	out := c.argValue(args[1], types.StrType)
	if paths == nil || out == nil {
		return nil
	}
	return &manifest.Expr{Kind: manifest.Intrinsic, Op: "concat", Type: types.UnitType, Args: []*manifest.Expr{paths, out}}
}

func fschema(c *checker, args []arg, pos diag.Pos, _ *types.Type) value {
	p := c.argValue(args[0], types.StrType)
	if p == nil {
		return nil
	}
	return &manifest.Expr{Kind: manifest.Intrinsic, Op: "fschema", Type: types.StrType, Args: []*manifest.Expr{p}}
}

// stdio is @stdin, @stdout or @stderr: a handle of the ascribed type.
func stdio(name, kind string) func(*checker, []arg, diag.Pos, *types.Type) value {
	return func(c *checker, _ []arg, pos diag.Pos, want *types.Type) value {
		if !c.wantHandle(name, kind, want, pos) {
			return nil
		}
		return &manifest.Expr{Kind: manifest.Intrinsic, Op: name, Type: want}
	}
}

func tell(c *checker, _ []arg, pos diag.Pos, want *types.Type) value {
	if want != nil && want.Kind != types.Int {
		c.sink.Errorf(pos, "@tell is an Int (the elements written to @stdout so far), but %s is expected here", want)
		return nil
	}
	return &manifest.Expr{Kind: manifest.Intrinsic, Op: "tell", Type: types.IntType}
}

// unsupportedStreams are the stream intrinsics of Morloc nexus has not:
// said by name rather than as unknown.
var unsupportedStreams = map[string]string{
	"streamLayout": "sub-packet layouts belong to Morloc's binary packets; nexus's stream files are JSON lines",
	"collect":      "write the do block it stands for: do { o <- @stdout :: <IO> OStream a; body (@write 0 o); @close o }",
}

// unsupportedStream reports @name when it is a stream intrinsic nexus
// does not have.
func (c *checker) unsupportedStream(name string, pos diag.Pos) bool {
	why, ok := unsupportedStreams[name]
	if ok {
		c.sink.Errorf(pos, "@%s is not supported: %s", name, why)
	}
	return ok
}

// unhoistedForce reports a `!` the parser could not hoist into a do
// block (syntax/forces.go): one inside a getter's setter or group.
func (c *checker) unhoistedForce(f *syntax.Force) {
	c.sink.Errorf(f.Pos, "a '!' here (inside a getter or setter) is not supported; bind the value with '<-' in a do block first")
}

// handleParams reports the parameters of sig that are or hold a handle,
// and its result too when result is set, and says whether there were
// any. A handle belongs to the evaluation that opened it: no client can
// give one and no pool can use one. who names the signature's owner.
func (c *checker) handleParams(sig *signature, who string, result bool) bool {
	isHandle := func(t *types.Type) bool { return t.Kind == types.Handle }
	bad := false
	for i, p := range sig.params {
		if types.Holds(p, isHandle) {
			c.sink.Errorf(sig.decl.Params[i].Type.TypePos(), "%s takes a handle (%s), which belongs to the call that opened it; take the path (a Str) and @open it", who, p)
			bad = true
		}
	}
	if result && types.Holds(sig.result, isHandle) {
		c.sink.Errorf(sig.decl.Result.Type.TypePos(), "%s returns a handle (%s), which only the nexus can open; return the path (a Str) and @open it", who, sig.result)
		bad = true
	}
	return bad
}
