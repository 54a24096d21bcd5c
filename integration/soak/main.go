// Command soak is the chaos test of nexus: minutes of mixed concurrent
// load over stdio and HTTP against the fault program
// (integration/testdata/fault), with faults injected at random moments.
//
//	go run ./integration/soak -nexus bin/nexus -duration 10m    # what `make soak` runs
//
// Two servers run side by side, `nexus mcp PROG` over stdio and `nexus mcp
// PROG --http-port 0` on 127.0.0.1, each with `--timeout` (-timeout) and a
// TMPDIR of its own. Workers (-stdio-workers sharing the stdio connection,
// -http-workers each with an HTTP session) call functions whose right
// answer is known, in Python, C++ and Go at random: doubling a number,
// writing to fd 1 and returning, returning a 1 MB string. Every answer is
// checked, and every message strictly parsed. About every -fault-every,
// on each server, a fault is injected, in turn: a pool killed from outside
// by SIGKILL, a function that crashes its pool (SIGSEGV, SIGABRT or an
// exit code), a call that outlives the timeout, a call the client cancels
// with notifications/cancelled, and a client that disconnects mid-call
// (over stdio, a server of its own whose stdin closes with a call in
// flight). A fault must end in a clear error (or no answer for a call
// given up on) and the next call of its language must be right. At most
// three faults a minute kill one pool, below nexus's guard against restart
// loops (five deaths a minute).
//
// Counted: calls, right and wrong answers, errors by kind (expected when
// a fault killed the language's pool while the call was in flight,
// unexpected otherwise), p50 and p99 latency of the right answers, faults
// injected and how they came out, and the resident set, open files and
// threads of each nexus and each pool, and each nexus's goroutines (from
// its profiler, NEXUS_DEBUG_ADDR), at the start, the largest seen, and at
// the end, after the load and a settling pause. Once stopped, no pool
// process nor file may be left of either server.
//
// The report goes to stdout and to -out (docs/soak.md). The exit status
// is 1 on any wrong answer, protocol corruption, unexpected error, fault
// that did not come out right, or leftover. The run is bounded in time
// (-duration plus set-up and settling) and traffic stays on loopback.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nexus-run/nexus/integration/runenv"
)

type config struct {
	nexus        string
	out          string
	duration     time.Duration
	timeout      time.Duration
	faultEvery   time.Duration
	sample       time.Duration
	settle       time.Duration
	stdioWorkers int
	httpWorkers  int
	seed         uint64
}

func main() {
	var c config
	flag.StringVar(&c.nexus, "nexus", "bin/nexus", "the nexus binary to soak")
	flag.StringVar(&c.out, "out", "docs/soak.md", "where to write the report (relative to the repository root); empty for stdout only")
	flag.DurationVar(&c.duration, "duration", 10*time.Minute, "how long the load runs")
	flag.DurationVar(&c.timeout, "timeout", 2*time.Second, "the servers' --timeout, which the timeout fault outlives")
	flag.DurationVar(&c.faultEvery, "fault-every", 3*time.Second, "mean interval between faults, per server")
	flag.DurationVar(&c.sample, "sample", 10*time.Second, "interval between resource samples")
	flag.DurationVar(&c.settle, "settle", 15*time.Second, "pause between the end of the load and the last sample, for abandoned calls to end")
	flag.IntVar(&c.stdioWorkers, "stdio-workers", 4, "callers sharing the stdio connection")
	flag.IntVar(&c.httpWorkers, "http-workers", 4, "HTTP sessions calling at once")
	flag.Uint64Var(&c.seed, "seed", uint64(time.Now().UnixNano()), "seed of the random choices")
	flag.Parse()
	if c.duration <= 0 || c.timeout <= 0 || c.faultEvery <= 0 || c.sample <= 0 || c.settle < 0 ||
		c.stdioWorkers < 1 || c.httpWorkers < 1 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ok, err := run(c, os.Args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(c config, argv []string) (bool, error) {
	began := time.Now()
	// Set-up, the load, settling and stopping, each bounded.
	ctx, cancel := context.WithTimeout(context.Background(), c.duration+c.settle+5*time.Minute)
	defer cancel()
	root, err := runenv.RepoRoot()
	if err != nil {
		return false, err
	}
	if c.nexus, err = filepath.Abs(c.nexus); err != nil {
		return false, err
	}
	if _, err := os.Stat(c.nexus); err != nil {
		return false, fmt.Errorf("%w (build it with `make build`)", err)
	}
	work, err := os.MkdirTemp("", "nexus-soak-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(work)
	launcher, err := runenv.MakeProgram(ctx, c.nexus, filepath.Join(root, "integration", "testdata", "fault"), filepath.Join(work, "prog"), "faults")
	if err != nil {
		return false, err
	}
	e := env{date: began, command: runenv.CommandLine(argv, "./integration/soak", root), rows: runenv.Host(), seed: c.seed}
	e.rows = append(e.rows,
		runenv.Row{"nexus", runenv.Nexus(ctx, c.nexus, root)},
		runenv.Row{"Python pool", runenv.FirstLine(ctx, "python3", "--version")},
		runenv.Row{"C++ pool", runenv.FirstLine(ctx, "g++", "--version")})

	s := &soak{c: c, launcher: launcher, work: work, st: newStats(), hugeWant: jsonString(strings.Repeat("x", hugeMB<<20))}
	corrupt := func(name string) func(error) { return func(err error) { s.st.corrupted(name, err) } }
	for _, t := range []struct {
		name string
		http bool
	}{{"stdio", false}, {"HTTP", true}} {
		srv, err := startServer(ctx, c, launcher, filepath.Join(work, "tmp-"+t.name), t.name, t.http, corrupt(t.name))
		if err != nil {
			return false, err
		}
		defer srv.cmd.Process.Kill() // if anything below fails; a no-op once stopped
		s.servers = append(s.servers, srv)
	}
	// Warm: every pool of every server started, before the first sample.
	for _, srv := range s.servers {
		for _, lang := range langs {
			if o, err := s.call(ctx, srv, "ok_"+lang, 1, time.Minute); err != nil || o.failed || o.text != "2" {
				return false, fmt.Errorf("%s: the first ok_%s: %s", srv.name, lang, describe(o, err))
			}
		}
	}
	r := &results{c: c, env: e}
	for _, srv := range s.servers {
		r.start = append(r.start, srv.snapshot(ctx))
	}
	logf("soaking for %v (seed %d)", c.duration, c.seed)

	load, stopLoad := context.WithTimeout(ctx, c.duration)
	defer stopLoad()
	var wg sync.WaitGroup
	for i, srv := range s.servers {
		workers := c.stdioWorkers
		if srv.client == nil {
			workers = c.httpWorkers
		}
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.worker(load, srv, c.seed+uint64(100*i+w))
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.injector(load, srv, c.seed+uint64(1000+i))
		}()
	}
	r.peak = make([]snapshot, len(s.servers))
	sampleDone := make(chan struct{})
	go func() {
		defer close(sampleDone)
		for {
			for i, srv := range s.servers {
				r.peak[i] = larger(r.peak[i], srv.snapshot(ctx))
			}
			select {
			case <-load.Done():
				return
			case <-time.After(c.sample):
			}
		}
	}()
	wg.Wait()
	<-sampleDone
	logf("load over; settling for %v", c.settle)
	time.Sleep(c.settle)
	for _, srv := range s.servers {
		r.end = append(r.end, srv.snapshot(ctx))
	}
	for _, srv := range s.servers {
		took, err := srv.stop(c.timeout + 30*time.Second)
		r.stops = append(r.stops, took)
		if err != nil {
			r.problems = append(r.problems, err.Error())
		}
		for _, l := range leftovers(srv.tmp) {
			r.problems = append(r.problems, srv.name+": left behind: "+l)
		}
		if srv.client != nil {
			r.late = srv.client.lateReplies()
		}
	}
	r.st = s.st
	r.servers = s.servers
	r.env.elapsed = time.Since(began)

	report := r.report()
	fmt.Print(report)
	if c.out != "" {
		out := c.out
		if !filepath.IsAbs(out) {
			out = filepath.Join(root, out)
		}
		if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
			return false, err
		}
		logf("wrote %s", out)
	}
	if ctx.Err() != nil {
		return false, errors.New("the run went past its bound")
	}
	return r.passed(), nil
}

// logf reports progress on stderr, so that stdout holds the report alone.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "soak: "+format+"\n", args...)
}
