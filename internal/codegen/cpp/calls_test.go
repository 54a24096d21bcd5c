package cpp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/nexus-run/nexus/integration/procstat"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
	"github.com/nexus-run/nexus/proto"
)

// These tests speak the Calls stream (proto/pool.proto) to a real C++ pool
// with the generated Go client, without the supervisor: the pool is started
// as go-plugin's client starts it, and each test gets a fresh process.

// streamLib is the test program's header. The gate lets a test hold calls
// running for as long as it wants, without timing: wait_gate returns once
// open_gate has been called (or fails after a minute, so that a broken
// test cannot hang the pool).
const streamLib = `#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <thread>

inline std::int64_t twice(std::int64_t x) { return 2 * x; }

inline std::mutex gate_mu;
inline std::condition_variable gate_cv;
inline bool gate_open = false;
inline std::int64_t wait_gate(std::int64_t x) {
  std::unique_lock<std::mutex> lock(gate_mu);
  if (!gate_cv.wait_for(lock, std::chrono::minutes(1), [] { return gate_open; })) {
    throw std::runtime_error("the gate was not opened within a minute");
  }
  return x;
}
inline std::int64_t open_gate(std::int64_t x) {
  {
    std::lock_guard<std::mutex> lock(gate_mu);
    gate_open = true;
  }
  gate_cv.notify_all();
  return x;
}

inline std::int64_t count(std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) nexus::progress(i + 1, n, "counting");
  return n;
}

// until_cancelled says it has started, then runs until the nexus cancels
// it (a minute at most).
inline std::int64_t until_cancelled(std::int64_t x) {
  nexus::progress(1, std::nullopt, "started");
  for (int i = 0; i < 60000 && !nexus::cancelled(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return nexus::cancelled() ? -1 : x;
}

inline std::int64_t nap(std::int64_t ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return ms;
}

// crowd holds the calls until want of them run at once (failing after a
// minute if they never do); after that it lets every call through. It
// returns the most calls that ran at once so far.
inline std::mutex crowd_mu;
inline std::condition_variable crowd_cv;
inline int crowd_now = 0;
inline int crowd_most = 0;
inline bool crowd_full = false;
inline std::int64_t crowd(std::int64_t want) {
  std::unique_lock<std::mutex> lock(crowd_mu);
  crowd_most = std::max(crowd_most, ++crowd_now);
  if (crowd_now >= want) {
    crowd_full = true;
    crowd_cv.notify_all();
  }
  bool full = crowd_cv.wait_for(lock, std::chrono::minutes(1), [] { return crowd_full; });
  --crowd_now;
  if (!full) throw std::runtime_error("at most " + std::to_string(crowd_most) + " calls ran at once");
  return crowd_most;
}

inline double checked(double x) {
  if (x < 0) throw std::domain_error("negative input");
  return x;
}
inline std::int64_t crash(std::int64_t) {
  std::raise(SIGSEGV);
  return 0;
}
`

// The ids of streamLib's functions in streamProgram.
const (
	idTwice = iota
	idWaitGate
	idOpenGate
	idCount
	idUntilCancelled
	idNap
	idCrowd
	idChecked
	idCrash
)

func streamProgram(t testing.TB) *manifest.Manifest {
	intFn := func(name string) fn {
		return fn{Source: name, Args: []*types.Type{types.IntType}, Return: types.IntType}
	}
	return program(t, streamLib, "",
		intFn("twice"), intFn("wait_gate"), intFn("open_gate"), intFn("count"), intFn("until_cancelled"),
		intFn("nap"), intFn("crowd"),
		fn{Source: "checked", Args: []*types.Type{types.RealType}, Return: types.RealType},
		intFn("crash"))
}

// stream is one Calls stream of a test.
type stream struct {
	t      testing.TB
	s      grpc.BidiStreamingClient[proto.CallMessage, proto.CallAnswer]
	cancel context.CancelFunc
}

// openStream opens a Calls stream to p.
func openStream(t testing.TB, p *pooltest.Plugin) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := proto.NewPoolClient(p.Conn).Calls(ctx)
	if err != nil {
		t.Fatalf("Calls: %v", err)
	}
	return &stream{t: t, s: s, cancel: cancel}
}

func intArgs(t testing.TB, x any) []byte {
	b, err := msgpack.Marshal([]any{x})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// call sends a call of function fn with the one argument x.
func (s *stream) call(id uint64, fn uint32, x any, progress bool) {
	s.t.Helper()
	s.send(id, fn, intArgs(s.t, x), progress)
}

// send sends a call of function fn with args, a msgpack array.
func (s *stream) send(id uint64, fn uint32, args []byte, progress bool) {
	s.t.Helper()
	err := s.s.Send(&proto.CallMessage{Id: id, Kind: &proto.CallMessage_Call{Call: &proto.StreamCall{
		Request: &proto.CallRequest{Function: fn, Args: args}, Progress: progress}}})
	if err != nil {
		s.t.Fatalf("send call %d: %v", id, err)
	}
}

func (s *stream) cancelCall(id uint64) {
	s.t.Helper()
	if err := s.s.Send(&proto.CallMessage{Id: id, Kind: &proto.CallMessage_Cancel{Cancel: &proto.Cancel{}}}); err != nil {
		s.t.Fatalf("send cancel %d: %v", id, err)
	}
}

func (s *stream) recv() *proto.CallAnswer {
	s.t.Helper()
	a, err := s.s.Recv()
	if err != nil {
		s.t.Fatalf("receive: %v", err)
	}
	return a
}

// reply receives the next answer, which must be a reply, and returns its
// id and its result as an integer (or its error).
func (s *stream) reply() (uint64, int64, string) {
	s.t.Helper()
	a := s.recv()
	r := a.GetReply()
	if r == nil {
		s.t.Fatalf("got %v, want a reply", a)
	}
	if r.Error != "" {
		return a.Id, 0, r.Error
	}
	var v int64
	if err := msgpack.Unmarshal(r.Result, &v); err != nil {
		s.t.Fatalf("reply %d: %v", a.Id, err)
	}
	return a.Id, v, ""
}

// replies receives n replies, which must be results, by id.
func (s *stream) replies(n int) map[uint64]int64 {
	s.t.Helper()
	got := map[uint64]int64{}
	for range n {
		id, v, e := s.reply()
		if e != "" {
			s.t.Fatalf("call %d: %s", id, e)
		}
		got[id] = v
	}
	return got
}

// TestCalls drives the Calls stream of one C++ pool build, each case on a
// fresh pool process.
func TestCalls(t *testing.T) {
	m := streamProgram(t)

	t.Run("answered by id in any order", func(t *testing.T) {
		s := openStream(t, pooltest.Launch(t, m))
		s.call(1, idWaitGate, 1, false)
		s.call(2, idTwice, 21, false)
		// Call 1 waits for the gate, which nothing has opened: call 2,
		// sent after it on the same stream, is answered first.
		if id, v, e := s.reply(); id != 2 || v != 42 || e != "" {
			t.Fatalf("first answer: call %d: %d %q, want call 2: 42", id, v, e)
		}
		s.call(3, idOpenGate, 3, false)
		got := s.replies(2)
		if got[1] != 1 || got[3] != 3 || len(got) != 2 {
			t.Errorf("answers %v, want call 1: 1, call 3: 3", got)
		}
	})

	t.Run("progress only when asked", func(t *testing.T) {
		s := openStream(t, pooltest.Launch(t, m))
		s.call(1, idCount, 5, false)
		if id, v, e := s.reply(); id != 1 || v != 5 || e != "" {
			t.Fatalf("call 1: %d %q, want 5", v, e)
		}
		s.call(2, idCount, 1000, true)
		var last float64
		reports := 0
		for {
			a := s.recv()
			if a.Id != 2 {
				t.Fatalf("answer %v, want one for call 2", a)
			}
			if p := a.GetProgress(); p != nil {
				if p.Done <= last || p.GetTotal() != 1000 || p.Message != "counting" {
					t.Fatalf("progress %v after done %v", p, last)
				}
				last = p.Done
				reports++
				continue
			}
			if r := a.GetReply(); r == nil || r.Error != "" {
				t.Fatalf("got %v, want the reply", a)
			}
			break
		}
		// Reports may be merged, but the last one is always sent.
		if reports == 0 || last != 1000 {
			t.Errorf("%d reports, the last at %v; want the last at 1000", reports, last)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		s := openStream(t, pooltest.Launch(t, m))
		// A function that checks nexus::cancelled stops; its reply says
		// it was cancelled.
		s.call(1, idUntilCancelled, 7, true)
		if a := s.recv(); a.Id != 1 || a.GetProgress().GetMessage() != "started" {
			t.Fatalf("got %v, want call 1's progress", a)
		}
		s.cancelCall(1)
		if id, _, e := s.reply(); id != 1 || !strings.Contains(e, "cancelled") {
			t.Fatalf("call %d: error %q, want one saying it was cancelled", id, e)
		}
		// A function that does not check runs on, and its reply comes
		// after its end, still saying it was cancelled: the cancellation
		// is read before the call that opens the gate.
		s.call(2, idWaitGate, 2, false)
		s.cancelCall(2)
		s.cancelCall(99) // no such call: nothing happens
		s.call(3, idOpenGate, 3, false)
		got := map[uint64]string{}
		for range 2 {
			id, v, e := s.reply()
			got[id] = fmt.Sprint(v, e)
		}
		if !strings.Contains(got[2], "cancelled") || got[3] != "3" || len(got) != 2 {
			t.Errorf("answers %v, want call 2 cancelled and call 3: 3", got)
		}
	})

	t.Run("more calls than threads", func(t *testing.T) {
		s := openStream(t, pooltest.Launch(t, m))
		// The first kMaxThreads (64) calls wait until they all run at
		// once; the rest wait, unread, for a thread, and then run.
		const n, threads = 200, 64
		for i := range uint64(n) {
			s.call(i+1, idCrowd, threads, false)
		}
		seen := map[uint64]bool{}
		peak := int64(0)
		for range n {
			id, v, e := s.reply()
			if e != "" || seen[id] || id == 0 || id > n {
				t.Fatalf("call %d: %d %q (seen before: %v)", id, v, e, seen[id])
			}
			seen[id] = true
			peak = max(peak, v)
		}
		if peak != threads {
			t.Errorf("at most %d calls ran at once, want %d", peak, threads)
		}
	})

	t.Run("a function throws", func(t *testing.T) {
		s := openStream(t, pooltest.Launch(t, m))
		s.call(1, idChecked, -1.0, false)
		if id, _, e := s.reply(); id != 1 || !strings.Contains(e, "std::domain_error: negative input") {
			t.Fatalf("call %d: error %q, want the exception", id, e)
		}
		s.call(2, idTwice, 4, false)
		if id, v, e := s.reply(); id != 2 || v != 8 || e != "" {
			t.Errorf("after the exception: call %d: %d %q", id, v, e)
		}
	})

	t.Run("odd messages", func(t *testing.T) {
		pooltest.CheckOddMessages(t, pooltest.Launch(t, m).Conn, pooltest.OddCalls{
			Long:        &proto.CallRequest{Function: idUntilCancelled, Args: intArgs(t, 7)},
			Cancelled:   func(r *proto.CallReply) bool { return strings.Contains(r.Error, "cancelled") },
			Quick:       &proto.CallRequest{Function: idTwice, Args: intArgs(t, 5)},
			QuickResult: []byte{10},
			Internal:    "the nexus sent a CallMessage that cannot be decoded (",
		})
	})

	t.Run("a crash breaks the stream", func(t *testing.T) {
		p := pooltest.Launch(t, m)
		s := openStream(t, p)
		s.call(1, idWaitGate, 1, false)
		s.call(2, idCrash, 0, false)
		if a, err := s.s.Recv(); err == nil || errors.Is(err, io.EOF) {
			t.Fatalf("got %v, %v; want the stream to fail", a, err)
		}
		<-p.Exited
		if p.Err == nil || !strings.Contains(p.Err.Error(), "segmentation fault") {
			t.Errorf("the pool ended with %v, want SIGSEGV", p.Err)
		}
	})

	t.Run("the nexus closes its side", func(t *testing.T) {
		s := openStream(t, pooltest.Launch(t, m))
		s.call(1, idNap, 50, false)
		if err := s.s.CloseSend(); err != nil {
			t.Fatal(err)
		}
		// The call in flight is answered, then the stream ends.
		if id, v, e := s.reply(); id != 1 || v != 50 || e != "" {
			t.Fatalf("call %d: %d %q", id, v, e)
		}
		if a, err := s.s.Recv(); !errors.Is(err, io.EOF) {
			t.Fatalf("got %v, %v after the last reply; want the stream's end", a, err)
		}
	})

	t.Run("the nexus breaks the stream mid-call", func(t *testing.T) {
		p := pooltest.Launch(t, m)
		s := openStream(t, p)
		s.call(1, idWaitGate, 1, false)
		s.call(2, idCount, 1000000, true)
		s.recv() // call 2 has started
		s.cancel()
		// The pool serves on: a new stream opens the gate, which ends
		// call 1, whose reply has nowhere to go.
		s2 := openStream(t, p)
		s2.call(1, idOpenGate, 1, false)
		s2.call(2, idTwice, 5, false)
		got := s2.replies(2)
		if got[1] != 1 || got[2] != 10 {
			t.Errorf("answers %v on the second stream", got)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if h, err := healthpb.NewHealthClient(p.Conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "plugin"}); err != nil || h.Status != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health after the broken stream: %v, %v", h, err)
		}
	})

	t.Run("unary methods still served", func(t *testing.T) {
		p := pooltest.Launch(t, m)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c := proto.NewPoolClient(p.Conn)
		r, err := c.Call(ctx, &proto.CallRequest{Function: idTwice, Args: intArgs(t, 3)})
		if err != nil || r.Error != "" || string(r.Result) != "\x06" {
			t.Errorf("Call: %v, %v", r, err)
		}
		events, err := c.CallWithProgress(ctx, &proto.CallRequest{Function: idCount, Args: intArgs(t, 3)})
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for {
			e, err := events.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			kinds = append(kinds, fmt.Sprintf("%T", e.Event))
		}
		if n := len(kinds); n < 2 || kinds[n-1] != "*proto.CallEvent_Reply" {
			t.Errorf("CallWithProgress sent %v, want progress then the reply", kinds)
		}
	})
}

// BenchmarkSmallCall compares a small call (Int -> Int) over the Calls
// stream with the same call as a unary Call, on one C++ pool: one call at
// a time, and as many as the benchmark's goroutines send at once. It
// reports the pool's CPU time per call too (pool-µs/op).
func BenchmarkSmallCall(b *testing.B) {
	p := pooltest.Launch(b, streamProgram(b))
	client := proto.NewPoolClient(p.Conn)
	args := intArgs(b, 21)
	unary := func(ctx context.Context) error {
		r, err := client.Call(ctx, &proto.CallRequest{Function: idTwice, Args: args})
		if err == nil && string(r.Result) != "\x2a" {
			err = fmt.Errorf("twice(21) = %x", r.Result)
		}
		return err
	}
	// measure reports the pool's CPU time per call of b's loop, loop.
	measure := func(b *testing.B, loop func()) {
		before, ok := procstat.CPU(p.Pid)
		loop()
		after, ok2 := procstat.CPU(p.Pid)
		if ok && ok2 {
			b.ReportMetric(float64((after-before).Nanoseconds())/1e3/float64(b.N), "pool-µs/op")
		}
	}
	b.Run("unary", func(b *testing.B) {
		measure(b, func() {
			for b.Loop() {
				if err := unary(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("unary-parallel", func(b *testing.B) {
		b.SetParallelism(4)
		measure(b, func() {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := unary(context.Background()); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	})
	b.Run("stream", func(b *testing.B) {
		s := openStream(b, p)
		id := uint64(0)
		measure(b, func() {
			for b.Loop() {
				id++
				s.send(id, idTwice, args, false)
				if got, v, e := s.reply(); got != id || v != 42 || e != "" {
					b.Fatalf("call %d: %d %q", got, v, e)
				}
			}
		})
	})
	b.Run("stream-parallel", func(b *testing.B) {
		d := newDemux(openStream(b, p).s)
		b.SetParallelism(4)
		measure(b, func() {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := d.call(idTwice, args); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	})
}

// demux lets goroutines share a stream, as the nexus does: sends under a
// lock, and one goroutine handing each reply to its caller.
type demux struct {
	s       grpc.BidiStreamingClient[proto.CallMessage, proto.CallAnswer]
	mu      sync.Mutex
	next    uint64
	waiting map[uint64]chan *proto.CallReply
}

func newDemux(s grpc.BidiStreamingClient[proto.CallMessage, proto.CallAnswer]) *demux {
	d := &demux{s: s, waiting: map[uint64]chan *proto.CallReply{}}
	go func() {
		for {
			a, err := s.Recv()
			if err != nil {
				return
			}
			if r := a.GetReply(); r != nil {
				d.mu.Lock()
				c := d.waiting[a.Id]
				delete(d.waiting, a.Id)
				d.mu.Unlock()
				c <- r
			}
		}
	}()
	return d
}

func (d *demux) call(fn uint32, args []byte) error {
	c := make(chan *proto.CallReply, 1)
	d.mu.Lock()
	d.next++
	id := d.next
	d.waiting[id] = c
	err := d.s.Send(&proto.CallMessage{Id: id, Kind: &proto.CallMessage_Call{Call: &proto.StreamCall{
		Request: &proto.CallRequest{Function: fn, Args: args}}}})
	d.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case r := <-c:
		if r.Error != "" {
			return errors.New(r.Error)
		}
		return nil
	case <-time.After(time.Minute):
		return fmt.Errorf("call %d: no reply within a minute", id)
	}
}
