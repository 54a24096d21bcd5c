package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nexus-run/nexus/integration/runenv"
)

// The proxies part: server-everything's echo and get-sum called by the
// same lean client directly (over stdio: its HTTP mode listens on every
// interface, which nothing here may do) and through each proxy, nexus
// (a .loc program re-exporting the two tools), FastMCP's own proxy and a
// minimal Go SDK proxy, each served over stdio and over Streamable HTTP on
// loopback and talking stdio to a server-everything of its own. Every row
// runs at once and the rounds alternate them, as in the peers part.

// proxy is one way of reaching server-everything, and the rows it has.
type proxy struct {
	key  string // for -servers
	name string // in the tables
	dir  string // working directory
	// stdio and http are its command lines; http serves on a port it
	// picks; nil: no such row.
	stdio, http []string
	fns         []*function // echo and get-sum, as this server names them
	notBuilt    string      // why the nexus program could not be built: no rows
}

// proxyRow is one proxy over one transport, and what was measured of it.
type proxyRow struct {
	p         *proxy
	transport string // "stdio" or "HTTP"
	conn      *stdioConn
	hs        *httpServer
	seq       []*series // sequential calls, per tool of p.fns
	conc      []*series // HTTP: -sessions sessions at once, per tool
	mem       memPeak
	errs      []string
}

func (r *proxyRow) name() string { return r.p.name + ", " + r.transport }

func (r *proxyRow) fail(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// proxyBench runs the proxies part.
type proxyBench struct {
	c       config
	proxies []*proxy
	rows    []*proxyRow
}

// prepareProxies finds server-everything, installs FastMCP (the first run
// only), builds the nexus program, and returns the proxies part with its
// rows, the direct calls first. A nexus program that does not build is no
// failure of the run: its rows are left out and the report says why.
func prepareProxies(ctx context.Context, c config, root, work string) (*proxyBench, error) {
	peers := filepath.Join(root, "integration", "peers")
	bin := filepath.Join(root, "integration", "mcpservers", "node_modules", ".bin")
	everything := filepath.Join(bin, "mcp-server-everything")
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	all := []*proxy{
		{key: "direct", name: "direct", stdio: []string{everything, "stdio"}},
		{key: "nexus-proxy", name: "nexus"},
		{key: "gosdk-proxy", name: "Go SDK proxy",
			stdio: []string{self, "-serve-gosdk-proxy", "stdio", "-everything", everything},
			http:  []string{self, "-serve-gosdk-proxy", "http", "-port", "0", "-everything", everything}},
		{key: "fastmcp-proxy", name: "FastMCP proxy"},
	}
	pb := &proxyBench{c: c}
	for _, p := range all {
		if selected(c.servers, p.key) {
			p.dir, p.fns = work, proxyFunctions("get-sum")
			pb.proxies = append(pb.proxies, p)
		}
	}
	if len(pb.proxies) == 0 {
		return pb, nil
	}
	if _, err := os.Stat(everything); err != nil {
		return nil, fmt.Errorf("server-everything: %w (`make setup` installs it)", err)
	}
	for _, p := range pb.proxies {
		switch p.key {
		case "fastmcp-proxy":
			if p.stdio, p.http, err = fastmcpCommands(ctx, peers, "fastmcp_proxy.py", everything); err != nil {
				return nil, err
			}
		case "nexus-proxy":
			// The program names server-everything by its command, found on
			// the PATH nexus starts it with, which is ours.
			os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			start := time.Now()
			launcher, err := runenv.MakeProgram(ctx, c.nexus, filepath.Join(peers, "servers", "nexus", "proxy"), filepath.Join(work, "proxy"), "proxy")
			if err != nil {
				p.notBuilt = buildFailure(err)
				logf("nexus: not built (%s)", p.notBuilt)
				continue
			}
			logf("built the proxy program with nexus make in %.1f s", time.Since(start).Seconds())
			p.dir, p.fns = filepath.Dir(launcher), proxyFunctions("getSum")
			p.stdio = []string{c.nexus, "mcp", launcher}
			p.http = []string{c.nexus, "mcp", launcher, "--http-port", "0"}
		}
	}
	for _, p := range pb.proxies {
		if p.notBuilt != "" {
			continue
		}
		for _, t := range []string{"stdio", "HTTP"} {
			if t == "HTTP" && p.http == nil {
				continue
			}
			pb.rows = append(pb.rows, &proxyRow{p: p, transport: t,
				seq: make([]*series, len(p.fns)), conc: make([]*series, len(p.fns))})
		}
	}
	return pb, nil
}

// selected says whether -servers (a comma-separated list, empty for all)
// names key.
func selected(servers, key string) bool {
	return servers == "" || strings.Contains(","+servers+",", ","+key+",")
}

// buildFailure is what nexus make said, on one line: the lines of its
// output (after the one naming the command) joined, cut to 500 bytes.
func buildFailure(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	if len(lines) > 1 {
		lines = lines[1:]
	}
	s := strings.Join(lines, "; ")
	if len(s) > 500 {
		s = s[:500] + "..."
	}
	return s
}

// run starts every row, warms each up, makes the rounds, and stops them.
func (pb *proxyBench) run(ctx context.Context) {
	c := pb.c
	logf("proxies: %d rows; %d rounds of %d sequential calls per row and tool, and over HTTP %d sessions at once of %d calls each",
		len(pb.rows), c.rounds, c.proxyCalls, c.sessions, c.proxyHTTPCalls)
	for _, r := range pb.rows {
		pb.start(ctx, r)
	}
	defer func() {
		for _, r := range pb.rows {
			pb.stop(r)
		}
	}()
	for _, r := range pb.rows {
		for i, f := range r.p.fns {
			if len(r.errs) == 0 && ctx.Err() == nil {
				if _, err := r.sequential(ctx, f, c.proxyWarmUp, 0, 2*c.proxyStep); err != nil {
					r.fail("warm-up with %s: %v", proxyTools[i], err)
				}
			}
		}
	}
	turn := 0
	n := len(pb.rows)
	for round := 0; round < c.rounds; round++ {
		for i := range proxyTools {
			for k := range pb.rows {
				r := pb.rows[(turn+k)%n]
				if len(r.errs) > 0 || ctx.Err() != nil {
					continue
				}
				f := r.p.fns[i]
				lat, err := r.sequential(ctx, f, c.proxyCalls, c.proxyWarmUp+round*c.proxyCalls, c.proxyStep)
				if err != nil {
					r.fail("%s, round %d: %v", proxyTools[i], round+1, err)
					continue
				}
				r.seq[i] = r.seq[i].add(lat)
			}
			for k := range pb.rows {
				r := pb.rows[(turn+k)%n]
				if r.hs == nil || len(r.errs) > 0 || ctx.Err() != nil {
					continue
				}
				f := r.p.fns[i]
				l, err := drive(ctx, r.hs.endpoint, f, c.sessions, c.proxyHTTPCalls, round*c.sessions*c.proxyHTTPCalls)
				if err != nil {
					r.fail("%s, %d sessions at once, round %d: %v", proxyTools[i], c.sessions, round+1, err)
					continue
				}
				r.conc[i] = r.conc[i].addRate(float64(l.calls)/l.elapsed.Seconds(), l.lat)
			}
			turn++
		}
	}
}

// start starts the row's server: over stdio with the session initialized
// and its tools checked, over HTTP once it prints its address.
func (pb *proxyBench) start(ctx context.Context, r *proxyRow) {
	var err error
	if r.transport == "stdio" {
		r.conn, err = openStdio(ctx, r.p.stdio, r.p.dir, r.p.fns)
	} else {
		r.hs, err = startHTTP(ctx, r.p.http, r.p.dir)
	}
	if err != nil {
		r.fail("starting: %v", err)
	}
}

// stop reads the peak memory of the row's server with its descendants
// (server-everything among them) and stops it.
func (pb *proxyBench) stop(r *proxyRow) {
	switch {
	case r.conn != nil:
		r.mem = treePeak(r.conn.cmd.Process.Pid)
		if err := r.conn.close(closeGrace); err != nil {
			r.fail("closing: %v", err)
		}
	case r.hs != nil:
		r.mem = treePeak(r.hs.cmd.Process.Pid)
		if err := r.hs.stop(closeGrace); err != nil {
			r.fail("stopping: %v", err)
		}
	}
}

// sequential makes up to n calls of f one after the other, numbered from
// first on, over the row's transport (over HTTP in one session), and
// returns each call's latency. It makes no new call once budget has passed:
// a proxy a hundred times slower than another would otherwise take the run
// a hundred times as long.
func (r *proxyRow) sequential(ctx context.Context, f *function, n, first int, budget time.Duration) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	var call func(i int) (string, error)
	if r.conn != nil {
		defer r.conn.guard(ctx)()
		call = func(i int) (string, error) { return r.conn.call(f.name, f.args(i)) }
	} else {
		c := newHTTPClient(r.hs.endpoint, 1)
		defer c.close()
		s, err := c.open(ctx)
		if err != nil {
			return nil, fmt.Errorf("opening a session: %w", err)
		}
		defer s.end(ctx)
		call = func(i int) (string, error) { return s.call(ctx, f.name, f.args(i)) }
	}
	lat := make([]time.Duration, 0, n)
	began := time.Now()
	for i := first; i < first+n && (i == first || time.Since(began) < budget); i++ {
		start := time.Now()
		text, err := call(i)
		lat = append(lat, time.Since(start))
		if err == nil {
			err = f.want(i, text)
		}
		if err != nil {
			return nil, err
		}
	}
	return lat, nil
}

// errors are the failures of every row, named.
func (pb *proxyBench) errors() []string {
	var out []string
	for _, r := range pb.rows {
		for _, e := range r.errs {
			out = append(out, r.name()+": "+e)
		}
	}
	return out
}
