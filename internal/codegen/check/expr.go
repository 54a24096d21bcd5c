package check

import (
	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Definitions are inlined into the commands that use them: the manifest
// knows only calls of sourced functions, so `weight s = weightPy s` used
// by a command becomes a call of weightPy. Elaboration therefore works on
// values: an expression of the manifest with its type, or a function still
// waiting for arguments (a sourced function, a definition, a getter or a
// composition, possibly given some arguments already).
//
// Arguments travel unevaluated (call by name): a parameter of a definition
// without a signature is elaborated where it is used, against the type
// expected there: with `half x = scale 0.5 [x]`, `half 3` reads 3 as the
// Real that scale's list needs. A definition with a signature checks its
// arguments against the signature first.

// value is a *manifest.Expr or a fnValue. A nil value means an error was
// already reported; callers pass it on without reporting more.
type value any

// fnValue is a function value.
type fnValue interface {
	// apply applies the function to args (at least one). want is the
	// type expected of the result, or nil when unknown.
	apply(c *checker, args []arg, pos diag.Pos, want *types.Type) value
	// missing says what the function lacks, for an error where a value
	// is needed.
	missing() string
}

// arg is an argument: a syntax expression in the scope it was written in,
// or a value elaborated already.
type arg struct {
	expr syntax.Expr
	sc   *scope
	val  value
	pos  diag.Pos
}

// scope binds a definition's parameters to its arguments.
type scope struct {
	vars map[string]arg
}

// extend is a copy of sc with room for n more names, to bind them in.
func (sc *scope) extend(n int) *scope {
	out := &scope{vars: make(map[string]arg, len(sc.vars)+n)}
	for k, a := range sc.vars {
		out.vars[k] = a
	}
	return out
}

// with is sc with name bound to a (sc itself unchanged).
func (sc *scope) with(name string, a arg) *scope {
	out := sc.extend(1)
	out.vars[name] = a
	return out
}

// maxSteps and maxNesting bound the work of elaborating one command.
// Inlining copies a definition's body at every use, so definitions that
// each use the previous one twice grow exponentially; the bounds stop such
// a program with an error instead of exhausting memory or the stack.
const (
	maxSteps   = 200_000
	maxNesting = 5_000
)

// startBudget resets the step budget before a command, an output action
// or a definition is checked.
func (c *checker) startBudget(nvars int) {
	c.steps, c.nesting, c.exhausted = 0, 0, false
	c.slots = nvars
}

// elab elaborates e against want (nil: infer the type).
func (c *checker) elab(e syntax.Expr, sc *scope, want *types.Type) value {
	c.steps++
	c.nesting++
	defer func() { c.nesting-- }()
	if c.steps > maxSteps || c.nesting > maxNesting {
		if !c.exhausted {
			c.exhausted = true
			c.sink.Errorf(e.ExprPos(), "inlining the definitions used here grows too large (over %d steps or %d levels deep); a definition probably uses another many times over", maxSteps, maxNesting)
		}
		return nil
	}
	var v value
	switch e := e.(type) {
	case *syntax.IntLit:
		v = c.literal(types.IntType, e.Value, e.Pos)
	case *syntax.RealLit:
		v = c.literal(types.RealType, e.Value, e.Pos)
	case *syntax.StrLit:
		v = c.literal(types.StrType, e.Value, e.Pos)
	case *syntax.BoolLit:
		v = c.literal(types.BoolType, e.Value, e.Pos)
	case *syntax.UnitLit:
		v = c.literal(types.UnitType, nil, e.Pos)
	case *syntax.ListLit:
		v = c.list(e, sc, want)
	case *syntax.TupleLit:
		v = c.tuple(e, sc, want)
	case *syntax.RecordLit:
		v = c.recordLit(e, sc, want)
	case *syntax.Var:
		v = c.variable(e, sc, want)
	case *syntax.App:
		head := c.elab(e.Fun, sc, nil)
		args := make([]arg, len(e.Args))
		for i, a := range e.Args {
			args[i] = arg{expr: a, sc: sc, pos: a.ExprPos()}
		}
		v = c.applyValue(head, args, e.Pos, want)
	case *syntax.Getter:
		v = &getterFn{field: e.Field, pos: e.Pos}
	case *syntax.Access:
		v = &accessFn{a: e, sc: sc}
	case *syntax.Infix:
		v = c.infix(e, sc, want)
	case *binary:
		v = c.binaryOp(e, sc, want)
	case *syntax.Negate:
		v = c.negate(e, sc, want)
	case *syntax.Section:
		v = c.section(e, sc)
	case *syntax.Guard:
		v = c.guard(e, sc, want)
	case *ascribed:
		v = c.elab(e.e, sc, e.t)
	case *syntax.Let:
		v = c.let(e, sc, want)
	case *syntax.Lambda:
		v = c.lambda(e, sc)
	case *syntax.NullLit:
		v = c.null(e, want)
	case *syntax.Do:
		v = c.doBlock(e, sc, want)
	case *byName:
		v = c.named(e, sc, want)
	case *syntax.Throw:
		v = c.throw(e, sc, want)
	case *syntax.Intrinsic:
		v = c.intrinsic(e, want)
	case *syntax.Ascription:
		v = c.ascription(e, sc)
	case *syntax.Force:
		c.unhoistedForce(e)
	}
	return c.conform(v, want, e.ExprPos())
}

// applyValue applies head to args.
func (c *checker) applyValue(head value, args []arg, pos diag.Pos, want *types.Type) value {
	switch h := head.(type) {
	case nil:
		return nil
	case fnValue:
		if len(args) == 0 {
			return h
		}
		return h.apply(c, args, pos, want)
	case *manifest.Expr:
		if len(args) == 0 {
			return h
		}
		c.sink.Errorf(pos, "a value of type %s is not a function, but is given %d argument%s", h.Type, len(args), plural(len(args)))
	}
	return nil
}

// force elaborates an argument against want.
func (c *checker) force(a arg, want *types.Type) value {
	if a.val != nil {
		return c.conform(a.val, want, a.pos)
	}
	return c.elab(a.expr, a.sc, want)
}

// conform checks that v fits want, converting a literal where the
// language allows it (an Int literal where a Real is expected).
func (c *checker) conform(v value, want *types.Type, pos diag.Pos) value {
	if v == nil || want == nil {
		return v
	}
	if f, ok := v.(fnValue); ok {
		c.sink.Errorf(pos, "expected %s, got %s", want, f.missing())
		return nil
	}
	e := v.(*manifest.Expr)
	if e.Kind == manifest.Var && e.Type.Kind == types.Var && c.inferring != nil {
		if t, ok := c.inferring[e.Type.Name]; ok {
			// A parameter whose type is being inferred (inferSignature):
			// the first place that expects a type says what it is.
			if t == nil {
				c.inferring[e.Type.Name] = want
				t = want
			}
			return &manifest.Expr{Kind: manifest.Var, Type: t, Ref: e.Ref}
		}
	}
	if types.Equal(e.Type, want) {
		return c.sizedLiteral(e, want, pos)
	}
	if out := asDeclared(e, want); out != nil {
		return out
	}
	lit := e.Kind == manifest.Lit
	if !assignable(e.Type, want, lit) {
		c.sink.Errorf(pos, "expected %s, got %s", want, e.Type)
		return nil
	}
	if !lit {
		// A value of T where ?T is expected: the same value at runtime.
		return e
	}
	out, err := relit(want, e.Value)
	if err != nil {
		c.sink.Errorf(pos, "expected %s, got %s: %v", want, e.Type, err)
		return nil
	}
	return c.sizedLiteral(out, want, pos)
}

// assignable reports whether a value of type have may stand where want is
// expected: the same type; T where ?T is expected; and, for literals, Int
// where Real is expected, also inside lists, tuples and optionals, and an
// Int, Real, Str, Bool or () where a Json is expected (its JSON is the
// value).
func assignable(have, want *types.Type, lit bool) bool {
	if types.Equal(have, want) {
		return true
	}
	if lit && isNewtype(want) {
		return assignable(have, newtypeBody(want), lit)
	}
	switch {
	case want.Kind == types.Optional:
		return assignable(have, want.Elem, lit)
	case !lit:
		return false
	case have.Kind == types.Int && want.Kind == types.Real:
		return true
	case want.Kind == types.JSON:
		switch have.Kind {
		case types.Int, types.Real, types.Str, types.Bool, types.Unit:
			return true
		}
		return false
	case have.Kind == types.List && want.Kind == types.List:
		return assignable(have.Elem, want.Elem, lit)
	case have.Kind == types.Tuple && want.Kind == types.Tuple && len(have.Items) == len(want.Items):
		for i := range have.Items {
			if !assignable(have.Items[i], want.Items[i], lit) {
				return false
			}
		}
		return true
	}
	return false
}

// relit re-reads a literal's JSON as type t.
func relit(t *types.Type, data []byte) (*manifest.Expr, error) {
	v, err := types.FromJSON(t, data)
	if err != nil {
		return nil, err
	}
	out, err := types.ToJSON(t, v)
	if err != nil {
		return nil, err
	}
	return &manifest.Expr{Kind: manifest.Lit, Type: t, Value: out}, nil
}

// variable resolves a name: a parameter, a definition or a sourced
// function, in that order.
func (c *checker) variable(e *syntax.Var, sc *scope, want *types.Type) value {
	if a, ok := sc.vars[e.Name]; ok {
		if a.val != nil {
			// A mismatch is reported where the parameter is used.
			return c.conform(a.val, want, e.Pos)
		}
		return c.force(a, want)
	}
	if m := c.method(e.Name); m != nil {
		return m.methodValue(c, e.Pos, want)
	}
	if d := c.defs[e.Name]; d != nil {
		if d.broken || (d.sig != nil && !d.sig.ok) {
			return nil
		}
		if d.recursive {
			rf := &recFn{d: d}
			if len(d.sig.params) == 0 {
				return rf.call(c, nil, e.Pos)
			}
			return rf
		}
		df := &defFn{d: d}
		if df.arity() == 0 {
			return df.expand(c, nil, e.Pos, want)
		}
		return df
	}
	if f := c.funcs[e.Name]; f != nil {
		if f.sig == nil || !f.sig.ok {
			return nil
		}
		sf := &sourcedFn{f: f}
		if len(f.sig.params) == 0 {
			return sf.call(c, nil, want)
		}
		return sf
	}
	if b := c.builtins[e.Name]; b != nil {
		if len(b.sig.params) == 0 {
			return b.call(c, nil, e.Pos, want)
		}
		return b
	}
	c.sink.Errorf(e.Pos, "unknown name '%s'%s", e.Name, suggest.Hint(e.Name, c.namesInScope(sc)))
	return nil
}

// namesInScope lists the names an unknown name may be a typo of.
func (c *checker) namesInScope(sc *scope) []string {
	var names []string
	if sc != nil {
		for n := range sc.vars {
			names = append(names, n)
		}
	}
	for n := range c.defs {
		names = append(names, n)
	}
	for n := range c.funcs {
		names = append(names, n)
	}
	for n := range c.builtins {
		names = append(names, n)
	}
	return names
}
