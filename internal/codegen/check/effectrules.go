package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
)

// Effect checking (digest 5.1). A type `<E> T` is a computation that,
// when run, performs the effects E and gives a T. nexus runs every
// command eagerly, so effects change nothing at run time; they are
// checked here, on the syntax, by a pass of its own beside elaboration:
//
//   - a body's effects must be among those its signature declares on its
//     result (a pure value lifts into any effect row, rules 1 and 2);
//   - a value with effects is never accepted where a plain type or a bare
//     type variable is expected (rule 3): it is run by `<-` or a bare
//     statement of a do block, whose effects are the union of its
//     statements' (rule 4), or handled by @catch, which removes Err;
//   - an effect row variable (`(a -> <e> b) -> [a] -> <e> [b]`) takes the
//     effects of the argument it matches, and gives them to the result;
//   - tuple, record and list literals hold plain values only.
//
// The prelude's higher-order functions are effect-polymorphic in the
// functions they take, as if each `(a -> b)` were `(a -> <e> b)` and the
// result `<e> R`: `map readFile paths` has the effects of readFile.
//
// Definitions without a signature are analysed where they are used, with
// the effects of their arguments, as they are inlined there (expr.go).

// effOrigin is where an effect of a row comes from: the function, tool
// or intrinsic that has it, and where it is used.
type effOrigin struct {
	pos  diag.Pos
	from string
}

// effRow is a set of effect labels and row variables (lower-case names;
// implicitVar for the prelude's), each with its origin.
type effRow map[string]effOrigin

// implicitVar is the row variable the prelude's higher-order functions
// get: a name no program can write.
const implicitVar = " e"

// effTy is what the effect checker knows of an expression: the effects
// of running it, and, for a function, those of its parameters and result.
// A nil *effTy is a value the checker knows nothing about; its uses are
// not checked.
type effTy struct {
	row effRow
	// fn is set for a function known by a signature: params and result.
	fn     bool
	params []*effTy
	result *effTy
	// plain is set for a function whose arguments and result are plain
	// values (a getter, an operator section, a class method).
	plain bool
	// lam is set for a lambda or a definition without a signature,
	// analysed when it is applied.
	lam *effLam
}

// effLam is a function analysed at its applications.
type effLam struct {
	params []syntax.Name
	body   syntax.Expr
	env    effEnv
	// def is set for a definition without a signature, analysed in its
	// own scope (lamBody).
	def *syntax.Def
}

// effEnv binds local names (parameters, lets, lambda parameters, do
// bindings, where bindings) to what is known of them.
type effEnv map[string]*effBinding

// effBinding is a local name's effTy, or, for a where binding without a
// signature and without parameters, its body, analysed when it is used.
type effBinding struct {
	ty   *effTy
	body syntax.Expr
	env  effEnv
}

func (env effEnv) with(name string, b *effBinding) effEnv {
	out := make(effEnv, len(env)+1)
	for k, v := range env {
		out[k] = v
	}
	out[name] = b
	return out
}

// effChecker holds the state of one run of the effect checks.
type effChecker struct {
	c *checker
	// reported dedupes errors: a definition without a signature is
	// analysed at each use.
	reported map[string]bool
	// active are the definitions being analysed, against a cycle (the
	// cycle itself is reported by checkDefinitions).
	active map[*syntax.Def]bool
	depth  int
	// plainUses are the effTys of definitions without a signature given
	// plain arguments, analysed once.
	plainUses map[*syntax.Def]*effTy
	// steps bounds the work on one definition as elaboration's
	// maxSteps does, which reports a program that exceeds it.
	steps int
}

// maxEffDepth bounds the nesting of analyses of definitions without
// signatures (each use analyses the body again).
const maxEffDepth = 200

func (ec *effChecker) errorf(pos diag.Pos, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	key := pos.String() + msg
	if ec.reported[key] {
		return
	}
	ec.reported[key] = true
	ec.c.sink.Errorf(pos, "%s", msg)
}

// checkBodyEffects checks the effects of every definition of the program
// against its signature.
func (c *checker) checkBodyEffects() {
	ec := &effChecker{c: c, reported: map[string]bool{}, active: map[*syntax.Def]bool{}, plainUses: map[*syntax.Def]*effTy{}}
	for _, d := range c.file.Defs {
		def := c.defs[d.Name.Name]
		if def == nil || def.decl != d || def.broken || c.preludeDefs[d.Name.Name] {
			continue
		}
		ec.steps = 0
		if def.sig == nil {
			// Checked on its own for what does not depend on its
			// arguments; again at each use.
			ec.lamBody(d, nil)
			continue
		}
		ec.checkDef(d, def.sig.decl, effEnv{})
	}
}

// checkDef checks d's body against its signature s.
func (ec *effChecker) checkDef(d *syntax.Def, s *syntax.Signature, outer effEnv) {
	env := outer
	for i, p := range d.Params {
		var t *effTy
		if i < len(s.Params) {
			t = originAt(partEff(s.Params[i], false), p.Pos, "parameter "+p.Name)
		}
		env = env.with(p.Name, &effBinding{ty: t})
	}
	env = ec.whereEnv(d, env)
	ec.active[d] = true
	got := ec.expr(d.Body, env)
	delete(ec.active, d)
	// A body with fewer parameters than the signature is a function
	// of the rest.
	for i := len(d.Params); i < len(s.Params) && got != nil; i++ {
		got = ec.applyTy(got, []*effTy{partEff(s.Params[i], false)}, d.Body.ExprPos(), "")
	}
	if got == nil {
		return
	}
	declared := rowOf(s.Result.Effects)
	var extra []string
	for _, l := range sortedLabels(got.row) {
		if _, ok := declared[l]; !ok {
			extra = append(extra, l)
		}
	}
	if len(extra) == 0 {
		return
	}
	o := got.row[extra[0]]
	fix := fmt.Sprintf("<%s> %s", strings.Join(labelsPlus(declared, got.row), ", "), typeText(ec.c, d.Name.Name))
	if len(declared) == 0 {
		ec.errorf(o.pos, "%s has %s (from %s), but its signature's result %s is pure; declare it: %s",
			d.Name.Name, effectsText(extra), o.from, typeText(ec.c, d.Name.Name), fix)
		return
	}
	ec.errorf(o.pos, "%s has %s (from %s), but its signature declares only <%s>; add it: %s",
		d.Name.Name, effectsText(extra), o.from, strings.Join(sortedLabels(declared), ", "), fix)
}

// typeText is the result type of name's signature, for errors.
func typeText(c *checker, name string) string {
	if s := c.sigs[name]; s != nil && s.result != nil {
		return s.result.String()
	}
	return "T"
}

// whereEnv is env with d's where bindings.
func (ec *effChecker) whereEnv(d *syntax.Def, env effEnv) effEnv {
	if len(d.Where) == 0 {
		return env
	}
	sigs := map[string]*syntax.Signature{}
	for _, s := range d.WhereSigs {
		sigs[s.Name.Name] = s
	}
	out := make(effEnv, len(env)+len(d.Where))
	for k, v := range env {
		out[k] = v
	}
	for _, b := range d.Where {
		if s := sigs[b.Name.Name]; s != nil {
			out[b.Name.Name] = &effBinding{ty: sigEff(s, false)}
			ec.checkDef(b, s, out)
			continue
		}
		if len(b.Params) == 0 {
			out[b.Name.Name] = &effBinding{body: b.Body, env: out}
			continue
		}
		out[b.Name.Name] = &effBinding{ty: &effTy{lam: &effLam{params: b.Params, body: b.Body, env: out}}}
	}
	return out
}

// lamBody analyses the body of a definition without a signature given
// args (nil: plain values).
func (ec *effChecker) lamBody(d *syntax.Def, args []*effTy) (out *effTy) {
	if ec.active[d] || ec.depth > maxEffDepth {
		return nil
	}
	plain := true
	for _, a := range args {
		plain = plain && a == nil
	}
	if t, ok := ec.plainUses[d]; ok && plain {
		return t
	}
	if plain {
		defer func() { ec.plainUses[d] = out }()
	}
	ec.active[d] = true
	ec.depth++
	defer func() { delete(ec.active, d); ec.depth-- }()
	env := effEnv{}
	for i, p := range d.Params {
		var t *effTy
		if i < len(args) {
			t = args[i]
		}
		env = env.with(p.Name, &effBinding{ty: t})
	}
	return ec.expr(d.Body, ec.whereEnv(d, env))
}

// global is what is known of a name of the program used at pos.
func (ec *effChecker) global(name string, pos diag.Pos) *effTy {
	c := ec.c
	if c.method(name) != nil {
		return &effTy{plain: true}
	}
	if d := c.defs[name]; d != nil {
		if d.broken {
			return nil
		}
		if d.sig != nil {
			return originAt(sigEff(d.sig.decl, c.preludeDefs[name]), pos, name)
		}
		if len(d.decl.Params) == 0 {
			return ec.lamBody(d.decl, nil)
		}
		return &effTy{lam: &effLam{params: d.decl.Params, def: d.decl}}
	}
	if f := c.funcs[name]; f != nil {
		if f.sig == nil {
			return nil
		}
		return originAt(sigEff(f.sig.decl, false), pos, name)
	}
	if b := c.builtins[name]; b != nil {
		return originAt(sigEff(b.sig.decl, true), pos, name)
	}
	return nil
}

// expr analyses e in env.
func (ec *effChecker) expr(e syntax.Expr, env effEnv) *effTy {
	if ec.steps++; ec.steps > maxSteps {
		return nil
	}
	switch e := e.(type) {
	case *syntax.Var:
		return ec.variable(e, env)
	case *syntax.App:
		return ec.app(e, env)
	case *syntax.ListLit:
		for _, x := range e.Elems {
			ec.plainValue(x, env, "a list element")
		}
	case *syntax.TupleLit:
		for _, x := range e.Items {
			ec.plainValue(x, env, "a tuple literal's item; a tuple literal may not contain effects")
		}
	case *syntax.RecordLit:
		for _, f := range e.Fields {
			ec.plainValue(f.Value, env, fmt.Sprintf("field '%s' of a record literal; a record literal may not contain effects", f.Name.Name))
		}
	case *syntax.Getter, *syntax.Access, *syntax.Section:
		if s, ok := e.(*syntax.Section); ok {
			for _, x := range []syntax.Expr{s.Left, s.Right} {
				if x != nil {
					ec.plainValue(x, env, "an operand")
				}
			}
		}
		return &effTy{plain: true}
	case *syntax.Infix:
		return ec.infix(e, env)
	case *syntax.Negate:
		ec.plainValue(e.Expr, env, "the operand of '-'")
	case *syntax.Guard:
		return ec.guard(e, env)
	case *syntax.Let:
		for _, b := range e.Bindings {
			env = env.with(b.Name.Name, &effBinding{ty: ec.expr(b.Value, env)})
		}
		return ec.expr(e.Body, env)
	case *syntax.Lambda:
		return &effTy{lam: &effLam{params: e.Params, body: e.Body, env: env}}
	case *syntax.Do:
		return ec.doBlock(e, env)
	case *syntax.Throw:
		ec.plainValue(e.Message, env, "@throw's message")
		return &effTy{row: effRow{"Err": {e.Pos, "@throw"}}}
	case *syntax.Intrinsic:
		return ec.intrinsic(e, nil, env)
	case *syntax.Ascription:
		return ec.ascription(e, env)
	}
	return nil
}

func (ec *effChecker) variable(v *syntax.Var, env effEnv) *effTy {
	b, ok := env[v.Name]
	if !ok {
		return ec.global(v.Name, v.Pos)
	}
	if b.body == nil {
		return b.ty
	}
	if ec.depth > maxEffDepth {
		return nil
	}
	ec.depth++
	defer func() { ec.depth-- }()
	body := b.body
	b.body = nil // a where binding referring to itself is a cycle, reported elsewhere
	t := ec.expr(body, b.env)
	b.body = body
	return t
}

// app analyses an application.
func (ec *effChecker) app(e *syntax.App, env effEnv) *effTy {
	if in, ok := e.Fun.(*syntax.Intrinsic); ok {
		return ec.intrinsic(in, e.Args, env)
	}
	head := ec.expr(e.Fun, env)
	name := headName(e.Fun)
	return ec.applyArgs(head, name, e.Args, env, e.Pos)
}

func headName(e syntax.Expr) string {
	if v, ok := e.(*syntax.Var); ok {
		return v.Name
	}
	return "the function"
}

// applyArgs applies head, named name for errors, to args.
func (ec *effChecker) applyArgs(head *effTy, name string, args []syntax.Expr, env effEnv, pos diag.Pos) *effTy {
	switch {
	case head == nil:
		for _, a := range args {
			ec.expr(a, env)
		}
		return nil
	case head.plain:
		for _, a := range args {
			ec.plainValue(a, env, "an argument of "+name)
		}
		return nil
	case head.lam != nil:
		tys := make([]*effTy, len(args))
		for i, a := range args {
			tys[i] = ec.expr(a, env)
		}
		return ec.applyTy(head, tys, pos, name)
	case head.fn:
		subst := map[string]effRow{}
		n := min(len(args), len(head.params))
		for i := 0; i < n; i++ {
			ec.pass(ec.expr(args[i], env), head.params[i], subst, args[i].ExprPos(), name, i+1)
		}
		var out *effTy
		if n < len(head.params) {
			out = &effTy{fn: true, params: substAll(head.params[n:], subst), result: substTy(head.result, subst, false)}
		} else {
			out = substTy(head.result, subst, true)
		}
		if len(args) > n {
			return ec.applyArgs(out, name, args[n:], env, pos)
		}
		return out
	}
	for _, a := range args {
		ec.expr(a, env)
	}
	return nil
}

// applyTy applies f to arguments known only by their effTys (a
// function's result, a lambda given to a higher-order function).
func (ec *effChecker) applyTy(f *effTy, args []*effTy, pos diag.Pos, name string) *effTy {
	switch {
	case f == nil || f.plain:
		return nil
	case f.lam != nil:
		l := f.lam
		if l.def != nil {
			if len(args) < len(l.params) {
				return nil
			}
			out := ec.lamBody(l.def, args[:len(l.params)])
			if len(args) > len(l.params) {
				return ec.applyTy(out, args[len(l.params):], pos, name)
			}
			return out
		}
		if ec.depth > maxEffDepth {
			return nil
		}
		ec.depth++
		defer func() { ec.depth-- }()
		env := l.env
		n := min(len(args), len(l.params))
		for i := 0; i < n; i++ {
			env = env.with(l.params[i].Name, &effBinding{ty: args[i]})
		}
		if n < len(l.params) {
			return &effTy{lam: &effLam{params: l.params[n:], body: l.body, env: env}}
		}
		out := ec.expr(l.body, env)
		if len(args) > n {
			return ec.applyTy(out, args[n:], pos, name)
		}
		return out
	case f.fn:
		subst := map[string]effRow{}
		n := min(len(args), len(f.params))
		for i := 0; i < n; i++ {
			ec.pass(args[i], f.params[i], subst, pos, name, i+1)
		}
		if n < len(f.params) {
			return &effTy{fn: true, params: substAll(f.params[n:], subst), result: substTy(f.result, subst, false)}
		}
		out := substTy(f.result, subst, true)
		if len(args) > n {
			return ec.applyTy(out, args[n:], pos, name)
		}
		return out
	}
	return nil
}

// pass checks an argument a given where p is expected (argument i of
// callee), binding p's row variable to the effects a adds.
func (ec *effChecker) pass(a, p *effTy, subst map[string]effRow, pos diag.Pos, callee string, i int) {
	if a == nil {
		return
	}
	var prow effRow
	if p != nil {
		prow = p.row
	}
	ec.fitRow(a.row, prow, subst, pos, fmt.Sprintf("argument %d of %s", i, callee))
	if p == nil || !p.fn {
		// A function given where a plain value or a bare type variable
		// is expected keeps its effects until it is applied.
		return
	}
	// A function given for a function parameter: its result's effects
	// must fit the parameter's result row.
	var res *effTy
	switch {
	case a.lam != nil:
		res = ec.applyTy(a, p.params, pos, callee)
	case a.fn && len(a.params) >= len(p.params):
		res = ec.applyTy(a, p.params, pos, callee)
	default:
		return
	}
	if res == nil {
		return
	}
	var want effRow
	if p.result != nil {
		want = p.result.row
	}
	ec.fitRow(res.row, want, subst, pos, fmt.Sprintf("the result of the function given as argument %d of %s", i, callee))
}

// fitRow checks that the effects have fit the row want: each label of
// have is in want, or taken by want's row variable (recorded in subst).
func (ec *effChecker) fitRow(have, want effRow, subst map[string]effRow, pos diag.Pos, where string) {
	v := rowVar(want)
	var dropped []string
	for _, l := range sortedLabels(have) {
		if _, ok := want[l]; ok {
			continue
		}
		if v != "" {
			if subst[v] == nil {
				subst[v] = effRow{}
			}
			subst[v][l] = have[l]
			continue
		}
		dropped = append(dropped, l)
	}
	if len(dropped) == 0 {
		return
	}
	o := have[dropped[0]]
	if len(want) == 0 {
		ec.errorf(pos, "%s has %s (from %s at %s), but a plain value is expected there: effects cannot be dropped; run it in a do block (`x <- ...`), or handle Err with @catch",
			where, effectsText(dropped), o.from, o.pos)
		return
	}
	ec.errorf(pos, "%s has %s (from %s at %s), but only <%s> is allowed there",
		where, effectsText(dropped), o.from, o.pos, strings.Join(sortedLabels(want), ", "))
}

// effectsText is "effect A" or "effects <A, B>".
func effectsText(labels []string) string {
	if len(labels) == 1 {
		return "effect " + showLabel(labels[0])
	}
	return "effects <" + strings.Join(labels, ", ") + ">"
}

// plainValue analyses e, which must have no effects (rule 3).
func (ec *effChecker) plainValue(e syntax.Expr, env effEnv, what string) {
	t := ec.expr(e, env)
	if t == nil {
		return
	}
	ec.fitRow(t.row, nil, nil, e.ExprPos(), what)
}

// infix analyses an operator chain: a program's operator known by a
// signature applies to its operands like a function; the others take
// plain values.
func (ec *effChecker) infix(e *syntax.Infix, env effEnv) *effTy {
	if len(e.Ops) == 1 {
		if op := ec.global(e.Ops[0].Name, e.Ops[0].Pos); op != nil && op.fn {
			return ec.applyArgs(op, "("+e.Ops[0].Name+")", e.Operands, env, e.Ops[0].Pos)
		}
	}
	for i, x := range e.Operands {
		what := "an operand"
		if len(e.Ops) > 0 {
			what += " of '" + e.Ops[min(i, len(e.Ops)-1)].Name + "'"
		}
		ec.plainValue(x, env, what)
	}
	return nil
}

// guard: conditions are plain; the value has the effects of every branch.
func (ec *effChecker) guard(g *syntax.Guard, env effEnv) *effTy {
	row := effRow{}
	var shape *effTy
	add := func(t *effTy) {
		if t == nil {
			return
		}
		if shape == nil {
			shape = t
		}
		for l, o := range t.row {
			row[l] = o
		}
	}
	for _, b := range g.Branches {
		ec.plainValue(b.Cond, env, "a guard's condition")
		add(ec.expr(b.Value, env))
	}
	if g.Default != nil {
		add(ec.expr(g.Default, env))
	}
	if shape == nil {
		return nil
	}
	out := *shape
	out.row = row
	return &out
}

// doBlock: `x <- e` and bare statements run e, adding its effects to the
// block's; `let` binds without running; the block's value is its last
// statement's, with the union of the effects.
func (ec *effChecker) doBlock(d *syntax.Do, env effEnv) *effTy {
	row := effRow{}
	var last *effTy
	for i, st := range d.Stmts {
		if st.Let != nil {
			for _, b := range st.Let {
				env = env.with(b.Name.Name, &effBinding{ty: ec.expr(b.Value, env)})
			}
			continue
		}
		t := ec.expr(st.Expr, env)
		var ran *effTy
		if t != nil {
			for l, o := range t.row {
				row[l] = o
			}
			cp := *t
			cp.row = nil
			ran = &cp
		}
		if st.Bind != nil {
			env = env.with(st.Bind.Name, &effBinding{ty: ran})
		}
		if i == len(d.Stmts)-1 {
			last = ran
		}
	}
	if last == nil {
		return &effTy{row: row}
	}
	out := *last
	out.row = row
	return &out
}

// intrinsic analyses `@name args`: @catch removes Err from its first
// argument's effects and adds its second's; the others take plain values
// and have the effects of their row in intrinsicSpecs.
func (ec *effChecker) intrinsic(in *syntax.Intrinsic, args []syntax.Expr, env effEnv) *effTy {
	spec := intrinsicSpecs[in.Name]
	if spec == nil {
		return nil
	}
	row := effRow{}
	if in.Name == "catch" {
		for i, a := range args {
			t := ec.expr(a, env)
			if t == nil || i > 1 {
				continue
			}
			for l, o := range t.row {
				if i == 0 && l == "Err" {
					continue
				}
				row[l] = o
			}
		}
		return &effTy{row: row}
	}
	for _, l := range spec.effects {
		row[l] = effOrigin{in.Pos, "@" + in.Name}
	}
	for i, a := range args {
		ec.plainValue(a, env, fmt.Sprintf("argument %d of @%s", i+1, in.Name))
	}
	if len(args) < spec.arity {
		// Waiting for arguments: a function with the intrinsic's effects.
		return &effTy{fn: true, params: make([]*effTy, spec.arity-len(args)), result: &effTy{row: row}}
	}
	return &effTy{row: row}
}

// ascription `e :: <E> T`: e's effects must be among E (an intrinsic's
// are checked in intrinsics.go); the value has the effects E.
func (ec *effChecker) ascription(a *syntax.Ascription, env effEnv) *effTy {
	t := ec.expr(a.Expr, env)
	declared := rowOf(a.Type.Effects)
	for l := range declared {
		declared[l] = effOrigin{a.Pos, "the ascription"}
	}
	if name, _ := appliedIntrinsic(a.Expr); name == "" && t != nil {
		ec.fitRow(t.row, declared, map[string]effRow{}, a.Pos, "the ascribed expression")
	}
	if t == nil {
		return &effTy{row: declared}
	}
	for l, o := range t.row {
		if _, ok := declared[l]; ok {
			declared[l] = o
		}
	}
	out := *t
	out.row = declared
	return &out
}

// sigEff is what a signature says of effects. implicit gives every
// function parameter without a row variable, and the result, the
// implicit row variable (the prelude's higher-order functions).
func sigEff(s *syntax.Signature, implicit bool) *effTy {
	res := partEff(s.Result, false)
	if len(s.Params) == 0 {
		return res
	}
	t := &effTy{fn: true, result: res}
	poly := false
	for _, p := range s.Params {
		pt := partEff(p, implicit)
		if pt != nil && pt.fn && implicit && rowVar(pt.result.row) == implicitVar {
			poly = true
		}
		t.params = append(t.params, pt)
	}
	if poly {
		if t.result == nil {
			t.result = &effTy{}
		}
		if t.result.row == nil {
			t.result.row = effRow{}
		}
		t.result.row[implicitVar] = effOrigin{}
	}
	return t
}

// partEff is one part of a signature: its effect row, and, for a
// function type, its parameters and result.
func partEff(p *syntax.SigType, implicit bool) *effTy {
	t := typeEff(p.Type, implicit)
	if len(p.Effects) == 0 {
		return t
	}
	if t == nil {
		t = &effTy{}
	}
	t.row = rowOf(p.Effects)
	return t
}

// typeEff is the effTy of a written type: nil but for a function type.
func typeEff(t syntax.Type, implicit bool) *effTy {
	ft, ok := t.(*syntax.FuncType)
	if !ok {
		return nil
	}
	out := &effTy{fn: true, result: &effTy{row: rowOf(ft.Effects)}}
	if r := typeEff(ft.Result, false); r != nil {
		r.row = out.result.row
		out.result = r
	}
	if implicit && rowVar(out.result.row) == "" {
		out.result.row[implicitVar] = effOrigin{}
	}
	for _, p := range ft.Params {
		out.params = append(out.params, typeEff(p, false))
	}
	return out
}

func rowOf(names []syntax.Name) effRow {
	row := effRow{}
	for _, n := range names {
		row[n.Name] = effOrigin{pos: n.Pos, from: "the signature"}
	}
	return row
}

// originAt sets the origin of every label of t's result rows to a use of
// name at pos.
func originAt(t *effTy, pos diag.Pos, name string) *effTy {
	if t == nil {
		return nil
	}
	for l := range t.row {
		t.row[l] = effOrigin{pos, name}
	}
	originAt(t.result, pos, name)
	return t
}

// substTy is t with each row variable replaced by the effects bound to
// it; final drops the variables left unbound (they took no effects).
func substTy(t *effTy, subst map[string]effRow, final bool) *effTy {
	if t == nil {
		return nil
	}
	out := *t
	out.row = effRow{}
	for l, o := range t.row {
		if !isRowVar(l) {
			out.row[l] = o
			continue
		}
		if bound, ok := subst[l]; ok {
			for bl, bo := range bound {
				out.row[bl] = bo
			}
			continue
		}
		if !final {
			out.row[l] = o
		}
	}
	out.params = substAll(t.params, subst)
	out.result = substTy(t.result, subst, final)
	return &out
}

func substAll(ts []*effTy, subst map[string]effRow) []*effTy {
	out := make([]*effTy, len(ts))
	for i, t := range ts {
		out[i] = substTy(t, subst, false)
	}
	return out
}

func isRowVar(l string) bool { return l == implicitVar || !startsUpperName(l) }

// rowVar is the row variable of row, "" when it has none.
func rowVar(row effRow) string {
	for l := range row {
		if isRowVar(l) {
			return l
		}
	}
	return ""
}

func sortedLabels(row effRow) []string {
	out := make([]string, 0, len(row))
	for l := range row {
		if l != implicitVar {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// labelsPlus is the labels of row, then those of more not in row.
func labelsPlus(row, more effRow) []string {
	out := sortedLabels(row)
	for _, l := range sortedLabels(more) {
		if _, ok := row[l]; !ok {
			out = append(out, l)
		}
	}
	return out
}

func showLabel(l string) string {
	if isRowVar(l) {
		return "variable " + l
	}
	return l
}
