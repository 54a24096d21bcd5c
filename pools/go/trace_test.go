package gopool

import (
	"context"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/proto"
)

// TestTraceContextReachesFunction: the trace context a call carries is
// what TraceContext returns in the function's context; a call without
// one (an older nexus, tracing off) gives "".
func TestTraceContextReachesFunction(t *testing.T) {
	var parent, state string
	s := &server{fns: map[uint32]Function{7: {Name: "f", Call: func(ctx context.Context, _ *msgpack.Decoder, e *msgpack.Encoder) error {
		parent, state = TraceContext(ctx)
		return e.EncodeNil()
	}}}}
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	if r := s.call(context.Background(), &proto.CallRequest{Function: 7, Args: args(t), Traceparent: tp, Tracestate: "k=v"}); r.Error != "" {
		t.Fatal(r.Error)
	}
	if parent != tp || state != "k=v" {
		t.Errorf("TraceContext = %q, %q; want %q, %q", parent, state, tp, "k=v")
	}
	if r := s.call(context.Background(), &proto.CallRequest{Function: 7, Args: args(t)}); r.Error != "" {
		t.Fatal(r.Error)
	}
	if parent != "" || state != "" {
		t.Errorf("untraced call: TraceContext = %q, %q; want empty", parent, state)
	}
}
