package gopool_test

import (
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest/types"
)

const higherOrderSource = `package hof

import "errors"

type Point struct {
	X, Y int
}

func Add(a, b int) int { return a + b }

func Longer(s string, n int8) bool { return len(s) > int(n) }

func Norm(p *Point) int { return p.X*p.X + p.Y*p.Y }

func Boom(x int) int {
	if x == 0 {
		panic("zero")
	}
	return x
}

func Fails(x int) (int, error) {
	if x == 0 {
		return 0, errors.New("no zero")
	}
	return x, nil
}

func ApplyTwice(f func(int32) int32, x int32) int32 { return f(f(x)) }

// Checked passes on a failure of f as its own error.
func Checked(f func(int) (int, error), x int) (int, error) {
	y, err := f(x)
	if err != nil {
		return 0, errors.New("checked: " + err.Error())
	}
	return y, nil
}

type Pred func(string) bool

func CountIf(p Pred, xs []string) int {
	n := 0
	for _, x := range xs {
		if p(x) {
			n++
		}
	}
	return n
}
`

// TestFunctionArguments: a function argument reaches a Go function as a
// func value of the type it declares, calling a function of the same pool
// with the captured arguments and the caller's in slot order; the
// prelude's loops run over it in the pool, records included.
func TestFunctionArguments(t *testing.T) {
	I, S, B := types.IntType, types.StrType, types.BoolType
	point := &types.Type{Kind: types.Record, Name: "Point", Langs: map[string]string{"go": "Point"},
		Fields: []types.Field{{Name: "x", Type: I}, {Name: "y", Type: I}}}
	intFn, pred := types.FuncOf(I, I), types.FuncOf(B, S)
	prelude := func(name string, ret *types.Type, args ...*types.Type) fn {
		return fn{Source: name, Args: args, Return: ret, File: sourced.PreludeFile}
	}
	m, err := build(t.TempDir(), higherOrderSource, []fn{
		{Source: "Add", Args: []*types.Type{I, I}, Return: I},                                               // 0
		{Source: "Longer", Args: []*types.Type{S, I}, Return: B},                                            // 1
		{Source: "Norm", Args: []*types.Type{point}, Return: I},                                             // 2
		{Source: "Boom", Args: []*types.Type{I}, Return: I},                                                 // 3
		{Source: "Fails", Args: []*types.Type{I}, Return: I},                                                // 4
		{Source: "ApplyTwice", Args: []*types.Type{intFn, I}, Return: I},                                    // 5
		{Source: "Checked", Args: []*types.Type{intFn, I}, Return: I},                                       // 6
		{Source: "CountIf", Args: []*types.Type{pred, types.ListOf(S)}, Return: I},                          // 7
		prelude("morloc_map", types.ListOf(I), types.FuncOf(I, point), types.ListOf(point)),                 // 8
		prelude("morloc_filter", types.ListOf(S), pred, types.ListOf(S)),                                    // 9
		prelude("morloc_fold", I, types.FuncOf(I, I, I), I, types.ListOf(I)),                                // 10
		prelude("morloc_find", types.OptionalOf(S), pred, types.ListOf(S)),                                  // 11
		prelude("morloc_partition", types.TupleOf(types.ListOf(S), types.ListOf(S)), pred, types.ListOf(S)), // 12
		prelude("morloc_map", types.ListOf(I), intFn, types.ListOf(I)),                                      // 13
	})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	packed := func(v any) msgpack.RawMessage {
		b, err := msgpack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	add3 := &types.FuncRef{ID: 0, Slots: []int{-1, 0}, Captured: []msgpack.RawMessage{packed(3)}}
	plus10 := &types.FuncRef{ID: 0, Slots: []int{0, -1}, Captured: []msgpack.RawMessage{packed(10)}}
	longer1 := &types.FuncRef{ID: 1, Slots: []int{0, -1}, Captured: []msgpack.RawMessage{packed(1)}}
	longer5 := &types.FuncRef{ID: 1, Slots: []int{0, -1}, Captured: []msgpack.RawMessage{packed(5)}}
	words := []string{"a", "bb", "ccc"}
	points := []any{map[string]any{"x": int64(1), "y": int64(2)}, map[string]any{"x": int64(3), "y": int64(0)}}
	pooltest.CheckCalls(t, s, m, []pooltest.Case{
		{"user function, declared types", 5, []any{add3, int64(4)}, "10"},
		{"named func type", 7, []any{longer1, words}, "2"},
		{"func with an error result", 6, []any{plus10, int64(1)}, "11"},
		{"map over records", 8, []any{&types.FuncRef{ID: 2, Slots: []int{0}}, points}, "[5,9]"},
		{"map, captured value second", 13, []any{plus10, []int64{1, 2}}, "[11,12]"},
		{"filter", 9, []any{longer1, words}, `["bb","ccc"]`},
		{"filter to nothing", 9, []any{longer5, words}, `[]`},
		{"fold", 10, []any{&types.FuncRef{ID: 0, Slots: []int{0, 1}}, int64(100), []int64{1, 2, 3}}, "106"},
		{"find", 11, []any{longer1, words}, `"bb"`},
		{"find nothing", 11, []any{longer5, words}, "null"},
		{"partition", 12, []any{longer1, words}, `[["bb","ccc"],["a"]]`},
	})

	for _, c := range []struct {
		name string
		id   int
		args []any
		want []string
	}{
		{"a panic inside map", 13, []any{&types.FuncRef{ID: 3, Slots: []int{0}}, []int64{1, 0}},
			[]string{"Boom, given as a function argument: panicked: zero", "hof.Boom("}},
		{"an error given back", 6, []any{&types.FuncRef{ID: 4, Slots: []int{0}}, int64(0)},
			[]string{"checked: Fails, given as a function argument: no zero"}},
		{"an error where the func type has none", 5, []any{&types.FuncRef{ID: 4, Slots: []int{0}}, int64(0)},
			[]string{"Fails, given as a function argument: no zero"}},
		{"a function the pool lacks", 13, []any{&types.FuncRef{ID: 99, Slots: []int{0}}, []int64{1}},
			[]string{"function 99, which this Go pool does not have"}},
		{"too few slots", 13, []any{&types.FuncRef{ID: 0, Slots: []int{0}}, []int64{1}},
			[]string{"Add takes 2 arguments, the function reference gives 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := pooltest.Call(t, s, m, c.id, c.args...)
			for _, w := range c.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("got %v, want an error saying %q", err, w)
				}
			}
			if err != nil && strings.Contains(err.Error(), "FuncError") {
				t.Errorf("the failure is reported as a panic of the runtime's: %v", err)
			}
		})
	}
}
