package dispatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// The standard operators (manifest.Op), evaluated here: Int arithmetic
// fails on overflow and on a zero divisor rather than wrap or crash; //
// and % round toward negative infinity, as Python and Morloc do (the
// remainder takes the divisor's sign); Real arithmetic is IEEE's (a
// non-finite result fails where the value is given out); equality is
// structural, of values of one type; && and || evaluate their right
// operand only when needed.

// evalOp evaluates e, an Op.
func (d *Dispatcher) evalOp(ctx context.Context, e *manifest.Expr, vars []any) (any, error) {
	if n, ok := manifest.Operators[e.Op]; !ok || len(e.Args) != n {
		return nil, fmt.Errorf("operator %q with %d operands", e.Op, len(e.Args))
	}
	left, err := d.eval(ctx, e.Args[0], vars)
	if err != nil {
		return nil, err
	}
	switch e.Op {
	case "negate":
		switch x := left.(type) {
		case int64:
			if x == math.MinInt64 {
				return nil, errors.New("-: integer overflow")
			}
			return -x, nil
		case float64:
			return -x, nil
		}
		return nil, fmt.Errorf("-: %T is no number", left)
	case "&&", "||":
		l, ok := left.(bool)
		if !ok {
			return nil, fmt.Errorf("%s: %T is no Bool", e.Op, left)
		}
		if l == (e.Op == "||") {
			return l, nil
		}
		right, err := d.eval(ctx, e.Args[1], vars)
		if err != nil {
			return nil, err
		}
		r, ok := right.(bool)
		if !ok {
			return nil, fmt.Errorf("%s: %T is no Bool", e.Op, right)
		}
		return r, nil
	}
	right, err := d.eval(ctx, e.Args[1], vars)
	if err != nil {
		return nil, err
	}
	return Operate(e.Op, e.Args[0].Type, left, right)
}

// Operate applies the binary operator op to two values of type t.
func Operate(op string, t *types.Type, left, right any) (any, error) {
	switch op {
	case "==", "!=":
		a, err := types.ToJSON(t, left)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		b, err := types.ToJSON(t, right)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		return bytes.Equal(a, b) == (op == "=="), nil
	case "<>":
		if a, ok := left.(string); ok {
			b, ok := right.(string)
			if !ok {
				return nil, fmt.Errorf("<>: %T after a string", right)
			}
			return a + b, nil
		}
		a, ok1 := types.Items(left)
		b, ok2 := types.Items(right)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("<>: %T and %T are no lists", left, right)
		}
		return append(append(make([]any, 0, len(a)+len(b)), a...), b...), nil
	}
	switch a := left.(type) {
	case int64:
		b, ok := right.(int64)
		if !ok {
			return nil, fmt.Errorf("%s: %T after an Int", op, right)
		}
		return intOp(op, a, b)
	case float64:
		b, ok := right.(float64)
		if !ok {
			return nil, fmt.Errorf("%s: %T after a Real", op, right)
		}
		return realOp(op, a, b)
	case string:
		b, ok := right.(string)
		if !ok {
			return nil, fmt.Errorf("%s: %T after a Str", op, right)
		}
		return compare(op, a, b)
	}
	return nil, fmt.Errorf("%s: %T is no number", op, left)
}

func compare[T int64 | float64 | string](op string, a, b T) (any, error) {
	switch op {
	case "<":
		return a < b, nil
	case "<=":
		return a <= b, nil
	case ">":
		return a > b, nil
	case ">=":
		return a >= b, nil
	}
	return nil, fmt.Errorf("unknown operator %q", op)
}

var errOverflow = errors.New("integer overflow")

func intOp(op string, a, b int64) (any, error) {
	switch op {
	case "+":
		s := a + b
		if (s > a) != (b > 0) {
			return nil, fmt.Errorf("%d + %d: %w", a, b, errOverflow)
		}
		return s, nil
	case "-":
		s := a - b
		if (s < a) != (b > 0) {
			return nil, fmt.Errorf("%d - %d: %w", a, b, errOverflow)
		}
		return s, nil
	case "*":
		p := a * b
		if a != 0 && (p/a != b || a == -1 && b == math.MinInt64 || b == -1 && a == math.MinInt64) {
			return nil, fmt.Errorf("%d * %d: %w", a, b, errOverflow)
		}
		return p, nil
	case "//", "%":
		if b == 0 {
			return nil, fmt.Errorf("%d %s 0: division by zero", a, op)
		}
		if a == math.MinInt64 && b == -1 {
			if op == "%" {
				return int64(0), nil
			}
			return nil, fmt.Errorf("%d // -1: %w", a, errOverflow)
		}
		q, r := a/b, a%b
		if r != 0 && (r < 0) != (b < 0) {
			q--
			r += b
		}
		if op == "//" {
			return q, nil
		}
		return r, nil
	case "**":
		if b < 0 {
			return nil, fmt.Errorf("%d ** %d: a negative exponent of an Int; use Reals", a, b)
		}
		result, base := int64(1), a
		for e := b; e > 0; e >>= 1 {
			if e&1 == 1 {
				r, err := intOp("*", result, base)
				if err != nil {
					return nil, fmt.Errorf("%d ** %d: %w", a, b, errOverflow)
				}
				result = r.(int64)
			}
			if e > 1 {
				sq, err := intOp("*", base, base)
				if err != nil {
					return nil, fmt.Errorf("%d ** %d: %w", a, b, errOverflow)
				}
				base = sq.(int64)
			}
		}
		return result, nil
	}
	return compare(op, a, b)
}

func realOp(op string, a, b float64) (any, error) {
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/":
		return a / b, nil
	case "//":
		return math.Floor(a / b), nil
	case "%":
		return a - b*math.Floor(a/b), nil
	case "**":
		return math.Pow(a, b), nil
	}
	return compare(op, a, b)
}
