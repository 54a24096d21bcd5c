package dispatch

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Getters and setters with Python's index and slice rules: negative
// indexes from the end, clamped bounds, negative steps, step 0 an error;
// setters copy and leave their input alone.
func TestEvalAccess(t *testing.T) {
	I, S := types.IntType, types.StrType
	ints := types.ListOf(I)
	optInt := types.OptionalOf(I)
	none := lit(optInt, "null")
	some := func(n string) *manifest.Expr { return lit(optInt, n) }
	xs := lit(ints, "[10,20,30,40,50]")
	pair := lit(types.TupleOf(I, S), `[1,"a"]`)
	rec := &types.Type{Kind: types.Record, Name: "R", Fields: []types.Field{{Name: "x", Type: I}, {Name: "y", Type: S}}}
	r := lit(rec, `{"x":1,"y":"b"}`)
	d := &Dispatcher{}
	for _, c := range []struct {
		name string
		e    *manifest.Expr
		want any
		err  string
	}{
		{"item", &manifest.Expr{Kind: manifest.Item, Type: S, Ref: 1, Args: []*manifest.Expr{pair}}, "a", ""},
		{"index", &manifest.Expr{Kind: manifest.Index, Type: I, Args: []*manifest.Expr{xs, lit(I, "1")}}, int64(20), ""},
		{"index -1", &manifest.Expr{Kind: manifest.Index, Type: I, Args: []*manifest.Expr{xs, lit(I, "-1")}}, int64(50), ""},
		{"index 5", &manifest.Expr{Kind: manifest.Index, Type: I, Args: []*manifest.Expr{xs, lit(I, "5")}}, nil, "index 5 out of range for a length of 5"},
		{"index -6", &manifest.Expr{Kind: manifest.Index, Type: I, Args: []*manifest.Expr{xs, lit(I, "-6")}}, nil, "index -6 out of range"},
		{"string index", &manifest.Expr{Kind: manifest.Index, Type: S, Args: []*manifest.Expr{lit(S, `"héllo"`), lit(I, "1")}}, "é", ""},
		{"1:3", &manifest.Expr{Kind: manifest.Slice, Type: ints, Args: []*manifest.Expr{xs, some("1"), some("3"), none}}, []int64{20, 30}, ""},
		{":2", &manifest.Expr{Kind: manifest.Slice, Type: ints, Args: []*manifest.Expr{xs, none, some("2"), none}}, []int64{10, 20}, ""},
		{"3:", &manifest.Expr{Kind: manifest.Slice, Type: ints, Args: []*manifest.Expr{xs, some("3"), none, none}}, []int64{40, 50}, ""},
		{"::2", &manifest.Expr{Kind: manifest.Slice, Type: ints, Args: []*manifest.Expr{xs, none, none, some("2")}}, []int64{10, 30, 50}, ""},
		{"::-1", &manifest.Expr{Kind: manifest.Slice, Type: ints, Args: []*manifest.Expr{xs, none, none, some("-1")}}, []int64{50, 40, 30, 20, 10}, ""},
		{"-2:", &manifest.Expr{Kind: manifest.Slice, Type: ints, Args: []*manifest.Expr{xs, some("-2"), none, none}}, []int64{40, 50}, ""},
		{"clamped", &manifest.Expr{Kind: manifest.Slice, Type: ints, Args: []*manifest.Expr{xs, some("-100"), some("100"), none}}, []int64{10, 20, 30, 40, 50}, ""},
		{"empty", &manifest.Expr{Kind: manifest.Slice, Type: ints, Args: []*manifest.Expr{xs, some("4"), some("1"), none}}, []int64{}, ""},
		{"3:0:-1", &manifest.Expr{Kind: manifest.Slice, Type: ints, Args: []*manifest.Expr{xs, some("3"), some("0"), some("-1")}}, []int64{40, 30, 20}, ""},
		{"step 0", &manifest.Expr{Kind: manifest.Slice, Type: ints, Args: []*manifest.Expr{xs, none, none, some("0")}}, nil, "slice step cannot be zero"},
		{"string ::-1", &manifest.Expr{Kind: manifest.Slice, Type: S, Args: []*manifest.Expr{lit(S, `"abc"`), none, none, some("-1")}}, "cba", ""},
		{"set item", &manifest.Expr{Kind: manifest.Set, Type: pair.Type, Ref: 0, Args: []*manifest.Expr{pair, lit(I, "99")}}, []any{int64(99), "a"}, ""},
		{"set field", &manifest.Expr{Kind: manifest.Set, Type: rec, Field: "y", Args: []*manifest.Expr{r, lit(S, `"w"`)}}, map[string]any{"x": int64(1), "y": "w"}, ""},
	} {
		got, err := d.eval(context.Background(), c.e, nil)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, %v; want the error %q", c.name, got, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %#v, %v; want %#v", c.name, got, err, c.want)
		}
	}
}

// A setter leaves the value it copies unchanged: a let's variable used
// after being set is still the old value.
func TestSetCopies(t *testing.T) {
	I := types.IntType
	tt := types.TupleOf(I, I)
	v := &manifest.Expr{Kind: manifest.Var, Type: tt, Ref: 0}
	body := &manifest.Expr{Kind: manifest.MakeTuple, Type: types.TupleOf(tt, tt), Args: []*manifest.Expr{
		{Kind: manifest.Set, Type: tt, Ref: 1, Args: []*manifest.Expr{v, lit(I, "7")}}, v}}
	d := &Dispatcher{}
	got, err := d.eval(context.Background(), body, []any{[]any{int64(1), int64(2)}})
	want := []any{[]any{int64(1), int64(7)}, []any{int64(1), int64(2)}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("%#v, %v; want %#v", got, err, want)
	}
}
