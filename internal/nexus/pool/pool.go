// Package pool supervises a program's pools: one worker process per
// language, started through hashicorp/go-plugin and called over gRPC.
//
// A Supervisor starts a pool when a call first needs it (or eagerly, with
// Start), notices when it dies, starts it again on the next call unless it
// keeps dying, replaces it when it is clogged by calls nobody waits for or
// stops answering (see abandon.go), and stops every pool on Close, leaving
// no process, socket or temporary folder behind. The pools' stderr is copied, line by line,
// unmodified to a writer of the caller's choice or as records to its
// logger (stderr.go); their stdout is the go-plugin handshake only.
//
// Arguments and results cross as msgpack byte strings; the types package
// encodes and decodes them.
package pool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"sync"
	"time"

	"github.com/nexus-run/nexus/internal/steptrace"
	"github.com/nexus-run/nexus/manifest"
)

// Defaults for the zero Options.
const (
	// DefaultStartTimeout is generous because a pool imports the user's
	// modules before it answers, and some (numpy, torch) take seconds.
	DefaultStartTimeout = time.Minute
	// DefaultMaxDeaths within DefaultDeathWindow stop restarts: a pool that
	// dies that often is broken, and restarting it would only hide that.
	DefaultMaxDeaths   = 5
	DefaultDeathWindow = time.Minute
	// DefaultMaxCalls matches what the Python pool's fallback server
	// (grpc.server, MAX_CALLS threads) runs at once; its own server would
	// take more, but calls beyond the bound wait here, where a cancelled
	// caller stops waiting, rather than queue inside the pool.
	DefaultMaxCalls = 32
	// DefaultRetireGrace is how long the calls still awaited in a replaced
	// pool may go on before it is killed: a minute of real work is worth
	// waiting for, and a replaced pool whose live calls are slower holds
	// its abandoned calls' slots no longer than that.
	DefaultRetireGrace = time.Minute
	// DefaultProbeInterval is how often a pool with calls pending and none
	// completed lately is sent a health check, and DefaultProbeTimeout
	// how long it has to answer: a pool whose every worker is taken
	// answers nothing, while a busy one answers within milliseconds.
	DefaultProbeInterval = 5 * time.Second
	DefaultProbeTimeout  = 10 * time.Second
)

// Options configure a Supervisor. The zero value works.
type Options struct {
	// Stderr receives the pools' standard error (which is also where their
	// standard output goes). Nil means os.Stderr. Writes come from several
	// goroutines, serialized, one or more whole lines each.
	Stderr io.Writer
	// Log, when set, receives the pools' stderr instead, a record a line
	// (PoolOutput) with the pool's program and language and, when known,
	// the call's tool and function; and what the supervisor notices
	// itself. Nil: the lines go to Stderr as they are (nexus run).
	Log *slog.Logger
	// StartTimeout bounds a pool's start, from launch to handshake.
	// Zero means DefaultStartTimeout.
	StartTimeout time.Duration
	// MaxDeaths and DeathWindow guard against restart loops: a pool that
	// died or failed to start MaxDeaths times within DeathWindow is not
	// started again until the oldest of those falls out of the window.
	// Zero means DefaultMaxDeaths and DefaultDeathWindow.
	MaxDeaths   int
	DeathWindow time.Duration
	// TempDir is where the private folder for the pools' sockets is made.
	// Empty means os.TempDir().
	TempDir string
	// MaxCalls bounds the calls in flight in one pool; further calls wait
	// for one to end. A call whose caller gave up counts until the pool
	// answers it or is stopped. Zero means DefaultMaxCalls.
	MaxCalls int
	// RetireGrace bounds how long a replaced pool is kept for the calls
	// still awaited in it. Zero means DefaultRetireGrace.
	RetireGrace time.Duration
	// ProbeInterval and ProbeTimeout pace the health checks of a pool
	// that has calls pending and completes none. Zero means
	// DefaultProbeInterval and DefaultProbeTimeout.
	ProbeInterval time.Duration
	ProbeTimeout  time.Duration
	// RecoveryWindow caps the recovery window after a pool's death
	// (recovery.go). Zero means DefaultRecoveryWindow.
	RecoveryWindow time.Duration
	// Events, when set, is told of each start, failed start, death and
	// replacement of a pool and of each call's end (events.go). It is
	// called on the pool's goroutines, sometimes with its locks held: it
	// must be quick and must not call back into the Supervisor.
	Events func(Event)
}

// Supervisor runs the pools of one program. All its methods are safe to
// call concurrently, Close included.
type Supervisor struct {
	m      *manifest.Manifest
	opts   Options
	stderr *lineWriter

	mu     sync.Mutex
	closed bool
	// closing is closed once the first Close has finished, socket folder
	// removed: a Close called meanwhile returns only then.
	closing chan struct{}
	dir     string // private socket folder, made by the first start
	pools   map[string]*supervised
	// cleanups counts background work (stopping dead pools) that Close
	// waits for.
	cleanups sync.WaitGroup
}

// New returns a Supervisor for the pools of m. It starts nothing.
func New(m *manifest.Manifest, opts Options) *Supervisor {
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	orDefault(&opts.StartTimeout, DefaultStartTimeout)
	orDefault(&opts.MaxDeaths, DefaultMaxDeaths)
	orDefault(&opts.DeathWindow, DefaultDeathWindow)
	orDefault(&opts.MaxCalls, DefaultMaxCalls)
	orDefault(&opts.RetireGrace, DefaultRetireGrace)
	orDefault(&opts.ProbeInterval, DefaultProbeInterval)
	orDefault(&opts.ProbeTimeout, DefaultProbeTimeout)
	orDefault(&opts.RecoveryWindow, DefaultRecoveryWindow)
	return &Supervisor{
		m:      m,
		opts:   opts,
		stderr: &lineWriter{out: opts.Stderr, log: opts.Log},
		pools:  map[string]*supervised{},
	}
}

// orDefault sets an option left zero (or negative) to its default.
func orDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// ErrClosed is returned by calls made after, or cut short by, Close.
var ErrClosed = errors.New("the pools are stopped")

// FunctionError is returned when the user's code failed (an exception):
// Message includes the traceback.
type FunctionError struct {
	Pool     string // the pool's name, such as "python"
	Function string // the function's name in the program
	// Message is the error on its first line, then the language's
	// traceback.
	Message string
}

func (e *FunctionError) Error() string {
	return e.Function + ": " + e.Message
}

// DiedError is returned by a call whose pool died while running it.
type DiedError struct {
	Pool     string // the pool's name, such as "python"
	Function string // the function's name in the program
	How      string // "exit status 3", "killed by signal SIGKILL"
}

func (e *DiedError) Error() string {
	return fmt.Sprintf("%s pool died while running %s (%s)", e.Pool, e.Function, e.How)
}

// Name returns the name messages use for the pool of language lang.
func Name(lang string) string {
	switch lang {
	case manifest.Python:
		return "python"
	case manifest.Cpp:
		return "c++"
	}
	return lang
}

// UnavailableError is the failure of a call whose pool is not there to
// take it: it failed to start, died so often lately that it is not
// started again until RetryAfter has passed, or is being restarted after
// a death (Recovering).
type UnavailableError struct {
	Pool string // the pool's name, such as "python"
	Err  error
	// RetryAfter is how long until a start will be tried again; zero when
	// the next call tries at once.
	RetryAfter time.Duration
	// Recovering marks a call refused because the pool is being
	// restarted after it died (RefuseWhileRecovering); RetryAfter is then
	// an estimate of when it will run.
	Recovering bool
}

func (e *UnavailableError) Error() string { return e.Err.Error() }
func (e *UnavailableError) Unwrap() error { return e.Err }

// Status is the state of one pool.
type Status struct {
	Lang string `json:"lang"`
	Name string `json:"name"`
	// State is "idle" (not started yet), "starting", "running", "down"
	// (died or failed to start; the next call starts it again),
	// "held" (died too often lately; not started again for now) or
	// "stopped" (the supervisor is closed).
	State string `json:"state"`
	// Calls is the number of calls in flight, Abandoned included.
	Calls int `json:"calls"`
	// Abandoned is the number of calls whose caller gave up (cancelled or
	// timed out) but which still run in a pool: it cannot stop them.
	Abandoned int `json:"abandoned"`
	// Replaced counts the times the pool was replaced by a fresh one, and
	// Replacement says why the last time.
	Replaced    int    `json:"replaced"`
	Replacement string `json:"replacement,omitempty"`
	// Deaths counts deaths and failed starts within the death window.
	Deaths int `json:"deaths"`
	// Last says how the last death or failed start ended.
	Last string `json:"last,omitempty"`
}

// Status reports the state of every pool of the program, in manifest
// order.
func (s *Supervisor) Status() []Status {
	out := make([]Status, 0, len(s.m.Pools))
	for _, p := range s.m.Pools {
		st := Status{Lang: p.Lang, Name: Name(p.Lang), State: "idle"}
		s.mu.Lock()
		sp, closed := s.pools[p.Lang], s.closed
		s.mu.Unlock()
		if sp != nil {
			sp.status(&st)
		}
		if closed {
			st.State = "stopped"
		}
		out = append(out, st)
	}
	return out
}

// Start starts the pools for langs in parallel (servers start eagerly).
// It returns once they all answer, or with the errors of those that could
// not start. Pools already running are left as they are.
func (s *Supervisor) Start(ctx context.Context, langs ...string) error {
	errs := make([]error, len(langs))
	var wg sync.WaitGroup
	for i, lang := range langs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.running(ctx, lang)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Launch starts the pools for langs as Start does, in the background, and
// returns once each pool's process has been launched or its start has
// ended: a server calls it before the rest of its own initialization, so
// that the pools' starts, the longest part of its start, overlap it from
// the first, instead of waiting for the goroutines starting them to be
// scheduled while the server keeps the processor busy. The channel
// returned gets Start's error (nil when every pool started), then closes.
func (s *Supervisor) Launch(ctx context.Context, langs ...string) <-chan error {
	var launched []<-chan struct{}
	for _, lang := range langs {
		// An error here is Start's too, and it reports it.
		if sp, err := s.supervised(lang); err == nil {
			launched = append(launched, sp.launched)
		}
	}
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		err := s.Start(ctx, langs...)
		close(started)
		done <- err
		close(done)
	}()
	for _, l := range launched {
		select {
		case <-l:
		case <-started: // every start ended, some before a launch
			return done
		case <-ctx.Done():
			return done
		}
	}
	return done
}

// Call runs function f in its pool, starting the pool if needed (lazily).
// args is a msgpack array; the result is msgpack. A failure of the user's
// code is a *FunctionError, the death of the pool during the call a
// *DiedError. Cancelling ctx abandons the call: Call returns at once with
// an error wrapping ctx.Err(), while the function, which its pool is asked
// to stop but may not be able to, may still run to its end; until it
// does, or its pool is stopped, it keeps its place among the MaxCalls (see
// abandon.go).
func (s *Supervisor) Call(ctx context.Context, f *manifest.Function, args []byte) (_ []byte, err error) {
	if f.ID < 0 || f.ID > math.MaxUint32 {
		return nil, fmt.Errorf("call %s: function id %d out of range", f.Name, f.ID)
	}
	sp, err := s.supervised(f.Pool)
	if err != nil {
		return nil, err
	}
	if s.opts.Events != nil {
		start := time.Now()
		defer func() { sp.event(Event{Kind: Called, Duration: time.Since(start), Err: err}) }()
	}
	select {
	case sp.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("call %s: waiting for the %s pool: %w", f.Name, sp.name(), ctx.Err())
	}
	// A select with both cases ready picks one at random: a caller that
	// left while a slot came free must not start its function anyway.
	if err := ctx.Err(); err != nil {
		<-sp.slots
		return nil, fmt.Errorf("call %s: waiting for the %s pool: %w", f.Name, sp.name(), err)
	}
	steptrace.Mark("pool call")
	inst, err := sp.enter(ctx)
	if err != nil {
		<-sp.slots
		return nil, err
	}
	res, err := inst.call(ctx, f, args)
	steptrace.Mark("pool reply")
	return res, err
}

// running returns the running instance of the pool for lang, starting it
// if needed.
func (s *Supervisor) running(ctx context.Context, lang string) (*instance, error) {
	sp, err := s.supervised(lang)
	if err != nil {
		return nil, err
	}
	return sp.running(ctx)
}

func (s *Supervisor) supervised(lang string) (*supervised, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if sp := s.pools[lang]; sp != nil {
		return sp, nil
	}
	p := s.m.Pool(lang)
	if p == nil {
		return nil, fmt.Errorf("the program has no %s pool", Name(lang))
	}
	argv, err := launchCommand(s.m, p)
	if err != nil {
		return nil, err
	}
	if s.dir == "" {
		parent := socketParent(s.opts.TempDir)
		dir, err := makeSocketFolder(parent)
		if err != nil {
			return nil, err
		}
		s.dir = dir
		s.cleanups.Add(1)
		go func() {
			defer s.cleanups.Done()
			sweepStale(parent)
		}()
	}
	sp := &supervised{sup: s, lang: lang, argv: argv, slots: make(chan struct{}, s.opts.MaxCalls),
		retiring: map[*instance]struct{}{}, launched: make(chan struct{})}
	s.pools[lang] = sp
	return sp, nil
}

// Close stops every pool and removes the temp folders. Safe to call twice,
// and concurrently: every call returns once the pools are stopped and the
// folders removed (the immediate stop at a second signal closes while the
// first signal's Close runs, and exits as soon as its own returns).
// It asks each pool to shut down and kills those that do not within a
// short grace period, so it returns quickly whatever the pools are doing.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	if s.closed {
		closing := s.closing
		s.mu.Unlock()
		<-closing
		return nil
	}
	s.closed = true
	s.closing = make(chan struct{})
	defer close(s.closing)
	pools := make([]*supervised, 0, len(s.pools))
	for _, sp := range s.pools {
		pools = append(pools, sp)
	}
	dir := s.dir
	s.mu.Unlock()

	var wg sync.WaitGroup
	for _, sp := range pools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sp.close()
		}()
	}
	wg.Wait()
	s.cleanups.Wait()
	if dir != "" {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove the pools' socket folder: %w", err)
		}
	}
	return nil
}
