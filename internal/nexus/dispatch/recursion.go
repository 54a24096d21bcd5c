package dispatch

import (
	"context"
	"fmt"

	"github.com/nexus-run/nexus/manifest"
)

// Recursive definitions (manifest.Def) are called, not inlined: an Apply
// evaluates its arguments and then the definition's body with them as its
// variables. A depth bound turns a recursion that does not end into an
// error instead of a hang or an exhausted stack.

// maxDepth bounds the nesting of recursive calls in one evaluation.
const maxDepth = 10_000

// depthKey keys the recursion depth in a context.
type depthKey struct{}

// apply evaluates an Apply.
func (d *Dispatcher) apply(ctx context.Context, e *manifest.Expr, vars []any) (any, error) {
	if d.M == nil || e.Ref < 0 || e.Ref >= len(d.M.Defs) {
		return nil, fmt.Errorf("call of unknown definition %d", e.Ref)
	}
	def := &d.M.Defs[e.Ref]
	args, err := d.evalAll(ctx, e.Args, vars)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	depth, _ := ctx.Value(depthKey{}).(int)
	if depth >= maxDepth {
		return nil, fmt.Errorf("%s: recursion deeper than %d calls; does it reach its base case?", def.Name, maxDepth)
	}
	return d.eval(context.WithValue(ctx, depthKey{}, depth+1), def.Body, args)
}
