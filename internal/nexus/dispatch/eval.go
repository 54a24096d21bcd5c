package dispatch

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// eval computes e with vars as the values of its variables.
func (d *Dispatcher) eval(ctx context.Context, e *manifest.Expr, vars []any) (any, error) {
	if e == nil {
		return nil, errors.New("missing expression")
	}
	switch e.Kind {
	case manifest.Lit:
		v, err := types.FromJSON(e.Type, e.Value)
		if err != nil {
			return nil, fmt.Errorf("literal %s: %w", e.Value, err)
		}
		return v, nil
	case manifest.Var:
		if e.Ref < 0 || e.Ref >= len(vars) {
			return nil, fmt.Errorf("variable %d out of range (%d variables)", e.Ref, len(vars))
		}
		return vars[e.Ref], nil
	case manifest.Call:
		if d.M == nil || e.Ref < 0 || e.Ref >= len(d.M.Functions) {
			return nil, fmt.Errorf("call of unknown function %d", e.Ref)
		}
		args, err := d.evalAll(ctx, e.Args, vars)
		if err != nil {
			return nil, err
		}
		return d.call(ctx, &d.M.Functions[e.Ref], args)
	case manifest.Get:
		if len(e.Args) != 1 {
			return nil, fmt.Errorf("field access .%s needs one record", e.Field)
		}
		v, err := d.eval(ctx, e.Args[0], vars)
		if err != nil {
			return nil, err
		}
		rec, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("field access .%s on %T, not a record", e.Field, v)
		}
		fv, ok := rec[e.Field]
		if !ok {
			return nil, fmt.Errorf("field access .%s: the record has no such field", e.Field)
		}
		return fv, nil
	case manifest.Throw:
		return nil, &ThrowError{Message: e.Message}
	case manifest.MakeList, manifest.MakeTuple:
		return d.evalAll(ctx, e.Args, vars)
	case manifest.MakeRecord:
		if len(e.Fields) != len(e.Args) {
			return nil, errors.New("record construction with unnamed values")
		}
		vs, err := d.evalAll(ctx, e.Args, vars)
		if err != nil {
			return nil, err
		}
		rec := make(map[string]any, len(vs))
		for i, v := range vs {
			rec[e.Fields[i]] = v
		}
		return rec, nil
	case manifest.Op:
		if _, ok := manifest.Builtins[e.Op]; ok {
			return d.builtin(ctx, e, vars)
		}
		return d.evalOp(ctx, e, vars)
	case manifest.Lambda:
		return d.lambda(e, vars)
	case manifest.FnRef:
		return d.fnRef(ctx, e, vars)
	case manifest.Apply:
		return d.apply(ctx, e, vars)
	case manifest.Intrinsic:
		return d.evalIntrinsic(ctx, e, vars)
	case manifest.Item, manifest.Index, manifest.Slice, manifest.Set:
		return d.evalAccess(ctx, e, vars)
	case manifest.Let:
		if len(e.Args) != 2 {
			return nil, errors.New("a let needs a value and a body")
		}
		v, err := d.eval(ctx, e.Args[0], vars)
		if err != nil {
			return nil, err
		}
		// A copy: the bodies of two lets may run at once (evalAll).
		inner := make([]any, len(vars)+1)
		copy(inner, vars)
		inner[len(vars)] = v
		return d.eval(ctx, e.Args[1], inner)
	case manifest.If:
		if len(e.Args) != 3 {
			return nil, fmt.Errorf("a condition with %d parts", len(e.Args))
		}
		c, err := d.eval(ctx, e.Args[0], vars)
		if err != nil {
			return nil, err
		}
		b, ok := c.(bool)
		if !ok {
			return nil, fmt.Errorf("a condition of %T, not Bool", c)
		}
		if b {
			return d.eval(ctx, e.Args[1], vars)
		}
		return d.eval(ctx, e.Args[2], vars)
	}
	return nil, fmt.Errorf("unknown expression kind %q", e.Kind)
}

// call runs f in its pool with args, canonical values of f.Args.
func (d *Dispatcher) call(ctx context.Context, f *manifest.Function, args []any) (any, error) {
	if d.Pools == nil {
		return nil, fmt.Errorf("%s: no pools to call it in", f.Name)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	encode := types.EncodeArgs
	if p := d.M.Pool(f.Pool); p != nil && p.PackedLists {
		encode = types.EncodePackedArgs
	}
	in, err := encode(f.Args, args)
	if err != nil {
		return nil, fmt.Errorf("%s: encode arguments: %w", f.Name, err)
	}
	out, err := d.Pools.Call(ctx, f, in)
	if err != nil {
		// The Caller's errors already name the function and its pool.
		return nil, err
	}
	v, err := types.DecodeMsgpackBytes(f.Return, out)
	if err != nil {
		return nil, fmt.Errorf("%s returned a value that is not %s: %w", f.Name, f.Return, err)
	}
	return v, nil
}

// evalAll evaluates es in order, or, when two or more of them call pools
// and no two of those share a pool, runs those concurrently: a body like
// `(weightPy s, summarizeCpp xs)` then takes as long as its slower call.
// Calls that share a pool stay sequential, so a pool never sees more
// concurrency from one command than the program's own order implies.
func (d *Dispatcher) evalAll(ctx context.Context, es []*manifest.Expr, vars []any) ([]any, error) {
	out := make([]any, len(es))
	calling := d.concurrent(es)
	if calling == nil {
		for i, e := range es {
			v, err := d.eval(ctx, e, vars)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	// The expressions without calls are cheap and cannot block: evaluate
	// them first, so a failing one (an @throw) starts no call at all.
	for i, e := range es {
		if calling[i] {
			continue
		}
		v, err := d.eval(ctx, e, vars)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for i, e := range es {
		if !calling[i] {
			continue
		}
		wg.Go(func() {
			v, err := d.eval(ctx, e, vars)
			if err != nil {
				// The first failure is the one to report; it cancels the
				// other calls, whose errors are only its consequence.
				once.Do(func() {
					first = err
					cancel()
				})
				return
			}
			out[i] = v
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, nil
}

// concurrent reports which of es to evaluate concurrently (those that call
// pools or MCP servers), or nil when they should run in order: fewer than
// two of them call any, or two of them share a pool or a server.
func (d *Dispatcher) concurrent(es []*manifest.Expr) []bool {
	if len(es) < 2 || d.M == nil {
		return nil
	}
	var calling []bool
	seen := map[string]bool{}
	n := 0
	for i, e := range es {
		pools := map[string]bool{}
		d.servedBy(e, pools)
		if len(pools) == 0 {
			continue
		}
		for p := range pools {
			if seen[p] {
				return nil
			}
			seen[p] = true
		}
		if calling == nil {
			calling = make([]bool, len(es))
		}
		calling[i] = true
		n++
	}
	if n < 2 {
		return nil
	}
	return calling
}

// servedBy adds to into what serves the calls in e: a pool's language, or
// "mcp/N" for the tools of server N, so that calls to two different MCP
// servers count as independent, as calls to two pools do.
func (d *Dispatcher) servedBy(e *manifest.Expr, into map[string]bool) {
	d.M.EachCall(e, func(f *manifest.Function) {
		if f.Pool == manifest.MCP {
			into[fmt.Sprintf("%s/%d", manifest.MCP, f.Server)] = true
		} else {
			into[f.Pool] = true
		}
	})
}
