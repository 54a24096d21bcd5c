package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

var langs = []string{"py", "cpp", "go"}

// The faults, injected in turn on each server at random moments, each on
// a language picked at random.
const (
	faultKill       = "pool SIGKILLed from outside"
	faultCrash      = "function crashes its pool"
	faultTimeout    = "call outlives --timeout"
	faultCancel     = "client cancels (notifications/cancelled)"
	faultDisconnect = "client disconnects mid-call"
)

var faultKinds = []string{faultKill, faultCrash, faultTimeout, faultCancel, faultDisconnect}

// deathBudget is how many faults may kill one pool of one server a
// minute: nexus stops restarting a pool after five deaths a minute (a
// guard against restart loops), and the soak tests faults, not that guard.
const deathBudget = 3

// hugeMB is the size of the large result normal calls ask for now and
// then.
const hugeMB = 1

// soak is one run: the servers, the load and what came of it.
type soak struct {
	c        config
	launcher string
	work     string
	servers  []*server
	st       *stats
	hugeWant string
	// disconnects numbers the throwaway stdio servers of faultDisconnect.
	mu          sync.Mutex
	disconnects int
}

// worker makes normal calls on srv until ctx ends. An HTTP worker has a
// session of its own; stdio workers share the server's one connection.
func (s *soak) worker(ctx context.Context, srv *server, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var call callFunc
	if srv.client != nil {
		call = srv.client.call
	} else {
		sess, err := openSession(ctx, srv.hc, srv.endpoint)
		if err != nil {
			if ctx.Err() == nil {
				s.st.unexpected(srv.name, "open a session: "+normalize(err.Error()), err.Error())
			}
			return
		}
		defer sess.end(context.Background())
		call = sess.call
	}
	for ctx.Err() == nil {
		s.normal(ctx, srv, rng, call)
		time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
	}
}

type callFunc func(ctx context.Context, tool string, arg any) (outcome, error)

// normal makes one call whose right answer is known, and files what came
// of it: right (with its latency), wrong, or an error, expected when a
// fault killed the language's pool while the call was in flight.
func (s *soak) normal(ctx context.Context, srv *server, rng *rand.Rand, call callFunc) {
	lang := langs[rng.IntN(len(langs))]
	var tool, want string
	var arg any
	switch r := rng.IntN(20); {
	case r < 16:
		x := rng.IntN(1_000_000)
		tool, arg, want = "ok_"+lang, x, strconv.Itoa(2*x)
	case r < 19:
		x := rng.IntN(1000)
		tool, arg, want = "chatty_"+lang, x, strconv.Itoa(x)
	default:
		tool, arg, want = "huge_"+lang, hugeMB, s.hugeWant
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, s.c.timeout+30*time.Second)
	o, err := call(cctx, tool, arg)
	cancel()
	end := time.Now()
	if ctx.Err() != nil {
		return // the soak ended, not the call
	}
	s.st.file(srv, lang, tool, start, end, o, err, want)
}

// injector injects a fault on srv every c.faultEvery or so until ctx
// ends, each in a goroutine of its own, and waits for them.
func (s *soak) injector(ctx context.Context, srv *server, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(float64(s.c.faultEvery) * (0.5 + rng.Float64()))):
		}
		kind, lang := faultKinds[i%len(faultKinds)], langs[rng.IntN(len(langs))]
		if kind == faultKill || kind == faultCrash {
			lang = s.underBudget(srv, rng)
			if lang == "" {
				kind, lang = faultTimeout, langs[rng.IntN(len(langs))]
			}
		}
		how := []string{"segv", "abort", "exit"}[rng.IntN(3)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.inject(ctx, srv, kind, lang, how)
		}()
	}
}

// underBudget picks a language whose pool on srv may die once more, or "".
func (s *soak) underBudget(srv *server, rng *rand.Rand) string {
	for _, i := range rng.Perm(len(langs)) {
		if srv.recentDeaths(langs[i], time.Minute) < deathBudget {
			return langs[i]
		}
	}
	return ""
}

// inject runs one fault and checks it came out as it must: a clear error
// (or no answer, for a call given up on), and a server that answers the
// next call of the language right.
func (s *soak) inject(ctx context.Context, srv *server, kind, lang, how string) {
	nap := s.c.timeout.Seconds() * 5 // outlives --timeout, and ends by itself
	var ok bool
	var detail string
	switch kind {
	case faultKill:
		pid := srv.pool(lang)
		if pid == 0 {
			return // not started, or just killed: nothing to inject
		}
		srv.died(lang)
		proc, err := os.FindProcess(pid)
		ok = err == nil && proc.Kill() == nil // SIGKILL
		detail = "SIGKILL to the " + lang + " pool"
	case faultCrash:
		srv.died(lang)
		o, err := s.call(ctx, srv, "crash_"+lang, how, s.c.timeout+30*time.Second)
		ok, detail = err == nil && o.failed && strings.Contains(o.text, "died"), describe(o, err)
	case faultTimeout:
		o, err := s.call(ctx, srv, "nap_"+lang, nap, s.c.timeout+30*time.Second)
		ok, detail = err == nil && o.failed && strings.Contains(o.text, "timed out"), describe(o, err)
	case faultCancel:
		ok, detail = s.cancel(ctx, srv, lang, nap)
	case faultDisconnect:
		if srv.client != nil {
			ok, detail = s.stdioDisconnect(ctx, lang, nap)
		} else {
			// The request's context ends: the client closes the connection.
			_, err := s.call(ctx, srv, "nap_"+lang, nap, 300*time.Millisecond)
			ok, detail = errors.Is(err, context.DeadlineExceeded), describe(outcome{}, err)
		}
	}
	if ctx.Err() != nil {
		return
	}
	// The server still serves: the next call of the language is right
	// (again, if another fault killed the pool meanwhile).
	if kind != faultDisconnect || srv.client == nil {
		for attempt := 0; ; attempt++ {
			x := 1000 + attempt
			start := time.Now()
			o, err := s.call(ctx, srv, "ok_"+lang, x, s.c.timeout+30*time.Second)
			if ctx.Err() != nil {
				return
			}
			if err == nil && !o.failed && o.text == strconv.Itoa(2*x) {
				break
			}
			if attempt < 3 && srv.diedDuring(lang, start, time.Now()) {
				continue
			}
			ok = false
			detail += "; then ok_" + lang + ": " + describe(o, err)
			break
		}
	}
	s.st.fault(srv.name, kind, ok, detail)
}

// call makes one call on a connection of its own kind: the stdio server's
// shared one, or a new HTTP session.
func (s *soak) call(ctx context.Context, srv *server, tool string, arg any, bound time.Duration) (outcome, error) {
	cctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	if srv.client != nil {
		return srv.client.call(cctx, tool, arg)
	}
	sess, err := openSession(ctx, srv.hc, srv.endpoint)
	if err != nil {
		return outcome{}, err
	}
	defer sess.end(context.Background())
	return sess.call(cctx, tool, arg)
}

// cancel starts a nap and cancels it with notifications/cancelled once it
// runs; no answer may come over stdio, and over HTTP the request must end
// (with whatever the server answers, strictly parsed) within the timeout.
func (s *soak) cancel(ctx context.Context, srv *server, lang string, nap float64) (bool, string) {
	if srv.client != nil {
		// stdioClient.request sends notifications/cancelled when its
		// context ends; a reply after that is counted as late.
		_, err := s.call(ctx, srv, "nap_"+lang, nap, 300*time.Millisecond)
		return errors.Is(err, context.DeadlineExceeded), describe(outcome{}, err)
	}
	sess, err := openSession(ctx, srv.hc, srv.endpoint)
	if err != nil {
		return false, describe(outcome{}, err)
	}
	defer sess.end(context.Background())
	const id = 77
	done := make(chan error, 1)
	cctx, cancel := context.WithTimeout(ctx, s.c.timeout+30*time.Second)
	defer cancel()
	go func() {
		r, _, err := sess.postID(cctx, id, "tools/call", callParams("nap_"+lang, nap))
		if err == nil {
			_, err = toolOutcome(r)
		}
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	if err := sess.notify(ctx, "notifications/cancelled", map[string]any{"requestId": id, "reason": "soak: cancelled"}); err != nil {
		return false, "notifications/cancelled: " + err.Error()
	}
	select {
	case err := <-done:
		switch {
		case err == nil, errors.Is(err, errNoReply):
			return true, describe(outcome{}, err)
		case errors.Is(err, errCorrupt):
			s.st.corrupted(srv.name, err)
		}
		return false, describe(outcome{}, err)
	case <-time.After(s.c.timeout + 10*time.Second):
		return false, "the cancelled request did not end"
	}
}

// stdioDisconnect is a client that goes away mid-call over stdio: a
// server of its own, with a nap in flight when its stdin closes. It must
// exit within a few seconds and leave nothing behind.
func (s *soak) stdioDisconnect(ctx context.Context, lang string, nap float64) (bool, string) {
	s.mu.Lock()
	s.disconnects++
	tmp := filepath.Join(s.work, fmt.Sprintf("tmp-disconnect-%d", s.disconnects))
	s.mu.Unlock()
	srv, err := startServer(ctx, s.c, s.launcher, tmp, "stdio", false, func(err error) { s.st.corrupted("stdio", err) })
	if err != nil {
		return false, err.Error()
	}
	if err := srv.client.abandon("tools/call", callParams("nap_"+lang, nap)); err != nil {
		srv.cmd.Process.Kill()
		return false, err.Error()
	}
	time.Sleep(500 * time.Millisecond)
	took, err := srv.stop(s.c.timeout + 30*time.Second)
	if err != nil {
		return false, err.Error()
	}
	if left := leftovers(tmp); len(left) > 0 {
		return false, fmt.Sprintf("left behind: %s", strings.Join(left, ", "))
	}
	s.st.disconnectExit(took)
	return true, fmt.Sprintf("exited %.1f s after stdin closed", took.Seconds())
}

func describe(o outcome, err error) string {
	switch {
	case err != nil:
		return "error: " + err.Error()
	case o.failed:
		return "failed: " + o.text
	}
	return fmt.Sprintf("answered %.80q", o.text)
}

// stats is what the soak counted.
type stats struct {
	mu        sync.Mutex
	transport map[string]*tally
	kinds     map[kindKey]*kindCount
	faults    map[faultKey]*faultCount
	corrupt   []string
	wrong     []string
	exits     []time.Duration // stdio disconnects: stdin closed to exit
}

type tally struct {
	calls, right, wrong, expected, unexpected int
	lat                                       []time.Duration
}

type kindKey struct {
	transport, kind string
	expected        bool
}

type kindCount struct {
	n       int
	example string
}

type faultKey struct{ transport, kind string }

type faultCount struct {
	injected, ok int
	failures     []string
}

func newStats() *stats {
	return &stats{transport: map[string]*tally{}, kinds: map[kindKey]*kindCount{}, faults: map[faultKey]*faultCount{}}
}

func (st *stats) tally(transport string) *tally {
	t := st.transport[transport]
	if t == nil {
		t = &tally{}
		st.transport[transport] = t
	}
	return t
}

// file records one normal call.
func (st *stats) file(srv *server, lang, tool string, start, end time.Time, o outcome, err error, want string) {
	switch {
	case errors.Is(err, errCorrupt):
		st.corrupted(srv.name, err)
	case err != nil:
		st.unexpected(srv.name, "no answer: "+normalize(err.Error()), err.Error())
	case o.failed && srv.diedDuring(lang, start, end):
		st.count(srv.name, normalize(o.text), o.text, true)
	case o.failed:
		st.unexpected(srv.name, normalize(o.text), o.text)
	case o.text != want:
		st.mu.Lock()
		defer st.mu.Unlock()
		t := st.tally(srv.name)
		t.calls++
		t.wrong++
		if len(st.wrong) < 20 {
			st.wrong = append(st.wrong, fmt.Sprintf("%s: %s answered %.100q (%d bytes), want %.100q", srv.name, tool, o.text, len(o.text), want))
		}
	default:
		st.mu.Lock()
		defer st.mu.Unlock()
		t := st.tally(srv.name)
		t.calls++
		t.right++
		t.lat = append(t.lat, end.Sub(start))
	}
}

func (st *stats) unexpected(transport, kind, example string) {
	st.count(transport, kind, example, false)
}

func (st *stats) count(transport, kind, example string, expected bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.tally(transport)
	t.calls++
	if expected {
		t.expected++
	} else {
		t.unexpected++
	}
	k := kindKey{transport, kind, expected}
	if st.kinds[k] == nil {
		st.kinds[k] = &kindCount{example: example}
	}
	st.kinds[k].n++
}

func (st *stats) corrupted(transport string, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.corrupt) < 20 {
		st.corrupt = append(st.corrupt, transport+": "+err.Error())
	} else {
		st.corrupt = append(st.corrupt[:20], "(and more)")
	}
}

func (st *stats) fault(transport, kind string, ok bool, detail string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	k := faultKey{transport, kind}
	f := st.faults[k]
	if f == nil {
		f = &faultCount{}
		st.faults[k] = f
	}
	f.injected++
	if ok {
		f.ok++
	} else if len(f.failures) < 5 {
		f.failures = append(f.failures, detail)
	}
}

func (st *stats) disconnectExit(d time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.exits = append(st.exits, d)
}

var (
	numbers = regexp.MustCompile(`\d+(\.\d+)?`)
	quoted  = regexp.MustCompile(`"[^"]*"`)
)

// normalize turns an error message into its kind: numbers and quoted
// values out, the first line only, bounded.
func normalize(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	msg = quoted.ReplaceAllString(numbers.ReplaceAllString(msg, "N"), `"…"`)
	if len(msg) > 160 {
		msg = msg[:160] + "…"
	}
	return msg
}

func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
