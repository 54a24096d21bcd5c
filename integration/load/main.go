// Command load is the MCP load test: many Streamable HTTP sessions at once
// against `nexus mcp PROG --http-port 0` (or `nexus serve`), calling a
// trivial Python and a trivial C++ function, beside the same load against
// an MCP server made in this process with the official Go SDK (the
// ceiling: the same protocol work with no pool behind it), and the same
// load again on nexus's stateless path: clients speaking MCP 2026-07-28,
// with no initialize and no session.
//
//	go run ./integration/load -nexus bin/nexus    # what `make load` runs
//
// Each round, 64 clients at once make 200 tools/call each against each of
// the five targets (the ceiling; nexus's Python and C++ functions in
// sessions; the same statelessly; the flags change the counts), every
// answer checked. The
// rounds alternate the servers so that machine noise hits each alike.
// It reports calls/s, p50 and p99 per server and function, the share of
// the ceiling's calls/s (goal: C++ at least half; reported, not enforced),
// the ratio of stateless to sessions per function (goal: no slower;
// reported, not enforced),
// and the nexus server's resources before the load, at its peak, and after
// the sessions were deleted: RSS of nexus and of each pool, the live Go
// heap, goroutines (both read from the profiler that NEXUS_DEBUG_ADDR
// starts), and under `-server serve` the sessions that /health counts.
//
// The exit status is 1 on any error: a failed or wrong call, a session that
// still answers after its DELETE, a goroutine, session or pool process
// left over, a live heap that does not come back, a pool that restarted,
// or a pool still running once nexus has stopped.
//
// Traffic goes to loopback only, and the run is bounded in count (the
// flags) and in time (-deadline).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nexus-run/nexus/integration/modversion"
	"github.com/nexus-run/nexus/integration/procstat"
)

type config struct {
	nexus     string
	sessions  int
	calls     int
	rounds    int
	poolCalls int
	server    string // "mcp" or "serve"
	settle    time.Duration
	deadline  time.Duration
	goal      float64
}

func main() {
	var c config
	flag.StringVar(&c.nexus, "nexus", "bin/nexus", "the nexus binary to test")
	flag.IntVar(&c.sessions, "sessions", 64, "MCP sessions at once")
	flag.IntVar(&c.calls, "calls", 200, "tools/call per session, per server and function, per round")
	flag.IntVar(&c.rounds, "rounds", 3, "rounds; each runs the load against every server and function in turn")
	flag.IntVar(&c.poolCalls, "pool-calls", 64, "nexus --pool-calls: calls in flight in each pool")
	flag.StringVar(&c.server, "server", "mcp", "`mcp` (nexus mcp PROG --http-port 0) or `serve` (nexus serve PROG, whose /health counts sessions)")
	flag.DurationVar(&c.settle, "settle", 30*time.Second, "how long goroutines, sessions and memory may take to come back once the sessions are deleted")
	flag.DurationVar(&c.deadline, "deadline", 5*time.Minute, "bound on the whole run")
	flag.Float64Var(&c.goal, "goal", 0.5, "the goal for nexus C++ calls/s as a share of the ceiling's (reported, not enforced)")
	flag.Parse()
	if c.sessions < 1 || c.calls < 1 || c.rounds < 1 || c.poolCalls < 1 || (c.server != "mcp" && c.server != "serve") || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.deadline)
	defer cancel()
	problems, err := run(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
	if len(problems) > 0 {
		fmt.Printf("\nFAILED: %d problem(s)\n", len(problems))
		for _, p := range problems {
			fmt.Println("  -", p)
		}
		os.Exit(1)
	}
	fmt.Println("\nOK: every call answered right; no session, goroutine or pool process left over; the live heap came back")
}

// target is one server and tool under load, and what the rounds measured.
type target struct {
	server, function string
	endpoint, tool   string
	stateless        bool     // 2026-07-28 without a session; else the session path
	ids              []string // every session it had, all deleted by now
	calls            int
	errors           int64
	messages         []string
	elapsed          time.Duration
	rates            []float64 // calls/s of each round
	lat              []time.Duration
	// The CPU time used during its rounds: by this process (the clients,
	// and the ceiling's server for the ceiling), by nexus, by its pools.
	cpuSelf, cpuNexus, cpuPools time.Duration
}

func (t *target) add(d driven) {
	t.calls += d.calls
	t.errors += d.errors
	if len(t.messages) < 5 {
		t.messages = append(t.messages, d.messages...)
	}
	t.elapsed += d.elapsed
	t.rates = append(t.rates, float64(d.calls)/d.elapsed.Seconds())
	t.lat = append(t.lat, d.lat...)
	t.ids = append(t.ids, d.sessionIDs...)
}

func (t *target) rate() float64 { return float64(t.calls) / t.elapsed.Seconds() }

func (t *target) addCPU(before, after cpuTimes) {
	t.cpuSelf += after.self - before.self
	t.cpuNexus += after.nexus - before.nexus
	t.cpuPools += after.pools - before.pools
}

// perCall is d over the target's calls, in µs.
func (t *target) perCall(d time.Duration) float64 {
	return float64(d.Microseconds()) / float64(max(t.calls, 1))
}

func run(ctx context.Context, c config) ([]string, error) {
	nexus, err := filepath.Abs(c.nexus)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(nexus); err != nil {
		return nil, fmt.Errorf("%w (build it with `make build`)", err)
	}
	fmt.Printf("MCP load over Streamable HTTP on loopback: %d rounds of %d sessions at once making %d tools/call each, per server and function; Go SDK %s client, protocol %s\n",
		c.rounds, c.sessions, c.calls, modversion.Of("github.com/modelcontextprotocol/go-sdk"), protocol)

	dir, err := os.MkdirTemp("", "nexus-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	launcher, err := buildProgram(ctx, nexus, dir)
	if err != nil {
		return nil, err
	}
	fmt.Printf("built the program (a Python and a C++ `Int -> Int` identity) in %.1f s\n", time.Since(start).Seconds())

	ceilingURL, stopCeiling, err := startCeiling()
	if err != nil {
		return nil, err
	}
	defer stopCeiling()
	srv, err := startNexus(ctx, c, nexus, launcher)
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			srv.stop()
		}
	}()
	if srv.debug == "" {
		fmt.Println("nexus started no profiler (NEXUS_DEBUG_ADDR): goroutines and the Go heap are not measured")
	}
	prefix := ""
	if c.server == "serve" {
		prefix = "load__"
	}
	// The ceiling and nexus's session path first (printTargets and the
	// goal rely on the order), then nexus's stateless path on the same
	// functions.
	targets := []*target{
		{server: "Go SDK, in-process (ceiling)", function: "identity in Go", endpoint: ceilingURL, tool: "ident"},
		{server: "nexus " + c.server + ", sessions", function: "identity in Python", endpoint: srv.endpoint, tool: prefix + "py"},
		{server: "nexus " + c.server + ", sessions", function: "identity in C++", endpoint: srv.endpoint, tool: prefix + "cpp"},
		{server: "nexus " + c.server + ", stateless", function: "identity in Python", endpoint: srv.endpoint, tool: prefix + "py", stateless: true},
		{server: "nexus " + c.server + ", stateless", function: "identity in C++", endpoint: srv.endpoint, tool: prefix + "cpp", stateless: true},
	}

	// Warm-up: the first calls pay for lazy set-up everywhere (and the
	// pools may still be starting). Then the state before the load, with
	// no session open.
	for _, t := range targets {
		if w, err := drive(ctx, t.endpoint, t.tool, 1, 50, t.stateless); err != nil {
			return nil, err
		} else if w.errors > 0 {
			return nil, fmt.Errorf("warm-up of %s, %s: %s", t.server, t.function, strings.Join(w.messages, "; "))
		}
	}
	time.Sleep(500 * time.Millisecond)
	var mem memory
	mem.server = "nexus " + c.server
	mem.before = srv.snapshot(ctx, true)
	mem.peak = mem.before
	goroutinesBefore := settledGoroutines(ctx, 0, 2*time.Second)

	// The peak, sampled once a second while the load runs.
	sampling, stopSampling := context.WithCancel(ctx)
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		for {
			select {
			case <-sampling.Done():
				return
			case <-time.After(time.Second):
			}
			mem.peak = peak(mem.peak, srv.snapshot(sampling, false))
		}
	}()
	for r := 0; r < c.rounds; r++ {
		for i := range targets {
			t := targets[(r+i)%len(targets)]
			before := srv.cpu()
			d, err := drive(ctx, t.endpoint, t.tool, c.sessions, c.calls, t.stateless)
			t.addCPU(before, srv.cpu())
			if err != nil {
				stopSampling()
				sampler.Wait()
				return nil, fmt.Errorf("%s, %s: %w", t.server, t.function, err)
			}
			t.add(d)
		}
	}
	stopSampling()
	sampler.Wait()

	var problems []string
	for _, t := range targets {
		if t.errors > 0 {
			problems = append(problems, fmt.Sprintf("%s, %s: %d errors; the first: %s", t.server, t.function, t.errors, strings.Join(t.messages, "; ")))
		}
		if want := c.rounds * c.sessions * c.calls; t.calls != want {
			problems = append(problems, fmt.Sprintf("%s, %s: %d calls made, want %d", t.server, t.function, t.calls, want))
		}
		if gone := checkSessionsGone(ctx, t.endpoint, t.ids); gone != "" {
			problems = append(problems, fmt.Sprintf("%s, %s: %s", t.server, t.function, gone))
		}
	}

	// Back to where it was: nexus, then this process (client and ceiling).
	deadline := time.Now().Add(c.settle)
	for {
		mem.after = srv.snapshot(ctx, true)
		back := backProblems(mem.before, mem.after)
		if len(back) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			for _, b := range back {
				problems = append(problems, fmt.Sprintf("nexus %s: %s, %s after the sessions were deleted", c.server, b, c.settle))
			}
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	goroutinesAfter := settledGoroutines(ctx, goroutinesBefore, time.Until(deadline)+time.Second)
	if goroutinesAfter > goroutinesBefore {
		problems = append(problems, fmt.Sprintf("this process (client and ceiling): %d goroutines after the sessions were deleted, %d before", goroutinesAfter, goroutinesBefore))
	}

	// The pools must go with the server.
	stopped = true
	if err := srv.stop(); err != nil {
		problems = append(problems, fmt.Sprintf("nexus %s on SIGTERM: %v", c.server, err))
	}
	if s := srv.stderr.String(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
		problems = append(problems, "nexus crashed:\n"+s)
	}
	time.Sleep(200 * time.Millisecond)
	for _, p := range mem.before.pools {
		if procstat.Alive(p.pid) {
			problems = append(problems, fmt.Sprintf("pool %d (%s) still running after nexus stopped", p.pid, p.name))
		}
	}

	printTargets(c, targets)
	printMemory(mem)
	fmt.Printf("| this process's goroutines (load client and ceiling server) | %d | | %d |\n", goroutinesBefore, goroutinesAfter)
	return problems, nil
}

// buildProgram writes the load program into dir and builds it with
// `nexus make`; it returns the launcher's path.
func buildProgram(ctx context.Context, nexus, dir string) (string, error) {
	fs := map[string]string{
		"main.loc": `--' The MCP load test's program: one trivial function per pool language.
module load (py, cpp)

source Py from "ids.py" ("ident" as identPy)
source Cpp from "ids.hpp" ("ident" as identCpp)

identPy  :: Int -> Int
identCpp :: Int -> Int

--' The identity, in Python.
py ::
  --' @name x
  Int ->
  Int
py x = identPy x

--' The identity, in C++.
cpp ::
  --' @name x
  Int ->
  Int
cpp x = identCpp x
`,
		"ids.py":  "def ident(x):\n    return x\n",
		"ids.hpp": "#pragma once\n#include <cstdint>\n\ninline int64_t ident(int64_t x) { return x; }\n",
	}
	for name, body := range fs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	cmd := exec.CommandContext(ctx, nexus, "make", "-o", "load", "main.loc")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("nexus make: %v\n%s", err, out)
	}
	return filepath.Join(dir, "load"), nil
}

func printTargets(c config, targets []*target) {
	fmt.Printf("\n| server | function | calls | errors | calls/s | per round | p50 | p99 | share of ceiling |\n")
	fmt.Printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	ceiling := targets[0].rate()
	for _, t := range targets {
		sort.Slice(t.lat, func(a, b int) bool { return t.lat[a] < t.lat[b] })
		rates := append([]float64(nil), t.rates...)
		sort.Float64s(rates)
		fmt.Printf("| %s | %s | %d | %d | %.0f | %.0f–%.0f | %s | %s | %.2f |\n", t.server, t.function, t.calls, t.errors, t.rate(),
			rates[0], rates[len(rates)-1], ms(percentile(t.lat, 0.50)), ms(percentile(t.lat, 0.99)), t.rate()/ceiling)
	}
	share := targets[2].rate() / ceiling
	verdict := "met"
	if share < c.goal {
		verdict = "NOT met"
	}
	fmt.Printf("\ngoal: nexus C++ at least %.2f of the ceiling's calls/s: %s (%.2f; Python %.2f)\n", c.goal, verdict, share, targets[1].rate()/ceiling)

	// Where the CPU went: on a shared machine the clients' own work
	// slows every server's, so a path that costs its client more is
	// slower for that too.
	fmt.Printf("\nCPU time per call (user and system, µs), during each target's rounds; this process is the load's clients (and, for the ceiling, its server)\n\n")
	fmt.Printf("| server | function | this process | nexus | pools |\n| --- | --- | ---: | ---: | ---: |\n")
	for _, t := range targets {
		fmt.Printf("| %s | %s | %.0f | %.0f | %.0f |\n", t.server, t.function, t.perCall(t.cpuSelf), t.perCall(t.cpuNexus), t.perCall(t.cpuPools))
	}

	// Each stateless target beside the session target of its function.
	fmt.Printf("\nstateless (%s, no session) / sessions (%s), calls/s, same functions and concurrency; goal: no slower (reported, not enforced)\n\n", statelessProtocol, protocol)
	fmt.Printf("| function | sessions calls/s | stateless calls/s | stateless / sessions | verdict |\n| --- | ---: | ---: | ---: | --- |\n")
	for _, sl := range targets {
		if !sl.stateless {
			continue
		}
		for _, ss := range targets[1:] {
			if ss.stateless || ss.function != sl.function {
				continue
			}
			r := sl.rate() / ss.rate()
			verdict := "met"
			if r < 1 {
				verdict = "NOT met"
			}
			fmt.Printf("| %s | %.0f | %.0f | %.2f | %s |\n", sl.function, ss.rate(), sl.rate(), r, verdict)
		}
	}
}

// memory is the nexus server's resources before, at the peak of, and after
// the load.
type memory struct {
	server              string
	before, peak, after snapshot
}

func printMemory(m memory) {
	fmt.Printf("\n%s: before the load (pools warm, no session open), its peak during the load, and after the sessions were deleted\n\n", m.server)
	fmt.Printf("| what | before | peak | after |\n| --- | ---: | ---: | ---: |\n")
	fmt.Printf("| nexus RSS | %s | %s | %s |\n", mib(m.before.rss), mib(m.peak.rss), mib(m.after.rss))
	after := map[int]proc{}
	for _, p := range m.after.pools {
		after[p.pid] = p
	}
	for i, p := range m.before.pools {
		a := "gone"
		if q, ok := after[p.pid]; ok {
			a = mib(q.rss)
		}
		fmt.Printf("| %s pool RSS (pid %d) | %s | %s | %s |\n", p.name, p.pid, mib(p.rss), mib(m.peak.pools[i].rss), a)
	}
	na := func(n int64, f func(int64) string) string {
		if n < 0 {
			return "n/a"
		}
		return f(n)
	}
	count := func(n int64) string { return fmt.Sprint(n) }
	fmt.Printf("| nexus live Go heap (after a GC) | %s | | %s |\n", na(m.before.heap, mib), na(m.after.heap, mib))
	fmt.Printf("| nexus goroutines | %s | %s | %s |\n", na(int64(m.before.goroutines), count), na(int64(m.peak.goroutines), count), na(int64(m.after.goroutines), count))
	fmt.Printf("| MCP sessions (GET /health) | %s | %s | %s |\n", na(int64(m.before.sessions), count), na(int64(m.peak.sessions), count), na(int64(m.after.sessions), count))
}

func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
