package pooltest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	protobuf "google.golang.org/protobuf/proto"

	"github.com/nexus-run/nexus/proto"
)

// RawCalls is a Calls stream whose messages to the pool are sent as the
// bytes a test gives, so that it can send what no protobuf library would
// encode; the pool's answers are decoded as CallAnswers.
type RawCalls struct {
	t testing.TB
	s grpc.ClientStream
}

// OpenRawCalls opens a RawCalls stream on conn, cancelled when the test
// ends or after two minutes.
func OpenRawCalls(t testing.TB, conn *grpc.ClientConn) *RawCalls {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	desc := &grpc.StreamDesc{StreamName: "Calls", ClientStreams: true, ServerStreams: true}
	s, err := conn.NewStream(ctx, desc, "/nexus.pool.Pool/Calls", grpc.ForceCodec(rawCodec{}))
	if err != nil {
		t.Fatalf("Calls: %v", err)
	}
	return &RawCalls{t: t, s: s}
}

// Send sends msg as it is.
func (r *RawCalls) Send(msg []byte) {
	r.t.Helper()
	if err := r.s.SendMsg(msg); err != nil {
		r.t.Fatalf("send %x: %v", msg, err)
	}
}

// SendMessage sends m, encoded.
func (r *RawCalls) SendMessage(m *proto.CallMessage) {
	r.t.Helper()
	b, err := protobuf.Marshal(m)
	if err != nil {
		r.t.Fatal(err)
	}
	r.Send(b)
}

// Recv returns the pool's next answer, or the stream's end: io.EOF for
// status OK, else the status.
func (r *RawCalls) Recv() (*proto.CallAnswer, error) {
	var b []byte
	if err := r.s.RecvMsg(&b); err != nil {
		return nil, err
	}
	a := &proto.CallAnswer{}
	if err := protobuf.Unmarshal(b, a); err != nil {
		return nil, fmt.Errorf("the pool's answer %x: %w", b, err)
	}
	return a, nil
}

// rawCodec passes messages through as bytes. Named "proto" so that the
// request's content type is the one every pool expects.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, fmt.Errorf("rawCodec sends []byte, not %T", v)
	}
	return b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("rawCodec receives into *[]byte, not %T", v)
	}
	*b = append([]byte(nil), data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

// OddCalls says how to call a pool's functions for CheckOddMessages.
type OddCalls struct {
	// Long runs until the call is cancelled (a minute at least).
	Long *proto.CallRequest
	// Cancelled tells whether reply is Long's after its cancellation.
	Cancelled func(reply *proto.CallReply) bool
	// Quick returns QuickResult at once.
	Quick       *proto.CallRequest
	QuickResult []byte
	// Internal is a text that the status of a stream holds once it was
	// sent a message that cannot be decoded.
	Internal string
}

// unknownKinds are CallMessages of a kind no pool knows, each with id 2:
// neither a call nor a cancellation, nothing at all, and a field 4 that a
// newer nexus might send.
var unknownKinds = [][]byte{{0x08, 0x02}, {}, {0x08, 0x02, 0x22, 0x00}}

// undecodable are CallMessages no pool can decode, by what is wrong: they
// must reach the pool's own decoder, which a protobuf library encoding a
// CallMessage would never let happen.
var undecodable = []struct {
	what string
	msg  []byte
}{
	{"a truncated message", []byte{0x08}},
	{"a call that is not a StreamCall", []byte{0x08, 0x07, 0x12, 0x02, 0xff, 0xff}},
	{"a call whose request is not a CallRequest", []byte{0x08, 0x07, 0x12, 0x04, 0x0a, 0x02, 0xff, 0xff}},
}

// CheckOddMessages checks what the pool on conn does with odd messages on
// its Calls stream (docs/pool-protocol.md, "The call stream"): a message
// of a kind it does not know is skipped; a call whose id is in flight is
// answered with one error reply, the running call unaffected (its own
// reply comes, and a Cancel still reaches it); a message that cannot be
// decoded ends the stream with INTERNAL, a call still running, and the
// pool serves on.
func CheckOddMessages(t *testing.T, conn *grpc.ClientConn, c OddCalls) {
	call := func(id uint64, req *proto.CallRequest) *proto.CallMessage {
		return &proto.CallMessage{Id: id, Kind: &proto.CallMessage_Call{Call: &proto.StreamCall{Request: req}}}
	}
	t.Run("unknown kinds and an id in flight", func(t *testing.T) {
		s := OpenRawCalls(t, conn)
		s.SendMessage(call(1, c.Long))
		for _, msg := range unknownKinds {
			s.Send(msg)
		}
		s.SendMessage(call(1, c.Quick))
		s.SendMessage(call(3, c.Quick))
		var got []string
		for len(got) < 2 {
			got = append(got, answer(t, s))
		}
		want := []string{
			"1 error: the nexus sent call 1 while a call with that id was running",
			fmt.Sprintf("3 result %x", c.QuickResult),
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("answers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		s.SendMessage(&proto.CallMessage{Id: 1, Kind: &proto.CallMessage_Cancel{Cancel: &proto.Cancel{}}})
		a, err := s.Recv()
		if err != nil || a.GetReply() == nil || a.Id != 1 || !c.Cancelled(a.GetReply()) {
			t.Fatalf("after call 1's Cancel: %v, %v; want its reply after its cancellation", a, err)
		}
		if err := s.s.CloseSend(); err != nil {
			t.Fatal(err)
		}
		if a, err := s.Recv(); !errors.Is(err, io.EOF) {
			t.Errorf("got %v, %v; want the stream's end", a, err)
		}
	})
	for _, u := range undecodable {
		t.Run(u.what, func(t *testing.T) {
			s := OpenRawCalls(t, conn)
			s.SendMessage(call(1, c.Long))
			s.Send(u.msg)
			a, err := s.Recv()
			if status.Code(err) != codes.Internal || !strings.Contains(status.Convert(err).Message(), c.Internal) {
				t.Errorf("after %x: %v, %v; want the stream ended with INTERNAL saying %q", u.msg, a, err, c.Internal)
			}
		})
	}
	t.Run("serves on", func(t *testing.T) {
		s := OpenRawCalls(t, conn)
		s.SendMessage(call(4, c.Quick))
		if got, want := answer(t, s), fmt.Sprintf("4 result %x", c.QuickResult); got != want {
			t.Errorf("answer %q, want %q", got, want)
		}
	})
}

// answer receives the next answer of s, which must be a reply, as text.
func answer(t *testing.T, s *RawCalls) string {
	t.Helper()
	a, err := s.Recv()
	if err != nil {
		t.Fatalf("receive: %v", err)
	}
	switch r := a.GetReply(); {
	case r == nil:
		return fmt.Sprintf("%d %v", a.Id, a)
	case r.Error != "":
		return fmt.Sprintf("%d error: %s", a.Id, r.Error)
	default:
		return fmt.Sprintf("%d result %x", a.Id, r.Result)
	}
}
