package gopool

import (
	"context"
	"sync"

	"github.com/nexus-run/nexus/proto"
)

// Calls serves the nexus's call stream: each call runs on a goroutine of
// its own, as a unary Call does, and its answers go back on the stream
// tagged with its id, in whatever order the calls end. A Cancel cancels
// the context the call's function receives (a function taking a
// context.Context may stop early); its reply is sent all the same. The
// stream's end cancels the calls still running, whose answers are then
// dropped.
func (s *server) Calls(stream proto.Pool_CallsServer) error {
	out := &answers{stream: stream}
	var mu sync.Mutex
	running := map[uint64]context.CancelFunc{}
	defer func() {
		out.close()
		mu.Lock()
		for _, cancel := range running {
			cancel()
		}
		mu.Unlock()
	}()
	for {
		msg, err := stream.Recv()
		if err != nil {
			// The nexus closed the stream, or the connection broke: either
			// way nobody waits for the calls' answers any more.
			return nil
		}
		switch k := msg.Kind.(type) {
		case *proto.CallMessage_Call:
			id, call := msg.Id, k.Call
			ctx, cancel := context.WithCancel(stream.Context())
			mu.Lock()
			running[id] = cancel
			mu.Unlock()
			go func() {
				reply := s.streamCall(ctx, id, call, out)
				mu.Lock()
				delete(running, id)
				mu.Unlock()
				cancel()
				out.send(&proto.CallAnswer{Id: id, Event: &proto.CallAnswer_Reply{Reply: reply}})
			}()
		case *proto.CallMessage_Cancel:
			// A Cancel of a call that has ended (its reply crossed the
			// Cancel) finds nothing to cancel.
			mu.Lock()
			cancel := running[msg.Id]
			mu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
		// A message of a kind this pool does not know is skipped: a newer
		// nexus may send more.
	}
}

// streamCall runs one call of the stream, reporting its progress on out
// when the nexus asked for it.
func (s *server) streamCall(ctx context.Context, id uint64, call *proto.StreamCall, out *answers) *proto.CallReply {
	req := call.GetRequest()
	if req == nil {
		req = &proto.CallRequest{}
	}
	if !call.GetProgress() {
		return s.call(ctx, req)
	}
	r := &reporter{send: func(p *proto.Progress) {
		out.send(&proto.CallAnswer{Id: id, Event: &proto.CallAnswer_Progress{Progress: p}})
	}}
	reply := s.call(context.WithValue(ctx, reporterKey{}, r), req)
	r.close()
	return reply
}

// answers sends the answers of a stream's calls, one at a time as gRPC
// requires, until the stream's handler returns.
type answers struct {
	mu     sync.Mutex
	stream proto.Pool_CallsServer
	closed bool
}

// send sends a, unless the stream is over. A failed send means the nexus
// is gone or closed the stream; the calls need not know.
func (o *answers) send(a *proto.CallAnswer) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		_ = o.stream.Send(a)
	}
}

// close ends the sends: a stream may not be used once its handler has
// returned.
func (o *answers) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
}
