package dispatch

import (
	"context"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// A recursive definition is called with its arguments as its variables;
// a recursion that never reaches a base case fails at the depth bound.
func TestApply(t *testing.T) {
	v0 := &manifest.Expr{Kind: manifest.Var, Type: types.IntType, Ref: 0}
	lit := func(json string) *manifest.Expr {
		return &manifest.Expr{Kind: manifest.Lit, Type: types.IntType, Value: []byte(json)}
	}
	op := func(o string, t *types.Type, a ...*manifest.Expr) *manifest.Expr {
		return &manifest.Expr{Kind: manifest.Op, Op: o, Type: t, Args: a}
	}
	apply := func(ref int, a *manifest.Expr) *manifest.Expr {
		return &manifest.Expr{Kind: manifest.Apply, Type: types.IntType, Ref: ref, Args: []*manifest.Expr{a}}
	}
	m := &manifest.Manifest{Defs: []manifest.Def{
		// sumTo n = ? n == 0 = 0 : n + sumTo (n - 1)
		{Name: "sumTo", Params: []*types.Type{types.IntType}, Return: types.IntType, Body: &manifest.Expr{Kind: manifest.If, Type: types.IntType, Args: []*manifest.Expr{
			op("==", types.BoolType, v0, lit("0")), lit("0"), op("+", types.IntType, v0, apply(0, op("-", types.IntType, v0, lit("1")))),
		}}},
		// loop n = loop (n + 1)
		{Name: "loop", Params: []*types.Type{types.IntType}, Return: types.IntType, Body: apply(1, op("+", types.IntType, v0, lit("1")))},
	}}
	d := &Dispatcher{M: m}
	got, err := d.eval(context.Background(), apply(0, lit("100")), nil)
	if err != nil || got != int64(5050) {
		t.Errorf("sumTo 100: %v, %v", got, err)
	}
	if _, err := d.eval(context.Background(), apply(0, lit("20000")), nil); err == nil || !strings.Contains(err.Error(), "sumTo: recursion deeper than 10000 calls") {
		t.Errorf("sumTo 20000: %v, want the depth bound", err)
	}
	if _, err := d.eval(context.Background(), apply(1, lit("0")), nil); err == nil || !strings.Contains(err.Error(), "loop: recursion deeper than 10000 calls; does it reach its base case?") {
		t.Errorf("loop: %v, want the depth bound", err)
	}
}
