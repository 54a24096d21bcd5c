package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/jsonrpc"
	"github.com/nexus-run/nexus/internal/osproc"
	"github.com/nexus-run/nexus/internal/steptrace"
)

// Bounds of the stdio transport, the defaults of StdioOptions.
const (
	// DefaultMaxLine bounds a message read from stdin: the HTTP
	// transport's bound on a request body, so that a message either
	// transport takes the other takes too.
	DefaultMaxLine = guard.DefaultMaxBody
	// DefaultMaxBacklog bounds the replies waiting for a client that does
	// not read them before the server stops reading requests: as much as
	// one message may carry, so that one large result never stalls the
	// reading, while a client that stopped reading holds at most this
	// much (plus the replies of the calls already running) in the nexus.
	DefaultMaxBacklog = guard.DefaultMaxBody
)

// cancelWait bounds how long ServeStdio waits, once it has cancelled the
// calls still in flight, for them to end and their replies to be written.
// A cancelled call ends at once; what may not end is a reply's write to a
// client that no longer reads, and the server does not wait for that.
const cancelWait = time.Second

// StdioOptions configure ServeStdio. The zero value works.
type StdioOptions struct {
	// Grace is how long the calls in flight may take to finish and reply
	// once the server stops (stdin ended or ctx is done); those still
	// running after it are cancelled. Zero cancels them at once.
	Grace time.Duration
	// MaxLine bounds a line of stdin, in bytes; zero means
	// DefaultMaxLine. A longer line is skipped, never held whole, and
	// answered with a JSON-RPC error.
	MaxLine int64
	// MaxBacklog is the amount of replies, in bytes, waiting to be
	// written to a client that does not read them, above which no further
	// request is read until it falls again; zero means DefaultMaxBacklog.
	MaxBacklog int64
	// OneProc runs the process's goroutines on one thread at a time
	// (GOMAXPROCS 1) while the server serves, but for the reading of a
	// large request (see procs).
	OneProc bool
}

func (o StdioOptions) withDefaults() StdioOptions {
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.MaxBacklog <= 0 {
		o.MaxBacklog = DefaultMaxBacklog
	}
	return o
}

// ServeStdio serves srv to one client over a pair of streams, as MCP's
// stdio transport: one JSON-RPC message per line read from in, one reply
// per line written to out. Requests are handled concurrently (see
// Session.Handle); each reply is written whole, with one Write. While
// more than opts.MaxBacklog bytes of replies wait to be written, no
// further line is read.
//
// The server stops when in ends (MCP's stdio shutdown: the client closes
// the server's stdin) or when ctx is done (a signal): it reads no more,
// lets the calls in flight finish and reply for up to opts.Grace, cancels
// those still running, and returns once they have ended, or at most
// cancelWait later when a reply cannot be written. It returns nil when in
// ended, and ctx's error when ctx ended it. A failure to read in or to
// write out ends it too, with that error, and cancels the calls at once.
// The goroutine reading in ends when in does, and a reply's write blocked
// on out stays blocked until out is closed.
func ServeStdio(ctx context.Context, srv *Server, in io.Reader, out io.Writer, opts StdioOptions) error {
	opts = opts.withDefaults()
	// The calls' context ends when the server gives up on them, not when
	// ctx does: ctx only asks the server to stop.
	calls, cancelCalls := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelCalls()
	w := newReplyWriter(out, cancelCalls)
	ss := srv.NewSession()

	// Calls send their progress notifications as they send replies.
	notifying := withNotifier(calls, w.write)
	// The goroutine reading in handles each line itself rather than
	// hand it to another: handling a tools/call only starts the call's
	// own goroutine, cheaper than the hand-off. The gate keeps it from
	// handling a line once the server stops.
	var gate sync.Mutex
	stopped := false
	var cores *procs
	if opts.OneProc {
		cores = narrow()
		defer cores.restore()
	}
	handle := func(l line) bool {
		gate.Lock()
		defer gate.Unlock()
		switch {
		case stopped:
			return false
		case l.tooLong != nil:
			w.write(jsonrpc.Fail(l.tooLong.id, l.tooLong.rpcError()))
		case cores != nil && len(l.data) >= jsonrpc.ParallelCheck:
			// Every core while the request is checked beside its
			// binding, until its reply; a message that gets none leaves
			// at once.
			leave := cores.widen()
			if !ss.Handle(notifying, l.data, func(b []byte) { leave(); w.write(b) }) {
				leave()
			}
		default:
			ss.Handle(notifying, l.data, w.write)
		}
		return true
	}
	readErr := make(chan error, 1)
	go func() {
		lr := newLineReader(in, opts.MaxLine)
		for n := 1; ; n++ {
			l, err := lr.next()
			markFirst("line %d read", n)
			if l.tooLong != nil || len(bytes.TrimSpace(l.data)) > 0 {
				if !w.waitRoom(ctx, opts.MaxBacklog) || !handle(l) {
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				readErr <- err
				return
			}
		}
	}()

	grace, why := opts.Grace, error(nil)
	select {
	case err := <-readErr:
		if err != nil {
			cancelCalls()
			grace, why = 0, fmt.Errorf("read stdin: %w", err)
		}
	case <-ctx.Done():
		why = ctx.Err()
	case <-calls.Done(): // writing failed
		grace = 0
	}
	gate.Lock()
	stopped = true
	gate.Unlock()
	return stop(ss, w, grace, why)
}

// stop ends a stdio session: it waits up to grace for the calls in
// flight, cancels those left and waits up to cancelWait for them. It
// returns the write error if writing failed, else why.
func stop(ss *Session, w *replyWriter, grace time.Duration, why error) error {
	ended := make(chan struct{})
	go func() {
		ss.Wait()
		close(ended)
	}()
	if !waitUpTo(ended, grace) {
		ss.Cancel()
		waitUpTo(ended, cancelWait)
	}
	if err := w.err(); err != nil {
		return err
	}
	return why
}

// waitUpTo waits for done up to d and reports whether it came.
func waitUpTo(done <-chan struct{}, d time.Duration) bool {
	if d <= 0 {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// replyWriter writes replies, one line each, from many goroutines, and
// keeps count of the bytes waiting to be written (the backlog).
type replyWriter struct {
	wmu     sync.Mutex // held while writing
	out     io.Writer
	written int    // replies written, guarded by wmu
	fail    func() // called once writing has failed

	// Guarded by mu, never held while writing, so that the backlog and a
	// failure can be read while a write blocks.
	mu      sync.Mutex
	backlog int64
	failed  error
	// room gets a token whenever the backlog shrinks or writing fails;
	// its buffer of one keeps a wake-up from being lost.
	room chan struct{}
}

func newReplyWriter(out io.Writer, fail func()) *replyWriter {
	return &replyWriter{out: out, fail: fail, room: make(chan struct{}, 1)}
}

func (w *replyWriter) write(reply []byte) {
	if reply == nil {
		return // a cancelled call
	}
	w.grow(int64(len(reply)) + 1)
	defer w.grow(-int64(len(reply)) - 1)
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if w.err() != nil {
		return
	}
	_, err := w.out.Write(append(reply, '\n'))
	w.written++
	markFirst("reply %d written", w.written)
	if err != nil {
		w.mu.Lock()
		w.failed = fmt.Errorf("write stdout: %w", err)
		w.mu.Unlock()
		w.fail()
	}
}

// grow adds n bytes to the backlog, and wakes waitRoom when it shrinks.
func (w *replyWriter) grow(n int64) {
	w.mu.Lock()
	w.backlog += n
	w.mu.Unlock()
	if n < 0 {
		select {
		case w.room <- struct{}{}:
		default:
		}
	}
}

// waitRoom waits until the backlog is at most limit. It reports false if
// ctx ended first, and true, not waiting, once writing has failed (the
// caller then finds its calls' context done).
func (w *replyWriter) waitRoom(ctx context.Context, limit int64) bool {
	for {
		w.mu.Lock()
		full := w.backlog > limit && w.failed == nil
		w.mu.Unlock()
		if !full {
			return true
		}
		select {
		case <-w.room:
		case <-ctx.Done():
			return false
		}
	}
}

func (w *replyWriter) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}

// markFirst marks the n-th line read or reply written as a step of the
// start (package steptrace), for the first few: a cold start's client
// sends initialize, notifications/initialized and its first call.
func markFirst(format string, n int) {
	if n <= 3 && steptrace.On() {
		steptrace.Mark(fmt.Sprintf(format, n))
	}
}

// procs narrows the Go scheduler to one thread over stdio (StdioOptions.
// OneProc) and widens it again while large requests are read. The nexus
// serves one client whose calls mostly wait on pools, other processes:
// its own work on a small call is a few microseconds, and a second
// scheduler thread only spins looking for work each time a goroutine
// wakes, on the cores the pool and the client need. Measured with
// integration/startsteps (sequential small calls, alternating starts, on
// a 2-core machine): 205 → 181 µs a call through the C++ pool and 251 →
// 178 µs through the Go pool, 48 µs less CPU a call. A large call
// (jsonrpc.ParallelCheck bytes and more) is checked as JSON on a second
// core beside the binding of its arguments, which one thread would do
// one after the other: a 100,000-real call took 0.7-0.9 ms longer on one
// thread, so it gets every core until it is answered.
type procs struct {
	mu    sync.Mutex
	wide  int // GOMAXPROCS before narrow
	large int // large requests not answered yet
}

// narrow sets GOMAXPROCS to 1.
func narrow() *procs {
	return &procs{wide: runtime.GOMAXPROCS(1)}
}

// widen gives the scheduler back its threads until the function it
// returns is called (once, or more: the later calls do nothing).
func (p *procs) widen() (leave func()) {
	p.mu.Lock()
	if p.large == 0 {
		runtime.GOMAXPROCS(p.wide)
	}
	p.large++
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			if p.large--; p.large == 0 {
				runtime.GOMAXPROCS(1)
			}
			p.mu.Unlock()
		})
	}
}

// restore sets GOMAXPROCS back to what it was before narrow.
func (p *procs) restore() {
	p.mu.Lock()
	p.large = -1 << 30 // no leave narrows again
	runtime.GOMAXPROCS(p.wide)
	p.mu.Unlock()
}

// ReserveStdout moves the process's standard output aside for protocol
// messages. It returns a file open on the real standard output and points
// descriptor 1 at standard error, so that anything else written to
// standard output, by this process or by the children that inherit it
// (the pools), lands on standard error instead of corrupting the protocol
// stream. Call it before any pool starts. (On systems without Unix
// descriptors only this process's os.Stdout is redirected; see package
// osproc.)
func ReserveStdout() (*os.File, error) {
	out, err := osproc.MoveStdout()
	if err != nil {
		return nil, fmt.Errorf("reserve stdout for MCP: %w", err)
	}
	return out, nil
}
