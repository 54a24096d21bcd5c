package cpp_test

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/pooltest"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/internal/codegen/cpp"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// These tests build real C++ pools with cpp.Write (the compiled runtime is
// cached, so only the first build of a machine is slow) and call them
// through the pool supervisor, as the nexus does.

// fn declares one C++ function of a test program.
type fn = pooltest.Fn

// program writes header (and, when not empty, the .cpp beside it) and
// builds a C++ pool serving fns from it; it returns the manifest.
func program(t testing.TB, header, besideCpp string, fns ...fn) *manifest.Manifest {
	t.Helper()
	m, err := tryProgram(t, header, besideCpp, fns...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func tryProgram(t testing.TB, header, besideCpp string, fns ...fn) (*manifest.Manifest, error) {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(root, "src", "lib.hpp")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(header), 0o644); err != nil {
		t.Fatal(err)
	}
	if besideCpp != "" {
		if err := os.WriteFile(filepath.Join(root, "src", "lib.cpp"), []byte(besideCpp), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return pooltest.Program(root, manifest.Cpp, src, cpp.Write, fns)
}

var point = &types.Type{Kind: types.Record, Name: "Point", Langs: map[string]string{"cpp": "geo::point"},
	Fields: []types.Field{
		{Name: "x", Type: types.RealType},
		{Name: "label", Type: types.OptionalOf(types.StrType)},
		{Name: "tags", Type: types.ListOf(types.StrType)},
	}}

const identities = `#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace geo {
struct point {
  double x;
  std::optional<std::string> label;
  std::vector<std::string> tags;
};
}

template <class T>
T same(T x) { return x; }
inline geo::point same_point(const geo::point& p) { return p; }
inline std::vector<geo::point> same_points(std::vector<geo::point> ps) { return ps; }
`

func TestRoundTripTypes(t *testing.T) {
	pair := types.TupleOf(types.IntType, types.StrType)
	cases := []struct {
		name   string
		source string
		typ    *types.Type
		in     any
	}{
		{"int", "same", types.IntType, int64(-42)},
		{"big int", "same", types.IntType, int64(1) << 62},
		{"real", "same", types.RealType, 2.5},
		{"str", "same", types.StrType, "héllo\nworld \"q\""},
		{"bool", "same", types.BoolType, true},
		{"list", "same", types.ListOf(types.IntType), []int64{1, 2, 3}},
		{"empty list", "same", types.ListOf(types.StrType), []string{}},
		{"optional set", "same", types.OptionalOf(types.IntType), int64(7)},
		{"optional unset", "same", types.OptionalOf(types.IntType), nil},
		{"map", "same", types.MapOf(types.StrType, types.IntType), []types.Pair{{Key: "a", Value: int64(1)}, {Key: "b", Value: int64(2)}}},
		{"int keys", "same", types.MapOf(types.IntType, types.StrType), []types.Pair{{Key: int64(3), Value: "three"}}},
		{"tuple keys", "same", types.MapOf(pair, types.RealType), []types.Pair{{Key: []any{int64(1), "a"}, Value: 0.5}}},
		{"tuple", "same", pair, []any{int64(1), "one"}},
		{"record", "same_point", point, map[string]any{"x": 1.5, "label": "p", "tags": []string{"a"}}},
		{"list of records", "same_points", types.ListOf(point), []any{map[string]any{"x": 1.0, "label": nil, "tags": []string{}}}},
		{"nested", "same", types.ListOf(types.OptionalOf(types.ListOf(types.RealType))), []any{nil, []float64{1.0, 2.0}}},
	}
	var fns []fn
	for _, c := range cases {
		fns = append(fns, fn{Source: c.source, Args: []*types.Type{c.typ}, Return: c.typ})
	}
	m := program(t, identities, "", fns...)
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

func TestExceptionAndCrash(t *testing.T) {
	m := program(t, `#pragma once
#include <csignal>
#include <cstdint>
#include <stdexcept>
#include <unistd.h>
inline double checked(double x) {
  if (x < 0) throw std::domain_error("negative input");
  return x;
}
inline int64_t crash(int64_t how) {
  if (how == 1) std::raise(SIGSEGV);
  if (how == 2) std::abort();
  return how;
}
inline int64_t pid() { return getpid(); }
`, "",
		fn{Source: "checked", Args: []*types.Type{types.RealType}, Return: types.RealType},
		fn{Source: "crash", Args: []*types.Type{types.IntType}, Return: types.IntType},
		fn{Source: "pid", Args: []*types.Type{types.UnitType}, Return: types.IntType})
	s, _ := pooltest.Supervise(t, m, pool.Options{})

	_, err := pooltest.Call(t, s, m, 0, -1.0)
	var fe *pool.FunctionError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a FunctionError", err)
	}
	for _, want := range []string{"std::domain_error: negative input", "checked (lib.hpp)"} {
		if !strings.Contains(fe.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, fe.Message)
		}
	}
	if got, err := pooltest.Call(t, s, m, 0, 2.0); err != nil || got != 2.0 {
		t.Errorf("after the exception: got %v, %v", got, err)
	}

	for _, c := range []struct {
		how  int64
		want string
	}{
		{1, "c++ pool died while running crash (killed by signal SIGSEGV)"},
		{2, "c++ pool died while running crash (killed by signal SIGABRT"},
	} {
		before, err := pooltest.Call(t, s, m, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = pooltest.Call(t, s, m, 1, c.how)
		var died *pool.DiedError
		if !errors.As(err, &died) || !strings.HasPrefix(err.Error(), c.want) {
			t.Fatalf("got %v, want %q", err, c.want)
		}
		after, err := pooltest.Call(t, s, m, 2, nil)
		if err != nil {
			t.Fatalf("call after the crash: %v", err)
		}
		if after == before {
			t.Errorf("the pool was not restarted: pid %v both times", after)
		}
	}
}

func TestOutputGoesToStderr(t *testing.T) {
	m := program(t, `#pragma once
#include <cstdio>
#include <iostream>
#include <string>
#include <unistd.h>
struct Noisy { Noisy() { std::cout << "printed before main" << std::endl; } };
inline Noisy noisy;
inline std::string shout(const std::string& s) {
  std::cout << "cout " << s << std::endl;
  std::printf("printf %s\n", s.c_str());
  write(1, "fd 1\n", 5);
  return s + "!";
}
`, "", fn{Source: "shout", Args: []*types.Type{types.StrType}, Return: types.StrType})
	s, stderr := pooltest.Supervise(t, m, pool.Options{})
	got, err := pooltest.Call(t, s, m, 0, "hey")
	if err != nil || got != "hey!" {
		t.Fatalf("got %v, %v", got, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		out := stderr.String()
		if strings.Contains(out, "printed before main\n") && strings.Contains(out, "cout hey\n") &&
			strings.Contains(out, "printf hey\n") && strings.Contains(out, "fd 1\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stderr lacks the prints:\n%s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestConcurrentCalls(t *testing.T) {
	m := program(t, `#pragma once
#include <chrono>
#include <thread>
inline long nap(long ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); return ms; }
`, "", fn{Source: "nap", Args: []*types.Type{types.IntType}, Return: types.IntType})
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	if _, err := pooltest.Call(t, s, m, 0, int64(0)); err != nil { // starts the pool
		t.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got, err := pooltest.Call(t, s, m, 0, int64(200)); err != nil || got != int64(200) {
				t.Errorf("got %v, %v", got, err)
			}
		}()
	}
	wg.Wait()
	// Eight naps of 200 ms one after the other would take 1.6 s.
	if d := time.Since(start); d > 1200*time.Millisecond {
		t.Errorf("8 concurrent calls of 200 ms took %v: calls do not run concurrently", d)
	}

	// A long call does not hold up a short one.
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := pooltest.Call(t, s, m, 0, int64(3000)); err != nil {
			t.Error(err)
		}
	}()
	time.Sleep(100 * time.Millisecond)
	start = time.Now()
	if _, err := pooltest.Call(t, s, m, 0, int64(1)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("a 1 ms call beside a 3 s call took %v", d)
	}
	<-done
}

// napHeader is the abandonment scenario's program (pooltest.NapFn and
// pooltest.PidFn) in C++.
const napHeader = `#pragma once
#include <chrono>
#include <cstdint>
#include <iostream>
#include <thread>
#include <unistd.h>
inline std::int64_t nap(std::int64_t tag, double seconds) {
  std::cerr << "nap started " << tag << std::endl;
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  return tag;
}
inline std::int64_t pid(std::int64_t) { return getpid(); }
`

// TestAbandonedCallsReplacePool: calls abandoned by their callers keep
// sleeping in the pool's threads (64 of them); 80 such calls would leave
// it none to answer with. The supervisor replaces the pool before that:
// every call still reaches a pool, a fresh one answers afterwards, the
// call still awaited in the old pool ends well, and the old pool is gone.
func TestAbandonedCallsReplacePool(t *testing.T) {
	m := program(t, napHeader, "", pooltest.NapFn, pooltest.PidFn)
	s, stderr := pooltest.Supervise(t, m, pool.Options{})
	pooltest.AbandonUntilReplaced(t, s, m, stderr, pool.DefaultMaxCalls, 80, 2)
}

// TestUnresponsivePoolReplaced: a pool whose every thread runs a call
// answers nothing, not even a health check; the supervisor replaces it,
// so the next call is answered by a fresh pool, and ends the old one after
// the grace given to its calls, each of which fails saying why.
func TestUnresponsivePoolReplaced(t *testing.T) {
	const threads = 64 // kMaxThreads in nexus_pool.cpp
	m := program(t, napHeader, "", pooltest.NapFn, pooltest.PidFn)
	s, stderr := pooltest.Supervise(t, m, pool.Options{
		MaxCalls: threads + 2, ProbeInterval: 100 * time.Millisecond, ProbeTimeout: time.Second, RetireGrace: time.Second,
	})
	old := pooltest.Pid(t, s, m)
	naps := make([]<-chan error, threads)
	for i := range naps {
		naps[i] = pooltest.Nap(t, context.Background(), s, m, i, 600)
	}
	for i := range naps {
		pooltest.WaitFor(t, stderr, fmt.Sprintf("nap started %d\n", i))
	}
	// Every thread sleeps: this call waits in the old pool until it is
	// replaced and, after the grace, ended; the next goes to a fresh one.
	const why = "c++ pool was replaced (it did not answer a health check"
	stuck := make(chan error, 1)
	go func() {
		_, err := pooltest.Call(t, s, m, 1, int64(0))
		stuck <- err
	}()
	if err := pooltest.Await(t, stuck, "the call sent to the unresponsive pool"); err == nil || !strings.Contains(err.Error(), why) {
		t.Errorf("the call sent to the unresponsive pool: got %v, want the replacement's error", err)
	}
	if fresh := pooltest.Pid(t, s, m); fresh == old {
		t.Fatalf("the pool (pid %d) was not replaced", old)
	}
	for i, done := range naps {
		if err := pooltest.Await(t, done, fmt.Sprintf("nap %d", i)); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("nap %d in the replaced pool: got %v, want the replacement's error", i, err)
		}
	}
	pooltest.WaitGone(t, old)
	if st := s.Status()[0]; st.Replaced != 1 || st.Deaths != 0 || st.Calls != 0 {
		t.Errorf("status after the replacement: %+v", st)
	}
}

// latencies returns the median and 99th percentile of ds.
func latencies(ds []time.Duration) (time.Duration, time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], ds[len(ds)*99/100]
}

// BenchmarkIntCall is the round trip of a trivial Int -> Int call through
// the supervisor.
func BenchmarkIntCall(b *testing.B) {
	m := program(b, "#pragma once\ninline long inc(long x) { return x + 1; }\n",
		"", fn{Source: "inc", Args: []*types.Type{types.IntType}, Return: types.IntType})
	s, _ := pooltest.Supervise(b, m, pool.Options{})
	f := &m.Functions[0]
	args, _ := types.EncodeArgs(f.Args, []any{int64(41)})
	ctx := context.Background()
	if _, err := s.Call(ctx, f, args); err != nil {
		b.Fatal(err)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := s.Call(ctx, f, args); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	b.StopTimer()
	med, p99 := latencies(ds)
	b.ReportMetric(float64(med.Microseconds()), "median-µs")
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
}

// BenchmarkRealList is the round trip of a million Reals through an
// identity function, as a Go caller of the supervisor makes it (encode,
// call, decode), beside the msgpack-only floor: encoding the list and
// decoding it again, with no pool at all.
func BenchmarkRealList(b *testing.B) {
	m := program(b, "#pragma once\n#include <vector>\ninline std::vector<double> same(std::vector<double> xs) { return xs; }\n",
		"", fn{Source: "same", Args: []*types.Type{types.ListOf(types.RealType)}, Return: types.ListOf(types.RealType)})
	s, _ := pooltest.Supervise(b, m, pool.Options{})
	f := &m.Functions[0]
	xs := make([]float64, 1_000_000)
	for i := range xs {
		xs[i] = float64(i) * 0.5
	}
	ctx := context.Background()
	roundTrip := func() error {
		args, err := msgpack.Marshal([]any{xs})
		if err != nil {
			return err
		}
		res, err := s.Call(ctx, f, args)
		if err != nil {
			return err
		}
		var back []float64
		if err := msgpack.Unmarshal(res, &back); err != nil || len(back) != len(xs) {
			return fmt.Errorf("got %d numbers back, %v", len(back), err)
		}
		return nil
	}
	floor := func() error {
		data, err := msgpack.Marshal(xs)
		if err != nil {
			return err
		}
		var back []float64
		return msgpack.Unmarshal(data, &back)
	}
	if err := roundTrip(); err != nil {
		b.Fatal(err)
	}
	var pool, codec []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := roundTrip(); err != nil {
			b.Fatal(err)
		}
		pool = append(pool, time.Since(start))
		start = time.Now()
		if err := floor(); err != nil {
			b.Fatal(err)
		}
		codec = append(codec, time.Since(start))
	}
	b.StopTimer()
	mp, _ := latencies(pool)
	mf, _ := latencies(codec)
	b.ReportMetric(float64(mp.Microseconds())/1000, "roundtrip-ms")
	b.ReportMetric(float64(mf.Microseconds())/1000, "msgpack-floor-ms")
	b.ReportMetric(float64(mf)/float64(mp), "floor-fraction")
}

// TestPoolLinksGRPCStatically: where gRPC's archives are installed (as
// Debian's libgrpc++-dev installs them), a pool needs none of gRPC's
// shared libraries, whose loading was most of its start.
func TestPoolLinksGRPCStatically(t *testing.T) {
	out, err := exec.Command("g++", "-print-file-name=libgrpc++.a").Output()
	if archive := strings.TrimSpace(string(out)); err != nil || !filepath.IsAbs(archive) {
		t.Skip("no libgrpc++.a on this machine: pools link gRPC's shared libraries")
	}
	m := program(t, "#pragma once\ninline long twice(long x) { return 2 * x; }\n", "",
		fn{Source: "twice", Args: []*types.Type{types.IntType}, Return: types.IntType})
	exe := m.PoolCommand(&m.Pools[0])[0]
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range libs {
		for _, prefix := range []string{"libgrpc", "libgpr", "libabsl", "libupb", "libre2", "libcares", "libssl", "libcrypto", "libstdc++"} {
			if strings.HasPrefix(lib, prefix) {
				t.Errorf("the pool needs %s (all: %v)", lib, libs)
			}
		}
	}
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	if got, err := pooltest.Call(t, s, m, 0, int64(21)); err != nil || got != int64(42) {
		t.Errorf("twice(21) = %v, %v", got, err)
	}
}
