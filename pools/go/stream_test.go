package gopool_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/progress"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
	"github.com/nexus-run/nexus/proto"
)

// The Calls stream between the supervisor and a real Go pool: what the
// stream adds to unary calls (a Cancel reaching the function) and its
// failure modes.

const streamSource = `package mathx

import (
	"context"
	"fmt"
	"os"
	"time"
)

func Wait(ctx context.Context, tag int, seconds float64) int {
	fmt.Fprintln(os.Stderr, "wait started", tag)
	select {
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "wait cancelled", tag)
		return -tag
	case <-time.After(time.Duration(seconds * float64(time.Second))):
		return tag
	}
}

func Pid(int) int { return os.Getpid() }

func Ident(x int) int { return x }

func Double(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = 2 * x
	}
	return out
}
`

// The ids of streamSource's functions: Wait, shaped as pooltest.Nap
// wants, is the first, and Pid the second, as pooltest.Pid wants.
const (
	streamWait = iota
	streamPid
	streamIdent
	streamDouble
)

var (
	streamProgram     *manifest.Manifest
	streamProgramErr  error
	streamProgramOnce sync.Once
)

func streamProg(t *testing.T) *manifest.Manifest {
	t.Helper()
	streamProgramOnce.Do(func() {
		streamProgram, streamProgramErr = build(testRoot+"/stream", streamSource, []fn{
			{Source: "Wait", Args: pooltest.NapFn.Args, Return: pooltest.NapFn.Return},
			{Source: "Pid", Args: pooltest.PidFn.Args, Return: pooltest.PidFn.Return},
			{Source: "Ident", Args: intToInt, Return: types.IntType},
			{Source: "Double", Args: []*types.Type{types.ListOf(types.RealType)}, Return: types.ListOf(types.RealType)},
		})
	})
	if streamProgramErr != nil {
		t.Fatal(streamProgramErr)
	}
	return streamProgram
}

// TestCancelReachesFunction: a caller that gives up leaves at once; the
// Cancel sent on the stream cancels the context of the function, which
// returns; until its reply is in, the call counts as abandoned, and then
// it is over, without a replacement of the pool.
func TestCancelReachesFunction(t *testing.T) {
	m := streamProg(t)
	s, stderr := pooltest.Supervise(t, m, pool.Options{MaxCalls: 4})
	pid := pooltest.Pid(t, s, m)
	ctx, cancel := context.WithCancel(context.Background())
	done := pooltest.Nap(t, ctx, s, m, 7, 600)
	pooltest.WaitFor(t, stderr, "wait started 7\n")
	cancel()
	if err := pooltest.Await(t, done, "the cancelled wait"); !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled wait: %v, want the cancellation", err)
	}
	pooltest.WaitFor(t, stderr, "wait cancelled 7\n")
	deadline := time.Now().Add(time.Minute)
	for st := s.Status()[0]; st.Calls != 0 || st.Abandoned != 0; st = s.Status()[0] {
		if time.Now().After(deadline) {
			t.Fatalf("status %+v: the cancelled call is still counted after its function returned", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := pooltest.Pid(t, s, m); got != pid || s.Status()[0].Replaced != 0 {
		t.Errorf("the pool (pid %d, now %d) was replaced: %+v", pid, got, s.Status()[0])
	}
}

// TestDeathMidStream: when the pool dies, every call in flight on its
// stream fails with its death, and the next call starts a fresh pool.
func TestDeathMidStream(t *testing.T) {
	m := streamProg(t)
	s, stderr := pooltest.Supervise(t, m, pool.Options{})
	pid := pooltest.Pid(t, s, m)
	var waits []<-chan error
	for tag := range 3 {
		waits = append(waits, pooltest.Nap(t, context.Background(), s, m, tag, 600))
		pooltest.WaitFor(t, stderr, fmt.Sprintf("wait started %d\n", tag))
	}
	if p, err := os.FindProcess(pid); err != nil {
		t.Fatal(err)
	} else if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	for tag, done := range waits {
		err := pooltest.Await(t, done, fmt.Sprintf("wait %d", tag))
		var died *pool.DiedError
		if want := "go pool died while running Wait (killed by signal SIGKILL)"; !errors.As(err, &died) || err.Error() != want {
			t.Errorf("wait %d: %v, want %q", tag, err, want)
		}
	}
	if fresh := pooltest.Pid(t, s, m); fresh == pid {
		t.Errorf("the dead pool (pid %d) still answers", pid)
	}
}

// TestLargeAndSmallCallsTogether: large arguments and results, each past
// the stream's flow-control window, cross the stream while small calls go
// on beside them, each answered with its own result.
func TestLargeAndSmallCallsTogether(t *testing.T) {
	m := streamProg(t)
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	xs := make([]float64, 3_000_000) // 24 MB, past the 16 MiB window
	for i := range xs {
		xs[i] = float64(i)
	}
	data, err := msgpack.Marshal([]any{xs})
	if err != nil {
		t.Fatal(err)
	}
	var calls []func() error
	for range 3 {
		calls = append(calls, func() error {
			res, err := s.Call(context.Background(), &m.Functions[streamDouble], data)
			if err != nil {
				return err
			}
			var back []float64
			if err := msgpack.Unmarshal(res, &back); err != nil {
				return err
			}
			if len(back) != len(xs) || back[len(xs)-1] != 2*xs[len(xs)-1] {
				return fmt.Errorf("Double returned %d items", len(back))
			}
			return nil
		})
	}
	for i := range 20 {
		calls = append(calls, func() error {
			if got, err := pooltest.Call(t, s, m, streamIdent, int64(i)); err != nil || got != int64(i) {
				return fmt.Errorf("Ident(%d) = %v, %v", i, got, err)
			}
			return nil
		})
	}
	for _, err := range allAtOnce(calls) {
		t.Error(err)
	}
}

// allAtOnce runs calls concurrently and returns their errors.
func allAtOnce(calls []func() error) []error {
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, call := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = call()
		}()
	}
	wg.Wait()
	return slices.DeleteFunc(errs, func(err error) bool { return err == nil })
}

// TestStreamProgressOnlyWhenAsked: on the stream, beside calls that want
// none, progress reaches the caller that asked for it, each report once,
// in order.
func TestStreamProgressOnlyWhenAsked(t *testing.T) {
	m := program(t)
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	f := &m.Functions[idSteps]
	data, _ := types.EncodeArgs(f.Args, []any{int64(50)})
	var mu sync.Mutex
	var got []float64
	ctx := progressTo(func(done float64) {
		mu.Lock()
		got = append(got, done)
		mu.Unlock()
	})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := context.Background()
			if i == 0 {
				c = ctx
			}
			if _, err := s.Call(c, f, data); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 50 || !slices.IsSorted(got) {
		t.Errorf("reports %v, want 1 to 50 once each", got)
	}
}

// progressTo is a context whose calls report the done of their progress
// to f.
func progressTo(f func(done float64)) context.Context {
	return progress.With(context.Background(), func(r progress.Report) { f(r.Done) })
}

// TestCallsProtocol speaks Calls to a Go pool as the nexus does: answers
// tagged with their calls' ids, progress events only for the call that
// asked, and a Cancel that crosses its call's reply ignored.
func TestCallsProtocol(t *testing.T) {
	h := pooltest.StartPlugin(t, poolCommand(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stream, err := proto.NewPoolClient(h.Conn).Calls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	steps3 := &proto.CallRequest{Function: idSteps, Args: []byte{0x91, 0x03}}
	send := func(msg *proto.CallMessage) {
		t.Helper()
		if err := stream.Send(msg); err != nil {
			t.Fatal(err)
		}
	}
	call := func(id uint64, req *proto.CallRequest, progress bool) *proto.CallMessage {
		return &proto.CallMessage{Id: id, Kind: &proto.CallMessage_Call{Call: &proto.StreamCall{Request: req, Progress: progress}}}
	}
	// Call 5 wants no progress; call 9 does, then a Cancel of call 5,
	// which has ended or ends without it.
	send(call(5, steps3, false))
	send(call(9, steps3, true))
	send(&proto.CallMessage{Id: 5, Kind: &proto.CallMessage_Cancel{Cancel: &proto.Cancel{}}})
	var got []string
	for replies := 0; replies < 2; {
		a, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		switch e := a.Event.(type) {
		case *proto.CallAnswer_Progress:
			got = append(got, fmt.Sprintf("%d progress %g", a.Id, e.Progress.Done))
		case *proto.CallAnswer_Reply:
			replies++
			got = append(got, fmt.Sprintf("%d reply %x %q", a.Id, e.Reply.Result, e.Reply.Error))
		}
	}
	var of9 []string
	for _, g := range got {
		if strings.HasPrefix(g, "9 ") {
			of9 = append(of9, g)
		}
	}
	want9 := []string{"9 progress 1", "9 progress 2", "9 progress 3", `9 reply 03 ""`}
	if !slices.Equal(of9, want9) || !slices.Contains(got, `5 reply 03 ""`) || len(got) != 5 {
		t.Errorf("answers %q; want call 5's reply and %q", got, want9)
	}
}

// TestCallsOddMessages: a Go pool skips messages of a kind it does not
// know, answers a call whose id is in flight with an error, and ends the
// stream with INTERNAL on a message gRPC cannot decode.
func TestCallsOddMessages(t *testing.T) {
	m := streamProg(t)
	h := pooltest.StartPlugin(t, m.PoolCommand(&m.Pools[0]))
	long, err := msgpack.Marshal([]any{1, 600.0})
	if err != nil {
		t.Fatal(err)
	}
	pooltest.CheckOddMessages(t, h.Conn, pooltest.OddCalls{
		Long: &proto.CallRequest{Function: streamWait, Args: long},
		// Wait returns -tag once its context is cancelled.
		Cancelled:   func(r *proto.CallReply) bool { return r.Error == "" && bytes.Equal(r.Result, []byte{0xff}) },
		Quick:       &proto.CallRequest{Function: streamIdent, Args: []byte{0x91, 0x05}},
		QuickResult: []byte{0x05},
		Internal:    "failed to unmarshal the received message",
	})
}
