package manifest

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/nexus-run/nexus/manifest/types"
)

var (
	tInt  = types.IntType
	tReal = types.RealType
	tStr  = types.StrType
	tBool = types.BoolType
	// tPoint has a required and a defaulted field.
	tPoint = &types.Type{Kind: types.Record, Name: "Point", Fields: []types.Field{
		{Name: "x", Type: types.IntType},
		{Name: "y", Type: types.IntType, Default: json.RawMessage(`0`)},
	}}
)

// Function ids of validManifest.
const (
	fnAdd   = iota // py: Int -> Int -> Int
	fnNorm         // cpp: Point -> Real
	fnShout        // go: Str -> Str
	fnShow         // py: Real -> Str
)

func lit(t *types.Type, value string) *Expr {
	return &Expr{Kind: Lit, Type: t, Value: json.RawMessage(value)}
}

func variable(ref int, t *types.Type) *Expr { return &Expr{Kind: Var, Type: t, Ref: ref} }

func call(fn int, t *types.Type, args ...*Expr) *Expr {
	return &Expr{Kind: Call, Type: t, Ref: fn, Args: args}
}

// validManifest returns a manifest that passes Validate and uses every kind
// of argument, expression and output action. Tests break one thing in it.
func validManifest() *Manifest {
	return &Manifest{
		Nexus: NexusVersion,
		Name:  "demo",
		Doc:   []string{"A demo program.", "It does little."},
		Pools: []Pool{
			{Lang: Python, Command: []string{"python3", "-m", "nexus_pool", "$BUILD/pools/py/main.py"}, Interpreter: "/opt/python/bin/python3"},
			{Lang: Cpp, Command: []string{"$BUILD/pools/cpp/pool"}},
			{Lang: Go, Command: []string{"$BUILD/pools/go/pool", "--quiet"}},
		},
		Functions: []Function{
			{ID: fnAdd, Name: "add", Source: "add", Pool: Python, Args: []*types.Type{tInt, tInt}, Return: tInt},
			{ID: fnNorm, Name: "norm", Source: "norm", Pool: Cpp, Args: []*types.Type{tPoint}, Return: tReal},
			{ID: fnShout, Name: "shout", Source: "Shout", Pool: Go, Args: []*types.Type{tStr}, Return: tStr},
			{ID: fnShow, Name: "show", Source: "show", Pool: Python, Args: []*types.Type{tReal}, Return: tStr},
		},
		Commands: []Command{
			{
				Name: "add", Doc: []string{"Add two numbers."}, ReturnDoc: "the sum",
				Args: []Arg{
					{Kind: Positional, Type: tInt, Name: "a", Metavar: "A"},
					{Kind: Option, Type: tInt, Name: "bee", Short: "b", Long: "bee", Default: json.RawMessage(`2`)},
				},
				Return: tInt,
				Body:   call(fnAdd, tInt, variable(0, tInt), variable(1, tInt)),
			},
			{
				Name: "norm",
				Args: []Arg{{Kind: Group, Type: tPoint, Name: "point", Long: "point", Fields: []Arg{
					{Kind: Option, Type: tInt, Name: "x", Short: "x", Field: "x"},
					{Kind: Option, Type: tInt, Name: "y", Long: "y", Field: "y", Default: json.RawMessage(`0`)},
				}}},
				Return: tReal,
				Body:   call(fnNorm, tReal, variable(0, tPoint)),
				Actions: []Action{
					{Kind: "with", Short: "s", Long: "show", Body: call(fnShow, tStr, variable(0, tReal)), Return: tStr},
				},
			},
			{
				Name: "shout",
				Args: []Arg{
					{Kind: Positional, Type: tStr, Name: "text", Stdin: true},
					{Kind: Flag, Type: tBool, Name: "loud", Long: "loud", FalseLong: "quiet", Default: json.RawMessage(`false`)},
				},
				Return: tStr,
				Body:   call(fnShout, tStr, variable(0, tStr)),
			},
			{
				Name:   "pure",
				Args:   []Arg{{Kind: Positional, Type: types.ListOf(tInt), Many: true}},
				Return: types.TupleOf(tInt, types.ListOf(tInt)),
				Body: &Expr{Kind: MakeTuple, Type: types.TupleOf(tInt, types.ListOf(tInt)), Args: []*Expr{
					lit(tInt, `1`), variable(0, types.ListOf(tInt)),
				}},
			},
			{
				Name:   "origin",
				Return: tPoint,
				Body: &Expr{Kind: MakeRecord, Type: tPoint, Fields: []string{"x", "y"}, Args: []*Expr{
					lit(tInt, `0`), lit(tInt, `0`),
				}},
			},
			{
				Name:   "get_x",
				Args:   []Arg{{Kind: Positional, Type: tPoint}},
				Return: tInt,
				Body:   &Expr{Kind: Get, Type: tInt, Field: "x", Args: []*Expr{variable(0, tPoint)}},
			},
			{
				Name:   "fail",
				Return: types.UnitType,
				Body:   &Expr{Kind: Throw, Type: types.UnitType, Message: "always fails"},
			},
			{
				Name:   "nothing",
				Return: types.OptionalOf(tInt),
				Body:   lit(types.OptionalOf(tInt), `null`),
			},
			{
				Name:   "words",
				Return: types.ListOf(tStr),
				Body: &Expr{Kind: MakeList, Type: types.ListOf(tStr), Args: []*Expr{
					lit(tStr, `"a"`), call(fnShout, tStr, lit(tStr, `"b"`)),
				}},
			},
			{
				Name:   "echo",
				Args:   []Arg{{Kind: Positional, Type: tStr}},
				Return: tStr,
				Body:   variable(0, tStr),
				Actions: []Action{
					{Kind: "render", Long: "loud", Body: call(fnShout, tStr, variable(0, tStr)), Return: tStr},
				},
			},
		},
	}
}

func TestPoolCommand(t *testing.T) {
	m := validManifest()
	m.Dir = "/opt/demo-build"
	m.Pools = append(m.Pools[:0:0], m.Pools...)
	m.Pools[2].Command = []string{"$BUILD/pools/go/pool", "$BUILD", "$BUILDER/x", "x/$BUILD/y", "--dir=$BUILD/z", "$BUILD/a/../b"}
	cases := []struct {
		lang string
		want []string
	}{
		{Python, []string{"python3", "-m", "nexus_pool", "/opt/demo-build/pools/py/main.py"}},
		{Cpp, []string{"/opt/demo-build/pools/cpp/pool"}},
		// Only a leading "$BUILD/" names a path in the build folder.
		{Go, []string{"/opt/demo-build/pools/go/pool", "$BUILD", "$BUILDER/x", "x/$BUILD/y", "--dir=$BUILD/z", "/opt/demo-build/b"}},
	}
	for _, c := range cases {
		p := m.Pool(c.lang)
		before := append([]string(nil), p.Command...)
		got := m.PoolCommand(p)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("PoolCommand(%s) = %q, want %q", c.lang, got, c.want)
		}
		if !reflect.DeepEqual(p.Command, before) {
			t.Errorf("PoolCommand(%s) changed the manifest: %q", c.lang, p.Command)
		}
	}
}

func TestPoolsFor(t *testing.T) {
	m := validManifest()
	pt := variable(0, tPoint)
	cases := []struct {
		name string
		cmd  *Command
		want []string
	}{
		{"pure command", m.Command("pure"), []string{}},
		{"literal record", m.Command("origin"), []string{}},
		{"throw", m.Command("fail"), []string{}},
		{"single pool", m.Command("add"), []string{Python}},
		{"call inside a list", m.Command("words"), []string{Go}},
		{"body and action", m.Command("norm"), []string{Cpp, Python}},
		{"only through an output action", m.Command("echo"), []string{Go}},
		{"two pools, nested calls", &Command{Body: call(fnShow, tStr, call(fnNorm, tReal, pt))}, []string{Cpp, Python}},
		{"three pools", &Command{
			Body: &Expr{Kind: MakeTuple, Args: []*Expr{call(fnShout, tStr, lit(tStr, `"x"`)), call(fnNorm, tReal, pt)}},
			Actions: []Action{
				{Body: lit(tInt, `1`)},
				{Body: call(fnAdd, tInt, variable(0, tInt), variable(0, tInt))},
			},
		}, []string{Cpp, Go, Python}},
		{"same pool twice", &Command{Body: call(fnAdd, tInt, call(fnAdd, tInt, lit(tInt, `1`), lit(tInt, `2`)), call(fnShow, tStr, lit(tReal, `1`)))}, []string{Python}},
		{"call in a record field access", &Command{Body: &Expr{Kind: Get, Field: "x", Args: []*Expr{call(fnNorm, tReal, pt)}}}, []string{Cpp}},
		{"no body", &Command{}, []string{}},
		{"unknown function ignored", &Command{Body: call(42, tInt), Actions: []Action{{Body: call(-1, tInt)}}}, []string{}},
	}
	for _, c := range cases {
		if c.cmd == nil {
			t.Fatalf("%s: no such command", c.name)
		}
		got := m.PoolsFor(c.cmd)
		if len(got) != len(c.want) || (len(got) > 0 && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("%s: PoolsFor = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestPoolsOf: the pools of an expression, as PoolsFor and the dispatcher
// (which runs calls of different pools concurrently) see them.
func TestPoolsOf(t *testing.T) {
	m := validManifest()
	pt := variable(0, tPoint)
	for _, c := range []struct {
		name string
		e    *Expr
		want []string
	}{
		{"nil", nil, nil},
		{"literal", lit(tInt, `1`), nil},
		{"variable", pt, nil},
		{"throw", &Expr{Kind: Throw, Type: tInt, Message: "no"}, nil},
		{"one call", call(fnAdd, tInt, lit(tInt, `1`), lit(tInt, `2`)), []string{Python}},
		{"nested calls", call(fnShow, tStr, call(fnNorm, tReal, pt)), []string{Cpp, Python}},
		{"calls in a tuple", &Expr{Kind: MakeTuple, Args: []*Expr{call(fnShout, tStr, lit(tStr, `"x"`)), call(fnNorm, tReal, pt)}}, []string{Cpp, Go}},
		{"call in a record field access", &Expr{Kind: Get, Field: "x", Args: []*Expr{call(fnNorm, tReal, pt)}}, []string{Cpp}},
		{"same pool twice", call(fnAdd, tInt, call(fnAdd, tInt, lit(tInt, `1`), lit(tInt, `2`)), call(fnShow, tStr, lit(tReal, `1`))), []string{Python}},
		{"unknown function ignored", &Expr{Kind: MakeList, Args: []*Expr{call(42, tInt), call(-1, tInt)}}, nil},
	} {
		got := map[string]bool{}
		m.PoolsOf(c.e, got)
		want := map[string]bool{}
		for _, l := range c.want {
			want[l] = true
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: PoolsOf = %v, want %v", c.name, got, want)
		}
	}
	// It adds to what into holds.
	into := map[string]bool{Go: true}
	m.PoolsOf(call(fnAdd, tInt, lit(tInt, `1`), lit(tInt, `2`)), into)
	if !reflect.DeepEqual(into, map[string]bool{Go: true, Python: true}) {
		t.Errorf("PoolsOf into a set holding go: %v", into)
	}
}

func TestLookups(t *testing.T) {
	m := validManifest()
	if p := m.Pool(Go); p == nil || p.Lang != Go || p != &m.Pools[2] {
		t.Errorf("Pool(go) = %+v, want the manifest's go pool", p)
	}
	if p := m.Pool("rust"); p != nil {
		t.Errorf("Pool(rust) = %+v, want nil", p)
	}
	if c := m.Command("shout"); c == nil || c.Name != "shout" || c != &m.Commands[2] {
		t.Errorf("Command(shout) = %+v, want the manifest's shout", c)
	}
	if c := m.Command("nope"); c != nil {
		t.Errorf("Command(nope) = %+v, want nil", c)
	}
	if c := (&Manifest{}).Command("add"); c != nil {
		t.Errorf("Command on an empty manifest = %+v", c)
	}
}
