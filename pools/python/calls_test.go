package python_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/integration/procstat"
	"github.com/nexus-run/nexus/internal/codegen/python"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
	"github.com/nexus-run/nexus/proto"
)

// The test program's functions, Int -> Int unless said otherwise, by id.
const (
	idEcho     = iota // returns its argument
	idSteps           // reports n steps of progress, returns n
	idBlock           // waits for release (or its cancellation, which it notices), returns its argument
	idRelease         // lets every block return, returns its argument
	idStubborn        // waits for unstick, ignoring cancellation, returns its argument
	idUnstick         // lets every stubborn return, returns its argument
	idBoom            // raises ValueError
	idFsum            // [Real] -> Real: the sum of a plain list of floats
	idIsum            // [Int] -> Int: the sum of a plain list of ints
	idSum             // [Real] -> Real: sum, nothing checked
)

const callsModule = `
import threading

import nexus

_gate = threading.Event()
_stuck = threading.Event()


def echo(x):
    return x


def steps(n):
    for i in range(n):
        nexus.progress(i + 1, n, "step")
    return n


def block(x):
    for _ in range(6000):  # at most a minute
        if nexus.cancelled():
            raise RuntimeError("noticed the cancellation")
        if _gate.wait(0.01):
            return x
    raise RuntimeError("never released")


def release(x):
    _gate.set()
    return x


def stubborn(x):
    _stuck.wait(60)
    return x


def unstick(x):
    _stuck.set()
    return x


def boom(x):
    raise ValueError(f"boom {x}")


def fsum(xs):
    if type(xs) is not list or any(type(x) is not float for x in xs):
        raise TypeError(f"not a list of floats: {xs!r}")
    return sum(xs)


def total(xs):
    return sum(xs)


def isum(xs):
    if type(xs) is not list or any(type(x) is not int for x in xs):
        raise TypeError(f"not a list of ints: {xs!r}")
    return sum(xs)
`

// startPool builds the test program's Python pool, starts it as go-plugin
// would, and returns a connection to it; the pool is killed when the test
// ends.
func startPool(t testing.TB) *grpc.ClientConn {
	conn, _ := startPoolPid(t)
	return conn
}

// startPoolPid is startPool, also returning the pool's process id.
func startPoolPid(t testing.TB) (*grpc.ClientConn, int) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	root := t.TempDir()
	src := filepath.Join(root, "src", "mod.py")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(callsModule), 0o644); err != nil {
		t.Fatal(err)
	}
	intFn := func(name string) pooltest.Fn {
		return pooltest.Fn{Source: name, Args: []*types.Type{types.IntType}, Return: types.IntType}
	}
	m, err := pooltest.Program(root, manifest.Python, src, python.Write, []pooltest.Fn{
		intFn("echo"), intFn("steps"), intFn("block"), intFn("release"), intFn("stubborn"), intFn("unstick"), intFn("boom"),
		{Source: "fsum", Args: []*types.Type{types.ListOf(types.RealType)}, Return: types.RealType},
		{Source: "isum", Args: []*types.Type{types.ListOf(types.IntType)}, Return: types.IntType},
		{Source: "total", Args: []*types.Type{types.ListOf(types.RealType)}, Return: types.RealType},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := pooltest.StartPlugin(t, m.PoolCommand(&m.Pools[0]), "PYTHONDONTWRITEBYTECODE=1")
	return p.Conn, p.Pid
}

// stream is one Calls stream, its answers read into a channel.
type stream struct {
	t       testing.TB
	s       proto.Pool_CallsClient
	cancel  context.CancelFunc
	mu      sync.Mutex // serializes Send
	answers chan *proto.CallAnswer
	end     chan error // the stream's end: nil for status OK
}

func openCalls(t testing.TB, conn *grpc.ClientConn) *stream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	s, err := proto.NewPoolClient(conn).Calls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st := &stream{t: t, s: s, cancel: cancel, answers: make(chan *proto.CallAnswer, 4096), end: make(chan error, 1)}
	go func() {
		for {
			a, err := s.Recv()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				st.end <- err
				close(st.answers)
				return
			}
			st.answers <- a
		}
	}()
	return st
}

func (st *stream) call(id uint64, fn uint32, arg int, progress bool) {
	st.t.Helper()
	st.send(&proto.CallMessage{Id: id, Kind: &proto.CallMessage_Call{Call: &proto.StreamCall{
		Request:  &proto.CallRequest{Function: fn, Args: []byte{0x91, byte(arg)}},
		Progress: progress,
	}}})
}

func (st *stream) cancelCall(id uint64) {
	st.t.Helper()
	st.send(&proto.CallMessage{Id: id, Kind: &proto.CallMessage_Cancel{Cancel: &proto.Cancel{}}})
}

func (st *stream) send(m *proto.CallMessage) {
	st.t.Helper()
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.s.Send(m); err != nil {
		st.t.Fatalf("send %v: %v", m, err)
	}
}

// next returns the stream's next answer; the test fails if the stream ends
// first or nothing comes within a minute.
func (st *stream) next() *proto.CallAnswer {
	st.t.Helper()
	select {
	case a, ok := <-st.answers:
		if !ok {
			st.t.Fatalf("the stream ended instead of answering: %v", <-st.end)
		}
		return a
	case <-time.After(time.Minute):
		st.t.Fatal("no answer within a minute")
		return nil
	}
}

// reply returns the next answer, which must be a reply.
func (st *stream) reply() (uint64, *proto.CallReply) {
	st.t.Helper()
	a := st.next()
	r := a.GetReply()
	if r == nil {
		st.t.Fatalf("answer %v, want a reply", a)
	}
	return a.Id, r
}

// wantResult checks that r is the result n (a positive fixint).
func wantResult(t *testing.T, id uint64, r *proto.CallReply, n int) {
	t.Helper()
	if r.Error != "" || !bytes.Equal(r.Result, []byte{byte(n)}) {
		t.Errorf("call %d: reply %v, want the result %d", id, r, n)
	}
}

// TestCallsAnyOrder: a call that waits does not hold up the stream's
// later calls, whose replies come first, each tagged with its call's id.
func TestCallsAnyOrder(t *testing.T) {
	st := openCalls(t, startPool(t))
	st.call(1, idBlock, 11, false)
	st.call(2, idEcho, 22, false)
	if id, r := st.reply(); id != 2 {
		t.Fatalf("first reply is call %d's, want call 2's (echo) while 1 blocks", id)
	} else {
		wantResult(t, id, r, 22)
	}
	st.call(3, idRelease, 33, false)
	got := map[uint64]*proto.CallReply{}
	for range 2 {
		id, r := st.reply()
		got[id] = r
	}
	wantResult(t, 1, got[1], 11)
	wantResult(t, 3, got[3], 33)
	if err := st.s.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if err := <-st.end; err != nil {
		t.Errorf("the stream ended with %v after CloseSend, want OK", err)
	}
}

// TestCallsManyInFlight: many calls sent at once, half asking for
// progress, are each answered exactly once, and only those that asked get
// progress, before their reply.
func TestCallsManyInFlight(t *testing.T) {
	st := openCalls(t, startPool(t))
	const calls = 200
	go func() {
		for id := uint64(1); id <= calls; id++ {
			st.call(id, idSteps, 3, id%2 == 0)
		}
	}()
	replied := map[uint64]bool{}
	progressed := map[uint64]float64{}
	for len(replied) < calls {
		a := st.next()
		if replied[a.Id] {
			t.Fatalf("answer %v after call %d's reply", a, a.Id)
		}
		switch ev := a.Event.(type) {
		case *proto.CallAnswer_Progress:
			if a.Id%2 == 1 {
				t.Fatalf("progress %v for call %d, which did not ask for it", ev.Progress, a.Id)
			}
			if ev.Progress.Done <= progressed[a.Id] || ev.Progress.GetTotal() != 3 || ev.Progress.Message != "step" {
				t.Fatalf("call %d: progress %v after done %v", a.Id, ev.Progress, progressed[a.Id])
			}
			progressed[a.Id] = ev.Progress.Done
		case *proto.CallAnswer_Reply:
			if a.Id < 1 || a.Id > calls {
				t.Fatalf("reply for call %d, which was not sent", a.Id)
			}
			wantResult(t, a.Id, ev.Reply, 3)
			replied[a.Id] = true
			// Reports may merge, but the latest goes before the reply.
			if a.Id%2 == 0 && progressed[a.Id] != 3 {
				t.Errorf("call %d replied after progress %v, want 3", a.Id, progressed[a.Id])
			}
		default:
			t.Fatalf("answer %v has no event", a)
		}
	}
}

// TestCallsCancel: Python cannot stop a thread, so a cancelled call runs
// on, but a function that asks nexus.cancelled() stops early, and either
// way the call's reply comes, saying it was cancelled. A cancellation of a
// call no longer in flight changes nothing.
func TestCallsCancel(t *testing.T) {
	st := openCalls(t, startPool(t))
	st.call(1, idBlock, 1, false)    // notices the cancellation
	st.call(2, idStubborn, 2, false) // does not
	st.cancelCall(1)
	st.cancelCall(2)
	st.cancelCall(99) // never sent
	// A stream's messages are handled in order: the cancellations have
	// reached their calls before this one runs.
	st.call(3, idUnstick, 3, false)
	got := map[uint64]*proto.CallReply{}
	for range 3 {
		id, r := st.reply()
		got[id] = r
	}
	for _, id := range []uint64{1, 2} {
		if r := got[id]; r == nil || !strings.Contains(r.Error, "cancelled") || len(r.Result) != 0 {
			t.Errorf("call %d: reply %v, want an error saying it was cancelled", id, r)
		}
	}
	wantResult(t, 3, got[3], 3)
	// Block's gate is still closed: call 1 ended by noticing.
	st.call(4, idEcho, 4, false)
	st.cancelCall(4) // before or after its end: either way one reply
	if id, r := st.reply(); id != 4 || !(bytes.Equal(r.Result, []byte{4}) && r.Error == "" || strings.Contains(r.Error, "cancelled")) {
		t.Errorf("call %d: reply %v, want call 4's result or its cancellation", id, r)
	}
	st.call(5, idEcho, 5, false)
	id, r := st.reply()
	wantResult(t, id, r, 5)
}

// TestCallsFunctionRaises: what a function raises is its call's error
// reply; the stream serves on.
func TestCallsFunctionRaises(t *testing.T) {
	st := openCalls(t, startPool(t))
	st.call(1, idBoom, 7, false)
	id, r := st.reply()
	if id != 1 || !strings.HasPrefix(r.Error, "ValueError: boom 7\n") || !strings.Contains(r.Error, "in boom") {
		t.Errorf("call %d: reply %v, want the ValueError with its traceback", id, r)
	}
	st.call(1, idEcho, 8, false) // the id is free once answered
	id, r = st.reply()
	wantResult(t, id, r, 8)
}

// TestCallsStreamClosedMidCall: a client that closes its side while calls
// run still gets their replies, then the stream's end; a client that
// cancels the stream ends it at once, the call running on in the pool,
// which serves other streams and the health check as before.
func TestCallsStreamClosedMidCall(t *testing.T) {
	conn := startPool(t)

	st := openCalls(t, conn)
	st.call(1, idStubborn, 100, false)
	if err := st.s.CloseSend(); err != nil {
		t.Fatal(err)
	}
	unstick := openCalls(t, conn)
	unstick.call(1, idUnstick, 1, false)
	unstick.reply()
	id, r := st.reply()
	wantResult(t, id, r, 100)
	if err := <-st.end; err != nil {
		t.Errorf("the stream ended with %v after CloseSend, want OK", err)
	}

	cut := openCalls(t, conn)
	cut.call(1, idBlock, 1, false)
	cut.call(2, idEcho, 2, false)
	if id, _ := cut.reply(); id != 2 {
		t.Fatalf("reply for call %d, want 2", id)
	}
	cut.cancel() // while call 1 blocks
	for range cut.answers {
		// Drained: an answer may have been on its way.
	}
	if err := <-cut.end; err == nil {
		t.Error("a cancelled stream ended with status OK")
	}

	other := openCalls(t, conn)
	other.call(1, idRelease, 5, false)
	id, r = other.reply()
	wantResult(t, id, r, 5)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "plugin"})
	if err != nil || h.Status != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health after a cancelled stream: %v, %v", h, err)
	}
}

// TestCallsOddMessages: a Python pool skips messages of a kind it does
// not know, answers a call whose id is in flight with an error, and ends
// the stream with INTERNAL on a message it cannot decode.
func TestCallsOddMessages(t *testing.T) {
	pooltest.CheckOddMessages(t, startPool(t), pooltest.OddCalls{
		Long:        &proto.CallRequest{Function: idBlock, Args: []byte{0x91, 0x01}},
		Cancelled:   func(r *proto.CallReply) bool { return strings.Contains(r.Error, "cancelled") },
		Quick:       &proto.CallRequest{Function: idEcho, Args: []byte{0x91, 0x05}},
		QuickResult: []byte{0x05},
		Internal:    "the nexus sent a CallMessage that cannot be decoded: ",
	})
}

// BenchmarkPythonCall and BenchmarkPythonCalls time one small call
// (echo), one at a time, with the unary Call and on the Calls stream, and
// report the pool's CPU time per call (pool-µs/op).
func BenchmarkPythonCall(b *testing.B) {
	conn, pid := startPoolPid(b)
	client := proto.NewPoolClient(conn)
	ctx := context.Background()
	req := &proto.CallRequest{Function: idEcho, Args: []byte{0x91, 0x07}}
	poolCPU(b, pid, func() {
		if r, err := client.Call(ctx, req); err != nil || r.Error != "" {
			b.Fatal(r, err)
		}
	})
}

func BenchmarkPythonCalls(b *testing.B) {
	conn, pid := startPoolPid(b)
	st := openCalls(b, conn)
	var id uint64
	poolCPU(b, pid, func() {
		id++
		st.call(id, idEcho, 7, false)
		if got, r := st.reply(); got != id || r.Error != "" {
			b.Fatal(got, r)
		}
	})
}

// BenchmarkPython100kReals times a call of total (sum) with 100,000 reals, sent
// as today's msgpack array and packed (extension type 1).
func BenchmarkPython100kReals(b *testing.B) {
	conn, pid := startPoolPid(b)
	st := openCalls(b, conn)
	reals := make([]float64, 100_000)
	for i := range reals {
		reals[i] = float64(i) / 7
	}
	plain, err := msgpack.Marshal([]any{reals})
	if err != nil {
		b.Fatal(err)
	}
	packed := append([]byte{0x91, 0xc9}, binary.BigEndian.AppendUint32(nil, uint32(8*len(reals)))...)
	packed = append(packed, 1)
	for _, r := range reals {
		packed = binary.LittleEndian.AppendUint64(packed, math.Float64bits(r))
	}
	for _, c := range []struct {
		name string
		args []byte
	}{{"array", plain}, {"packed", packed}} {
		b.Run(c.name, func(b *testing.B) {
			var id uint64
			poolCPU(b, pid, func() {
				id++
				st.send(&proto.CallMessage{Id: id, Kind: &proto.CallMessage_Call{Call: &proto.StreamCall{
					Request: &proto.CallRequest{Function: idSum, Args: c.args},
				}}})
				if got, r := st.reply(); got != id || r.Error != "" {
					b.Fatal(got, r)
				}
			})
		})
	}
}

// poolCPU runs call b.N times and reports the CPU time process pid spent
// per call.
func poolCPU(b *testing.B, pid int, call func()) {
	call() // the first call warms up both ends
	before, ok := procstat.CPU(pid)
	for b.Loop() {
		call()
	}
	if after, ok2 := procstat.CPU(pid); ok && ok2 {
		b.ReportMetric(float64((after-before).Microseconds())/float64(b.N), "pool-µs/op")
	}
}

// TestCallsPackedLists: a [Real] or [Int] argument packed as a msgpack
// extension (type 1: little-endian float64s, type 2: little-endian
// int64s) reaches the function as the plain list today's msgpack array
// gives it.
func TestCallsPackedLists(t *testing.T) {
	st := openCalls(t, startPool(t))
	reals := []float64{0.5, 1.25, -3, math.Inf(1)}
	ints := []int64{1, -1 << 62, 1<<62 + 5, math.MinInt64 + 10}
	packedReals, packedInts := []byte{0x91, 0xc7, 32, 1}, []byte{0x91, 0xc7, 32, 2}
	for i := range reals {
		packedReals = binary.LittleEndian.AppendUint64(packedReals, math.Float64bits(reals[i]))
		packedInts = binary.LittleEndian.AppendUint64(packedInts, uint64(ints[i]))
	}
	plain := func(v any) []byte {
		b, err := msgpack.Marshal([]any{v})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := []struct {
		name string
		fn   uint32
		args []byte
		want any
	}{
		{"[Real] as an array", idFsum, plain(reals), math.Inf(1)},
		{"[Real] packed", idFsum, packedReals, math.Inf(1)},
		{"[Int] as an array", idIsum, plain(ints), int64(6 + math.MinInt64 + 10)},
		{"[Int] packed", idIsum, packedInts, int64(6 + math.MinInt64 + 10)},
		{"empty [Real] packed", idFsum, []byte{0x91, 0xc7, 0, 1}, 0.0},
	}
	for i, c := range cases {
		st.send(&proto.CallMessage{Id: uint64(i), Kind: &proto.CallMessage_Call{Call: &proto.StreamCall{
			Request: &proto.CallRequest{Function: c.fn, Args: c.args},
		}}})
		id, r := st.reply()
		if id != uint64(i) || r.Error != "" {
			t.Errorf("%s: call %d: reply %v", c.name, id, r)
			continue
		}
		var got any
		if err := msgpack.Unmarshal(r.Result, &got); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: result %v, want %v", c.name, got, c.want)
		}
	}
	// A packed list of the wrong length fails its call, saying why.
	st.send(&proto.CallMessage{Id: 9, Kind: &proto.CallMessage_Call{Call: &proto.StreamCall{
		Request: &proto.CallRequest{Function: idFsum, Args: []byte{0x91, 0xc7, 3, 1, 0, 0, 0}},
	}}})
	if _, r := st.reply(); !strings.Contains(r.Error, "holds 3 bytes, not a whole number of 8-byte numbers") {
		t.Errorf("a 3-byte packed list: reply %v", r)
	}
}
