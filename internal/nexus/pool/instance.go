package pool

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/progress"
	"github.com/nexus-run/nexus/internal/nexus/tracing"
	"github.com/nexus-run/nexus/internal/steptrace"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/proto"
)

// Handshake is what a pool and the nexus agree on before talking: go-plugin
// protocol version 1 (the handshake line is `1|1|unix|<socket>|grpc`) and a
// magic cookie, which only keeps pools from running when started by hand.
// The values live in package proto, which the Go pool runtime shares; the
// Python runtime (pools/python/nexus_pool/plugin.py) and the C++ one
// (pools/cpp/nexus_pool/nexus_pool.cpp) hold the same values.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  proto.HandshakeVersion,
	MagicCookieKey:   proto.MagicCookieKey,
	MagicCookieValue: proto.MagicCookieValue,
}

// pluginName is the one plugin a pool serves, in go-plugin's terms.
const pluginName = "pool"

const (
	// shutdownGrace is how long Close lets a pool take to answer Shutdown
	// and exit before it kills the pool's process group. Pools answer at
	// once and exit a few milliseconds later.
	shutdownGrace = 500 * time.Millisecond
	// exitNotice is how long a call that lost its connection waits to
	// learn whether the pool died, and how long a failed start waits for
	// the pool's exit. Exits follow within milliseconds.
	exitNotice = 2 * time.Second
	// drainWait is how long stopping waits for the pool's output to be
	// read to its end, for output of processes that escaped the pool's
	// process group and keep its pipes open.
	drainWait = 250 * time.Millisecond
)

// instance is one run of a pool: its process, go-plugin client and gRPC
// connection.
type instance struct {
	sp     *supervised
	client *plugin.Client
	sink   *stderrSink

	// mu guards process against a concurrent stop, and conn and pool,
	// which start sets.
	mu      sync.Mutex
	process *process
	conn    *grpc.ClientConn
	pool    proto.PoolClient
	// calls is the Calls stream every call goes on (stream.go), opened
	// by start.
	calls    *callStream
	stopping atomic.Bool // stop has begun
	// ended is set when stop finds the pool alive: its end is then ours,
	// not a death.
	ended atomic.Bool

	// life is the context of the calls sent to the pool, cancelled once
	// the instance is stopped.
	life    context.Context
	endLife context.CancelFunc

	// Guarded by sp.mu:
	deathNoted bool
	live       int           // calls whose caller waits
	abandoned  int           // calls whose caller left, not yet answered
	completed  uint64        // calls the pool answered, for the health probe
	retired    string        // why the instance was replaced, or ""
	idle       chan struct{} // made on retirement; closed once live is 0

	stopOnce sync.Once
	stopped  chan struct{} // closed when stop begins
}

func newInstance(sp *supervised) *instance {
	inst := &instance{
		sp:      sp,
		sink:    newStderrSink(sp.sup.stderr, sp.sup.m.Name, sp.lang),
		stopped: make(chan struct{}),
	}
	inst.life, inst.endLife = context.WithCancel(context.Background())
	inst.client = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  Handshake,
		Plugins:          plugin.PluginSet{pluginName: grpcPlugin{}},
		RunnerFunc:       inst.newProcess,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         false,
		// The socket goes in a folder go-plugin makes inside the
		// supervisor's private folder and removes when the pool stops.
		UnixSocketConfig: &plugin.UnixSocketConfig{TempDir: sp.sup.dir},
		StartTimeout:     sp.sup.opts.StartTimeout,
		Stderr:           inst.sink,
		Logger:           quietLogger,
		GRPCDialOptions: []grpc.DialOption{
			// A value is one message, and a list of a million floats is
			// already 9 MB, past gRPC's default limit of 4 MB.
			grpc.WithDefaultCallOptions(
				grpc.MaxCallRecvMsgSize(math.MaxInt32),
				grpc.MaxCallSendMsgSize(math.MaxInt32),
			),
			// Fixed flow control windows (see proto.WindowSize).
			grpc.WithInitialWindowSize(proto.WindowSize),
			grpc.WithInitialConnWindowSize(proto.WindowSize),
		},
	})
	return inst
}

// quietLogger keeps go-plugin from logging: what went wrong reaches the
// caller as errors, and the pools' stderr is copied as it is.
var quietLogger = hclog.New(&hclog.LoggerOptions{Level: hclog.Off, Output: discard{}})

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// newProcess is go-plugin's RunnerFunc: a fresh process for each start,
// with the environment go-plugin prepared in cmd (cookie, protocol
// versions, socket folder).
func (inst *instance) newProcess(_ hclog.Logger, cmd *exec.Cmd, _ string) (runner.Runner, error) {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if inst.stopping.Load() {
		return nil, ErrClosed
	}
	inst.process = newProcess(inst.sp.name()+" pool", inst.sp.argv, cmd.Env)
	inst.process.launched = inst.sp.markLaunched
	return inst.process, nil
}

func (inst *instance) proc() *process {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	return inst.process
}

// start launches the pool and waits for its handshake.
func (inst *instance) start() error {
	steptrace.Mark("pool start")
	rpc, err := inst.client.Client()
	if err != nil {
		return inst.startError(err)
	}
	steptrace.Mark("pool handshake read")
	raw, err := rpc.Dispense(pluginName)
	if err != nil {
		return fmt.Errorf("start %s pool: %w", inst.sp.name(), err)
	}
	grpcClient, ok := rpc.(*plugin.GRPCClient)
	if !ok {
		return fmt.Errorf("start %s pool: it does not speak gRPC", inst.sp.name())
	}
	pool := raw.(proto.PoolClient)
	calls := openStream(inst, pool)
	inst.mu.Lock()
	inst.conn = grpcClient.Conn
	inst.pool = pool
	inst.calls = calls
	inst.mu.Unlock()
	inst.sink.started()
	steptrace.Mark("pool stream open")
	return nil
}

// startError explains why the pool did not start, with what it printed.
func (inst *instance) startError(err error) error {
	prefix := fmt.Sprintf("start %s pool (%s)", inst.sp.name(), strings.Join(inst.sp.argv, " "))
	p := inst.proc()
	if p == nil || p.pid == 0 || errors.Is(err, ErrClosed) {
		return fmt.Errorf("%s: %w", prefix, err)
	}
	// go-plugin has killed the pool if it was still running; wait for the
	// exit and for the last of its output.
	exited := WaitFor(p.done, exitNotice)
	WaitFor(p.drained, drainWait)
	output := strings.TrimRight(inst.sink.heldText(), "\n")

	msg := err.Error()
	printed := strings.TrimSpace(strings.TrimPrefix(firstLine(msg), unrecognized))
	var reason string
	switch {
	case strings.Contains(msg, "timeout while waiting for plugin to start"):
		reason = fmt.Sprintf("it did not answer within %s", inst.sp.sup.opts.StartTimeout)
	case strings.HasPrefix(msg, unrecognized) && printed != "":
		reason = fmt.Sprintf("its first output line is not the go-plugin handshake but %q", printed)
	case exited:
		reason = fmt.Sprintf("it ended (%s) before it was ready", p.how())
	default:
		reason = msg
	}
	if output != "" {
		reason += ". It printed:\n" + output
	}
	return fmt.Errorf("%s: %s", prefix, reason)
}

// unrecognized opens go-plugin's error for a first stdout line that is not
// a handshake.
const unrecognized = "Unrecognized remote plugin message: "

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// WaitFor waits for ch to close, at most d, and reports whether it did.
// Pools and the stdio servers of internal/nexus/mcpsrc, which share the
// pools' restart rules, wait for their processes with it.
func WaitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// call runs function f in this instance, in which sp.enter counted it
// live, holding a slot. The call waits for the pool's answer (or its
// stop) whenever the caller leaves, and only then gives the slot back: a
// pool may not be able to stop the function, and a Cancel on the stream
// only asks it to. The caller leaves as soon as ctx is done.
//
// On the stream the caller's goroutine waits for the reply itself (the
// sender sends the call) and hands the wait to a goroutine of its own only
// if it leaves: a goroutine per call and its hand-offs cost more than a
// small call's trip to the pool.
func (inst *instance) call(ctx context.Context, f *manifest.Function, args []byte) ([]byte, error) {
	req := &proto.CallRequest{Function: uint32(f.ID), Args: args}
	req.Traceparent, req.Tracestate = tracing.Carrier(ctx)
	c := &pending{}
	inst.sink.begin(c, f.Name, observe.ToolOf(ctx))
	report := progress.From(ctx)
	id, sc := inst.calls.register()
	if id == 0 { // the stream has ended, or the pool does not serve it
		return inst.await(ctx, f, c, func() (*proto.CallReply, error) {
			reply, _, err := sc.wait(context.Background(), nil)
			if errors.Is(err, errUnary) {
				reply, err = inst.send(req, report)
			}
			return reply, err
		})
	}
	inst.calls.start(id, req, report != nil)
	reply, ok, err := sc.wait(ctx, report)
	switch {
	case !ok:
		inst.sp.abandon(inst, c) // always true: only this goroutine finishes c
		inst.calls.cancel(id)
		go func() {
			// Its reply, or the stream's end, which Close brings. A call
			// the pool turned away unread (errUnary) did not run, and
			// nobody waits for it now.
			sc.wait(context.Background(), nil)
			inst.finish(c)
		}()
		return nil, fmt.Errorf("call %s: %w", f.Name, ctx.Err())
	case errors.Is(err, errUnary):
		// Sent on a stream the pool turned away unread: the function did
		// not run; send it again as a unary call.
		return inst.await(ctx, f, c, func() (*proto.CallReply, error) { return inst.send(req, report) })
	}
	inst.finish(c)
	return inst.outcome(f, reply, err)
}

// await runs work, the sending of call c of f and the wait for its reply,
// on a goroutine of its own, and waits for it until ctx is done.
func (inst *instance) await(ctx context.Context, f *manifest.Function, c *pending, work func() (*proto.CallReply, error)) ([]byte, error) {
	done := make(chan struct{})
	var reply *proto.CallReply
	var err error
	go func() {
		reply, err = work()
		inst.finish(c)
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		if inst.sp.abandon(inst, c) {
			return nil, fmt.Errorf("call %s: %w", f.Name, ctx.Err())
		}
		<-done // it ended meanwhile: its outcome stands
	}
	return inst.outcome(f, reply, err)
}

// finish counts call c out of the instance and gives its slot back.
func (inst *instance) finish(c *pending) {
	inst.sink.end(c)
	inst.sp.finished(inst, c)
	<-inst.sp.slots
}

// pending is one call sent to a pool, as the supervisor counts it.
type pending struct {
	abandoned bool // the caller left; guarded by sp.mu
	finished  bool // the pool answered or was stopped; guarded by sp.mu
}

// send sends req to the pool as a unary call (a pool that does not serve
// Calls) and waits for its answer, for as long as the instance lives. When report is not nil, the function's progress reports
// go to it meanwhile.
func (inst *instance) send(req *proto.CallRequest, report progress.Func) (*proto.CallReply, error) {
	reply, err := inst.once(req, report)
	for try := 1; err != nil && refused(err) && try <= maxRefusals && !inst.proc().exited(); try++ {
		// The pool turned the stream away before reading it (HTTP/2's
		// stream limit), so the function did not run: sending it again
		// is safe. gRPC itself retries such a stream only once.
		select {
		case <-time.After(time.Duration(try) * time.Millisecond):
		case <-inst.life.Done():
		}
		reply, err = inst.once(req, report)
	}
	return reply, err
}

// once sends req to the pool once: as a plain Call when nobody wants its
// progress, which is most calls and the cheapest, else as
// CallWithProgress.
func (inst *instance) once(req *proto.CallRequest, report progress.Func) (*proto.CallReply, error) {
	if report == nil {
		return inst.pool.Call(inst.life, req)
	}
	return inst.withProgress(req, report)
}

// outcome is the result of a call of f from the pool's reply or failure.
func (inst *instance) outcome(f *manifest.Function, reply *proto.CallReply, err error) ([]byte, error) {
	if err != nil {
		if inst.died(err) && !inst.ended.Load() {
			return nil, &DiedError{Pool: inst.sp.name(), Function: f.Name, How: inst.proc().how()}
		}
		var ended *streamEndedError
		if errors.As(err, &ended) {
			return nil, fmt.Errorf("%s pool: call %s: %w", inst.sp.name(), f.Name, err)
		}
		if inst.ended.Load() {
			if why := inst.sp.retiredWhy(inst); why != "" {
				return nil, fmt.Errorf("call %s: the %s pool was replaced (%s) and the call did not end within %s", f.Name, inst.sp.name(), why, inst.sp.sup.opts.RetireGrace)
			}
			return nil, fmt.Errorf("call %s: %w", f.Name, ErrClosed)
		}
		return nil, fmt.Errorf("%s pool: call %s: %w", inst.sp.name(), f.Name, err)
	}
	if reply.Error != "" {
		return nil, &FunctionError{Pool: inst.sp.name(), Function: f.Name, Message: reply.Error}
	}
	return reply.Result, nil
}

// maxRefusals bounds how often a call the pool refused is sent again: the
// refusals are brief (a burst of calls), and a pool that keeps refusing
// has something else wrong with it, which the error should show.
const maxRefusals = 20

// refused reports whether err is a stream the pool refused without
// reading it (REFUSED_STREAM), so that the call never reached the
// function.
func refused(err error) bool {
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.Unavailable && strings.Contains(st.Message(), "REFUSED_STREAM")
}

// died reports whether the pool has died, after a failed call. A broken
// connection (Unavailable) is seen a moment before the exit, so it waits a
// little for the exit in that case.
func (inst *instance) died(err error) bool {
	p := inst.proc()
	if status.Code(err) == codes.Unavailable {
		return WaitFor(p.done, exitNotice)
	}
	return p.exited()
}

// stop shuts the instance down: Shutdown, a short grace, then SIGKILL to
// its process group; then go-plugin's cleanup, which closes the connection
// and removes the socket folder. It returns once all of that is done, and
// does it once however often it is called.
func (inst *instance) stop() {
	inst.stopOnce.Do(func() {
		inst.mu.Lock()
		inst.stopping.Store(true)
		p, conn := inst.process, inst.conn
		if p == nil || !p.exited() {
			inst.ended.Store(true)
		}
		inst.mu.Unlock()
		close(inst.stopped)

		if p != nil && conn != nil && !p.exited() {
			ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
			err := conn.Invoke(ctx, "/plugin.GRPCController/Shutdown", &emptypb.Empty{}, &emptypb.Empty{})
			if err == nil {
				select {
				case <-p.done:
				case <-ctx.Done():
				}
			}
			cancel()
		}
		if p != nil {
			_ = p.Kill(context.Background())
			if p.pid != 0 {
				<-p.done // SIGKILL cannot be ignored
				if !WaitFor(p.drained, drainWait) {
					p.releasePipes()
				}
			}
		}
		inst.client.Kill()
		inst.endLife()
	})
}

// grpcPlugin is the pool service as go-plugin dispenses it. The nexus is
// only ever the client.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

func (grpcPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("the nexus does not serve pools")
}

func (grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return proto.NewPoolClient(conn), nil
}
