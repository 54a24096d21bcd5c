// Package gopool is the runtime of nexus's Go pools.
//
// A generated Go pool is an ordinary Go program built by `nexus make`: the
// user's Go package, a generated file inside that package which converts
// values and registers each sourced function here (Register), and a main
// that calls Serve. Serve speaks hashicorp/go-plugin's gRPC protocol, as
// the Python and C++ pools do (the handshake line, grpc.health.v1.Health
// and plugin.GRPCController/Shutdown), and answers the nexus.pool.Pool
// service (package proto).
//
// It speaks the protocol itself rather than through go-plugin's
// plugin.Serve because a pool's start is on the path of a server's first
// answer: go-plugin brings net/rpc, gob, yamux and gRPC reflection, whose
// initialization made up a third of a Go pool's start, and a plugin.Serve
// that swaps os.Stdout for pipes it streams to a nexus which discards them.
//
// Standard output belongs to the nexus. Before any user code runs (this
// package's init, which the user's package runs after, since its generated
// file imports this one), the pool keeps a private copy of its stdout for
// the handshake and points fd 1 at stderr, so a stray fmt.Println lands on
// the nexus's stderr.
//
// Nothing a user function does takes the pool down short of exiting or
// crashing the process: a panic becomes an error reply with the panic value
// and the stack trace of the user's code, and so does a returned error.
package gopool

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/nexus-run/nexus/proto"
)

// ModulePath is the module the runtime belongs to, and ImportPath the
// runtime's import path within it.
const (
	ModulePath = "github.com/nexus-run/nexus"
	ImportPath = ModulePath + "/pools/go"
)

// go-plugin's protocol: the core version its handshake line starts with,
// and the environment its client sets for the plugin process.
const (
	coreProtocolVersion = 1
	envProtocolVersions = "PLUGIN_PROTOCOL_VERSIONS"
	envSocketDir        = "PLUGIN_UNIX_SOCKET_DIR"
)

// exitDelay is how long the pool lives after answering Shutdown: long
// enough for the reply to leave the socket, short enough that the nexus
// need not wait.
const exitDelay = 5 * time.Millisecond

// parentCheck is how often the pool checks that the nexus that started it
// still runs. On Linux the kernel kills a pool whose nexus dies; on macOS
// and elsewhere this check ends it, within this long.
const parentCheck = time.Second

// Serve serves the registered functions until the nexus shuts the pool
// down, then returns. Started by hand (without the nexus's cookie) it says
// what it is and exits with status 1.
func Serve() {
	if err := serve(); err != nil {
		fmt.Fprintf(stderr, "go pool: %v\n", err)
		os.Exit(1)
	}
}

func serve() error {
	out := handshakeOut()
	if out == nil {
		return fmt.Errorf("this is a nexus pool; it is started by the program that was built with it (nexus run), not by hand")
	}
	if versions := os.Getenv(envProtocolVersions); versions != "" &&
		!slices.Contains(strings.Split(versions, ","), strconv.Itoa(proto.HandshakeVersion)) {
		return fmt.Errorf("this pool speaks protocol %d, but the nexus asks for %s: rebuild the program with `nexus make`",
			proto.HandshakeVersion, versions)
	}
	dir := os.Getenv(envSocketDir)
	if dir == "" {
		own, err := os.MkdirTemp("", "nexus-pool-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(own)
		dir = own
	}
	socket := filepath.Join(dir, "pool.sock")
	l, err := net.Listen("unix", socket)
	if err != nil {
		return err
	}
	s := grpc.NewServer(
		// A value is one message, and a list of a million floats is
		// already 9 MB, past gRPC's default limit of 4 MB.
		grpc.MaxRecvMsgSize(math.MaxInt32),
		grpc.MaxSendMsgSize(math.MaxInt32),
		// Fixed flow control windows, as the nexus's side has (see
		// proto.WindowSize).
		grpc.InitialWindowSize(proto.WindowSize),
		grpc.InitialConnWindowSize(proto.WindowSize),
	)
	proto.RegisterPoolServer(s, &server{fns: registry})
	healthy := health.NewServer()
	healthy.SetServingStatus("plugin", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(s, healthy)
	s.RegisterService(&controllerDesc, &controller{stop: s.Stop})

	go watchParent(os.Getppid(), s.Stop) // before the handshake: see watchParent
	line := fmt.Sprintf("%d|%d|unix|%s|grpc\n", coreProtocolVersion, proto.HandshakeVersion, socket)
	_, err = out.WriteString(line)
	closeHandshakeOut() // the pool's stdout ends with the handshake
	if err != nil {
		return fmt.Errorf("write the handshake: %w", err)
	}
	if err := s.Serve(l); err != nil && err != grpc.ErrServerStopped {
		return err
	}
	return nil
}

// watchParent calls stop once the nexus that started the pool is gone,
// which shows as a change of the pool's parent (to init, launchd or a
// subreaper). Had it died before the pool started watching, which it does
// before its handshake, the handshake's write fails.
func watchParent(parent int, stop func()) {
	for os.Getppid() == parent {
		time.Sleep(parentCheck)
	}
	stop()
}

// controller is go-plugin's plugin.GRPCController service: Shutdown answers
// at once and stops the pool soon after, whatever calls are still running
// (the nexus has given up on them).
type controller struct{ stop func() }

func (c *controller) shutdown() {
	time.AfterFunc(exitDelay, c.stop)
}

// controllerDesc describes plugin.GRPCController, whose messages are empty
// (go-plugin's plugin.Empty has the wire form of emptypb.Empty).
var controllerDesc = grpc.ServiceDesc{
	ServiceName: "plugin.GRPCController",
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Shutdown",
		Handler: func(srv any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			if err := dec(new(emptypb.Empty)); err != nil {
				return nil, err
			}
			srv.(*controller).shutdown()
			return new(emptypb.Empty), nil
		},
	}},
	Metadata: "plugin/grpc_controller.proto",
}
