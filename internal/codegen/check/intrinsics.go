package check

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Morloc's intrinsics (`@show x`, `@load p`, ...) are functions built into
// the language. Those whose value is known when the program is built
// (@version, @compiled, @lang, @datafile, @schema, @typeof) become
// literals here; the others become manifest Intrinsic expressions the
// nexus evaluates. Their effects are checked with every body's
// (effectrules.go); an ascription on an intrinsic's application must keep
// them, which is checked here.

// intrinsicSpec describes one intrinsic: its arity, the effects of its
// result, its type as Morloc writes it (for errors), and how an
// application to all its arguments elaborates.
type intrinsicSpec struct {
	arity   int
	effects []string
	sig     string
	build   func(c *checker, args []arg, pos diag.Pos, want *types.Type) value
}

var intrinsicSpecs map[string]*intrinsicSpec

func init() {
	// Built in init: the builders refer back to the table (through elab).
	intrinsicSpecs = map[string]*intrinsicSpec{
		"show":     {1, nil, "a -> Str", runtimeOf("show", types.StrType)},
		"hash":     {1, nil, "a -> Str", runtimeOf("hash", types.StrType)},
		"read":     {1, []string{"Err"}, "Str -> <Err> a", readLike("read", "s")},
		"load":     {1, []string{"IO", "Err"}, "Str -> <IO, Err> a", readLike("load", "path")},
		"save":     {3, []string{"IO", "Err"}, "Int -> a -> Str -> <IO, Err> ()", save},
		"savem":    {2, []string{"IO", "Err"}, "Str -> a -> <IO, Err> ()", saveTo("savem")},
		"savej":    {2, []string{"IO", "Err"}, "Str -> a -> <IO, Err> ()", saveTo("savej")},
		"catch":    {2, nil, "<e, Err> a -> <e> a -> <e> a", catch},
		"version":  {0, nil, "Str", constant(func() string { return manifest.NexusVersion })},
		"compiled": {0, nil, "Str", constant(func() string { return time.Now().UTC().Format(time.RFC3339) })},
		"lang":     {0, nil, "Str", constant(func() string { return "morloc" })},
		"datafile": {1, nil, "Str -> Str", datafile},
		"schema":   {1, nil, "a -> Str", ofType(types.Schema)},
		"typeof":   {1, nil, "a -> Str", ofType((*types.Type).String)},
	}
	addStreamIntrinsics(intrinsicSpecs)
}

// intrinsicFn is an intrinsic given fewer arguments than its arity: a
// function value (Morloc eta-expands it).
type intrinsicFn struct {
	name  string
	spec  *intrinsicSpec
	pos   diag.Pos
	given []arg
}

func (f *intrinsicFn) missing() string {
	n := f.spec.arity - len(f.given)
	return fmt.Sprintf("@%s (%s) waiting for %d more argument%s", f.name, f.spec.sig, n, plural(n))
}

func (f *intrinsicFn) apply(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
	all := append(append([]arg(nil), f.given...), args...)
	if len(all) < f.spec.arity {
		return &intrinsicFn{name: f.name, spec: f.spec, pos: f.pos, given: all}
	}
	if len(all) == f.spec.arity {
		return f.spec.build(c, all, pos, want)
	}
	return c.applyValue(f.spec.build(c, all[:f.spec.arity], pos, nil), all[f.spec.arity:], pos, want)
}

// intrinsic elaborates `@name`: a value for an intrinsic of no arguments,
// else a function waiting for them.
func (c *checker) intrinsic(e *syntax.Intrinsic, want *types.Type) value {
	spec := intrinsicSpecs[e.Name]
	if spec == nil && c.unsupportedStream(e.Name, e.Pos) {
		return nil
	}
	if spec == nil {
		names := make([]string, 0, len(intrinsicSpecs)+1)
		for n := range intrinsicSpecs {
			names = append(names, n)
		}
		names = append(names, "throw")
		sort.Strings(names)
		c.sink.Errorf(e.Pos, "unknown intrinsic '@%s'%s (the intrinsics: @%s)", e.Name, suggest.Hint(e.Name, names), strings.Join(names, ", @"))
		return nil
	}
	if spec.arity == 0 {
		return spec.build(c, nil, e.Pos, want)
	}
	return &intrinsicFn{name: e.Name, spec: spec, pos: e.Pos}
}

// runtimeOf is an intrinsic of one value of any type, evaluated by the
// nexus, with a result of type result.
func runtimeOf(name string, result *types.Type) func(*checker, []arg, diag.Pos, *types.Type) value {
	return func(c *checker, args []arg, pos diag.Pos, _ *types.Type) value {
		x := c.anyValue(args[0], "@"+name)
		if x == nil {
			return nil
		}
		return &manifest.Expr{Kind: manifest.Intrinsic, Op: name, Type: result, Args: []*manifest.Expr{x}}
	}
}

// readLike is @read or @load: a Str in, a value of the type the context
// or an ascription gives out.
func readLike(name, param string) func(*checker, []arg, diag.Pos, *types.Type) value {
	return func(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
		s := c.argValue(args[0], types.StrType)
		if s == nil {
			return nil
		}
		if want == nil {
			c.needType(pos, "cannot tell the type @%s reads; ascribe it, as in (@%s %s :: %s)", name, name, param, ascriptionExample(name))
			return nil
		}
		return &manifest.Expr{Kind: manifest.Intrinsic, Op: name, Type: want, Args: []*manifest.Expr{s}}
	}
}

func ascriptionExample(name string) string {
	if name == "read" {
		return "<Err> Int"
	}
	return "<IO, Err> Int"
}

// save is `@save level value path`.
func save(c *checker, args []arg, pos diag.Pos, _ *types.Type) value {
	level := c.argValue(args[0], types.IntType)
	x := c.anyValue(args[1], "@save")
	path := c.argValue(args[2], types.StrType)
	if level == nil || x == nil || path == nil {
		return nil
	}
	return &manifest.Expr{Kind: manifest.Intrinsic, Op: "save", Type: types.UnitType, Args: []*manifest.Expr{level, x, path}}
}

// saveTo is `@savem path value` or `@savej path value`. The order before
// Morloc 0.91, value then path, is read too when the types tell it: the
// first argument not a Str and the second a Str.
func saveTo(name string) func(*checker, []arg, diag.Pos, *types.Type) value {
	return func(c *checker, args []arg, pos diag.Pos, _ *types.Type) value {
		first := c.anyValue(args[0], "@"+name)
		second := c.anyValue(args[1], "@"+name)
		if first == nil || second == nil {
			return nil
		}
		path, x := first, second
		if first.Type.Kind != types.Str {
			if second.Type.Kind != types.Str {
				c.sink.Errorf(args[0].pos, "expected the path (a Str) first: @%s path value, got %s and %s", name, first.Type, second.Type)
				return nil
			}
			path, x = second, first // @savej value path, before Morloc 0.91
		}
		return &manifest.Expr{Kind: manifest.Intrinsic, Op: name, Type: types.UnitType, Args: []*manifest.Expr{path, x}}
	}
}

// catch is `@catch a b`: a, or b when evaluating a fails. Both have the
// expected type; without one, a's type.
func catch(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
	a := c.argValue(args[0], want)
	if a == nil {
		return nil
	}
	if want == nil {
		want = a.Type
	}
	b := c.argValue(args[1], want)
	if b == nil {
		return nil
	}
	return &manifest.Expr{Kind: manifest.Intrinsic, Op: "catch", Type: want, Args: []*manifest.Expr{a, b}}
}

// constant is an intrinsic of no arguments whose value is a Str known
// when the program is built.
func constant(text func() string) func(*checker, []arg, diag.Pos, *types.Type) value {
	return func(c *checker, _ []arg, pos diag.Pos, _ *types.Type) value {
		return strLit(text())
	}
}

// datafile is the path unchanged: nexus installs no data files.
func datafile(c *checker, args []arg, _ diag.Pos, _ *types.Type) value {
	if p := c.argValue(args[0], types.StrType); p != nil {
		return p
	}
	return nil
}

// ofType is an intrinsic whose value is a text about its argument's type;
// the argument is never evaluated.
func ofType(text func(*types.Type) string) func(*checker, []arg, diag.Pos, *types.Type) value {
	return func(c *checker, args []arg, pos diag.Pos, _ *types.Type) value {
		x := c.anyValue(args[0], "this intrinsic")
		if x == nil {
			return nil
		}
		return strLit(text(x.Type))
	}
}

func strLit(s string) *manifest.Expr {
	data, _ := json.Marshal(s) // a string always marshals
	return &manifest.Expr{Kind: manifest.Lit, Type: types.StrType, Value: data}
}

// argValue elaborates a against want, nil when it is not a value
// (reported).
func (c *checker) argValue(a arg, want *types.Type) *manifest.Expr {
	x, _ := c.valueOf(c.force(a, want), a.pos).(*manifest.Expr)
	return x
}

// anyValue elaborates a, of any type, as the argument of who.
func (c *checker) anyValue(a arg, who string) *manifest.Expr {
	v := c.force(a, nil)
	if x, ok := v.(*manifest.Expr); ok {
		return x
	}
	if f, ok := v.(fnValue); ok {
		c.sink.Errorf(a.pos, "%s takes a value, not a function; got %s", who, f.missing())
	}
	return nil
}

// ascription elaborates `e :: <effects> T`: e checked against T. The
// effect labels must be declared, and an intrinsic applied there must not
// have effects the row leaves out.
func (c *checker) ascription(e *syntax.Ascription, sc *scope) value {
	c.checkEffectRow(e.Type.Effects)
	t := c.resolveType(e.Type.Type, nil)
	if t == nil {
		return nil
	}
	if name, spec := appliedIntrinsic(e.Expr); spec != nil {
		row := map[string]bool{}
		for _, n := range e.Type.Effects {
			row[n.Name] = true
		}
		for _, eff := range spec.effects {
			if row[eff] {
				continue
			}
			if name == "load" && row["IO"] && t.Kind == types.Optional {
				c.sink.Errorf(e.Pos, "@load p :: <IO> ?a (Null for a missing file) is the form before Morloc 0.94; @load now raises Err: write (@load p :: <IO, Err> %s), with @catch for a fallback", t.Elem)
				return nil
			}
			c.sink.Errorf(e.Pos, "@%s has the effects <%s> (%s), but this ascription leaves out %s; write <%s> %s", name, strings.Join(spec.effects, ", "), spec.sig, eff, strings.Join(mergeEffects(e.Type.Effects, spec.effects), ", "), t)
			return nil
		}
	}
	return c.elab(e.Expr, sc, t)
}

// appliedIntrinsic is the intrinsic e applies to all its arguments, if
// it is one.
func appliedIntrinsic(e syntax.Expr) (string, *intrinsicSpec) {
	var head syntax.Expr = e
	n := 0
	if app, ok := e.(*syntax.App); ok {
		head, n = app.Fun, len(app.Args)
	}
	in, ok := head.(*syntax.Intrinsic)
	if !ok {
		return "", nil
	}
	if spec := intrinsicSpecs[in.Name]; spec != nil && spec.arity == n {
		return in.Name, spec
	}
	return "", nil
}

func mergeEffects(row []syntax.Name, more []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range row {
		if !seen[n.Name] {
			seen[n.Name] = true
			out = append(out, n.Name)
		}
	}
	for _, n := range more {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// checkEffectRow reports the labels of an ascription's effect row that no
// `effect` declaration declares.
func (c *checker) checkEffectRow(row []syntax.Name) {
	declared := c.declaredEffects()
	for _, n := range row {
		if startsUpperName(n.Name) && !declared[n.Name] {
			c.sink.Errorf(n.Pos, "effect '%s' is not declared; declare it with `effect %s`", n.Name, n.Name)
		}
	}
}
