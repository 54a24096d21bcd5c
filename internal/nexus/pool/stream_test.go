package pool_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
	"github.com/nexus-run/nexus/proto"
)

// The call stream's failure modes that no real pool shows, against a pool
// that misbehaves on purpose: this test binary, started by the supervisor
// as a pool with fakePoolEnv set to the misbehaviour. Its one function
// (id 0) echoes its Str argument.

const fakePoolEnv = "NEXUS_POOL_TEST_FAKE_POOL"

// fakeAnswers is how many calls the "reverse" pool collects before it
// answers them, last first.
const fakeAnswers = 3

// fakePool serves the Calls stream as mode says:
//
//   - "unknown": before each reply, a reply to an id never sent;
//   - "reverse": the replies of every fakeAnswers calls in reverse order;
//   - "end": ends the stream, living on, when a call's argument is "end";
//   - "unary": does not serve the stream (UNIMPLEMENTED), only Call, as a
//     runtime from before it;
//   - "cancel": answers a call only once its Cancel came, and says on
//     stderr when a Cancel came before its call.
func fakePool(mode string) int {
	dir := os.Getenv("PLUGIN_UNIX_SOCKET_DIR")
	socket := filepath.Join(dir, "pool.sock")
	l, err := net.Listen("unix", socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s := grpc.NewServer()
	proto.RegisterPoolServer(s, &fakeServer{mode: mode})
	healthy := health.NewServer()
	healthy.SetServingStatus("plugin", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(s, healthy)
	fmt.Printf("1|1|unix|%s|grpc\n", socket)
	if err := s.Serve(l); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

type fakeServer struct {
	proto.UnimplementedPoolServer
	mode string
}

// Call echoes, for the "unary" mode.
func (f *fakeServer) Call(_ context.Context, req *proto.CallRequest) (*proto.CallReply, error) {
	return &proto.CallReply{Result: req.GetArgs()[1:]}, nil
}

func (f *fakeServer) Calls(stream proto.Pool_CallsServer) error {
	if f.mode == "unary" {
		return status.Error(codes.Unimplemented, "method Calls not implemented")
	}
	reply := func(id uint64, args []byte) error {
		// args is a msgpack array of one Str: the Str follows its header.
		return stream.Send(&proto.CallAnswer{Id: id, Event: &proto.CallAnswer_Reply{Reply: &proto.CallReply{Result: args[1:]}}})
	}
	var held []*proto.CallMessage
	waiting := map[uint64][]byte{} // "cancel": the calls not cancelled yet
	for {
		msg, err := stream.Recv()
		if err != nil {
			return nil
		}
		call := msg.GetCall()
		if f.mode == "cancel" {
			if call != nil {
				waiting[msg.Id] = call.GetRequest().GetArgs()
				continue
			}
			args, ok := waiting[msg.Id]
			if !ok {
				fmt.Fprintf(os.Stderr, "fake pool: a Cancel came before its call %d\n", msg.Id)
				continue
			}
			delete(waiting, msg.Id)
			if err := reply(msg.Id, args); err != nil {
				return err
			}
			continue
		}
		if call == nil {
			continue
		}
		args := call.GetRequest().GetArgs()
		switch f.mode {
		case "unknown":
			if err := reply(msg.Id+1000, args); err != nil {
				return err
			}
		case "reverse":
			held = append(held, msg)
			if len(held) < fakeAnswers {
				continue
			}
			for i := len(held) - 1; i >= 0; i-- {
				if err := reply(held[i].Id, held[i].GetCall().GetRequest().GetArgs()); err != nil {
					return err
				}
			}
			held = nil
			continue
		case "end":
			if string(args[1:]) == "\xa3end" {
				return nil
			}
		}
		if err := reply(msg.Id, args); err != nil {
			return err
		}
	}
}

// fakeProgram is a program whose Go pool is this test binary as a fake
// pool in mode.
func fakeProgram(t *testing.T, mode string) *manifest.Manifest {
	t.Helper()
	t.Setenv(fakePoolEnv, mode)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &manifest.Manifest{
		Nexus: manifest.NexusVersion, Name: "fake", Dir: t.TempDir(),
		Functions: []manifest.Function{{ID: 0, Name: "echo", Source: "echo", Pool: manifest.Go,
			Args: []*types.Type{types.StrType}, Return: types.StrType}},
		Pools: []manifest.Pool{{Lang: manifest.Go, Command: []string{exe}}},
	}
}

// echoAll calls echo with each of words at once and returns the results
// and errors, in the order of words.
func echoAll(t *testing.T, s *pool.Supervisor, m *manifest.Manifest, words ...string) ([]any, []error) {
	t.Helper()
	got, errs := make([]any, len(words)), make([]error, len(words))
	var wg sync.WaitGroup
	for i, w := range words {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = pooltest.Call(t, s, m, 0, w)
		}()
	}
	wg.Wait()
	return got, errs
}

// TestStreamAnswersInAnyOrder: replies that come in another order than
// their calls reach each its own caller.
func TestStreamAnswersInAnyOrder(t *testing.T) {
	m := fakeProgram(t, "reverse")
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	words := []string{"one", "two", "three"}
	got, errs := echoAll(t, s, m, words...)
	for i, w := range words {
		if errs[i] != nil || got[i] != w {
			t.Errorf("echo(%q) = %v, %v", w, got[i], errs[i])
		}
	}
	if !pool.Streaming(s, manifest.Go) {
		t.Error("the calls did not go on the stream")
	}
}

// TestStreamUnknownReply: a reply to a call not in flight is ignored,
// with a line on stderr, and the calls in flight go on.
func TestStreamUnknownReply(t *testing.T) {
	m := fakeProgram(t, "unknown")
	s, stderr := pooltest.Supervise(t, m, pool.Options{})
	for _, w := range []string{"a", "b"} {
		if got, err := pooltest.Call(t, s, m, 0, w); err != nil || got != w {
			t.Fatalf("echo(%q) = %v, %v", w, got, err)
		}
	}
	for _, id := range []int{1001, 1002} {
		if want := fmt.Sprintf("nexus: the go pool answered call %d, which is not in flight; the answer is ignored\n", id); !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q lacks %q", stderr.String(), want)
		}
	}
}

// TestStreamEndsWhilePoolLives: when the pool ends its stream but lives
// on, the calls in flight fail saying so, and the pool is replaced: the
// next call goes to a fresh one, and the old one is stopped.
func TestStreamEndsWhilePoolLives(t *testing.T) {
	m := fakeProgram(t, "end")
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	if got, err := pooltest.Call(t, s, m, 0, "before"); err != nil || got != "before" {
		t.Fatalf("echo(before) = %v, %v", got, err)
	}
	old := pooltest.Children()
	_, err := pooltest.Call(t, s, m, 0, "end")
	if want := "go pool: call echo: its call stream ended: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("echo(end): %v, want an error starting %q", err, want)
	}
	if got, err := pooltest.Call(t, s, m, 0, "after"); err != nil || got != "after" {
		t.Fatalf("echo(after) = %v, %v", got, err)
	}
	st := s.Status()[0]
	if st.Replaced != 1 || !strings.HasPrefix(st.Replacement, "its call stream ended") || st.Deaths != 0 {
		t.Errorf("status %+v, want one replacement for the stream's end and no death", st)
	}
	// The old pool is stopped once its last call failed.
	deadline := time.Now().Add(30 * time.Second)
	for kids := pooltest.Children(); len(kids) != 1 || slices.Equal(kids, old); kids = pooltest.Children() {
		if time.Now().After(deadline) {
			t.Fatalf("pool processes %v; want only a fresh one (the old was %v)", kids, old)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestUnaryFallback: a pool that does not serve Calls (the Python
// runtime's) is called with Call and CallWithProgress, from the first
// call on, however many come at once.
func TestUnaryFallback(t *testing.T) {
	m := fakeProgram(t, "unary")
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	words := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	got, errs := echoAll(t, s, m, words...)
	for i, w := range words {
		if errs[i] != nil || got[i] != w {
			t.Errorf("echo(%q) = %v, %v", w, got[i], errs[i])
		}
	}
	if pool.Streaming(s, manifest.Go) {
		t.Error("the calls went on a stream the pool does not serve")
	}
	if st := s.Status()[0]; st.Replaced != 0 || st.Deaths != 0 {
		t.Errorf("status %+v: the stream it does not serve cost the pool", st)
	}
	if _, err := pooltest.Call(t, s, m, 0, "again"); err != nil {
		t.Fatal(err)
	}
}

// TestPythonStreams: the Python runtime serves the stream, and the
// supervisor uses it (the Go runtime's tests are in pools/go; the C++
// runtime's stream is what every C++ call of the integration tests uses).
func TestPythonStreams(t *testing.T) {
	m := program(t, "def ident(x):\n    return x\n", fn{Source: "ident", Args: []*types.Type{types.StrType}, Return: types.StrType})
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	if got, err := pooltest.Call(t, s, m, 0, "py"); err != nil || got != "py" {
		t.Fatalf("ident: %v, %v", got, err)
	}
	if !pool.Streaming(s, manifest.Python) {
		t.Error("the Python pool's calls did not go on the stream")
	}
}

// TestStreamCancelFollowsItsCall: a caller that leaves at once, even
// before its call is sent, has the call's Cancel sent after the call,
// never before; and the call keeps its place among the calls in flight
// until the pool answers it, then gives it back.
func TestStreamCancelFollowsItsCall(t *testing.T) {
	m := fakeProgram(t, "cancel")
	s, stderr := pooltest.Supervise(t, m, pool.Options{MaxCalls: 4})
	f := &m.Functions[0]
	data, err := types.EncodeArgs(f.Args, []any{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background(), manifest.Go); err != nil {
		t.Fatal(err)
	}
	const calls = 40 // ten times MaxCalls: the slots must come back
	for i := range calls {
		ctx, cancel := context.WithCancel(context.Background())
		if i%2 == 0 {
			cancel() // at once: the caller leaves before or as it is sent
		} else {
			time.AfterFunc(time.Duration(i)*10*time.Microsecond, cancel)
		}
		// The call waits for a slot, which an earlier call gives back
		// once the pool answered its Cancel.
		_, err := s.Call(ctx, f, data)
		cancel()
		if err == nil {
			t.Fatalf("call %d: the fake pool answered a call that was not cancelled", i)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for st := s.Status()[0]; st.Calls != 0; st = s.Status()[0] {
		if time.Now().After(deadline) {
			t.Fatalf("status %+v: abandoned calls still hold their slots after their replies", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if strings.Contains(stderr.String(), "before its call") {
		t.Errorf("stderr: %s", stderr.String())
	}
	// Abandoned calls may have replaced the pool (abandon.go); none may
	// be left counted.
	if st := s.Status()[0]; st.Deaths != 0 || st.Abandoned != 0 {
		t.Errorf("status %+v, want no death and no abandoned call left", st)
	}
}
