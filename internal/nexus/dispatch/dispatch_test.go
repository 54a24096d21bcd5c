package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

var reals = types.ListOf(types.RealType)

var point = &types.Type{Kind: types.Record, Name: "Point", Fields: []types.Field{
	{Name: "x", Type: types.IntType},
	{Name: "y", Type: types.IntType},
}}

// Function ids of testManifest.
const (
	fnAdd    = iota // py: Int -> Int -> Int
	fnFail          // py: Int -> Int, always fails
	fnPoint         // cpp: Int -> Point, {x: n, y: 2n}
	fnWrong         // cpp: Int -> Int, returns a string
	fnShout         // go: Str -> Str
	fnWaitPy        // py: Int -> Int, waits for a partner call
	fnWaitGo        // go: Int -> Int, waits for a partner call
	fnBlock         // cpp: Int -> Int, blocks until cancelled
	fnScale         // go: [Real] -> Real -> [Real], each item times the factor
)

func testManifest() *manifest.Manifest {
	I := types.IntType
	return &manifest.Manifest{
		Nexus: manifest.NexusVersion,
		Name:  "test",
		Pools: []manifest.Pool{
			{Lang: manifest.Python, Command: []string{"python3"}},
			{Lang: manifest.Cpp, Command: []string{"pool"}},
			{Lang: manifest.Go, Command: []string{"pool"}},
		},
		Functions: []manifest.Function{
			{ID: fnAdd, Name: "add", Pool: manifest.Python, Args: []*types.Type{I, I}, Return: I},
			{ID: fnFail, Name: "fail", Pool: manifest.Python, Args: []*types.Type{I}, Return: I},
			{ID: fnPoint, Name: "point", Pool: manifest.Cpp, Args: []*types.Type{I}, Return: point},
			{ID: fnWrong, Name: "wrong", Pool: manifest.Cpp, Args: []*types.Type{I}, Return: I},
			{ID: fnShout, Name: "shout", Pool: manifest.Go, Args: []*types.Type{types.StrType}, Return: types.StrType},
			{ID: fnWaitPy, Name: "waitPy", Pool: manifest.Python, Args: []*types.Type{I}, Return: I},
			{ID: fnWaitGo, Name: "waitGo", Pool: manifest.Go, Args: []*types.Type{I}, Return: I},
			{ID: fnBlock, Name: "block", Pool: manifest.Cpp, Args: []*types.Type{I}, Return: I},
			{ID: fnScale, Name: "scale", Pool: manifest.Go, Args: []*types.Type{reals, types.RealType}, Return: reals},
		},
	}
}

// fakePools implements Caller in Go: it decodes the msgpack arguments with
// the function's types, as a pool does, and encodes the result.
type fakePools struct {
	mu       sync.Mutex
	calls    []string
	inFlight map[string]int
	maxIn    map[string]int
	meet     chan struct{} // waitPy and waitGo each need the other running
}

func newFakePools() *fakePools {
	return &fakePools{inFlight: map[string]int{}, maxIn: map[string]int{}, meet: make(chan struct{})}
}

func (p *fakePools) Call(ctx context.Context, f *manifest.Function, in []byte) ([]byte, error) {
	p.mu.Lock()
	p.calls = append(p.calls, f.Name)
	p.inFlight[f.Pool]++
	p.maxIn[f.Pool] = max(p.maxIn[f.Pool], p.inFlight[f.Pool])
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.inFlight[f.Pool]--
		p.mu.Unlock()
	}()

	args, err := types.DecodeArgs(f.Args, in)
	if err != nil {
		return nil, err
	}
	var out any
	switch f.ID {
	case fnAdd:
		out = args[0].(int64) + args[1].(int64)
	case fnFail:
		return nil, fmt.Errorf("fail: Traceback (most recent call last):\nValueError: bad value: %d", args[0])
	case fnPoint:
		n := args[0].(int64)
		out = map[string]any{"x": n, "y": 2 * n}
	case fnWrong:
		var buf bytes.Buffer
		_ = msgpack.NewEncoder(&buf).EncodeString("not an int")
		return buf.Bytes(), nil
	case fnShout:
		out = strings.ToUpper(args[0].(string)) + "!"
	case fnWaitPy, fnWaitGo:
		// Whichever comes first waits for the other; run in sequence,
		// the first would wait forever.
		select {
		case p.meet <- struct{}{}:
		case <-p.meet:
		case <-time.After(5 * time.Second):
			return nil, errors.New("the partner call never came: calls were not concurrent")
		}
		out = args[0]
	case fnBlock:
		<-ctx.Done()
		return nil, ctx.Err()
	case fnScale:
		xs := args[0].([]float64) // as DecodeArgs reads a [Real]
		ys := make([]float64, len(xs))
		for i, x := range xs {
			ys[i] = x * args[1].(float64)
		}
		out = ys
	default:
		return nil, fmt.Errorf("no function %d", f.ID)
	}
	var buf bytes.Buffer
	if err := types.EncodeMsgpack(msgpack.NewEncoder(&buf), f.Return, out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Expression builders, so bodies read like the .loc they come from.

func lit(t *types.Type, js string) *manifest.Expr {
	return &manifest.Expr{Kind: manifest.Lit, Type: t, Value: json.RawMessage(js)}
}

func variable(ref int, t *types.Type) *manifest.Expr {
	return &manifest.Expr{Kind: manifest.Var, Type: t, Ref: ref}
}

func call(m *manifest.Manifest, id int, args ...*manifest.Expr) *manifest.Expr {
	return &manifest.Expr{Kind: manifest.Call, Type: m.Functions[id].Return, Ref: id, Args: args}
}

func get(t *types.Type, field string, rec *manifest.Expr) *manifest.Expr {
	return &manifest.Expr{Kind: manifest.Get, Type: t, Field: field, Args: []*manifest.Expr{rec}}
}

func throw(t *types.Type, msg string) *manifest.Expr {
	return &manifest.Expr{Kind: manifest.Throw, Type: t, Message: msg}
}

func command(body *manifest.Expr, args ...*types.Type) *manifest.Command {
	c := &manifest.Command{Name: "cmd", Return: body.Type, Body: body}
	for _, t := range args {
		c.Args = append(c.Args, manifest.Arg{Kind: manifest.Positional, Type: t})
	}
	return c
}

func TestRun(t *testing.T) {
	m := testManifest()
	I, S, R := types.IntType, types.StrType, types.RealType
	pair := types.TupleOf(I, S)
	cases := []struct {
		name string
		body *manifest.Expr
		args []*types.Type
		vals []any
		want string // the result as JSON
	}{
		{"literal int", lit(I, "42"), nil, nil, "42"},
		{"literal string", lit(S, `"a \"q\" ✓"`), nil, nil, `"a \"q\" ✓"`},
		{"literal record", lit(point, `{"y":2,"x":1}`), nil, nil, `{"x":1,"y":2}`},
		{"variable", variable(1, S), []*types.Type{I, S}, []any{int64(1), "two"}, `"two"`},
		{"list", &manifest.Expr{Kind: manifest.MakeList, Type: types.ListOf(I), Args: []*manifest.Expr{
			variable(0, I), lit(I, "1"), lit(I, "2")}}, []*types.Type{I}, []any{int64(7)}, "[7,1,2]"},
		{"empty list", &manifest.Expr{Kind: manifest.MakeList, Type: types.ListOf(I)}, nil, nil, "[]"},
		{"tuple", &manifest.Expr{Kind: manifest.MakeTuple, Type: pair, Args: []*manifest.Expr{
			lit(I, "1"), variable(0, S)}}, []*types.Type{S}, []any{"x"}, `[1,"x"]`},
		{"record", &manifest.Expr{Kind: manifest.MakeRecord, Type: point, Fields: []string{"y", "x"}, Args: []*manifest.Expr{
			lit(I, "2"), variable(0, I)}}, []*types.Type{I}, []any{int64(1)}, `{"x":1,"y":2}`},
		{"field of a variable", get(I, "y", variable(0, point)), []*types.Type{point},
			[]any{map[string]any{"x": int64(1), "y": int64(5)}}, "5"},
		{"call", call(m, fnAdd, variable(0, I), lit(I, "2")), []*types.Type{I}, []any{int64(40)}, "42"},
		{"nested calls", call(m, fnAdd, call(m, fnAdd, lit(I, "1"), lit(I, "2")), lit(I, "3")), nil, nil, "6"},
		{"field of a call", get(I, "y", call(m, fnPoint, lit(I, "4"))), nil, nil, "8"},
		{"calls of three pools", &manifest.Expr{Kind: manifest.MakeTuple, Type: types.TupleOf(I, point, S), Args: []*manifest.Expr{
			call(m, fnAdd, lit(I, "1"), lit(I, "1")), call(m, fnPoint, lit(I, "1")), call(m, fnShout, lit(S, `"hé"`))}},
			nil, nil, `[2,{"x":1,"y":2},"HÉ!"]`},
		// Lists of reals are []float64 where they are read and []any where
		// a body builds them; both flow into calls and lists alike.
		{"reals from call to call", call(m, fnScale, call(m, fnScale, variable(0, reals), lit(R, "2")), lit(R, "0.5")),
			[]*types.Type{reals}, []any{[]float64{1.5, -2}}, "[1.5,-2]"},
		{"reals from a list expression to a call", call(m, fnScale, &manifest.Expr{Kind: manifest.MakeList, Type: reals, Args: []*manifest.Expr{
			variable(0, R), lit(R, "1")}}, lit(R, "3")), []*types.Type{R}, []any{2.0}, "[6,3]"},
		{"reals of a literal, a call and a variable in a list", &manifest.Expr{Kind: manifest.MakeList, Type: types.ListOf(reals), Args: []*manifest.Expr{
			lit(reals, "[0.25]"), call(m, fnScale, lit(reals, "[1, 2]"), lit(R, "2")), variable(0, reals)}},
			[]*types.Type{reals}, []any{[]any{0.5}}, "[[0.25],[2,4],[0.5]]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &Dispatcher{M: m, Pools: newFakePools()}
			cmd := command(c.body, c.args...)
			v, err := d.Run(context.Background(), cmd, c.vals)
			if err != nil {
				t.Fatal(err)
			}
			got, err := types.ToJSON(cmd.Return, v)
			if err != nil {
				t.Fatalf("result %#v: %v", v, err)
			}
			if string(got) != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestPureCommandWithoutPools(t *testing.T) {
	d := &Dispatcher{M: testManifest()}
	v, err := d.Run(context.Background(), command(lit(types.IntType, "64")), nil)
	if err != nil || v != int64(64) {
		t.Fatalf("got %#v, %v; want 64", v, err)
	}
}

func TestErrors(t *testing.T) {
	m := testManifest()
	I := types.IntType
	cases := []struct {
		name  string
		pools Caller
		body  *manifest.Expr
		want  []string // the error must mention each
	}{
		{"call without pools", nil, call(m, fnAdd, lit(I, "1"), lit(I, "2")), []string{"add", "no pools"}},
		{"function failure", newFakePools(), call(m, fnFail, lit(I, "3")), []string{"fail: ", "Traceback", "bad value: 3"}},
		{"wrong result", newFakePools(), call(m, fnWrong, lit(I, "3")), []string{"wrong", "Int"}},
		{"argument of the wrong type", newFakePools(), call(m, fnAdd, lit(types.StrType, `"x"`), lit(I, "2")), []string{"add", "argument 1"}},
		{"field access on a non-record", newFakePools(), get(I, "x", lit(I, "1")), []string{".x", "not a record"}},
		{"missing field", newFakePools(), get(I, "z", call(m, fnPoint, lit(I, "1"))), []string{".z", "no such field"}},
		{"unknown function", newFakePools(), &manifest.Expr{Kind: manifest.Call, Type: I, Ref: 99}, []string{"unknown function 99"}},
		{"unknown variable", newFakePools(), variable(3, I), []string{"variable 3"}},
		{"unknown kind", newFakePools(), &manifest.Expr{Kind: "lambda", Type: I}, []string{"lambda"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &Dispatcher{M: m, Pools: c.pools}
			_, err := d.Run(context.Background(), command(c.body), nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestThrow(t *testing.T) {
	m := testManifest()
	I := types.IntType
	pools := newFakePools()
	d := &Dispatcher{M: m, Pools: pools}
	// The throw sits in an argument: the call must never happen.
	body := call(m, fnAdd, lit(I, "1"), throw(I, "this command always fails"))
	_, err := d.Run(context.Background(), command(body), nil)
	var te *ThrowError
	if !errors.As(err, &te) || te.Message != "this command always fails" {
		t.Fatalf("got %v, want the ThrowError", err)
	}
	if len(pools.calls) != 0 {
		t.Errorf("calls after a throw: %v", pools.calls)
	}
}

func TestArgumentCount(t *testing.T) {
	d := &Dispatcher{M: testManifest()}
	_, err := d.Run(context.Background(), command(variable(0, types.IntType), types.IntType), nil)
	if err == nil || !strings.Contains(err.Error(), "takes 1 arguments, got 0") {
		t.Fatalf("got %v", err)
	}
}

func TestRunAction(t *testing.T) {
	m := testManifest()
	d := &Dispatcher{M: m, Pools: newFakePools()}
	a := &manifest.Action{Kind: "render", Long: "shout", Return: types.StrType,
		Body: call(m, fnShout, variable(0, types.StrType))}
	v, err := d.RunAction(context.Background(), a, "héllo\n\"q\"")
	if err != nil || v != "HÉLLO\n\"Q\"!" {
		t.Fatalf("got %#v, %v", v, err)
	}
}

// TestConcurrentCalls: calls to different pools in one body run at once
// (each waits for the other), calls to the same pool one after the other.
func TestConcurrentCalls(t *testing.T) {
	m := testManifest()
	I := types.IntType
	pools := newFakePools()
	d := &Dispatcher{M: m, Pools: pools}
	body := call(m, fnAdd, call(m, fnWaitPy, lit(I, "1")), call(m, fnWaitGo, lit(I, "2")))
	v, err := d.Run(context.Background(), command(body), nil)
	if err != nil || v != int64(3) {
		t.Fatalf("got %#v, %v; want 3", v, err)
	}

	pools = newFakePools()
	d.Pools = pools
	body = &manifest.Expr{Kind: manifest.MakeList, Type: types.ListOf(I), Args: []*manifest.Expr{
		call(m, fnAdd, lit(I, "1"), lit(I, "1")),
		call(m, fnAdd, lit(I, "2"), lit(I, "2")),
		call(m, fnPoint, lit(I, "1")),
	}}
	body.Args[2] = get(I, "x", body.Args[2])
	if _, err := d.Run(context.Background(), command(body), nil); err != nil {
		t.Fatal(err)
	}
	if pools.maxIn[manifest.Python] != 1 {
		t.Errorf("%d concurrent calls to one pool, want 1", pools.maxIn[manifest.Python])
	}
	if got := strings.Join(pools.calls, " "); got != "add add point" {
		t.Errorf("calls %q, want them in order", got)
	}
}

// TestConcurrentMCPServers: calls to tools of two different MCP servers are
// independent, as calls to two pools are (each waits for the other).
func TestConcurrentMCPServers(t *testing.T) {
	m := testManifest()
	m.Servers = []manifest.Server{{Name: "a", Server: "a", TimeoutMS: 1}, {Name: "b", Server: "b", TimeoutMS: 1}}
	for i, fn := range []int{fnWaitPy, fnWaitGo} {
		m.Functions[fn].Pool, m.Functions[fn].Server, m.Functions[fn].Params = manifest.MCP, i, []string{"x"}
	}
	I := types.IntType
	d := &Dispatcher{M: m, Pools: newFakePools()}
	body := call(m, fnAdd, call(m, fnWaitPy, lit(I, "1")), call(m, fnWaitGo, lit(I, "2")))
	v, err := d.Run(context.Background(), command(body), nil)
	if err != nil || v != int64(3) {
		t.Fatalf("got %#v, %v; want 3", v, err)
	}
}

// TestConcurrentFailure: the failure of one concurrent call is the error
// reported, and it cancels the others.
func TestConcurrentFailure(t *testing.T) {
	m := testManifest()
	I := types.IntType
	d := &Dispatcher{M: m, Pools: newFakePools()}
	body := call(m, fnAdd, call(m, fnBlock, lit(I, "1")), call(m, fnFail, lit(I, "2")))
	done := make(chan error, 1)
	go func() {
		_, err := d.Run(context.Background(), command(body), nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "bad value: 2") {
			t.Fatalf("got %v, want the failure of fail", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the blocked call was not cancelled")
	}
}

func TestCancelledContext(t *testing.T) {
	m := testManifest()
	pools := newFakePools()
	d := &Dispatcher{M: m, Pools: pools}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := d.Run(ctx, command(call(m, fnAdd, lit(types.IntType, "1"), lit(types.IntType, "2"))), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if len(pools.calls) != 0 {
		t.Errorf("calls with a cancelled context: %v", pools.calls)
	}
}
