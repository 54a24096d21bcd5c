package pool_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/pooltest"

	"github.com/nexus-run/nexus/internal/codegen/python"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// TestMain doubles as a stand-in nexus for TestPoolDiesWithNexus, and as
// a pool that misbehaves on its call stream (stream_test.go).
func TestMain(m *testing.M) {
	if dir := os.Getenv(fakeNexusEnv); dir != "" {
		os.Exit(fakeNexus(dir))
	}
	if mode := os.Getenv(fakePoolEnv); mode != "" {
		os.Exit(fakePool(mode))
	}
	os.Exit(m.Run())
}

const fakeNexusEnv = "NEXUS_POOL_TEST_FAKE_NEXUS"

// fakeNexus starts the pool of the program built in dir by calling its
// first function, which returns the pool's pid, prints that pid, and waits
// to be killed.
func fakeNexus(dir string) int {
	m, err := manifest.Load(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s := pool.New(m, pool.Options{TempDir: os.Getenv("TMPDIR")})
	f := &m.Functions[0]
	args, _ := types.EncodeArgs(f.Args, []any{int64(0)})
	res, err := s.Call(context.Background(), f, args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	pid, _ := types.DecodeMsgpackBytes(f.Return, res)
	fmt.Println(pid)
	select {}
}

// fn declares one Python function of a test program.
type fn = pooltest.Fn

// program writes module (Python source) and a build folder serving fns from
// it, and returns the manifest.
func program(t *testing.T, module string, fns ...fn) *manifest.Manifest {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(root, "src", "mod.py")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(module), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := pooltest.Program(root, manifest.Python, src, python.Write, fns)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRoundTripTypes(t *testing.T) {
	point := &types.Type{Kind: types.Record, Name: "Point", Fields: []types.Field{
		{Name: "x", Type: types.RealType}, {Name: "label", Type: types.OptionalOf(types.StrType)},
	}}
	pair := types.TupleOf(types.IntType, types.StrType)
	cases := []struct {
		name string
		typ  *types.Type
		in   any
	}{
		{"int", types.IntType, int64(-42)},
		{"big int", types.IntType, int64(1) << 62},
		{"real", types.RealType, 2.5},
		{"str", types.StrType, "héllo\nworld"},
		{"bool", types.BoolType, true},
		{"unit", types.UnitType, nil},
		{"list", types.ListOf(types.IntType), []int64{1, 2, 3}},
		{"empty list", types.ListOf(types.StrType), []string{}},
		{"optional set", types.OptionalOf(types.IntType), int64(7)},
		{"optional unset", types.OptionalOf(types.IntType), nil},
		{"map", types.MapOf(types.StrType, types.IntType), []types.Pair{{Key: "a", Value: int64(1)}, {Key: "b", Value: int64(2)}}},
		{"int keys", types.MapOf(types.IntType, types.StrType), []types.Pair{{Key: int64(3), Value: "three"}}},
		{"tuple keys", types.MapOf(pair, types.RealType), []types.Pair{{Key: []any{int64(1), "a"}, Value: 0.5}}},
		{"tuple", pair, []any{int64(1), "one"}},
		{"record", point, map[string]any{"x": 1.5, "label": "p"}},
		{"list of records", types.ListOf(point), []any{map[string]any{"x": 1.0, "label": nil}}},
		{"nested", types.ListOf(types.OptionalOf(types.ListOf(types.RealType))), []any{nil, []float64{1.0, 2.0}}},
	}
	var fns []fn
	for _, c := range cases {
		fns = append(fns, fn{Source: "same", Args: []*types.Type{c.typ}, Return: c.typ})
	}
	m := program(t, "def same(x):\n    return x\n", fns...)
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := pooltest.Call(t, s, m, i, c.in)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", c.in) {
				t.Errorf("got %#v, want %#v", got, c.in)
			}
		})
	}
}

func TestException(t *testing.T) {
	m := program(t, `
def divide(a, b):
    return helper(a, b)

def helper(a, b):
    return a // b
`, fn{Source: "divide", Args: []*types.Type{types.IntType, types.IntType}, Return: types.IntType})
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	_, err := pooltest.Call(t, s, m, 0, int64(1), int64(0))
	var fe *pool.FunctionError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a FunctionError", err)
	}
	for _, want := range []string{"ZeroDivisionError", "Traceback (most recent call last)", "in helper", "mod.py"} {
		if !strings.Contains(fe.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, fe.Message)
		}
	}
	if fe.Pool != "python" || fe.Function != "divide" {
		t.Errorf("got pool %q function %q", fe.Pool, fe.Function)
	}
	// The pool survives.
	if got, err := pooltest.Call(t, s, m, 0, int64(7), int64(2)); err != nil || got != int64(3) {
		t.Errorf("after the exception: got %v, %v", got, err)
	}
}

func TestPrintGoesToStderr(t *testing.T) {
	m := program(t, `
import os, sys
print("printed at import")

def shout(x):
    print("printed by shout", x)
    os.write(1, b"written to fd 1\n")
    sys.stdout.flush()
    return x
`, fn{Source: "shout", Args: []*types.Type{types.StrType}, Return: types.StrType})
	s, stderr := pooltest.Supervise(t, m, pool.Options{})
	got, err := pooltest.Call(t, s, m, 0, "hey")
	if err != nil || got != "hey" {
		t.Fatalf("got %v, %v", got, err)
	}
	// Lines reach the writer as the pool prints them, a moment after.
	deadline := time.Now().Add(5 * time.Second)
	for {
		out := stderr.String()
		if strings.Contains(out, "printed at import\n") && strings.Contains(out, "printed by shout hey\n") && strings.Contains(out, "written to fd 1\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stderr lacks the prints:\n%s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPoolDiesAndRestarts(t *testing.T) {
	m := program(t, `
import os, signal

def die(how):
    if how == "exit":
        os._exit(3)
    os.kill(os.getpid(), signal.SIGKILL)

def pid(x):
    return os.getpid()
`,
		fn{Source: "die", Args: []*types.Type{types.StrType}, Return: types.IntType},
		fn{Source: "pid", Args: []*types.Type{types.IntType}, Return: types.IntType})
	var ev events
	s, _ := pooltest.Supervise(t, m, pool.Options{Events: ev.add})
	for _, c := range []struct{ how, want string }{
		{"exit", "python pool died while running die (exit status 3)"},
		{"kill", "python pool died while running die (killed by signal SIGKILL)"},
	} {
		before, err := pooltest.Call(t, s, m, 1, int64(0))
		if err != nil {
			t.Fatal(err)
		}
		_, err = pooltest.Call(t, s, m, 0, c.how)
		var died *pool.DiedError
		if !errors.As(err, &died) || err.Error() != c.want {
			t.Fatalf("got %v, want %q", err, c.want)
		}
		after, err := pooltest.Call(t, s, m, 1, int64(0))
		if err != nil {
			t.Fatalf("call after the death: %v", err)
		}
		if after == before {
			t.Errorf("the pool was not restarted: pid %v both times", after)
		}
	}
	// Three starts, the last two restarts; two deaths; six calls, two
	// failed.
	want := "start:3 restart:2 death:2 call:6 call_error:2 replacement:0 start_failure:0"
	if got := ev.count(); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

// events records the events of a Supervisor (Options.Events).
type events struct {
	mu  sync.Mutex
	all []pool.Event
}

func (e *events) add(ev pool.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

// count counts the events by kind, failed calls and restarts apart, and
// checks that each names the program and the language.
func (e *events) count() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := map[string]int{}
	for _, ev := range e.all {
		if ev.Program == "" || ev.Lang != manifest.Python {
			return fmt.Sprintf("an event of program %q, language %q", ev.Program, ev.Lang)
		}
		n[string(ev.Kind)]++
		if ev.Restart {
			n["restart"]++
		}
		if ev.Kind == pool.Called && ev.Err != nil {
			n["call_error"]++
		}
	}
	return fmt.Sprintf("start:%d restart:%d death:%d call:%d call_error:%d replacement:%d start_failure:%d",
		n["start"], n["restart"], n["death"], n["call"], n["call_error"], n["replacement"], n["start_failure"])
}

func TestRestartLoopGuard(t *testing.T) {
	m := program(t, "import os\n\ndef die(x):\n    os._exit(1)\n",
		fn{Source: "die", Args: []*types.Type{types.IntType}, Return: types.IntType})
	s, _ := pooltest.Supervise(t, m, pool.Options{MaxDeaths: 3, DeathWindow: time.Minute})
	for i := 0; i < 3; i++ {
		var died *pool.DiedError
		if _, err := pooltest.Call(t, s, m, 0, int64(i)); !errors.As(err, &died) {
			t.Fatalf("call %d: got %v, want a DiedError", i, err)
		}
	}
	_, err := pooltest.Call(t, s, m, 0, int64(3))
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "not starting it again") || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("got %v, want the restart loop guard", err)
	}
}

func TestStartErrors(t *testing.T) {
	cases := []struct {
		name, module string
		want         []string
	}{
		{"import error", "import no_such_module_anywhere\n\ndef f(x):\n    return x\n",
			[]string{"start python pool", "exit status 1", "ModuleNotFoundError", "no_such_module_anywhere"}},
		{"syntax error", "def f(x):\n    return x +\n",
			[]string{"start python pool", "SyntaxError", "mod.py"}},
		{"missing function", "def g(x):\n    return x\n",
			[]string{"start python pool", "has no function f"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := program(t, c.module, fn{Source: "f", Args: []*types.Type{types.IntType}, Return: types.IntType})
			s, stderr := pooltest.Supervise(t, m, pool.Options{})
			_, err := pooltest.Call(t, s, m, 0, int64(1))
			if err == nil {
				t.Fatal("the call succeeded")
			}
			t.Log(err)
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
			// What the pool printed is in the error, not printed twice.
			if out := stderr.String(); out != "" {
				t.Errorf("stderr got %q", out)
			}
		})
	}
}

func TestMissingInterpreter(t *testing.T) {
	m := program(t, "def f(x):\n    return x\n", fn{Source: "f", Args: []*types.Type{types.IntType}, Return: types.IntType})
	m.Pools[0].Command[0] = "no-such-python-anywhere"
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	_, err := pooltest.Call(t, s, m, 0, int64(1))
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "no-such-python-anywhere") || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("got %v", err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	m := program(t, "import time\n\ndef slow_square(x):\n    time.sleep(0.05)\n    return x * x\n",
		fn{Source: "slow_square", Args: []*types.Type{types.IntType}, Return: types.IntType})
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := pooltest.Call(t, s, m, 0, int64(i))
			if err == nil && got != int64(i*i) {
				err = fmt.Errorf("slow_square(%d) = %v", i, got)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestLargeList(t *testing.T) {
	m := program(t, "def double(xs):\n    return [2 * x for x in xs]\n",
		fn{Source: "double", Args: []*types.Type{types.ListOf(types.RealType)}, Return: types.ListOf(types.RealType)})
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	const n = 1_000_000
	in := make([]float64, n)
	for i := range in {
		in[i] = float64(i) + 0.5
	}
	got, err := pooltest.Call(t, s, m, 0, in)
	if err != nil {
		t.Fatal(err)
	}
	xs, ok := got.([]float64)
	if !ok || len(xs) != n || xs[0] != 1.0 || xs[n-1] != 2*(float64(n-1)+0.5) {
		t.Errorf("got %T of %d items, want the %d items doubled", got, len(xs), n)
	}
}

func TestContextCancel(t *testing.T) {
	m := program(t, "import time\n\ndef sleep(x):\n    time.sleep(x)\n    return x\n",
		fn{Source: "sleep", Args: []*types.Type{types.RealType}, Return: types.RealType})
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	if err := s.Start(context.Background(), manifest.Python); err != nil {
		t.Fatal(err)
	}
	f := &m.Functions[0]
	args, _ := types.EncodeArgs(f.Args, []any{30.0})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Call(ctx, f, args)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the cancelled call took %s", d)
	}
	// Close does not wait for the function still sleeping in the pool.
	start = time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %s", d)
	}
}

// A call whose caller has already left never starts, even when a slot is
// free (a select with both cases ready would pick either).
func TestCancelledCallNeverStarts(t *testing.T) {
	// Each run leaves a line in a file: a pool replaced for its abandoned
	// calls (abandon.go) would lose a count kept in memory.
	m := program(t, "def bump(path):\n    with open(path, 'a') as f:\n        f.write('ran\\n')\n    return 0\n",
		fn{Source: "bump", Args: []*types.Type{types.StrType}, Return: types.IntType})
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	if err := s.Start(context.Background(), manifest.Python); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(t.TempDir(), "ran")
	args, _ := types.EncodeArgs(m.Functions[0].Args, []any{ran})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := 0; i < 200; i++ {
		if _, err := s.Call(ctx, &m.Functions[0], args); !errors.Is(err, context.Canceled) {
			t.Fatalf("call %d with a cancelled context: %v, want context.Canceled", i, err)
		}
	}
	// One live call, answered only once the cancelled ones would have run.
	if _, err := pooltest.Call(t, s, m, 0, ran); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(ran)
	if n := strings.Count(string(data), "ran\n"); n != 1 {
		t.Errorf("%d of 200 cancelled calls ran", n-1)
	}
}

// TestConcurrentClose: every Close, not only the first, returns once the
// pools are stopped and the socket folder is gone. A second signal closes
// while the first's Close runs and exits as soon as its own returns; it
// returned at once, so the process could exit with the folder left
// (TestRunSecondSignal failed so once under make test).
func TestConcurrentClose(t *testing.T) {
	m := program(t, "def ident(x):\n    return x\n", fn{Source: "ident", Args: []*types.Type{types.IntType}, Return: types.IntType})
	for round := 0; round < 5; round++ {
		tmp := socketTemp(t)
		s := pool.New(m, pool.Options{Stderr: &pooltest.Buffer{}, TempDir: tmp})
		if _, err := pooltest.Call(t, s, m, 0, int64(1)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		left := make(chan []string, 4)
		for i := 0; i < 4; i++ {
			wg.Go(func() {
				s.Close()
				dirs, _ := filepath.Glob(filepath.Join(tmp, "nexus-*"))
				left <- dirs
			})
		}
		wg.Wait()
		close(left)
		for dirs := range left {
			if len(dirs) > 0 {
				t.Fatalf("round %d: a Close returned with %v left", round, dirs)
			}
		}
	}
}

func TestCloseLeavesNothing(t *testing.T) {
	m := program(t, `
import subprocess

def spawn(x):
    # A child of the pool, which must not outlive it either.
    subprocess.Popen(["sleep", "60"])
    return x
`, fn{Source: "spawn", Args: []*types.Type{types.IntType}, Return: types.IntType})
	tmp := socketTemp(t)
	s := pool.New(m, pool.Options{Stderr: &pooltest.Buffer{}, TempDir: tmp})
	if _, err := pooltest.Call(t, s, m, 0, int64(1)); err != nil {
		t.Fatal(err)
	}
	if len(pooltest.Children()) == 0 {
		t.Fatal("no pool process while running")
	}
	// The socket lives in a private folder inside TempDir.
	sockets, _ := filepath.Glob(filepath.Join(tmp, "nexus-*", "*", "pool.sock"))
	if len(sockets) != 1 {
		t.Errorf("sockets in the temp folder: %v", sockets)
	}
	private, _ := filepath.Glob(filepath.Join(tmp, "nexus-*"))
	for _, dir := range private {
		st, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o700 {
			t.Errorf("socket folder %s has mode %v, want 0700", dir, st.Mode().Perm())
		}
	}
	groups := poolGroups()
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %s", d)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	assertNoLeftovers(t, tmp)
	for _, g := range groups {
		if left := inGroup(g); len(left) > 0 {
			t.Errorf("processes left in the pool's process group %d: %v", g, left)
		}
	}
	if _, err := pooltest.Call(t, s, m, 0, int64(1)); !errors.Is(err, pool.ErrClosed) {
		t.Errorf("call after Close: got %v", err)
	}
}

// poolGroups returns the process groups of this process's children.
func poolGroups() []int {
	var groups []int
	for _, k := range pooltest.Children() {
		pid, _, _ := strings.Cut(k, " ")
		if g := statField(pid, 2); g > 0 {
			groups = append(groups, g)
		}
	}
	return groups
}

// inGroup lists the live processes in process group g.
func inGroup(g int) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, d := range dirs {
		pid := filepath.Base(d)
		if statField(pid, 2) == g && statState(pid) != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

// statField returns field i (0 = state) after the command in /proc/pid/stat.
func statField(pid string, i int) int {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return -1
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	n, _ := strconv.Atoi(fields[i])
	return n
}

func statState(pid string) string {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return "?"
	}
	s := string(data)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+2:])[0]
}

func TestQuietPool(t *testing.T) {
	m := program(t, "def f(x):\n    return x\n", fn{Source: "f", Args: []*types.Type{types.IntType}, Return: types.IntType})
	stderr := &pooltest.Buffer{}
	tmp := socketTemp(t)
	s := pool.New(m, pool.Options{Stderr: stderr, TempDir: tmp})
	for i := 0; i < 3; i++ {
		if _, err := pooltest.Call(t, s, m, 0, int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if out := stderr.String(); out != "" {
		t.Errorf("a pool that prints nothing wrote to stderr:\n%s", out)
	}
	assertNoLeftovers(t, tmp)
}

func TestRecordClasses(t *testing.T) {
	settings := &types.Type{Kind: types.Record, Name: "Settings", Langs: map[string]string{manifest.Python: "Settings"},
		Fields: []types.Field{{Name: "name", Type: types.StrType}, {Name: "size", Type: types.IntType}}}
	plain := &types.Type{Kind: types.Record, Name: "Box", Langs: map[string]string{manifest.Python: "Box"},
		Fields: []types.Field{{Name: "inner", Type: settings}, {Name: "tags", Type: types.ListOf(types.StrType)}}}
	asDict := &types.Type{Kind: types.Record, Name: "Row", Langs: map[string]string{manifest.Python: "dict"},
		Fields: []types.Field{{Name: "id", Type: types.IntType}}}
	nested := types.TupleOf(types.OptionalOf(settings), types.MapOf(types.StrType, types.ListOf(settings)))
	m := program(t, `
from dataclasses import dataclass

@dataclass
class Settings:
    name: str
    size: int = 0

class Box:
    def __init__(self, inner, tags):
        self.inner = inner
        self.tags = tags
        self.extra = "not a field"

def grow(s):
    assert isinstance(s, Settings), type(s)
    return Settings(s.name + "!", s.size + 1)

def unbox(b):
    assert isinstance(b, Box) and isinstance(b.inner, Settings), (type(b), type(b.inner))
    return Box(grow(b.inner), b.tags + ["seen"])

def row(r):
    assert type(r) is dict
    return {"id": r["id"] + 1}

def walk(t):
    opt, table = t
    assert isinstance(t, tuple)
    assert opt is None or isinstance(opt, Settings)
    assert all(isinstance(s, Settings) for ss in table.values() for s in ss)
    return (grow(opt) if opt else None, {k: [grow(s) for s in ss] for k, ss in table.items()})
`,
		fn{Source: "grow", Args: []*types.Type{settings}, Return: settings},
		fn{Source: "unbox", Args: []*types.Type{plain}, Return: plain},
		fn{Source: "row", Args: []*types.Type{asDict}, Return: asDict},
		fn{Source: "walk", Args: []*types.Type{nested}, Return: nested},
	)
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	cases := []struct {
		id       int
		in, want any
	}{
		{0, map[string]any{"name": "a", "size": int64(1)}, map[string]any{"name": "a!", "size": int64(2)}},
		{1, map[string]any{"inner": map[string]any{"name": "b", "size": int64(0)}, "tags": []any{"x"}},
			map[string]any{"inner": map[string]any{"name": "b!", "size": int64(1)}, "tags": []any{"x", "seen"}}},
		{2, map[string]any{"id": int64(41)}, map[string]any{"id": int64(42)}},
		{3, []any{nil, []types.Pair{{Key: "k", Value: []any{map[string]any{"name": "c", "size": int64(5)}}}}},
			[]any{nil, []types.Pair{{Key: "k", Value: []any{map[string]any{"name": "c!", "size": int64(6)}}}}}},
		{3, []any{map[string]any{"name": "d", "size": int64(0)}, []types.Pair{}},
			[]any{map[string]any{"name": "d!", "size": int64(1)}, []types.Pair{}}},
	}
	for _, c := range cases {
		got, err := pooltest.Call(t, s, m, c.id, c.in)
		if err != nil {
			t.Fatalf("%s: %v", m.Functions[c.id].Name, err)
		}
		if fmt.Sprintf("%v", got) != fmt.Sprintf("%v", c.want) {
			t.Errorf("%s: got %v, want %v", m.Functions[c.id].Name, got, c.want)
		}
	}
}

func TestWorkingFolderAndLocalImports(t *testing.T) {
	m := program(t, "import os\n\ndef cwd(x):\n    return os.getcwd()\n", fn{Source: "cwd", Args: []*types.Type{types.IntType}, Return: types.StrType})
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	got, err := pooltest.Call(t, s, m, 0, int64(0))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.Getwd()
	if got != want {
		t.Errorf("the pool runs in %v, want the nexus's folder %s", got, want)
	}
}

func TestCloseDuringStart(t *testing.T) {
	m := program(t, "import time\ntime.sleep(30)\n\ndef f(x):\n    return x\n", fn{Source: "f", Args: []*types.Type{types.IntType}, Return: types.IntType})
	tmp := socketTemp(t)
	s := pool.New(m, pool.Options{Stderr: &pooltest.Buffer{}, TempDir: tmp})
	errc := make(chan error, 1)
	go func() {
		_, err := pooltest.Call(t, s, m, 0, int64(1))
		errc <- err
	}()
	// Wait until the pool process runs.
	for deadline := time.Now().Add(10 * time.Second); len(pooltest.Children()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the pool did not start")
		}
	}
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %s", d)
	}
	if err := <-errc; !errors.Is(err, pool.ErrClosed) {
		t.Errorf("the call got %v, want ErrClosed", err)
	}
	assertNoLeftovers(t, tmp)
}

func TestPoolDiesWithNexus(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux kills a pool when its nexus dies (see package osproc)")
	}
	m := program(t, "import os\n\ndef pid(x):\n    return os.getpid()\n", fn{Source: "pid", Args: []*types.Type{types.IntType}, Return: types.IntType})
	if err := m.Write(m.Dir); err != nil {
		t.Fatal(err)
	}
	nexus := exec.Command(os.Args[0])
	nexus.Env = append(os.Environ(), fakeNexusEnv+"="+m.Dir, "TMPDIR="+socketTemp(t))
	nexus.Stderr = os.Stderr
	out, err := nexus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := nexus.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		nexus.Process.Kill()
		nexus.Wait()
		t.Fatalf("the stand-in nexus printed no pid: %v", err)
	}
	pid := strings.TrimSpace(line)
	if statState(pid) == "?" {
		t.Fatalf("no pool process %s", pid)
	}
	nexus.Process.Signal(syscall.SIGKILL)
	nexus.Wait()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if st := statState(pid); st == "?" || st == "Z" {
			break
		}
		if time.Now().After(deadline) {
			if n, err := strconv.Atoi(pid); err == nil {
				if p, err := os.FindProcess(n); err == nil {
					p.Kill()
				}
			}
			t.Fatalf("pool %s still runs after its nexus was killed", pid)
		}
	}
}

// TestAbandonedCallsReplacePool: calls abandoned by their callers go on
// sleeping in the pool, a thread each. The supervisor counts them against
// MaxCalls and, once they are more than half of it, replaces the pool:
// every call still reaches a pool, a fresh one answers afterwards, the
// call still awaited in the old pool ends well, and the old pool with its
// threads is gone.
func TestAbandonedCallsReplacePool(t *testing.T) {
	m := program(t, `import os, sys, time

def nap(tag, seconds):
    print("nap started", tag, file=sys.stderr, flush=True)
    time.sleep(seconds)
    return tag

def pid(x):
    return os.getpid()
`, pooltest.NapFn, pooltest.PidFn)
	var ev events
	s, stderr := pooltest.Supervise(t, m, pool.Options{MaxCalls: 8, Events: ev.add})
	pooltest.AbandonUntilReplaced(t, s, m, stderr, 8, 20, 2)
	// Replacements, which are not deaths, each followed by a restart.
	if got := ev.count(); strings.Contains(got, "replacement:0 ") || !strings.Contains(got, "death:0 ") {
		t.Errorf("events %s, want replacements and no death", got)
	}
}

func TestHealthCheck(t *testing.T) {
	m := program(t, "def f(x):\n    return x\n", fn{Source: "f", Args: []*types.Type{types.IntType}, Return: types.IntType})
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	if err := pool.Ping(context.Background(), s, manifest.Python); err != nil {
		t.Fatalf("health check: %v", err)
	}
}

func TestUnknownFunction(t *testing.T) {
	m := program(t, "def f(x):\n    return x\n", fn{Source: "f", Args: []*types.Type{types.IntType}, Return: types.IntType})
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	other := m.Functions[0]
	other.ID, other.Name = 99, "ghost"
	args, _ := types.EncodeArgs(other.Args, []any{int64(1)})
	_, err := s.Call(context.Background(), &other, args)
	if err == nil || !strings.Contains(err.Error(), "no function with id 99") {
		t.Fatalf("got %v", err)
	}
}

func TestUnknownPool(t *testing.T) {
	m := program(t, "def f(x):\n    return x\n", fn{Source: "f", Args: []*types.Type{types.IntType}, Return: types.IntType})
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	err := s.Start(context.Background(), manifest.Python, manifest.Cpp)
	if err == nil || !strings.Contains(err.Error(), "no c++ pool") {
		t.Fatalf("got %v", err)
	}
}

func TestModulesWithTheSameName(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"a/util.py":   "from helper import greeting\n\ndef hello(x):\n    return greeting + ' from a'\n",
		"a/helper.py": "greeting = 'hello'\n",
		"b/util.py":   "def hello(x):\n    return 'hi from b'\n",
	}
	for name, text := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := filepath.Join(root, "prog-build")
	m := &manifest.Manifest{Nexus: manifest.NexusVersion, Name: "prog", Dir: build}
	for i, name := range []string{"hello_a", "hello_b"} {
		m.Functions = append(m.Functions, manifest.Function{ID: i, Name: name, Source: "hello", Pool: manifest.Python,
			Args: []*types.Type{types.IntType}, Return: types.StrType})
	}
	cmd, err := python.Write(filepath.Join(build, "pools", "py"), build, []python.Function{
		{Spec: &m.Functions[0], File: filepath.Join(root, "a", "util.py")},
		{Spec: &m.Functions[1], File: filepath.Join(root, "b", "util.py")},
	})
	if err != nil {
		t.Fatal(err)
	}
	m.Pools = []manifest.Pool{{Lang: manifest.Python, Command: cmd}}
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	for i, want := range []string{"hello from a", "hi from b"} {
		got, err := pooltest.Call(t, s, m, i, int64(0))
		if err != nil || got != want {
			t.Errorf("%s: got %v, %v; want %q", m.Functions[i].Name, got, err, want)
		}
	}
}

// TestStaleSocketFoldersSwept: a nexus killed by SIGKILL leaves its
// socket folder; the next supervisor to start a pool in the same temporary
// folder removes it (beside the start, by its Close at the latest), and
// nothing else: not the folder of a live nexus, nor
// one it cannot judge (no owner file, as an older nexus made them, or one
// that is a symbolic link), nor a symbolic link (or what it points to).
func TestStaleSocketFoldersSwept(t *testing.T) {
	m := program(t, "def f(x):\n    return x\n", fn{Source: "f", Args: []*types.Type{types.IntType}, Return: types.IntType})
	tmp := socketTemp(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead, live := strconv.Itoa(gone.Process.Pid)+"\n", strconv.Itoa(os.Getppid())+"\n"
	folder := func(name, owner string) string {
		t.Helper()
		dir := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(dir, "plugin-dir1"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "plugin-dir1", "pool.sock"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, "owner"), []byte(owner), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	stale := folder("nexus-123", dead)
	kept := []string{folder("nexus-456", live), folder("nexus-789", ""), folder("nexus-12x", dead)}
	elsewhere := t.TempDir()
	if err := os.WriteFile(filepath.Join(elsewhere, "owner"), []byte(dead), 0o600); err != nil {
		t.Fatal(err)
	}
	linked := folder("nexus-654", "")
	if err := os.Symlink(filepath.Join(elsewhere, "owner"), filepath.Join(linked, "owner")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "nexus-321")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, linked, link)

	s := pool.New(m, pool.Options{TempDir: tmp, Stderr: &pooltest.Buffer{}})
	if got, err := pooltest.Call(t, s, m, 0, int64(3)); err != nil || got != int64(3) {
		t.Fatalf("f 3: %v, %v", got, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(stale); err == nil {
		t.Errorf("the folder of the dead nexus %s is still there", strings.TrimSpace(dead))
	}
	for _, path := range kept {
		if _, err := os.Lstat(path); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(path), err)
		}
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "owner")); err != nil {
		t.Errorf("the sweep followed a symbolic link: %v", err)
	}
	for _, path := range kept {
		os.RemoveAll(path)
	}
	assertNoLeftovers(t, tmp)
}

// socketTemp returns a temporary folder short enough for the pools'
// sockets, removed when the test ends.
func socketTemp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "nexus-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// assertNoLeftovers checks that no child process of the test is left and
// the supervisor's temp folder is empty.
func assertNoLeftovers(t *testing.T, tmp string) {
	t.Helper()
	if kids := pooltest.Children(); len(kids) > 0 {
		t.Errorf("processes left after Close: %v", kids)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in the temp folder after Close: %s", e.Name())
	}
}
