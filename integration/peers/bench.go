package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/nexus-run/nexus/integration/stepprofile"
)

// bench runs the three measurements over every server.
type bench struct {
	c       config
	fns     []*function
	servers []*server
}

// Bounds on single steps, so that one server that stops answering fails
// its own measurement and the run goes on with the others.
const (
	stepTimeout = 3 * time.Minute
	closeGrace  = 10 * time.Second
)

// rotated is the servers in the order of turn t: each turn starts one
// server later, so that none is always first after a pause or last.
func (b *bench) rotated(t int) []*server {
	n := len(b.servers)
	out := make([]*server, n)
	for i := range out {
		out[i] = b.servers[(t+i)%n]
	}
	return out
}

// coldStarts spawns every server -cold times per function: process start,
// initialize, notifications/initialized, one tools/call answered. Setting
// up nothing in advance, as a client starting the server does.
func (b *bench) coldStarts(ctx context.Context) {
	logf("cold starts: %d per server and function", b.c.cold)
	turn := 0
	for i := 0; i < b.c.cold; i++ {
		for _, f := range b.fns {
			for _, s := range b.rotated(turn) {
				if s.failed["cold"] || ctx.Err() != nil {
					continue
				}
				d, err := coldStart(ctx, s, f)
				if err != nil {
					s.fail("cold", "cold start calling %s: %v", f.name, err)
					continue
				}
				s.cold[f.name] = append(s.cold[f.name], d)
			}
			turn++
		}
	}
}

func coldStart(ctx context.Context, s *server, f *function) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	start := time.Now()
	conn, err := startStdio(s.stdio, s.dir)
	if err != nil {
		return 0, err
	}
	defer conn.close(closeGrace)
	defer conn.guard(ctx)()
	if err := conn.handshake(); err != nil {
		return 0, err
	}
	text, err := conn.call(f.name, f.args(0))
	if err != nil {
		return 0, err
	}
	d := time.Since(start)
	return d, f.want(0, text)
}

// stdioPhase starts every server over stdio once, warms it up, and then
// makes, in each round, the sequential calls of each function to each
// server in turn.
func (b *bench) stdioPhase(ctx context.Context) {
	logf("stdio: %d rounds of %d sequential calls (%d of total) per server and function", b.c.rounds, b.c.stdioCalls, b.c.stdioBigCalls)
	conns := map[*server]*stdioConn{}
	for _, s := range b.servers {
		conn, err := openStdio(ctx, s.stdio, s.dir, b.fns)
		if err != nil {
			s.fail("stdio", "%v", err)
			continue
		}
		conns[s] = conn
	}
	defer func() {
		for s, conn := range conns {
			s.memStdio = treePeak(conn.cmd.Process.Pid)
			if err := conn.close(closeGrace); err != nil {
				s.fail("stdio", "closing: %v", err)
			}
		}
	}()
	for _, s := range b.servers {
		for _, f := range b.fns {
			if conn := conns[s]; conn != nil && !s.failed["stdio"] {
				if _, err := sequential(ctx, conn, f, b.warm(f), 0); err != nil {
					s.fail("stdio", "warm-up with %s: %v", f.name, err)
				}
			}
		}
	}
	turn := 0
	for r := 0; r < b.c.rounds; r++ {
		for _, f := range b.fns {
			n := b.c.stdioCalls
			if f.big {
				n = b.c.stdioBigCalls
			}
			for _, s := range b.rotated(turn) {
				conn := conns[s]
				if conn == nil || s.failed["stdio"] || ctx.Err() != nil {
					continue
				}
				lat, err := sequential(ctx, conn, f, n, b.warm(f)+r*n)
				if err != nil {
					s.fail("stdio", "%s, round %d: %v", f.name, r+1, err)
					continue
				}
				s.seq[f.name] = s.seq[f.name].add(lat)
			}
			turn++
		}
	}
}

func (b *bench) warm(f *function) int {
	if f.big {
		return b.c.bigWarmUp
	}
	return b.c.warmUp
}

// openStdio starts argv in dir over stdio, initializes the session and
// checks that tools/list has every one of fns.
func openStdio(ctx context.Context, argv []string, dir string, fns []*function) (*stdioConn, error) {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	conn, err := startStdio(argv, dir)
	if err != nil {
		return nil, err
	}
	defer conn.guard(ctx)()
	err = conn.handshake()
	if err == nil {
		var res []byte
		if res, err = conn.roundTrip("tools/list", nil); err == nil {
			err = checkTools(res, fns)
		}
	}
	if err != nil {
		conn.close(closeGrace)
		return nil, err
	}
	return conn, nil
}

// sequential makes n calls of f, numbered from first on, one after the
// other, checking each answer, and returns each call's latency.
func sequential(ctx context.Context, conn *stdioConn, f *function, n, first int) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	defer conn.guard(ctx)()
	lat := make([]time.Duration, n)
	for i := range lat {
		start := time.Now()
		text, err := conn.call(f.name, f.args(first+i))
		lat[i] = time.Since(start)
		if err == nil {
			err = f.want(first+i, text)
		}
		if err != nil {
			return nil, err
		}
	}
	return lat, nil
}

// httpPhase starts every server over Streamable HTTP once, warms it up, and
// then runs, in each round, the load of -sessions sessions at once of each
// function against each server in turn.
func (b *bench) httpPhase(ctx context.Context) {
	logf("HTTP: %d rounds of %d sessions at once, %d calls each (%d of total), per server and function",
		b.c.rounds, b.c.sessions, b.c.httpCalls, b.c.httpBigCalls)
	srvs := map[*server]*httpServer{}
	for _, s := range b.servers {
		hs, err := startHTTP(ctx, s.http, s.dir)
		if err != nil {
			s.fail("http", "starting: %v", err)
			continue
		}
		srvs[s] = hs
	}
	defer func() {
		for s, hs := range srvs {
			s.memHTTP = treePeak(hs.cmd.Process.Pid)
			if err := hs.stop(closeGrace); err != nil {
				s.fail("http", "stopping: %v", err)
			}
		}
	}()
	calls := func(f *function) int {
		if f.big {
			return b.c.httpBigCalls
		}
		return b.c.httpCalls
	}
	for _, s := range b.servers {
		for _, f := range b.fns {
			if hs := srvs[s]; hs != nil && !s.failed["http"] {
				per := max(1, (b.warm(f)+b.c.sessions-1)/b.c.sessions)
				if _, err := b.load(ctx, hs, f, per, 0); err != nil {
					s.fail("http", "warm-up with %s: %v", f.name, err)
				}
			}
		}
	}
	turn := 0
	for r := 0; r < b.c.rounds; r++ {
		for _, f := range b.fns {
			for _, s := range b.rotated(turn) {
				hs := srvs[s]
				if hs == nil || s.failed["http"] || ctx.Err() != nil {
					continue
				}
				l, err := b.load(ctx, hs, f, calls(f), (r+1)*b.c.sessions*calls(f))
				if err != nil {
					s.fail("http", "%s, round %d: %v", f.name, r+1, err)
					continue
				}
				s.conc[f.name] = s.conc[f.name].addRate(float64(l.calls)/l.elapsed.Seconds(), l.lat)
			}
			turn++
		}
	}
}

func (b *bench) load(ctx context.Context, hs *httpServer, f *function, calls, offset int) (load, error) {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	l, err := drive(ctx, hs.endpoint, f, b.c.sessions, calls, offset)
	if err != nil {
		if s := hs.stderr.String(); s != "" {
			err = fmt.Errorf("%w\nserver stderr (the end):\n%s", err, s)
		}
	}
	return l, err
}

// add records a round of sequential calls.
func (s *series) add(lat []time.Duration) *series {
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	return s.addRate(float64(len(lat))/sum.Seconds(), lat)
}

func (s *series) addRate(rate float64, lat []time.Duration) *series {
	if s == nil {
		s = &series{}
	}
	s.rates = append(s.rates, rate)
	s.lat = append(s.lat, lat...)
	return s
}

// rate is the median of the rounds' calls/s.
func (s *series) rate() float64 {
	r := append([]float64(nil), s.rates...)
	sort.Float64s(r)
	if n := len(r); n%2 == 0 {
		return (r[n/2-1] + r[n/2]) / 2
	}
	return r[len(r)/2]
}

// percentile is the q-quantile of the latencies of all rounds.
func (s *series) percentile(q float64) time.Duration {
	return quantile(s.lat, q)
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := append([]time.Duration(nil), ds...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a] < sorted[b] })
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// medianDuration is the median (the mean of the middle two of an even count).
func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := append([]time.Duration(nil), ds...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a] < sorted[b] })
	n := len(sorted)
	if n%2 == 0 {
		return (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return sorted[n/2]
}

// stepsPhase profiles each nexus row's cold start step by step and the
// stages of a small call (package stepprofile), alternating the nexus and
// the -baseline one start by start when both run: where the time of the
// cold start and of a small call goes.
func (b *bench) stepsPhase(ctx context.Context) {
	logf("steps: %d starts per nexus row, each then %d rounds of the stages of a small call", b.c.cold, b.c.stageCalls)
	for _, s := range b.servers {
		if s.peer || s.baseline || s.key == tracedKey || ctx.Err() != nil {
			continue
		}
		profiles, err := stepprofile.Run(stepprofile.Config{Nexus: []string{s.stdio[0]}, Prog: s.stdio[2],
			Tool: "trivial", Args: json.RawMessage(`{"x":1}`), Starts: b.c.cold, Calls: b.c.stageCalls, Stages: true})
		if err != nil {
			s.errs = append(s.errs, fmt.Sprintf("steps profile: %v", err))
			continue
		}
		s.steps = &profiles[0]
	}
}
