package dispatch

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

func TestOperate(t *testing.T) {
	I, R, S := types.IntType, types.RealType, types.StrType
	for _, c := range []struct {
		op          string
		t           *types.Type
		left, right any
		want        any
		err         string
	}{
		{"+", I, int64(2), int64(3), int64(5), ""},
		{"-", I, int64(2), int64(3), int64(-1), ""},
		{"*", I, int64(-4), int64(3), int64(-12), ""},
		{"//", I, int64(7), int64(2), int64(3), ""},
		{"//", I, int64(-7), int64(2), int64(-4), ""},
		{"%", I, int64(-7), int64(2), int64(1), ""},
		{"%", I, int64(7), int64(-2), int64(-1), ""},
		{"//", I, int64(7), int64(-2), int64(-4), ""},
		{"**", I, int64(3), int64(4), int64(81), ""},
		{"**", I, int64(2), int64(0), int64(1), ""},
		{"+", I, int64(math.MaxInt64), int64(1), nil, "integer overflow"},
		{"-", I, int64(math.MinInt64), int64(1), nil, "integer overflow"},
		{"*", I, int64(math.MaxInt64), int64(2), nil, "integer overflow"},
		{"*", I, int64(-1), int64(math.MinInt64), nil, "integer overflow"},
		{"*", I, int64(math.MinInt64), int64(1), int64(math.MinInt64), ""},
		{"**", I, int64(2), int64(63), nil, "integer overflow"},
		{"**", I, int64(2), int64(-1), nil, "a negative exponent"},
		{"//", I, int64(1), int64(0), nil, "division by zero"},
		{"%", I, int64(1), int64(0), nil, "division by zero"},
		{"//", I, int64(math.MinInt64), int64(-1), nil, "integer overflow"},
		{"%", I, int64(math.MinInt64), int64(-1), int64(0), ""},
		{"/", R, 7.0, 2.0, 3.5, ""},
		{"//", R, -7.0, 2.0, -4.0, ""},
		{"%", R, -7.0, 2.0, 1.0, ""},
		{"**", R, 2.0, 0.5, math.Sqrt2, ""},
		{"<", I, int64(1), int64(2), true, ""},
		{">=", R, 1.0, 2.0, false, ""},
		{"<=", S, "a", "b", true, ""},
		{"<>", S, "ab", "cd", "abcd", ""},
		{"<>", types.ListOf(R), []float64{1}, []any{2.0}, []any{1.0, 2.0}, ""},
		{"==", types.ListOf(R), []float64{1, 2}, []any{1.0, 2.0}, true, ""},
		{"!=", types.ListOf(R), []float64{1, 2}, []any{1.0, 2.0}, false, ""},
		{"==", types.OptionalOf(I), nil, int64(0), false, ""},
	} {
		got, err := Operate(c.op, c.t, c.left, c.right)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v %s %v: %v, %v; want the error %q", c.left, c.op, c.right, got, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v %s %v = %v, %v; want %v", c.left, c.op, c.right, got, err, c.want)
		}
	}
}

// && and || evaluate their right operand only when it decides, and a
// guard only the branch it takes; negate fails on the one Int it cannot
// negate.
func TestEvalOp(t *testing.T) {
	lit := func(t *types.Type, json string) *manifest.Expr {
		return &manifest.Expr{Kind: manifest.Lit, Type: t, Value: []byte(json)}
	}
	boom := &manifest.Expr{Kind: manifest.Throw, Type: types.BoolType, Message: "evaluated"}
	d := &Dispatcher{}
	for _, c := range []struct {
		e    *manifest.Expr
		want any
		err  string
	}{
		{&manifest.Expr{Kind: manifest.Op, Op: "&&", Type: types.BoolType, Args: []*manifest.Expr{lit(types.BoolType, "false"), boom}}, false, ""},
		{&manifest.Expr{Kind: manifest.Op, Op: "||", Type: types.BoolType, Args: []*manifest.Expr{lit(types.BoolType, "true"), boom}}, true, ""},
		{&manifest.Expr{Kind: manifest.Op, Op: "&&", Type: types.BoolType, Args: []*manifest.Expr{lit(types.BoolType, "true"), boom}}, nil, "evaluated"},
		{&manifest.Expr{Kind: manifest.Op, Op: "negate", Type: types.IntType, Args: []*manifest.Expr{lit(types.IntType, "5")}}, int64(-5), ""},
		{&manifest.Expr{Kind: manifest.Op, Op: "negate", Type: types.IntType, Args: []*manifest.Expr{lit(types.IntType, "-9223372036854775808")}}, nil, "integer overflow"},
		{&manifest.Expr{Kind: manifest.Op, Op: "+", Type: types.RealType, Args: []*manifest.Expr{lit(types.RealType, "1.5"), lit(types.RealType, "2")}}, 3.5, ""},
		// A let's value is the next variable of its body.
		{&manifest.Expr{Kind: manifest.Let, Type: types.IntType, Args: []*manifest.Expr{lit(types.IntType, "2"),
			{Kind: manifest.Op, Op: "*", Type: types.IntType, Args: []*manifest.Expr{{Kind: manifest.Var, Type: types.IntType, Ref: 0}, {Kind: manifest.Var, Type: types.IntType, Ref: 0}}}}}, int64(4), ""},
		// A guard evaluates the branch it takes only.
		{&manifest.Expr{Kind: manifest.If, Type: types.BoolType, Args: []*manifest.Expr{lit(types.BoolType, "true"), lit(types.BoolType, "true"), boom}}, true, ""},
		{&manifest.Expr{Kind: manifest.If, Type: types.BoolType, Args: []*manifest.Expr{lit(types.BoolType, "false"), boom, lit(types.BoolType, "false")}}, false, ""},
		{&manifest.Expr{Kind: manifest.If, Type: types.BoolType, Args: []*manifest.Expr{lit(types.BoolType, "false"), lit(types.BoolType, "true"), boom}}, nil, "evaluated"},
	} {
		got, err := d.eval(context.Background(), c.e, nil)
		if c.err != "" {
			var te *ThrowError
			if err == nil || !strings.Contains(err.Error(), c.err) && !(errors.As(err, &te) && te.Message == c.err) {
				t.Errorf("%s: %v, %v; want the error %q", c.e.Op, got, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, %v; want %v", c.e.Op, got, err, c.want)
		}
	}
}
