package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/nexus-run/nexus/integration/haproxy"
	"github.com/nexus-run/nexus/integration/runenv"
)

// The replicas part (issue 14): calls/s of MCP 2026-07-28 served without
// sessions, against today's session path on the same nexus and function;
// of nexus replicas behind HAProxy (deploy/haproxy.cfg, as the replica
// test runs it), 3 against 1, and 1 behind HAProxy against the same
// replica called directly (the proxy's own cost); and of the Go SDK's
// server in its stateless mode, directly and behind the same HAProxy, 3
// replicas and 1. Every row is loaded by -sessions clients at once, the
// rounds alternating the rows as the other parts do.

// replicaCount is the replicas of the larger backend: the 3, more
// than this 2-core machine's cores, so that the proxy's spreading, not
// parallelism, is what the row shows.
const replicaCount = 3

// replicaRow is one way of calling one server, and what was measured of it.
type replicaRow struct {
	key       string // for the ratios
	name      string // in the tables
	replicas  int    // behind HAProxy; 0: called directly
	stateless bool   // 2026-07-28 without a session; else legacy sessions
	endpoint  string
	runs      map[string]*series // per function
	errs      []string
}

func (r *replicaRow) fail(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// replicaBench runs the replicas part.
type replicaBench struct {
	c        config
	fns      []*function
	pool     string   // the nexus pool's language, as the report names it
	nexus    []string // the nexus command line serving the program over HTTP on a port it picks
	nexusDir string
	goSDK    []string // the Go SDK's stateless server's command line
	haproxy  string   // its binary
	template string   // deploy/haproxy.cfg
	work     string
	notRun   string // why the part did not run (no HAProxy): no rows, no failure
	failed   string // why the servers or balancers did not start: a failure
	rows     []*replicaRow
}

// replicaPools are the nexus pools -replica-pool may name: the key of the
// peers part's server and the program's folder under servers/nexus.
var replicaPools = map[string]struct{ key, dir, name string }{
	"go":     {"nexus-go", "go", "Go"},
	"cpp":    {"nexus-cpp", "cpp", "C++"},
	"python": {"nexus-py", "python", "Python"},
}

// prepareReplicas finds HAProxy and the nexus program (the peers part's
// build when it ran, else a build of its own). Without HAProxy the part
// is reported as not run rather than failing the run, as the replica test
// skips outside CI.
func prepareReplicas(ctx context.Context, c config, root, work string, b *bench) (*replicaBench, error) {
	pool, ok := replicaPools[c.replicaPool]
	if !ok {
		return nil, fmt.Errorf("-replica-pool %q: want go, cpp or python", c.replicaPool)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	rb := &replicaBench{c: c, fns: functions(c.bigN), pool: pool.name, work: work,
		goSDK:    []string{self, "-serve-gosdk", "http-stateless", "-port", "0"},
		template: filepath.Join(root, "deploy", "haproxy.cfg")}
	if b != nil {
		rb.fns = b.fns
	}
	if rb.haproxy, err = exec.LookPath("haproxy"); err != nil {
		rb.notRun = fmt.Sprintf("haproxy is not installed (scripts/setup.sh installs it): %v", err)
		return rb, nil
	}
	if b != nil {
		if s := b.server(pool.key); s != nil {
			rb.nexus, rb.nexusDir = s.http, s.dir
			return rb, nil
		}
	}
	start := time.Now()
	launcher, err := runenv.MakeProgram(ctx, c.nexus, filepath.Join(root, "integration", "peers", "servers", "nexus", pool.dir),
		filepath.Join(work, "replicas-"+pool.dir), "peers")
	if err != nil {
		return nil, fmt.Errorf("nexus, %s pool: %w", pool.name, err)
	}
	logf("built the %s program with nexus make in %.1f s", pool.name, time.Since(start).Seconds())
	rb.nexus, rb.nexusDir = []string{c.nexus, "mcp", launcher, "--http-port", "0"}, filepath.Dir(launcher)
	return rb, nil
}

// run starts the replicas and the balancers, then measures every row.
func (rb *replicaBench) run(ctx context.Context) {
	if rb.notRun != "" {
		logf("replicas: not run: %s", rb.notRun)
		return
	}
	logf("replicas: %d rounds of %d clients at once, %d calls each (%d of total), per row and function",
		rb.c.rounds, rb.c.sessions, rb.c.replicaCalls, rb.c.replicaBig)
	var stops []func()
	defer func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}()
	// start starts n replicas of argv and a balancer in front of the first
	// one and of all n; it returns their endpoints.
	start := func(what string, argv []string, dir string) (direct, lb1, lbN string, err error) {
		var backends []string
		for i := range replicaCount {
			hs, err := startHTTP(ctx, argv, dir)
			if err != nil {
				return "", "", "", fmt.Errorf("%s replica %d: %w", what, i+1, err)
			}
			stops = append(stops, func() {
				if err := hs.stop(closeGrace); err != nil {
					logf("replicas: stopping %s replica %d: %v", what, i+1, err)
				}
			})
			u, err := url.Parse(hs.endpoint)
			if err != nil {
				return "", "", "", err
			}
			backends = append(backends, u.Host)
			if i == 0 {
				direct = hs.endpoint
			}
		}
		var lbs []string
		for _, n := range []int{1, replicaCount} {
			dir, err := os.MkdirTemp(rb.work, "haproxy-")
			if err != nil {
				return "", "", "", err
			}
			lb, err := haproxy.Start(ctx, rb.haproxy, rb.template, dir, backends[:n], time.Minute)
			if err != nil {
				return "", "", "", fmt.Errorf("HAProxy in front of %d %s replica(s): %w", n, what, err)
			}
			stops = append(stops, func() {
				if err := lb.Stop(closeGrace); err != nil {
					logf("replicas: %v", err)
				}
			})
			lbs = append(lbs, lb.Base+"/mcp")
		}
		return direct, lbs[0], lbs[1], nil
	}
	nexusName := "nexus, " + rb.pool + " pool"
	nDirect, n1, nN, err := start(nexusName, rb.nexus, rb.nexusDir)
	if err != nil {
		rb.failed = err.Error()
		return
	}
	gDirect, g1, gN, err := start("Go SDK", rb.goSDK, rb.work)
	if err != nil {
		rb.failed = err.Error()
		return
	}
	rb.rows = []*replicaRow{
		{key: "nexus-sessions", name: nexusName + ", sessions", endpoint: nDirect},
		{key: "nexus", name: nexusName + ", stateless", stateless: true, endpoint: nDirect},
		{key: "nexus-1", name: nexusName + ", stateless", stateless: true, replicas: 1, endpoint: n1},
		{key: "nexus-n", name: nexusName + ", stateless", stateless: true, replicas: replicaCount, endpoint: nN},
		{key: "gosdk", name: "Go SDK, stateless mode", stateless: true, endpoint: gDirect},
		{key: "gosdk-1", name: "Go SDK, stateless mode", stateless: true, replicas: 1, endpoint: g1},
		{key: "gosdk-n", name: "Go SDK, stateless mode", stateless: true, replicas: replicaCount, endpoint: gN},
	}
	for _, r := range rb.rows {
		r.runs = map[string]*series{}
		if r.stateless {
			c := newHTTPClient(r.endpoint, 1)
			err := c.discover(ctx)
			c.close()
			if err != nil {
				r.fail("%v", err)
				continue
			}
		}
		for _, f := range rb.fns {
			per := max(1, (rb.warm(f)+rb.c.sessions-1)/rb.c.sessions)
			if _, err := rb.load(ctx, r, f, per, 0); err != nil {
				r.fail("warm-up with %s: %v", f.name, err)
				break
			}
		}
	}
	turn := 0
	for round := 0; round < rb.c.rounds; round++ {
		for _, f := range rb.fns {
			calls := rb.calls(f)
			for i := range rb.rows {
				r := rb.rows[(turn+i)%len(rb.rows)]
				if len(r.errs) > 0 || ctx.Err() != nil {
					continue
				}
				l, err := rb.load(ctx, r, f, calls, (round+1)*rb.c.sessions*calls)
				if err != nil {
					r.fail("%s, round %d: %v", f.name, round+1, err)
					continue
				}
				r.runs[f.name] = r.runs[f.name].addRate(float64(l.calls)/l.elapsed.Seconds(), l.lat)
			}
			turn++
		}
	}
}

func (rb *replicaBench) calls(f *function) int {
	if f.big {
		return rb.c.replicaBig
	}
	return rb.c.replicaCalls
}

func (rb *replicaBench) warm(f *function) int {
	if f.big {
		return rb.c.bigWarmUp
	}
	return rb.c.replicaWarmUp
}

// load runs one load of -sessions clients at once against r, statelessly
// or in sessions as r is.
func (rb *replicaBench) load(ctx context.Context, r *replicaRow, f *function, calls, offset int) (load, error) {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	if r.stateless {
		return driveStateless(ctx, r.endpoint, f, rb.c.sessions, calls, offset)
	}
	return drive(ctx, r.endpoint, f, rb.c.sessions, calls, offset)
}

// row is the row of key, or nil.
func (rb *replicaBench) row(key string) *replicaRow {
	for _, r := range rb.rows {
		if r.key == key {
			return r
		}
	}
	return nil
}

// errors are the failures of every row, named.
func (rb *replicaBench) errors() []string {
	var out []string
	if rb.failed != "" {
		out = append(out, "replicas: "+rb.failed)
	}
	for _, r := range rb.rows {
		for _, e := range r.errs {
			out = append(out, fmt.Sprintf("%s (%s): %s", r.name, r.where(), e))
		}
	}
	return out
}

// where says how the row reaches its server.
func (r *replicaRow) where() string {
	switch r.replicas {
	case 0:
		return "direct"
	case 1:
		return "1 replica behind HAProxy"
	default:
		return fmt.Sprintf("%d replicas behind HAProxy", r.replicas)
	}
}
