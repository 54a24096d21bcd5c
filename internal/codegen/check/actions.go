package check

import (
	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// action builds an output action from a with: or render: directive.
func (c *checker) action(dir doc.Directive, result *types.Type, reg *optionNames) *manifest.Action {
	names, fnText, off, err := doc.ParseAction(dir.Value)
	if err != nil {
		c.valueError(dir, err)
		return nil
	}
	reg.addNames(names, dir.ValuePos)
	if c.streamedAction(dir, fnText, off) {
		return nil
	}
	fnPos := dir.ValuePos
	fnPos.Col += len([]rune(dir.Value[:off]))
	expr := syntax.ParseExpr(fnText, fnPos, c.sink)
	if expr == nil {
		return nil
	}
	c.startBudget(1) // the command's result
	fn := c.elab(expr, &scope{vars: map[string]arg{}}, nil)
	if fn == nil {
		return nil
	}
	if want := firstParam(fn); want != nil && !assignable(result, want, false) {
		c.sink.Errorf(fnPos, "%s: '%s' takes %s, but the command returns %s", dir.Key, fnText, want, result)
		return nil
	}
	var want *types.Type
	if dir.Key == "render" {
		want = types.StrType
	}
	res := arg{val: &manifest.Expr{Kind: manifest.Var, Type: result, Ref: 0}, pos: fnPos}
	v := c.applyValue(fn, []arg{res}, fnPos, nil)
	body, ok := v.(*manifest.Expr)
	if v != nil && !ok {
		c.sink.Errorf(fnPos, "%s: %s; the function must take the result as its only missing argument", dir.Key, v.(fnValue).missing())
		return nil
	}
	if body == nil {
		return nil
	}
	if want != nil && !types.Equal(body.Type, want) {
		c.sink.Errorf(fnPos, "render: '%s' returns %s, but a render function must return Str", fnText, body.Type)
		return nil
	}
	return &manifest.Action{Kind: dir.Key, Short: names.Short, Long: names.Long, Body: body, Return: body.Type}
}

// firstParam is the type of the next argument a function value takes,
// when it is known.
func firstParam(v value) *types.Type {
	switch f := v.(type) {
	case *sourcedFn:
		if len(f.given) < len(f.f.sig.params) {
			return f.f.sig.params[len(f.given)]
		}
	case *defFn:
		if f.d.sig != nil && len(f.given) < len(f.d.sig.params) {
			return f.d.sig.params[len(f.given)]
		}
	}
	return nil
}
