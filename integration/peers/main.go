// Command peers is the peer benchmark: nexus against MCP servers written by
// hand with the usual libraries, on the same three functions in one run.
//
//	go run ./integration/peers -nexus bin/nexus    # what `make peers` runs
//
// The peers, each a small server written for the benchmark in its own
// language (integration/peers/servers): FastMCP (Python, from PyPI, in a
// private venv this command creates on first run), the official TypeScript
// SDK's McpServer (Node, `npm ci` on first run) and the official Go SDK's
// server (this binary re-executed: no pool, no second process, the ceiling
// for a server that has no pools). Nexus serves the same functions written
// in Python, Go and C++ (integration/peers/servers/nexus), each program
// built with `nexus make` and served by `nexus mcp`.
//
// The functions: `trivial :: Int -> Int` (the identity), `shout :: Str ->
// Str` (reversed and upper-cased) and `total :: [Real] -> Real` (the sum of
// 100,000 reals, about 2 MB of JSON per call). Every server answers one
// text block holding the compact JSON of the value; every answer is
// checked.
//
// Measured for each server and function: cold start over stdio (process
// start to the first tools/call answered, the median of -cold spawns),
// sequential calls/s over stdio with p50 and p99, calls/s over Streamable
// HTTP with -sessions sessions at once with p50 and p99, and the peak memory
// of the server with all its descendants (pools, interpreters). The
// measurements are made in -rounds rounds that alternate the servers, so
// that machine noise hits every server alike; rates are the median of the
// rounds, latencies are percentiles of all the rounds' calls.
//
// The client is our own lean JSON-RPC client (stdio.go, http.go), the same
// code for every server: an SDK client's own JSON work per call would
// dominate at these rates and hide the servers' differences.
//
// A second part, the proxies (proxies.go, issue 13), measures hops rather
// than servers: the same client calls server-everything's echo and get-sum
// directly over stdio and through nexus (a program re-exporting them,
// servers/nexus/proxy), FastMCP's own proxy (servers/fastmcp_proxy.py) and
// a minimal Go SDK proxy (this binary re-executed with -serve-gosdk-proxy),
// each over stdio and over HTTP, and reports the latency each hop adds. A
// nexus that cannot build that program yet has its rows reported as not
// built rather than failing the run.
//
// A third part, the replicas (replicas.go, issue 14), measures MCP
// 2026-07-28 served without sessions: calls/s of nexus (-replica-pool)
// answering stateless requests against its session path on the same
// function; of 3 nexus replicas behind HAProxy (deploy/haproxy.cfg, run by
// integration/haproxy as the replica test runs it) against 1 behind it and
// against 1 called directly; and of the Go SDK's server in its stateless
// mode, directly and behind the same HAProxy, 3 replicas and 1. Without
// HAProxy the part is reported as not run. -only runs one part.
//
// One more nexus row, "nexus, Go pool, tracing on" (tracing.go, issue
// 18), serves the Go program with OpenTelemetry tracing on, exporting to
// an OTLP receiver in this process; the report sets it against the Go row
// (tracing off, the default) of the same rounds.
//
// With -baseline BIN, an earlier nexus serves the same programs (built
// with it) as rows of their own in the same rounds, and the report adds
// each nexus row against its baseline: a change's before and after,
// measured side by side. The goals of issues #6 and #15 are checked on
// the nexus rows.
//
// The report goes to stdout and to -out (docs/benchmarks.md). The run is
// bounded by -deadline; traffic goes to loopback only.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nexus-run/nexus/integration/runenv"
)

// config is what the flags set.
type config struct {
	nexus      string
	baseline   string // -baseline: an earlier nexus measured beside it
	out        string
	deadline   time.Duration
	rounds     int
	cold       int
	stageCalls int // -stage-calls
	sessions   int
	servers    string // -servers
	only       string // -only: the part to run

	stdioCalls, stdioBigCalls int // sequential calls per round over stdio
	httpCalls, httpBigCalls   int // calls per session per round over HTTP
	warmUp, bigWarmUp         int // calls before measuring, per server and function
	bigN                      int // length of total's list

	proxyCalls     int // sequential calls per round and tool, proxies part
	proxyHTTPCalls int // calls per HTTP session per round, proxies part
	proxyWarmUp    int // calls before measuring, per row and tool
	proxyStep      time.Duration

	replicaPool   string // the nexus pool of the replicas part
	replicaCalls  int    // calls per client per round of trivial and shout, replicas part
	replicaBig    int    // calls per client per round of total, replicas part
	replicaWarmUp int    // calls before measuring, per row and function, replicas part
}

func main() {
	var c config
	flag.StringVar(&c.nexus, "nexus", "bin/nexus", "the nexus binary to measure")
	flag.StringVar(&c.baseline, "baseline", "", "peers part: an earlier nexus `binary` to measure beside -nexus in the same rounds (its own programs built with it), reported as before and after")
	flag.StringVar(&c.out, "out", "docs/benchmarks.md", "where to write the report (relative to the repository root); empty for stdout only")
	flag.DurationVar(&c.deadline, "deadline", 10*time.Minute, "bound on the whole run, set-up included")
	flag.IntVar(&c.rounds, "rounds", 5, "rounds of the stdio and HTTP measurements, alternating the servers")
	flag.IntVar(&c.cold, "cold", 5, "cold starts per server and function (and per nexus of the steps profile)")
	flag.IntVar(&c.stageCalls, "stage-calls", 500, "rounds of the stages of a small call per start, in the steps profile")
	flag.IntVar(&c.sessions, "sessions", 16, "HTTP sessions at once")
	flag.IntVar(&c.stdioCalls, "stdio-calls", 1000, "sequential stdio calls per round of trivial and of shout")
	flag.IntVar(&c.stdioBigCalls, "stdio-big-calls", 12, "sequential stdio calls per round of total (about 2 MB each)")
	flag.IntVar(&c.httpCalls, "http-calls", 60, "calls per HTTP session per round of trivial and of shout")
	flag.IntVar(&c.httpBigCalls, "http-big-calls", 3, "calls per HTTP session per round of total")
	flag.IntVar(&c.warmUp, "warm-up", 1000, "calls to each server before measuring trivial and shout (node's JIT and every lazy set-up)")
	flag.IntVar(&c.bigWarmUp, "big-warm-up", 5, "calls to each server before measuring total")
	flag.IntVar(&c.bigN, "n", 100_000, "length of total's list of reals")
	flag.StringVar(&c.servers, "servers", "", "comma-separated server keys to run (peers: fastmcp,ts,gosdk,nexus-py,nexus-go,nexus-cpp,nexus-go-traced; proxies: direct,nexus-proxy,gosdk-proxy,fastmcp-proxy); empty for all")
	flag.StringVar(&c.only, "only", "", "run one part only: `peers`, proxies or replicas; empty for all")
	flag.IntVar(&c.proxyCalls, "proxy-calls", 500, "proxies part: sequential calls per round of each tool, over stdio and over HTTP")
	flag.IntVar(&c.proxyHTTPCalls, "proxy-http-calls", 30, "proxies part: calls per HTTP session per round, with -sessions sessions at once")
	flag.IntVar(&c.proxyWarmUp, "proxy-warm-up", 500, "proxies part: calls to each row and tool before measuring")
	flag.DurationVar(&c.proxyStep, "proxy-step", 1500*time.Millisecond, "proxies part: bound on a row's sequential calls of one tool in one round (twice that for its warm-up); a slower row makes fewer calls")
	flag.StringVar(&c.replicaPool, "replica-pool", "go", "replicas part: the nexus pool serving the functions, `go`, cpp or python")
	flag.IntVar(&c.replicaCalls, "replica-calls", 100, "replicas part: calls per client per round of trivial and of shout, with -sessions clients at once")
	flag.IntVar(&c.replicaBig, "replica-big-calls", 2, "replicas part: calls per client per round of total (the Go SDK answers a few a second)")
	flag.IntVar(&c.replicaWarmUp, "replica-warm-up", 500, "replicas part: calls to each row before measuring trivial and shout (-big-warm-up of total)")
	serve := flag.String("serve-gosdk", "", "internal: serve the Go SDK peer over `stdio`, `http` or http-stateless")
	serveProxy := flag.String("serve-gosdk-proxy", "", "internal: serve the Go SDK proxy of server-everything over `stdio` or `http`")
	everything := flag.String("everything", "", "internal: the mcp-server-everything command of -serve-gosdk-proxy")
	port := flag.Int("port", 0, "internal: the HTTP port of -serve-gosdk http and -serve-gosdk-proxy http")
	flag.Parse()
	if *serve != "" || *serveProxy != "" {
		var err error
		if *serve != "" {
			err = serveGoSDK(*serve, *port)
		} else {
			err = serveGoSDKProxy(*serveProxy, *port, *everything)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "peers:", err)
			os.Exit(1)
		}
		return
	}
	if c.rounds < 1 || c.cold < 1 || c.sessions < 1 || c.stdioCalls < 1 || c.stdioBigCalls < 1 ||
		c.httpCalls < 1 || c.httpBigCalls < 1 || c.stageCalls < 1 || c.warmUp < 0 || c.bigWarmUp < 0 || c.bigN < 1 ||
		c.proxyCalls < 1 || c.proxyHTTPCalls < 1 || c.proxyWarmUp < 0 || c.proxyStep <= 0 ||
		c.replicaCalls < 1 || c.replicaBig < 1 || c.replicaWarmUp < 0 ||
		(c.only != "" && c.only != "peers" && c.only != "proxies" && c.only != "replicas") || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.deadline)
	defer cancel()
	if err := run(ctx, c, os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config, argv []string) error {
	began := time.Now()
	root, err := runenv.RepoRoot()
	if err != nil {
		return err
	}
	if c.nexus, err = filepath.Abs(c.nexus); err != nil {
		return err
	}
	if _, err := os.Stat(c.nexus); err != nil {
		return fmt.Errorf("%w (build it with `make build`)", err)
	}
	if c.baseline != "" {
		if c.baseline, err = filepath.Abs(c.baseline); err != nil {
			return err
		}
		if _, err := os.Stat(c.baseline); err != nil {
			return fmt.Errorf("-baseline: %w", err)
		}
	}
	work, err := os.MkdirTemp("", "nexus-peers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	var b *bench
	var pb *proxyBench
	var rb *replicaBench
	if c.only == "" || c.only == "peers" {
		servers, err := prepare(ctx, c, root, work)
		if err != nil {
			return err
		}
		if len(servers) > 0 {
			b = &bench{c: c, fns: functions(c.bigN), servers: servers}
		}
	}
	if c.only == "" || c.only == "proxies" {
		if pb, err = prepareProxies(ctx, c, root, work); err != nil {
			return err
		}
		if len(pb.proxies) == 0 {
			pb = nil
		}
	}
	if c.only == "" || c.only == "replicas" {
		if rb, err = prepareReplicas(ctx, c, root, work, b); err != nil {
			return err
		}
	}
	if b == nil && pb == nil && rb == nil {
		return fmt.Errorf("-servers %q names no server of the part run", c.servers)
	}
	// What the machine and software are, read before measuring: the
	// sources may change while the run goes on.
	env := describeEnv(ctx, c, root, b, pb)
	if rb != nil && rb.haproxy != "" {
		env.rows = append(env.rows, [2]string{"HAProxy", runenv.FirstLine(ctx, rb.haproxy, "-v") + " (Debian's), configured by deploy/haproxy.cfg"})
	}
	logf("set up in %.1f s", time.Since(began).Seconds())
	var phases []func(context.Context)
	if b != nil {
		logf("the peers part: measuring %d servers", len(b.servers))
		phases = append(phases, b.coldStarts, b.stdioPhase, b.httpPhase, b.stepsPhase)
	}
	if pb != nil {
		phases = append(phases, pb.run)
	}
	if rb != nil {
		phases = append(phases, rb.run)
	}
	for _, phase := range phases {
		start := time.Now()
		phase(ctx)
		logf("  took %.0f s", time.Since(start).Seconds())
	}

	env.command = runenv.CommandLine(argv, "./integration/peers", root)
	env.date = began
	env.elapsed = time.Since(began)
	report := report(env, b, pb, rb)
	fmt.Print(report)
	if c.out != "" {
		out := c.out
		if !filepath.IsAbs(out) {
			out = filepath.Join(root, out)
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
			return err
		}
		logf("wrote %s", out)
	}
	var errs []error
	if b != nil {
		for _, s := range b.servers {
			for _, e := range s.errs {
				errs = append(errs, fmt.Errorf("%s: %s", s.name, e))
			}
		}
	}
	if pb != nil {
		for _, e := range pb.errors() {
			errs = append(errs, errors.New(e))
		}
	}
	if rb != nil {
		for _, e := range rb.errors() {
			errs = append(errs, errors.New(e))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d failure(s):\n%w", len(errs), errors.Join(errs...))
	}
	return nil
}

// logf reports progress on stderr, so that stdout holds the report alone.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "peers: "+format+"\n", args...)
}
