package pool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nexus-run/nexus/internal/nexus/progress"
	"github.com/nexus-run/nexus/proto"
)

// The call stream.
//
// An instance opens one Calls stream as it starts and sends every call on
// it, each with an id, instead of an RPC per call: a unary call costs a
// stream's setup and teardown at both ends, the stream only a message
// each way. One goroutine (send) sends the calls and cancels, in the order
// they were queued, so that a Cancel never overtakes its call and a caller
// never waits on a send held up by flow control (a large argument the
// pool reads slowly). Another (demux) reads the answers and routes each
// by its id: a progress event to the call's queue, the reply to the call,
// which the goroutine that waits for it takes. The demultiplexer never
// sends and never runs a caller's code, so neither a slow progress
// receiver nor a held-up send delays the answers of other calls.
//
// A pool that does not serve Calls answers the stream UNIMPLEMENTED, at
// once and before reading anything: every call sent on it meanwhile is
// sent again as a unary Call (its function had not run), and so are the
// instance's later calls.
//
// The stream's end or failure ends every call in flight on it. When the
// pool died, the calls fail with its death, as unary calls do. When the
// pool lives on (it ended the stream, or the stream broke), the calls fail
// with the stream's error and the instance is retired, so that the next
// calls go to a fresh pool and a stream that broke once is not trusted
// again.

// maxQueuedReports bounds the progress reports waiting for a call's
// goroutine to pass them on; past it, the latest report replaces the last
// one queued. Reports that do not grow are dropped further on anyway, so
// merging loses nothing a caller sees but intermediate steps, and a pool
// reporting faster than its receiver takes no memory for it.
const maxQueuedReports = 256

// errUnary is the outcome of a call sent on a stream its pool does not
// serve: send it again as a unary call.
var errUnary = errors.New("the pool does not serve Calls")

// callStream is an instance's Calls stream and its calls in flight. Its
// zero value is not usable; open makes one.
type callStream struct {
	inst   *instance
	stream proto.Pool_CallsClient
	end    context.CancelFunc // ends the stream

	// out holds the messages the sender has yet to send. Its buffer
	// holds a call and a Cancel for each call a pool may have in flight
	// (MaxCalls), so queueing waits for no send.
	out  chan *proto.CallMessage
	done <-chan struct{} // the stream's context's

	mu    sync.Mutex
	next  uint64
	calls map[uint64]*streamCall
	err   error // why the stream ended, once it has (errUnary: not served)
}

// streamCall is one call in flight on a stream, as the demultiplexer
// hands its answers over.
type streamCall struct {
	wake chan struct{} // a token when there is something new; capacity 1

	mu      sync.Mutex
	reports []progress.Report
	ended   bool // reply or err is set; nothing follows
	reply   *proto.CallReply
	err     error
}

// openStream opens inst's Calls stream and starts its sender and
// demultiplexer. A failure to open it is not an error: the instance then
// calls unary.
func openStream(inst *instance, pool proto.PoolClient) *callStream {
	ctx, end := context.WithCancel(inst.life)
	cs := &callStream{inst: inst, end: end, calls: map[uint64]*streamCall{}, done: ctx.Done(),
		out: make(chan *proto.CallMessage, 2*inst.sp.sup.opts.MaxCalls)}
	stream, err := pool.Calls(ctx)
	if err != nil {
		end()
		cs.err = errUnary
		return cs
	}
	cs.stream = stream
	inst.sp.sup.cleanups.Add(2)
	go func() {
		defer inst.sp.sup.cleanups.Done()
		cs.send()
	}()
	go func() {
		defer inst.sp.sup.cleanups.Done()
		cs.demux()
	}()
	return cs
}

// register enters a call on the stream and returns its id. When the
// stream has ended, the call is returned ended with the stream's error
// (errUnary: send it as a unary call), and id 0.
func (cs *callStream) register() (uint64, *streamCall) {
	c := &streamCall{wake: make(chan struct{}, 1)}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.err != nil {
		c.ended, c.err = true, cs.err
		return 0, c
	}
	cs.next++
	cs.calls[cs.next] = c
	return cs.next, c
}

// start queues req as call id, which register returned, for the sender;
// progress asks the pool for the function's progress reports.
func (cs *callStream) start(id uint64, req *proto.CallRequest, progress bool) {
	cs.queue(&proto.CallMessage{Id: id, Kind: &proto.CallMessage_Call{Call: &proto.StreamCall{Request: req, Progress: progress}}})
}

// cancel asks the pool to stop call id, which start queued before: the
// sender keeps the order. The call stays in flight until its reply comes.
func (cs *callStream) cancel(id uint64) {
	cs.queue(&proto.CallMessage{Id: id, Kind: &proto.CallMessage_Cancel{Cancel: &proto.Cancel{}}})
}

// queue hands msg to the sender; once the stream has ended it drops it
// (the demultiplexer ends the calls).
func (cs *callStream) queue(msg *proto.CallMessage) {
	select {
	case cs.out <- msg:
	case <-cs.done:
	}
}

// send sends the queued messages, in order, until the stream ends. A
// failed send means the stream has ended: the demultiplexer reads why,
// and ends the calls with it.
func (cs *callStream) send() {
	for {
		select {
		case msg := <-cs.out:
			if err := cs.stream.Send(msg); err != nil {
				return
			}
		case <-cs.done:
			return
		}
	}
}

// wait waits for call c's reply, passing the function's progress reports
// to report (nil: the caller wants none) meanwhile, until ctx is done. ok
// is false when ctx ended first and the call had not. err is errUnary
// when the pool does not serve Calls.
func (c *streamCall) wait(ctx context.Context, report progress.Func) (reply *proto.CallReply, ok bool, err error) {
	leaving := false
	for {
		c.mu.Lock()
		reports, ended, reply, err := c.reports, c.ended, c.reply, c.err
		c.reports = nil
		c.mu.Unlock()
		if report != nil {
			for _, r := range reports {
				report(r)
			}
		}
		if ended {
			return reply, true, err
		}
		if leaving {
			return nil, false, nil
		}
		select {
		case <-c.wake:
		case <-ctx.Done():
			// Once more: an answer that came meanwhile stands.
			leaving, report = true, nil
		}
	}
}

// demux reads the pool's answers until the stream ends, then ends every
// call still in flight.
func (cs *callStream) demux() {
	answered := false
	for {
		a, err := cs.stream.Recv()
		if err != nil {
			cs.fail(err, answered)
			return
		}
		answered = true
		cs.route(a)
	}
}

// route hands answer a to its call.
func (cs *callStream) route(a *proto.CallAnswer) {
	cs.mu.Lock()
	c := cs.calls[a.Id]
	if c != nil {
		if _, last := a.Event.(*proto.CallAnswer_Reply); last {
			delete(cs.calls, a.Id)
		}
	}
	cs.mu.Unlock()
	if c == nil {
		if _, last := a.Event.(*proto.CallAnswer_Reply); last {
			cs.inst.sp.sup.stderr.warn(fmt.Sprintf("the %s pool answered call %d, which is not in flight; the answer is ignored", cs.inst.sp.name(), a.Id),
				slog.String("program", cs.inst.sp.sup.m.Name), slog.String("language", cs.inst.sp.name()))
		}
		return
	}
	c.mu.Lock()
	switch e := a.Event.(type) {
	case *proto.CallAnswer_Reply:
		c.ended, c.reply = true, e.Reply
		if c.reply == nil {
			c.reply = &proto.CallReply{}
		}
	case *proto.CallAnswer_Progress:
		if p := e.Progress; p != nil {
			r := progress.Report{Done: p.Done, Total: p.GetTotal(), HasTotal: p.Total != nil, Message: p.Message}
			if len(c.reports) < maxQueuedReports {
				c.reports = append(c.reports, r)
			} else {
				c.reports[len(c.reports)-1] = r
			}
		}
	default:
		// An answer of a kind this nexus does not know is skipped: a
		// newer pool may send more.
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// fail ends the stream with err, and every call in flight with it; when
// the pool does not serve Calls, each is sent again as a unary call. A
// stream that ended while its pool lives retires the instance.
func (cs *callStream) fail(err error, answered bool) {
	unary := !answered && status.Code(err) == codes.Unimplemented
	switch {
	case unary:
		err = errUnary
	case errors.Is(err, io.EOF):
		err = status.Error(codes.Internal, "the pool ended its call stream")
	}
	inst := cs.inst
	retire := !unary && !inst.stopping.Load() && !inst.died(err)
	if retire {
		err = &streamEndedError{err: err}
	}
	cs.mu.Lock()
	cs.err = err
	calls := cs.calls
	cs.calls = nil
	cs.mu.Unlock()
	cs.end()
	for _, c := range calls {
		c.mu.Lock()
		c.ended, c.err = true, err
		c.mu.Unlock()
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
	if retire {
		sp := inst.sp
		sp.mu.Lock()
		sp.retireLocked(inst, err.Error())
		sp.mu.Unlock()
	}
}

// streamEndedError ends the calls of a stream that ended while its pool
// lives.
type streamEndedError struct{ err error }

func (e *streamEndedError) Error() string { return "its call stream ended: " + e.err.Error() }
func (e *streamEndedError) Unwrap() error { return e.err }
