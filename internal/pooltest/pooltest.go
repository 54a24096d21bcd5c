// Package pooltest runs real pools under a Supervisor in tests: the
// supervisor's stderr is captured, and when the test ends it is closed and
// checked for leftovers (child processes, files in its socket folder).
// The pool runtimes' tests and the supervisor's own use it; its Buffer
// serves the integration tests and benchmarks too, and Compile the tests
// of what sits above the pools (tools, MCP). Launch starts a pool without
// the supervisor, for tests that speak the pool protocol themselves.
package pooltest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/codegen"
	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Buffer is a bytes.Buffer safe for concurrent writers and readers: the
// supervisor's goroutines, or the copying of a child's stderr while a test
// or benchmark reads it.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Supervise returns a Supervisor for m with opts, its stderr captured
// unless opts.Stderr is set, and its sockets in a private temporary
// folder. When the test ends it is closed, and the test fails if a child
// process or a file in that folder is left.
func Supervise(t testing.TB, m *manifest.Manifest, opts pool.Options) (*pool.Supervisor, *Buffer) {
	t.Helper()
	stderr := &Buffer{}
	if opts.Stderr == nil {
		opts.Stderr = stderr
	}
	// Short, so the socket path stays under the 107 bytes Unix allows.
	tmp, err := os.MkdirTemp("", "nexus-test-")
	if err != nil {
		t.Fatal(err)
	}
	opts.TempDir = tmp
	s := pool.New(m, opts)
	t.Cleanup(func() {
		defer os.RemoveAll(tmp)
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if kids := Children(); len(kids) > 0 {
			t.Errorf("processes left after Close: %v", kids)
		}
		entries, _ := os.ReadDir(tmp)
		for _, e := range entries {
			t.Errorf("left in the temp folder after Close: %s", e.Name())
		}
	})
	return s, stderr
}

// Call runs function id of m with args (canonical values) and decodes the
// result; an encoding or decoding failure fails the test, a failure of
// the call is returned.
func Call(t testing.TB, s *pool.Supervisor, m *manifest.Manifest, id int, args ...any) (any, error) {
	t.Helper()
	f := &m.Functions[id]
	data, err := types.EncodeArgs(f.Args, args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Call(context.Background(), f, data)
	if err != nil {
		return nil, err
	}
	v, err := types.DecodeMsgpackBytes(f.Return, res)
	if err != nil {
		t.Fatalf("decode result of %s: %v", f.Name, err)
	}
	return v, nil
}

// Case is a call of function ID with Args (canonical values), whose
// result, as JSON text, is Want. An alias of a struct type, so that a
// table of them may be written without field names.
type Case = struct {
	Name string
	ID   int
	Args []any
	Want string
}

// CheckCalls runs each case as a subtest of t.
func CheckCalls(t *testing.T, s *pool.Supervisor, m *manifest.Manifest, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got, err := Call(t, s, m, c.ID, c.Args...)
			if err != nil {
				t.Fatal(err)
			}
			if g, _ := json.Marshal(got); string(g) != c.Want {
				t.Errorf("got %s, want %s", g, c.Want)
			}
		})
	}
}

// Children lists the live (not zombie) processes whose parent is this
// test process, as "pid command".
func Children() []string {
	self := os.Getpid()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var kids []string
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...
		s := string(data)
		close := strings.LastIndexByte(s, ')')
		if close < 0 {
			continue
		}
		fields := strings.Fields(s[close+2:])
		if len(fields) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		if ppid == self && fields[0] != "Z" {
			kids = append(kids, filepath.Base(d)+" "+s[strings.IndexByte(s, '(')+1:close])
		}
	}
	return kids
}

// Fn is one function of a test program: its name in the source, its
// argument types and its result type. File, when set, is its source file
// instead of the program's (sourced.PreludeFile for a prelude loop).
type Fn struct {
	Source string
	Args   []*types.Type
	Return *types.Type
	File   string
}

// Writer is a pool generator's Write (python.Write, cpp.Write, golang.Write).
type Writer func(dir, buildDir string, fns []sourced.Function) ([]string, error)

// Program generates, with write, a lang pool serving fns from the source
// file src, in the build folder root/prog-build, and returns the program's
// validated manifest. Function i has id i and is named by its source name.
func Program(root, lang, src string, write Writer, fns []Fn) (*manifest.Manifest, error) {
	build := filepath.Join(root, "prog-build")
	m := &manifest.Manifest{Nexus: manifest.NexusVersion, Name: "prog", Dir: build}
	for i, f := range fns {
		m.Functions = append(m.Functions, manifest.Function{
			ID: i, Name: f.Source, Source: f.Source, Pool: lang, Args: f.Args, Return: f.Return,
		})
	}
	served := make([]sourced.Function, len(m.Functions))
	for i := range m.Functions {
		served[i] = sourced.Function{Spec: &m.Functions[i], File: src}
		if fns[i].File != "" {
			served[i].File = fns[i].File
		}
	}
	cmd, err := write(filepath.Join(build, "pools", lang), build, served)
	if err != nil {
		return nil, err
	}
	m.Pools = []manifest.Pool{{Lang: lang, Command: cmd}}
	return m, m.Validate()
}

// Compile compiles a .loc program, beside a Python source fns.py holding
// py, and returns its manifest. It builds no pool.
func Compile(t testing.TB, loc, py string) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.loc"), []byte(loc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fns.py"), []byte(py), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, err := codegen.Compile(filepath.Join(dir, "main.loc"))
	if err != nil {
		t.Fatalf("compile:\n%v", err)
	}
	return prog.Manifest
}

// The abandonment scenario: calls whose callers give up while their
// function still runs, until the supervisor replaces the pool. Its
// program has two functions, whatever the language:
//
//	0: nap :: Int -> Real -> Int, which prints "nap started TAG" on its
//	   stderr, sleeps SECONDS and returns TAG;
//	1: pid :: Int -> Int, which returns the pool's process id.
var (
	NapFn = Fn{Source: "nap", Args: []*types.Type{types.IntType, types.RealType}, Return: types.IntType}
	PidFn = Fn{Source: "pid", Args: []*types.Type{types.IntType}, Return: types.IntType}
)

// eventWait is how long the scenarios wait for an event that should come
// within milliseconds: generous, so that only a pool that never answers
// fails the test.
const eventWait = time.Minute

// WaitFor waits until stderr holds text; after eventWait it fails the
// test.
func WaitFor(t testing.TB, stderr *Buffer, text string) {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for !strings.Contains(stderr.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("%q never appeared on the pools' stderr (the pool answers nothing?)", text)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Pid returns the process id of the pool that runs the program's
// functions, calling pid; a failure, or no answer within eventWait, fails
// the test.
func Pid(t testing.TB, s *pool.Supervisor, m *manifest.Manifest) int {
	t.Helper()
	f := &m.Functions[1]
	args, err := types.EncodeArgs(f.Args, []any{int64(0)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), eventWait)
	defer cancel()
	res, err := s.Call(ctx, f, args)
	if err != nil {
		t.Fatalf("pid: %v", err)
	}
	v, err := types.DecodeMsgpackBytes(f.Return, res)
	if err != nil {
		t.Fatal(err)
	}
	return int(v.(int64))
}

// Nap calls nap(tag, seconds) with ctx in the background and returns its
// outcome once it ends.
func Nap(t testing.TB, ctx context.Context, s *pool.Supervisor, m *manifest.Manifest, tag int, seconds float64) <-chan error {
	t.Helper()
	f := &m.Functions[0]
	args, err := types.EncodeArgs(f.Args, []any{int64(tag), seconds})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, f, args)
		done <- err
	}()
	return done
}

// Await returns the outcome of a call started by Nap; after eventWait it
// fails the test, saying that what did not return.
func Await(t testing.TB, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(eventWait):
		t.Fatalf("%s did not return", what)
		return nil
	}
}

// Abandon makes n calls of nap(600 s), each cancelled by its caller once
// the function runs. Each must return at once with the cancellation, and
// each must reach a pool and start: a pool clogged by the calls abandoned
// before fails the test.
func Abandon(t testing.TB, s *pool.Supervisor, m *manifest.Manifest, stderr *Buffer, first, n int) {
	t.Helper()
	for tag := first; tag < first+n; tag++ {
		ctx, cancel := context.WithCancel(context.Background())
		done := Nap(t, ctx, s, m, tag, 600)
		WaitFor(t, stderr, fmt.Sprintf("nap started %d\n", tag))
		cancel()
		if err := Await(t, done, fmt.Sprintf("nap %d, cancelled,", tag)); !errors.Is(err, context.Canceled) {
			t.Fatalf("nap %d, cancelled: got %v, want the cancellation", tag, err)
		}
	}
}

// AbandonUntilReplaced runs the scenario against s, whose MaxCalls is
// maxCalls: a live nap of live seconds, then n abandoned naps, enough to
// clog the pool; the pool must have been replaced (a fresh pool answers
// pid) while the live nap ends well, and the old pool's process must be
// gone, leaving one pool process and at most half of maxCalls abandoned
// calls running.
func AbandonUntilReplaced(t testing.TB, s *pool.Supervisor, m *manifest.Manifest, stderr *Buffer, maxCalls, n int, live float64) {
	t.Helper()
	old := Pid(t, s, m)
	liveDone := Nap(t, context.Background(), s, m, -1, live)
	WaitFor(t, stderr, "nap started -1\n")
	Abandon(t, s, m, stderr, 0, n)
	if fresh := Pid(t, s, m); fresh == old {
		t.Fatalf("after %d abandoned calls the pool (pid %d) still serves: it was not replaced", n, old)
	}
	if err := Await(t, liveDone, "the call awaited while its pool was replaced"); err != nil {
		t.Errorf("the call awaited while its pool was replaced failed: %v", err)
	}
	WaitGone(t, old)
	// The last pool replaced may still be stopping.
	deadline := time.Now().Add(eventWait)
	for {
		kids, sts := Children(), s.Status()
		ok := len(kids) == 1
		for _, st := range sts {
			ok = ok && st.Abandoned <= maxCalls/2 && st.Calls == st.Abandoned && st.Replaced > 0
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("want the one fresh pool running, with at most %d abandoned calls; got the processes %v and the status %+v", maxCalls/2, kids, sts)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// WaitGone waits until process pid has ended (and been reaped); after
// eventWait it fails the test.
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still there", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
