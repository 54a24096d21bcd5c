package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// The test program: a hand-built manifest with one command per argument
// kind, and pools implemented in Go by fakePools.

var (
	I, R, S, B = types.IntType, types.RealType, types.StrType, types.BoolType
	J          = types.JSONType

	settings = &types.Type{Kind: types.Record, Name: "Settings", Doc: []string{"Settings of a run."}, Fields: []types.Field{
		{Name: "tmp_dir", Type: S, Doc: []string{"Where temporary files go"}, Default: []byte(`"/tmp"`)},
		{Name: "threads", Type: I, Doc: []string{"How many threads"}},
		{Name: "verbose", Type: B, Doc: []string{"Be chatty"}, Default: []byte(`false`)},
		{Name: "label", Type: types.OptionalOf(S)},
	}}
	point = &types.Type{Kind: types.Record, Name: "Point", Fields: []types.Field{
		{Name: "x", Type: R},
		{Name: "y", Type: R},
		{Name: "label", Type: S},
	}}
)

// fn describes a function of the test program; show functions return
// their arguments as a JSON array (a Str), so tests see exactly what a pool
// received.
type fn struct {
	name string
	pool string
	args []*types.Type
	ret  *types.Type
}

var functions = []fn{
	{"add", manifest.Python, []*types.Type{I, I}, I},
	{"fail", manifest.Python, []*types.Type{I}, I},
	{"count", manifest.Cpp, []*types.Type{types.ListOf(I)}, I},
	{"ident", manifest.Python, []*types.Type{S}, S},
	{"lines", manifest.Go, []*types.Type{types.ListOf(I)}, S},
	{"nothing", manifest.Python, []*types.Type{I}, types.UnitType},
	{"identOpt", manifest.Python, []*types.Type{types.OptionalOf(I)}, types.OptionalOf(I)},
	{"idList", manifest.Python, []*types.Type{types.ListOf(I)}, types.ListOf(I)},
	{"idPoint", manifest.Python, []*types.Type{point}, point},
}

// fnID returns the id of function name, adding a show function of the
// given argument types when name is "show".
func fnID(m *manifest.Manifest, name string, args ...*types.Type) int {
	if name == "show" {
		id := len(m.Functions)
		m.Functions = append(m.Functions, manifest.Function{ID: id, Name: "show", Source: "show", Pool: manifest.Python, Args: args, Return: S})
		return id
	}
	for _, f := range m.Functions {
		if f.Name == name {
			return f.ID
		}
	}
	panic("no function " + name)
}

func lit(t *types.Type, js string) *manifest.Expr {
	return &manifest.Expr{Kind: manifest.Lit, Type: t, Value: json.RawMessage(js)}
}

// callArgs is a body calling function id with the command's arguments.
func callArgs(m *manifest.Manifest, id int) *manifest.Expr {
	f := m.Functions[id]
	e := &manifest.Expr{Kind: manifest.Call, Type: f.Return, Ref: id}
	for i, t := range f.Args {
		e.Args = append(e.Args, &manifest.Expr{Kind: manifest.Var, Type: t, Ref: i})
	}
	return e
}

// cmd adds a command whose body calls fname with all its arguments.
func cmd(m *manifest.Manifest, name string, doc []string, fname string, args ...manifest.Arg) *manifest.Command {
	ts := make([]*types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type
	}
	id := fnID(m, fname, ts...)
	m.Commands = append(m.Commands, manifest.Command{
		Name: name, Doc: doc, Args: args, Return: m.Functions[id].Return, Body: callArgs(m, id),
	})
	return &m.Commands[len(m.Commands)-1]
}

func pos(name string, t *types.Type) manifest.Arg {
	return manifest.Arg{Kind: manifest.Positional, Name: name, Type: t}
}

func opt(short, long string, t *types.Type, def string) manifest.Arg {
	a := manifest.Arg{Kind: manifest.Option, Short: short, Long: long, Name: long, Type: t}
	if def != "" {
		a.Default = json.RawMessage(def)
	}
	return a
}

// testProgram is the manifest of the tests, checked by manifest.Validate.
func testProgram() *manifest.Manifest {
	m := &manifest.Manifest{
		Nexus: manifest.NexusVersion,
		Name:  "demo",
		Doc:   []string{"A program that uses every argument kind.", "Its description has two lines."},
		Pools: []manifest.Pool{
			{Lang: manifest.Python, Command: []string{"python3"}},
			{Lang: manifest.Cpp, Command: []string{"pool"}},
			{Lang: manifest.Go, Command: []string{"pool"}},
		},
	}
	for i, f := range functions {
		m.Functions = append(m.Functions, manifest.Function{ID: i, Name: f.name, Source: f.name, Pool: f.pool, Args: f.args, Return: f.ret})
	}

	c := cmd(m, "add", []string{"Add two numbers", "More about adding."}, "add", pos("", I), pos("", I))
	c.ReturnDoc = "the sum"

	c = cmd(m, "hello-there", []string{"Echo a word"}, "ident", pos("word", S))
	c.Args[0].Doc = []string{"The word to echo"}
	c.ReturnDoc = "the word, echoed"

	cmd(m, "opts", []string{"Options in every spelling."}, "show",
		opt("l", "label", S, `"none"`), opt("", "count", I, "3"))

	c = cmd(m, "scale", []string{"Scale numbers"}, "show", opt("f", "factor", R, ""), pos("xs", types.ListOf(R)))
	c.Args[0].Doc = []string{"The factor"}
	c.Args[1].Many = true

	c = cmd(m, "flags", []string{"Flags and their negations."}, "show",
		pos("who", S), opt("n", "", I, "1"),
		manifest.Arg{Kind: manifest.Flag, Type: B, Short: "s", Long: "shout", FalseLong: "whisper", Name: "shout", Default: json.RawMessage("false"), Doc: []string{"Shout it"}},
		manifest.Arg{Kind: manifest.Flag, Type: B, Short: "q", Long: "quick", Name: "quick"})

	c = cmd(m, "variadic", []string{"A variadic positional."}, "count", pos("", types.ListOf(I)))
	c.Args[0].Many = true

	c = cmd(m, "manyopt", []string{"A repeated option."}, "count", opt("x", "add", types.ListOf(I), ""))
	c.Args[0].Many = true

	c = cmd(m, "fromstdin", []string{"Reads standard input when the argument is omitted."}, "ident", pos("text", S))
	c.Args[0].Stdin = true

	c = cmd(m, "stdinlist", []string{"Counts a list from standard input."}, "count", pos("", types.ListOf(I)))
	c.Args[0].Stdin = true

	cmd(m, "unrolled", []string{"An unrolled record."}, "show", manifest.Arg{
		Kind: manifest.Group, Type: settings, Short: "c", Long: "config", Name: "settings",
		Fields: []manifest.Arg{
			{Kind: manifest.Option, Type: S, Short: "t", Long: "tmp-dir", Name: "tmp_dir", Field: "tmp_dir"},
			{Kind: manifest.Option, Type: I, Long: "threads", Name: "threads", Field: "threads"},
			{Kind: manifest.Flag, Type: B, Short: "v", Long: "verbose", FalseLong: "quiet", Name: "verbose", Field: "verbose"},
			{Kind: manifest.Option, Type: types.OptionalOf(S), Long: "label", Name: "label", Field: "label"},
		},
	})

	c = cmd(m, "actions", []string{"Output actions."}, "idList", pos("", types.ListOf(I)))
	c.Args[0].Many = true
	lines := fnID(m, "lines")
	linesOfResult := &manifest.Expr{Kind: manifest.Call, Type: S, Ref: lines, Args: []*manifest.Expr{
		{Kind: manifest.Var, Type: types.ListOf(I), Ref: 0}}}
	c.Actions = []manifest.Action{
		{Kind: "with", Short: "l", Long: "lines", Body: linesOfResult, Return: S},
		{Kind: "render", Short: "r", Long: "raw", Body: linesOfResult, Return: S},
	}

	cmd(m, "optional", []string{"An optional option."}, "identOpt", opt("", "maybe", types.OptionalOf(I), ""))
	cmd(m, "optpos", []string{"An optional positional."}, "show", pos("x", I), pos("y", types.OptionalOf(I)))

	c = cmd(m, "metav", []string{"Metavar shown in help."}, "ident", pos("", S))
	c.Args[0].Metavar = "SEQ"

	cmd(m, "echo", []string{"Echo a string."}, "ident", pos("text", S))
	cmd(m, "unit", []string{"Takes ()."}, "show", pos("", types.UnitType))
	cmd(m, "ints", []string{"A list argument."}, "idList", pos("", types.ListOf(I)))
	cmd(m, "point", []string{"A record argument."}, "idPoint", pos("p", point))
	cmd(m, "fail", []string{"Always fails in the pool."}, "fail", pos("", I))
	cmd(m, "nothing", []string{"Returns ()."}, "nothing", pos("", I))

	m.Commands = append(m.Commands,
		manifest.Command{Name: "thrown", Doc: []string{"Always throws"}, Args: []manifest.Arg{pos("", I)}, Return: I,
			Body: &manifest.Expr{Kind: manifest.Throw, Type: I, Message: "this command always fails"}},
		manifest.Command{Name: "pure", Doc: []string{"Computed without any pool"}, Args: []manifest.Arg{pos("", I)}, Return: types.ListOf(I),
			Body: &manifest.Expr{Kind: manifest.MakeList, Type: types.ListOf(I), Args: []*manifest.Expr{
				{Kind: manifest.Var, Type: I, Ref: 0}, lit(I, "1"), lit(I, "2")}}},
		manifest.Command{Name: "answer", Return: I, Body: lit(I, "42")},
		manifest.Command{Name: "anyjson", Doc: []string{"Any JSON, twice"},
			Args:   []manifest.Arg{pos("data", J), opt("", "extra", types.OptionalOf(J), "")},
			Return: types.TupleOf(J, types.OptionalOf(J)),
			Body: &manifest.Expr{Kind: manifest.MakeTuple, Type: types.TupleOf(J, types.OptionalOf(J)), Args: []*manifest.Expr{
				{Kind: manifest.Var, Type: J, Ref: 0}, {Kind: manifest.Var, Type: types.OptionalOf(J), Ref: 1}}}},
	)
	if err := m.Validate(); err != nil {
		panic(err)
	}
	return m
}

// singleProgram has one command, callable without its name.
func singleProgram() *manifest.Manifest {
	m := &manifest.Manifest{
		Nexus: manifest.NexusVersion,
		Name:  "adder",
		Doc:   []string{"Adds numbers."},
		Pools: []manifest.Pool{{Lang: manifest.Python, Command: []string{"python3"}}},
	}
	m.Functions = []manifest.Function{{ID: 0, Name: "add", Source: "add", Pool: manifest.Python, Args: []*types.Type{I, I}, Return: I}}
	cmd(m, "add", []string{"Add two numbers"}, "add", pos("a", I), opt("b", "by", I, "1"))
	if err := m.Validate(); err != nil {
		panic(err)
	}
	return m
}

// fakePools implements the functions of the test program in Go, decoding
// and encoding msgpack as a real pool does.
type fakePools struct {
	mu    sync.Mutex
	calls []string
}

func (p *fakePools) Call(ctx context.Context, f *manifest.Function, in []byte) ([]byte, error) {
	p.mu.Lock()
	p.calls = append(p.calls, f.Name)
	p.mu.Unlock()
	args, err := types.DecodeArgs(f.Args, in)
	if err != nil {
		return nil, err
	}
	var out any
	switch f.Name {
	case "add":
		out = args[0].(int64) + args[1].(int64)
	case "fail":
		msg := fmt.Sprintf("fail: Traceback (most recent call last):\n  File \"work.py\", line 3, in fail\nValueError: bad value: %d", args[0])
		if args[0].(int64) < 0 {
			msg += "\x1b[2J\a\u009b\tend" // what a hostile message may hold
		}
		return nil, errors.New(msg)
	case "show":
		var parts []string
		for i, t := range f.Args {
			js, err := types.ToJSON(t, args[i])
			if err != nil {
				return nil, err
			}
			parts = append(parts, string(js))
		}
		out = "[" + strings.Join(parts, ",") + "]"
	case "count":
		n, _ := types.Len(args[0])
		out = int64(n)
	case "ident", "identOpt", "idList", "idPoint":
		out = args[0]
	case "lines":
		var ls []string
		xs, _ := types.Items(args[0])
		for _, x := range xs {
			ls = append(ls, fmt.Sprint(x))
		}
		out = strings.Join(ls, "\n")
	case "nothing":
		out = nil
	default:
		return nil, errors.New("no function " + f.Name)
	}
	var buf bytes.Buffer
	if err := types.EncodeMsgpack(msgpack.NewEncoder(&buf), f.Return, out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// run is one run of a command line.
type run struct {
	code           int
	stdout, stderr string
	poolsStarted   int      // how many times NewPools was called
	calls          []string // the functions called
}

func runCLI(m *manifest.Manifest, stdin string, argv ...string) run {
	var out, errb bytes.Buffer
	pools := &fakePools{}
	res := run{}
	r := &Runner{
		M:    m,
		Prog: m.Name,
		NewPools: func() (dispatch.Caller, error) {
			res.poolsStarted++
			return pools, nil
		},
		Stdin:  strings.NewReader(stdin),
		Stdout: &out,
		Stderr: &errb,
	}
	res.code = r.Run(context.Background(), argv)
	res.stdout, res.stderr, res.calls = out.String(), errb.String(), pools.calls
	return res
}

// Shorter names for the tables of tests.
var (
	demo   = testProgram
	single = singleProgram
)
