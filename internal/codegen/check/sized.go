package check

import (
	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Sized number types, I8 ... I64, U8 ... U64, F32 and F64, are Int and
// Real with a width (types.Sized): the checker treats them as Int and
// Real, so a U8 adds to an Int and is passed where an Int is expected,
// and their values are range-checked where they enter: a literal here
// (`Integer literal 1000 overflows U8`), an argument on the command line
// or over MCP (types.FromJSON). Morloc's older spellings, Int8 ... UInt64,
// Float32 and Float64, are the same types, with a warning naming the
// current one, unless the program declares them itself (`type Float64 =
// Real`, as Morloc's older root did).

// olderSized are Morloc's older names of the sized types (digest 11).
var olderSized = map[string]string{
	"Int8": "I8", "Int16": "I16", "Int32": "I32", "Int64": "I64",
	"UInt8": "U8", "UInt16": "U16", "UInt32": "U32", "UInt64": "U64",
	"Float32": "F32", "Float64": "F64",
}

// sizedType resolves t when it names a sized number type; ok is false
// when it names none.
func (c *checker) sizedType(t *syntax.NamedType) (*types.Type, bool) {
	name := t.Name
	if cur, old := olderSized[name]; old {
		c.sink.Warnf(t.Pos, "%s is Morloc's older spelling of %s; write %s", name, cur, cur)
		name = cur
	}
	st := types.Sized(name)
	if st == nil {
		return nil, false
	}
	if len(t.Args) > 0 {
		c.sink.Errorf(t.Pos, "type %s takes no type arguments, but is given %d", t.Name, len(t.Args))
		return nil, true
	}
	return st, true
}

// sizedLiteral is literal e given type want, checked against the ranges
// of the sized number types want holds.
func (c *checker) sizedLiteral(e *manifest.Expr, want *types.Type, pos diag.Pos) value {
	if e.Kind != manifest.Lit || !types.HasWidth(want) {
		return e
	}
	if _, err := types.FromJSON(want, e.Value); err != nil {
		what := "Literal " + string(e.Value)
		switch {
		case want.Kind == types.Int:
			what = "Integer literal"
		case want.Kind == types.Real:
			what = "Float literal"
		}
		if pe, ok := err.(*types.PathError); ok && pe.Path == "" && what != "" {
			c.sink.Errorf(pos, "%s %s", what, pe.Msg)
		} else {
			c.sink.Errorf(pos, "%s does not fit %s: %v", what, want, err)
		}
		return nil
	}
	return &manifest.Expr{Kind: manifest.Lit, Type: want, Value: e.Value}
}
