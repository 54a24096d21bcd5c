package check

import (
	"fmt"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Morloc's standard operators, evaluated by the nexus itself (they are
// the same in every language): arithmetic on Int and Real, comparisons,
// the Boolean connectives, concatenation of strings and lists,
// application ($) and composition (.). An operator chain is kept flat by
// the parser (syntax.Infix) and given its structure here, by each
// operator's fixity: Morloc's standard ones, and the program's `infixl`,
// `infixr` and `infix` declarations, which may repeat them or give the
// program's own operators theirs (userops.go).

// fixity is an operator's associativity ("infixl", "infixr" or "infix")
// and precedence (0 to 9, higher binds tighter).
type fixity struct {
	assoc string
	prec  int
}

// standardFixities are those of Morloc's `internal` and `root` modules.
var standardFixities = map[string]fixity{
	".": {"infixr", 9}, "$": {"infixr", 0},
	"||": {"infixr", 2}, "&&": {"infixr", 3},
	"==": {"infixl", 4}, "!=": {"infixl", 4}, "<": {"infixl", 4}, "<=": {"infixl", 4}, ">": {"infixl", 4}, ">=": {"infixl", 4},
	"++": {"infixr", 5}, "<>": {"infixr", 6},
	"+": {"infixl", 6}, "-": {"infixl", 6},
	"*": {"infixl", 7}, "/": {"infixl", 7}, "//": {"infixl", 7}, "%": {"infixl", 7},
	"**": {"infixr", 8},
}

// binary is an operator applied to two operands, as the fixities make the
// chain; an expression of the checker's own.
type binary struct {
	op          syntax.Name
	left, right syntax.Expr
}

func (b *binary) ExprPos() diag.Pos { return b.left.ExprPos() }

// structure gives an operator chain its structure by precedence climbing.
// Two operators of one precedence whose associativities differ, or that
// are both non-associative, cannot be chained.
func (c *checker) structure(in *syntax.Infix) syntax.Expr {
	pos := 0
	var climb func(min int) syntax.Expr
	ok := true
	climb = func(min int) syntax.Expr {
		left := in.Operands[pos]
		for ok && pos < len(in.Ops) {
			op := in.Ops[pos]
			fx, known := c.fixityOf(op.Name)
			if !known {
				c.unknownOperator(op)
				ok = false
				return left
			}
			if fx.prec < min {
				break
			}
			if pos > 0 {
				prev, _ := c.fixityOf(in.Ops[pos-1].Name)
				if prev.prec == fx.prec && (prev.assoc != fx.assoc || fx.assoc == "infix") {
					c.sink.Errorf(op.Pos, "ambiguous use of '%s' and '%s', of one precedence and no common associativity; use parentheses", in.Ops[pos-1].Name, op.Name)
					ok = false
					return left
				}
			}
			pos++
			next := fx.prec + 1
			if fx.assoc == "infixr" {
				next = fx.prec
			}
			right := climb(next)
			left = &binary{op: op, left: left, right: right}
		}
		return left
	}
	e := climb(0)
	if !ok {
		return nil
	}
	return e
}

// infix elaborates an operator chain against want.
func (c *checker) infix(in *syntax.Infix, sc *scope, want *types.Type) value {
	e := c.structure(in)
	if e == nil {
		return nil
	}
	return c.elab(e, sc, want)
}

// binaryOp elaborates b against want.
func (c *checker) binaryOp(b *binary, sc *scope, want *types.Type) value {
	return c.applyOp(b.op, arg{expr: b.left, sc: sc, pos: b.left.ExprPos()}, arg{expr: b.right, sc: sc, pos: b.right.ExprPos()}, want)
}

// standardOp applies standard operator op to its operands l and r.
func (c *checker) standardOp(op syntax.Name, l, r arg, want *types.Type) value {
	if _, std := standardFixities[op.Name]; !std {
		return c.applyUserOp(op, l, r, want)
	}
	switch op.Name {
	case "$":
		return c.applyValue(c.force(l, nil), []arg{r}, op.Pos, want)
	case ".":
		f, g := c.force(l, nil), c.force(r, nil)
		ff, ok1 := f.(fnValue)
		gf, ok2 := g.(fnValue)
		if f == nil || g == nil {
			return nil
		}
		if !ok1 || !ok2 {
			c.sink.Errorf(op.Pos, "'.' composes functions; a value cannot be composed")
			return nil
		}
		return &composeFn{fns: []fnValue{ff, gf}}
	case "&&", "||":
		lv, rv := c.force(l, types.BoolType), c.force(r, types.BoolType)
		return opExpr(op.Name, types.BoolType, lv, rv)
	}
	var operandWant *types.Type
	switch op.Name {
	case "+", "-", "*", "/", "//", "%", "**":
		if want != nil && (want.Kind == types.Int || want.Kind == types.Real) {
			operandWant = want
		}
		if op.Name == "/" {
			operandWant = types.RealType
		}
	case "<>", "++":
		operandWant = want
	}
	var lv, rv value
	if op.Name == "/" {
		lv, rv = c.divOperands(op, l, r)
	} else {
		lv, rv = c.operands(l, r, operandWant)
	}
	if lv == nil || rv == nil {
		return nil
	}
	t := lv.(*manifest.Expr).Type
	switch op.Name {
	case "+", "-", "*", "//", "%", "**":
		if t.Kind != types.Int && t.Kind != types.Real {
			c.sink.Errorf(op.Pos, "'%s' applies to Int and Real, not %s", op.Name, t)
			return nil
		}
		return opExpr(op.Name, t, lv, rv)
	case "/":
		return opExpr(op.Name, t, lv, rv)
	case "<>", "++":
		if t.Kind != types.Str && t.Kind != types.List {
			c.sink.Errorf(op.Pos, "'%s' joins strings or lists, not %s", op.Name, t)
			return nil
		}
		return opExpr("<>", t, lv, rv)
	case "<", "<=", ">", ">=":
		if t.Kind != types.Int && t.Kind != types.Real && t.Kind != types.Str {
			c.sink.Errorf(op.Pos, "'%s' compares Int, Real or Str, not %s", op.Name, t)
			return nil
		}
		return opExpr(op.Name, types.BoolType, lv, rv)
	case "==", "!=":
		return opExpr(op.Name, types.BoolType, lv, rv)
	}
	c.sink.Errorf(op.Pos, "unknown operator '%s'", op.Name)
	return nil
}

// operands elaborates two operands to one type: want's when given, else
// the left one's; an Int literal on the left becomes a Real when the
// right is one (1 + x, x a Real).
func (c *checker) operands(l, r arg, want *types.Type) (value, value) {
	if want != nil {
		return c.valueOf(c.force(l, want), l.pos), c.valueOf(c.force(r, want), r.pos)
	}
	lv := c.valueOf(c.force(l, nil), l.pos)
	if lv == nil {
		return nil, nil
	}
	le := lv.(*manifest.Expr)
	if c.openBinding(le) {
		// A bound variable whose type its use settles: the right's.
		rv := c.valueOf(c.force(r, nil), r.pos)
		if rv == nil {
			return nil, nil
		}
		return c.conform(le, rv.(*manifest.Expr).Type, l.pos), rv
	}
	if le.Kind == manifest.Lit && le.Type.Kind == types.Int {
		rv := c.valueOf(c.force(r, nil), r.pos)
		if rv == nil {
			return nil, nil
		}
		if re := rv.(*manifest.Expr); re.Type.Kind == types.Real {
			return c.conform(le, types.RealType, l.pos), rv
		}
		return lv, c.conform(rv, le.Type, r.pos)
	}
	return lv, c.valueOf(c.force(r, le.Type), r.pos)
}

// divOperands elaborates the operands of '/', which divides Reals: each
// is read on its own first, so that an Int (other than a literal, which
// reads as a Real) is an error pointing at '//' and toReal rather than a
// bare type mismatch; one that needs the expected type to tell its own is
// read as a Real.
func (c *checker) divOperands(op syntax.Name, l, r arg) (value, value) {
	var out [2]value
	for i, a := range []arg{l, r} {
		v, lacked := c.withoutContext(func() value { return c.valueOf(c.force(a, nil), a.pos) })
		if lacked {
			v = c.valueOf(c.force(a, types.RealType), a.pos)
		}
		e, ok := v.(*manifest.Expr)
		if !ok {
			return nil, nil
		}
		if e.Kind != manifest.Lit && e.Type.Kind == types.Int {
			c.sink.Errorf(op.Pos, "'/' divides Reals, and an operand is an Int: use '//' for the Int quotient, or toReal to divide as Reals")
			return nil, nil
		}
		if out[i] = c.conform(e, types.RealType, a.pos); out[i] == nil {
			return nil, nil
		}
	}
	return out[0], out[1]
}

// valueOf is v when it is a value; a function where a value is needed
// is an error.
func (c *checker) valueOf(v value, pos diag.Pos) value {
	if f, ok := v.(fnValue); ok {
		c.sink.Errorf(pos, "expected a value, got %s", f.missing())
		return nil
	}
	return v
}

// opExpr is operator op applied to args, of type t; nil when an argument
// is.
func opExpr(op string, t *types.Type, args ...value) value {
	es := make([]*manifest.Expr, len(args))
	for i, a := range args {
		e, ok := a.(*manifest.Expr)
		if !ok || e == nil {
			return nil
		}
		es[i] = e
	}
	return &manifest.Expr{Kind: manifest.Op, Op: op, Type: t, Args: es}
}

// negate elaborates `-e`.
func (c *checker) negate(n *syntax.Negate, sc *scope, want *types.Type) value {
	if want != nil && want.Kind != types.Int && want.Kind != types.Real {
		want = nil
	}
	v := c.valueOf(c.elab(n.Expr, sc, want), n.Expr.ExprPos())
	if v == nil {
		return nil
	}
	t := v.(*manifest.Expr).Type
	if t.Kind != types.Int && t.Kind != types.Real {
		c.sink.Errorf(n.Pos, "'-' negates an Int or a Real, not %s", t)
		return nil
	}
	return opExpr("negate", t, v)
}

// opFn is an operator used as a function, `(+)`, `(* 2)` or `(2 /)`,
// with the operands given so far.
type opFn struct {
	op          syntax.Name
	left, right *arg
}

func (f *opFn) missing() string {
	return fmt.Sprintf("the operator (%s) without all its operands", f.op.Name)
}

func (f *opFn) apply(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
	l, r := f.left, f.right
	for len(args) > 0 && (l == nil || r == nil) {
		a := args[0]
		args = args[1:]
		if l == nil {
			l = &a
		} else {
			r = &a
		}
	}
	if l == nil || r == nil {
		return &opFn{op: f.op, left: l, right: r}
	}
	v := c.applyOp(f.op, *l, *r, nil)
	if len(args) > 0 {
		return c.applyValue(v, args, pos, want)
	}
	return v
}

// section elaborates `(+)`, `(* 2)` or `(2 /)` into a function value.
func (c *checker) section(s *syntax.Section, sc *scope) value {
	if _, ok := c.fixityOf(s.Op.Name); !ok {
		c.unknownOperator(s.Op)
		return nil
	}
	f := &opFn{op: s.Op}
	if s.Left != nil {
		f.left = &arg{expr: s.Left, sc: sc, pos: s.Left.ExprPos()}
	}
	if s.Right != nil {
		f.right = &arg{expr: s.Right, sc: sc, pos: s.Right.ExprPos()}
	}
	return f
}

// guard elaborates `? c1 = e1 ? c2 = e2 : d` into nested conditions: the
// conditions are Bool, and the branches have one type, want's when given
// (an Int literal among Real branches is a Real).
func (c *checker) guard(g *syntax.Guard, sc *scope, want *types.Type) value {
	exprs := make([]syntax.Expr, 0, len(g.Branches)+1)
	for _, b := range g.Branches {
		exprs = append(exprs, b.Value)
	}
	exprs = append(exprs, g.Default)
	vals := make([]value, len(exprs))
	for i, e := range exprs {
		if vals[i] = c.valueOf(c.elab(e, sc, want), e.ExprPos()); vals[i] == nil {
			return nil
		}
	}
	t := want
	if t == nil {
		// The first branch's type; an Int literal before a Real branch
		// makes it Real (1 in one branch, 2.5 in another).
		t = vals[0].(*manifest.Expr).Type
		for i, v := range vals[1:] {
			if vt := v.(*manifest.Expr).Type; t.Kind == types.Int && vt.Kind == types.Real && allIntLits(vals[:i+1]) {
				t = types.RealType
			}
		}
	}
	for i := range vals {
		if vals[i] = c.conform(vals[i], t, exprs[i].ExprPos()); vals[i] == nil {
			return nil
		}
	}
	out := vals[len(vals)-1]
	for i := len(g.Branches) - 1; i >= 0; i-- {
		cond := c.valueOf(c.elab(g.Branches[i].Cond, sc, types.BoolType), g.Branches[i].Cond.ExprPos())
		if cond == nil || out == nil {
			return nil
		}
		out = &manifest.Expr{Kind: manifest.If, Type: t, Args: []*manifest.Expr{cond.(*manifest.Expr), vals[i].(*manifest.Expr), out.(*manifest.Expr)}}
	}
	return out
}

// allIntLits reports whether every value of vs is an Int literal.
func allIntLits(vs []value) bool {
	for _, v := range vs {
		if e, ok := v.(*manifest.Expr); !ok || e.Kind != manifest.Lit || e.Type.Kind != types.Int {
			return false
		}
	}
	return true
}
