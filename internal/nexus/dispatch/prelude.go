package dispatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// The prelude's builtins (manifest.Builtins), evaluated here. A function
// argument is a Lambda, evaluated to a closure the builtin calls per
// element; Int arithmetic fails on overflow as the operators' does.

// closure is a Lambda's value: its body with the variables it was made
// with.
type closure struct {
	d    *Dispatcher
	body *manifest.Expr
	vars []any
}

// call computes the closure's body with args as its parameters.
func (f *closure) call(ctx context.Context, args ...any) (any, error) {
	vars := make([]any, len(f.vars), len(f.vars)+len(args))
	copy(vars, f.vars)
	return f.d.eval(ctx, f.body, append(vars, args...))
}

// lambda evaluates a Lambda.
func (d *Dispatcher) lambda(e *manifest.Expr, vars []any) (any, error) {
	if len(e.Args) != 1 || e.Ref != len(vars) {
		return nil, fmt.Errorf("a lambda over %d variables made with %d", e.Ref, len(vars))
	}
	return &closure{d: d, body: e.Args[0], vars: vars}, nil
}

// fnRef evaluates a FnRef: the values it gives its function, encoded as
// that function's arguments, for the pool that calls it.
func (d *Dispatcher) fnRef(ctx context.Context, e *manifest.Expr, vars []any) (any, error) {
	if d.M == nil || e.Ref < 0 || e.Ref >= len(d.M.Functions) {
		return nil, fmt.Errorf("reference to unknown function %d", e.Ref)
	}
	f := &d.M.Functions[e.Ref]
	ref := &types.FuncRef{ID: f.ID, Slots: make([]int, len(e.Args))}
	for i, a := range e.Args {
		if a.Kind == manifest.Param {
			ref.Slots[i] = a.Ref
			continue
		}
		ref.Slots[i] = -1
		v, err := d.eval(ctx, a, vars)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := types.EncodeMsgpack(msgpack.NewEncoder(&buf), f.Args[i], v); err != nil {
			return nil, fmt.Errorf("%s: encode argument %d: %w", f.Name, i+1, err)
		}
		ref.Captured = append(ref.Captured, buf.Bytes())
	}
	return ref, nil
}

// builtin evaluates an Op naming a builtin.
func (d *Dispatcher) builtin(ctx context.Context, e *manifest.Expr, vars []any) (any, error) {
	args, err := d.evalAll(ctx, e.Args, vars)
	if err != nil {
		return nil, err
	}
	fn := builtins[e.Op]
	if fn == nil {
		return nil, fmt.Errorf("unknown builtin %q", e.Op)
	}
	v, err := fn(&invocation{ctx: ctx, e: e}, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Op, err)
	}
	return v, nil
}

// invocation is what a builtin knows of its call: the expression, for the types
// of its arguments and result.
type invocation struct {
	ctx context.Context
	e   *manifest.Expr
}

func (c *invocation) argType(i int) *types.Type { return c.e.Args[i].Type }

// fn returns argument v as a closure.
func fn(v any) (*closure, error) {
	f, ok := v.(*closure)
	if !ok {
		return nil, fmt.Errorf("%T is no function", v)
	}
	return f, nil
}

// fnList returns the arguments f, a function, and xs, a list.
func fnList(f, xs any) (*closure, []any, error) {
	cl, err := fn(f)
	if err != nil {
		return nil, nil, err
	}
	items, err := list(xs)
	return cl, items, err
}

// list returns v as a list of values.
func list(v any) ([]any, error) {
	xs, ok := types.Items(v)
	if !ok {
		return nil, fmt.Errorf("%T is no list", v)
	}
	return xs, nil
}

// pred calls f, a predicate, with args.
func (c *invocation) pred(f *closure, args ...any) (bool, error) {
	v, err := f.call(c.ctx, args...)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("a predicate returned %T, not a Bool", v)
	}
	return b, nil
}

// less orders two values of type t as Morloc's Ord does: numbers and
// strings by value, lists and tuples element by element.
func less(t *types.Type, a, b any) (bool, error) {
	switch t.Kind {
	case types.List, types.Tuple:
		xs, _ := types.Items(a)
		ys, _ := types.Items(b)
		for i := 0; i < len(xs) && i < len(ys); i++ {
			it := t.Elem
			if t.Kind == types.Tuple {
				it = t.Items[i]
			}
			if lt, err := less(it, xs[i], ys[i]); err != nil || lt {
				return lt, err
			}
			if lt, err := less(it, ys[i], xs[i]); err != nil || lt {
				return false, err
			}
		}
		return len(xs) < len(ys), nil
	case types.Bool:
		x, _ := a.(bool)
		y, _ := b.(bool)
		return !x && y, nil
	}
	v, err := Operate("<", t, a, b)
	if err != nil {
		return false, err
	}
	return v.(bool), nil
}

// equal reports whether two values of type t are equal.
func equal(t *types.Type, a, b any) (bool, error) {
	v, err := Operate("==", t, a, b)
	if err != nil {
		return false, err
	}
	return v.(bool), nil
}

// sortList sorts xs (stable) by lt.
func sortList(xs []any, lt func(a, b any) (bool, error)) ([]any, error) {
	out := append([]any(nil), xs...)
	var first error
	sort.SliceStable(out, func(i, j int) bool {
		if first != nil {
			return false
		}
		r, err := lt(out[i], out[j])
		if err != nil {
			first = err
		}
		return r
	})
	return out, first
}

type builtinFunc func(c *invocation, args []any) (any, error)

// builtins implements manifest.Builtins.
var builtins map[string]builtinFunc

func init() {
	builtins = map[string]builtinFunc{
		"not": func(c *invocation, a []any) (any, error) { return !a[0].(bool), nil },
		"length": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[0])
			return int64(len(xs)), err
		},
		"map":       mapList,
		"filter":    filterList,
		"fold":      foldList,
		"fold1":     func(c *invocation, a []any) (any, error) { return fold1(c, a, false) },
		"safeFold1": func(c *invocation, a []any) (any, error) { return fold1(c, a, true) },
		"any": func(c *invocation, a []any) (any, error) {
			return anyAll(c, a, true)
		},
		"all": func(c *invocation, a []any) (any, error) {
			return anyAll(c, a, false)
		},
		"elem": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[1])
			if err != nil {
				return nil, err
			}
			for _, x := range xs {
				if eq, err := equal(c.argType(0), a[0], x); err != nil || eq {
					return eq, err
				}
			}
			return false, nil
		},
		"concat": func(c *invocation, a []any) (any, error) {
			xss, err := list(a[0])
			if err != nil {
				return nil, err
			}
			out := []any{}
			for _, xs := range xss {
				ys, err := list(xs)
				if err != nil {
					return nil, err
				}
				out = append(out, ys...)
			}
			return out, nil
		},
		"concatMap": func(c *invocation, a []any) (any, error) {
			mapped, err := mapList(c, a)
			if err != nil {
				return nil, err
			}
			return builtins["concat"](c, []any{mapped})
		},
		"sum": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[0])
			if err != nil {
				return nil, err
			}
			var acc any = int64(0)
			if c.e.Type.Kind == types.Real {
				acc = 0.0
			}
			for _, x := range xs {
				if acc, err = Operate("+", c.e.Type, acc, x); err != nil {
					return nil, err
				}
			}
			return acc, nil
		},
		"sort": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[0])
			if err != nil {
				return nil, err
			}
			t := c.argType(0).Elem
			return sortList(xs, func(x, y any) (bool, error) { return less(t, x, y) })
		},
		"sortBy": func(c *invocation, a []any) (any, error) {
			f, xs, err := fnList(a[0], a[1])
			if err != nil {
				return nil, err
			}
			return sortList(xs, func(x, y any) (bool, error) { return c.pred(f, x, y) })
		},
		"groupSort": groupSort,
		"takeWhile": func(c *invocation, a []any) (any, error) { return whileList(c, a, true) },
		"dropWhile": func(c *invocation, a []any) (any, error) { return whileList(c, a, false) },
		"scanl": func(c *invocation, a []any) (any, error) {
			f, xs, err := fnList(a[0], a[2])
			if err != nil {
				return nil, err
			}
			acc := a[1]
			out := append(make([]any, 0, len(xs)+1), acc)
			for _, x := range xs {
				if acc, err = f.call(c.ctx, acc, x); err != nil {
					return nil, err
				}
				out = append(out, acc)
			}
			return out, nil
		},
		"intersperse": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[1])
			if err != nil {
				return nil, err
			}
			out := []any{}
			for i, x := range xs {
				if i > 0 {
					out = append(out, a[0])
				}
				out = append(out, x)
			}
			return out, nil
		},
		"replicate": func(c *invocation, a []any) (any, error) {
			n := a[0].(int64)
			if n > maxBuilt {
				return nil, fmt.Errorf("%d items are more than the %d a list may be given", n, maxBuilt)
			}
			out := []any{}
			for i := int64(0); i < n; i++ {
				out = append(out, a[1])
			}
			return out, nil
		},
		"iterate": func(c *invocation, a []any) (any, error) {
			n := a[0].(int64)
			if n > maxBuilt {
				return nil, fmt.Errorf("%d items are more than the %d a list may be given", n, maxBuilt)
			}
			f, err := fn(a[1])
			if err != nil {
				return nil, err
			}
			out := []any{}
			x := a[2]
			for i := int64(0); i < n; i++ {
				if i > 0 {
					if x, err = f.call(c.ctx, x); err != nil {
						return nil, err
					}
				}
				out = append(out, x)
			}
			return out, nil
		},
		"groupBy": func(c *invocation, a []any) (any, error) {
			f, xs, err := fnList(a[0], a[1])
			if err != nil {
				return nil, err
			}
			out := []any{}
			var group []any
			for i, x := range xs {
				if i > 0 {
					same, err := c.pred(f, xs[i-1], x)
					if err != nil {
						return nil, err
					}
					if !same {
						out = append(out, group)
						group = nil
					}
				}
				group = append(group, x)
			}
			if group != nil {
				out = append(out, group)
			}
			return out, nil
		},
		"enumerate": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[0])
			if err != nil {
				return nil, err
			}
			out := make([]any, len(xs))
			for i, x := range xs {
				out[i] = []any{int64(i), x}
			}
			return out, nil
		},
		"find": func(c *invocation, a []any) (any, error) {
			f, xs, err := fnList(a[0], a[1])
			if err != nil {
				return nil, err
			}
			for _, x := range xs {
				if ok, err := c.pred(f, x); err != nil || ok {
					return x, err
				}
			}
			return nil, nil
		},
		"partition": func(c *invocation, a []any) (any, error) {
			f, xs, err := fnList(a[0], a[1])
			if err != nil {
				return nil, err
			}
			yes, no := []any{}, []any{}
			for _, x := range xs {
				ok, err := c.pred(f, x)
				if err != nil {
					return nil, err
				}
				if ok {
					yes = append(yes, x)
				} else {
					no = append(no, x)
				}
			}
			return []any{yes, no}, nil
		},
		"unique": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[0])
			if err != nil {
				return nil, err
			}
			t := c.argType(0).Elem
			out := []any{}
			seen := map[string]bool{}
			for _, x := range xs {
				k, err := types.ToJSON(t, x)
				if err != nil {
					return nil, err
				}
				if !seen[string(k)] {
					seen[string(k)] = true
					out = append(out, x)
				}
			}
			return out, nil
		},
		"intercalate": func(c *invocation, a []any) (any, error) {
			sep, err := list(a[0])
			if err != nil {
				return nil, err
			}
			xss, err := list(a[1])
			if err != nil {
				return nil, err
			}
			out := []any{}
			for i, xs := range xss {
				if i > 0 {
					out = append(out, sep...)
				}
				ys, err := list(xs)
				if err != nil {
					return nil, err
				}
				out = append(out, ys...)
			}
			return out, nil
		},
		"zipWith": func(c *invocation, a []any) (any, error) {
			f, err := fn(a[0])
			if err != nil {
				return nil, err
			}
			return zipLists(a[1], a[2], func(x, y any) (any, error) { return f.call(c.ctx, x, y) })
		},
		"zip": func(c *invocation, a []any) (any, error) {
			return zipLists(a[0], a[1], func(x, y any) (any, error) { return []any{x, y}, nil })
		},
		"unzip": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[0])
			if err != nil {
				return nil, err
			}
			l, r := make([]any, len(xs)), make([]any, len(xs))
			for i, x := range xs {
				p, _ := types.Items(x)
				if len(p) != 2 {
					return nil, errors.New("an item is no pair")
				}
				l[i], r[i] = p[0], p[1]
			}
			return []any{l, r}, nil
		},
		"range": func(c *invocation, a []any) (any, error) {
			return rangeStep(a[0].(int64), a[1].(int64), 1)
		},
		"rangeStep": func(c *invocation, a []any) (any, error) {
			return rangeStep(a[0].(int64), a[1].(int64), a[2].(int64))
		},
		"reverse": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[0])
			if err != nil {
				return nil, err
			}
			out := make([]any, len(xs))
			for i, x := range xs {
				out[len(xs)-1-i] = x
			}
			return out, nil
		},
		"cons": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[1])
			return append([]any{a[0]}, xs...), err
		},
		"snoc": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[0])
			return append(append([]any(nil), xs...), a[1]), err
		},
		"uncons": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[0])
			if err != nil {
				return nil, err
			}
			if len(xs) == 0 {
				return nil, errors.New("an empty list")
			}
			return []any{xs[0], append([]any{}, xs[1:]...)}, nil
		},
		"unsnoc": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[0])
			if err != nil {
				return nil, err
			}
			if len(xs) == 0 {
				return nil, errors.New("an empty list")
			}
			return []any{append([]any{}, xs[:len(xs)-1]...), xs[len(xs)-1]}, nil
		},
		"uncurry": func(c *invocation, a []any) (any, error) { return uncurry(c, a, 2) },
		"uncurry3": func(c *invocation, a []any) (any, error) {
			return uncurry(c, a, 3)
		},
		"show": func(c *invocation, a []any) (any, error) {
			j, err := types.ToJSON(c.argType(0), a[0])
			return string(j), err
		},
		"neg": func(c *invocation, a []any) (any, error) {
			return Operate("-", c.argType(0), zeroOf(c.argType(0)), a[0])
		},
		"abs": func(c *invocation, a []any) (any, error) {
			if lt, err := less(c.argType(0), a[0], zeroOf(c.argType(0))); err != nil || !lt {
				return a[0], err
			}
			return Operate("-", c.argType(0), zeroOf(c.argType(0)), a[0])
		},
		"inv":  func(c *invocation, a []any) (any, error) { return 1 / a[0].(float64), nil },
		"ln":   func(c *invocation, a []any) (any, error) { return math.Log(a[0].(float64)), nil },
		"size": func(c *invocation, a []any) (any, error) { return builtins["length"](c, a) },
		"toReal": func(c *invocation, a []any) (any, error) {
			if i, ok := a[0].(int64); ok {
				return float64(i), nil
			}
			return a[0], nil
		},
		"into": func(c *invocation, a []any) (any, error) {
			if i, ok := a[0].(int64); ok && c.e.Type.Kind == types.Real {
				return float64(i), nil
			}
			return a[0], nil
		},
		"tryInto": func(c *invocation, a []any) (any, error) {
			x, ok := a[0].(float64)
			if !ok || c.e.Type.Kind != types.Int {
				return a[0], nil
			}
			if x != math.Trunc(x) || x < -9.223372036854775e18 || x >= 9.223372036854775e18 {
				return nil, fmt.Errorf("%v is no Int", x)
			}
			return int64(x), nil
		},
		"mempty": func(c *invocation, a []any) (any, error) {
			if c.e.Type.Kind == types.Str {
				return "", nil
			}
			return []any{}, nil
		},
		"zero": func(c *invocation, a []any) (any, error) { return zeroOf(c.e.Type), nil },
		"require": func(c *invocation, a []any) (any, error) {
			if a[0] == nil {
				return nil, errors.New("the value is Null")
			}
			return a[0], nil
		},
		"isNull": func(c *invocation, a []any) (any, error) { return a[0] == nil, nil },
		"catMaybes": func(c *invocation, a []any) (any, error) {
			xs, err := list(a[0])
			if err != nil {
				return nil, err
			}
			out := []any{}
			for _, x := range xs {
				if x != nil {
					out = append(out, x)
				}
			}
			return out, nil
		},
	}
	for name, f := range mapBuiltins {
		builtins[name] = f
	}
}

// maxBuilt bounds the lists replicate, iterate and the ranges make, so a
// typo cannot exhaust the nexus's memory.
const maxBuilt = 100_000_000

func zeroOf(t *types.Type) any {
	if t.Kind == types.Real {
		return 0.0
	}
	return int64(0)
}

func mapList(c *invocation, a []any) (any, error) {
	f, xs, err := fnList(a[0], a[1])
	if err != nil {
		return nil, err
	}
	out := make([]any, len(xs))
	for i, x := range xs {
		if out[i], err = f.call(c.ctx, x); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func filterList(c *invocation, a []any) (any, error) {
	f, xs, err := fnList(a[0], a[1])
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, x := range xs {
		ok, err := c.pred(f, x)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, x)
		}
	}
	return out, nil
}

func foldList(c *invocation, a []any) (any, error) {
	f, xs, err := fnList(a[0], a[2])
	if err != nil {
		return nil, err
	}
	acc := a[1]
	for _, x := range xs {
		if acc, err = f.call(c.ctx, acc, x); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func fold1(c *invocation, a []any, safe bool) (any, error) {
	xs, err := list(a[1])
	if err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		if safe {
			return nil, nil
		}
		return nil, errors.New("an empty list")
	}
	return foldList(c, []any{a[0], xs[0], xs[1:]})
}

func anyAll(c *invocation, a []any, isAny bool) (any, error) {
	f, xs, err := fnList(a[0], a[1])
	if err != nil {
		return nil, err
	}
	for _, x := range xs {
		ok, err := c.pred(f, x)
		if err != nil {
			return nil, err
		}
		if ok == isAny {
			return isAny, nil
		}
	}
	return !isAny, nil
}

func whileList(c *invocation, a []any, take bool) (any, error) {
	f, xs, err := fnList(a[0], a[1])
	if err != nil {
		return nil, err
	}
	i := 0
	for ; i < len(xs); i++ {
		ok, err := c.pred(f, xs[i])
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
	}
	if take {
		return append([]any{}, xs[:i]...), nil
	}
	return append([]any{}, xs[i:]...), nil
}

func zipLists(l, r any, f func(x, y any) (any, error)) (any, error) {
	xs, err := list(l)
	if err != nil {
		return nil, err
	}
	ys, err := list(r)
	if err != nil {
		return nil, err
	}
	n := min(len(xs), len(ys))
	out := make([]any, n)
	for i := 0; i < n; i++ {
		if out[i], err = f(xs[i], ys[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func rangeStep(from, to, step int64) (any, error) {
	if step == 0 {
		return nil, errors.New("a step of 0")
	}
	out := []any{}
	for x := from; (step > 0 && x < to) || (step < 0 && x > to); x += step {
		if len(out) >= maxBuilt {
			return nil, fmt.Errorf("more than the %d items a list may be given", maxBuilt)
		}
		out = append(out, x)
		if (step > 0 && x > math.MaxInt64-step) || (step < 0 && x < math.MinInt64-step) {
			break
		}
	}
	return out, nil
}

func uncurry(c *invocation, a []any, n int) (any, error) {
	f, err := fn(a[0])
	if err != nil {
		return nil, err
	}
	xs, ok := types.Items(a[1])
	if !ok || len(xs) != n {
		return nil, fmt.Errorf("%T is no %d-tuple", a[1], n)
	}
	return f.call(c.ctx, xs...)
}

func groupSort(c *invocation, a []any) (any, error) {
	xs, err := list(a[0])
	if err != nil {
		return nil, err
	}
	kt := c.argType(0).Elem.Items[0]
	var keys []any
	groups := map[string][]any{}
	for _, x := range xs {
		p, _ := types.Items(x)
		k, err := types.ToJSON(kt, p[0])
		if err != nil {
			return nil, err
		}
		if _, ok := groups[string(k)]; !ok {
			keys = append(keys, p[0])
			groups[string(k)] = []any{}
		}
		groups[string(k)] = append(groups[string(k)], p[1])
	}
	keys, err = sortList(keys, func(x, y any) (bool, error) { return less(kt, x, y) })
	if err != nil {
		return nil, err
	}
	out := make([]any, len(keys))
	for i, k := range keys {
		j, _ := types.ToJSON(kt, k)
		out[i] = []any{k, groups[string(j)]}
	}
	return out, nil
}
