package gopool

import (
	"context"
	"fmt"
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
//
// Odd messages: one of a kind this pool does not know is skipped (a newer
// nexus may send more kinds); a call whose id is in flight is answered
// with an error reply for that id, the running call left alone; a message
// that cannot be decoded (at any depth: protobuf decodes the nested
// messages too) ends the stream with gRPC's own INTERNAL status.
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
			// way nobody waits for the calls' answers any more. Or gRPC
			// could not decode a message, and has ended the stream with
			// INTERNAL itself, naming the problem (what the handler
			// returns then is only logged).
			return nil
		}
		switch k := msg.Kind.(type) {
		case *proto.CallMessage_Call:
			id, call := msg.Id, k.Call
			ctx, cancel := context.WithCancel(stream.Context())
			mu.Lock()
			_, twice := running[id]
			if !twice {
				running[id] = cancel
			}
			mu.Unlock()
			if twice {
				cancel()
				out.send(&proto.CallAnswer{Id: id, Event: &proto.CallAnswer_Reply{Reply: &proto.CallReply{
					Error: fmt.Sprintf("the nexus sent call %d while a call with that id was running", id),
				}}})
				continue
			}
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
