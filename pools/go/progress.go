package gopool

import (
	"context"
	"sync"

	"github.com/nexus-run/nexus/proto"
)

// Progress reports the progress of the call whose context ctx is: done of
// total (total 0 or less: not known), and what the function is doing
// (message, may be empty). A function receives ctx as its first
// parameter, a context.Context that the program's signature does not
// list:
//
//	func Crunch(ctx context.Context, n int) int {
//		for i := range n {
//			gopool.Progress(ctx, float64(i+1), float64(n), "crunching")
//			...
//		}
//	}
//
// The report reaches the caller when it asked for progress (an MCP client
// that sent a progressToken); otherwise, and with a context that is not a
// call's, Progress does nothing. Reports should grow: the nexus drops a
// report whose done is not above the last one's. Progress is safe to call
// from several goroutines; reports made after the function returned are
// dropped.
func Progress(ctx context.Context, done, total float64, message string) {
	if r, ok := ctx.Value(reporterKey{}).(*reporter); ok {
		r.report(done, total, message)
	}
}

type reporterKey struct{}

// reporter sends one call's progress events: on its CallWithProgress
// stream, or on the Calls stream tagged with its id.
type reporter struct {
	mu     sync.Mutex
	send   func(*proto.Progress)
	closed bool // the reply is being sent: no more events
}

func (r *reporter) report(done, total float64, message string) {
	p := &proto.Progress{Done: done, Message: message}
	if total > 0 {
		p.Total = &total
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.send(p)
}

// close ends the reports: the reply goes next, and nothing may follow it.
func (r *reporter) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
}

// CallWithProgress runs a call as Call does, sending the function's
// progress reports before its reply.
func (s *server) CallWithProgress(req *proto.CallRequest, stream proto.Pool_CallWithProgressServer) error {
	r := &reporter{send: func(p *proto.Progress) {
		// A failed send means the nexus left the call; the reply's send
		// will fail the same way, and the function need not know.
		_ = stream.Send(&proto.CallEvent{Event: &proto.CallEvent_Progress{Progress: p}})
	}}
	reply := s.call(context.WithValue(stream.Context(), reporterKey{}, r), req)
	r.close()
	return stream.Send(&proto.CallEvent{Event: &proto.CallEvent_Reply{Reply: reply}})
}
