// Package gopool is the runtime of nexus's Go pools.
//
// A generated Go pool is an ordinary Go program built by `nexus make`: the
// user's Go package, a generated file inside that package which converts
// values and registers each sourced function here (Register), and a main
// that calls Serve. Serve speaks hashicorp/go-plugin's gRPC protocol through
// plugin.Serve and answers the nexus.pool.Pool service (package proto).
//
// Standard output belongs to the nexus. Before any user code runs (this
// package's init, which the user's package runs after, since its generated
// file imports this one), the pool keeps a private copy of its stdout for
// go-plugin's handshake and points fd 1 at stderr, so a stray fmt.Println
// lands on the nexus's stderr.
//
// Nothing a user function does takes the pool down short of exiting or
// crashing the process: a panic becomes an error reply with the panic value
// and the stack trace of the user's code, and so does a returned error.
package gopool

import (
	"context"
	"fmt"
	"math"
	"os"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/nexus-run/nexus/proto"
)

// ModulePath is the module the runtime belongs to, and ImportPath the
// runtime's import path within it.
const (
	ModulePath = "github.com/nexus-run/nexus"
	ImportPath = ModulePath + "/pools/go"
)

// Handshake is the go-plugin handshake of every pool; the nexus
// (nexus/pool.Handshake) builds its own from the same constants.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  proto.HandshakeVersion,
	MagicCookieKey:   proto.MagicCookieKey,
	MagicCookieValue: proto.MagicCookieValue,
}

// pluginName is the one plugin a pool serves, in go-plugin's terms; with
// gRPC the name never crosses the wire.
const pluginName = "pool"

// Serve serves the registered functions until the nexus shuts the pool
// down, then returns. Started by hand (without the nexus's cookie) it
// prints go-plugin's explanation and exits with status 1.
func Serve() {
	if out := handshakeOut(); out != nil {
		// go-plugin writes the handshake line to os.Stdout and then
		// replaces os.Stdout and os.Stderr by pipes of its own, which it
		// streams to the nexus (which discards them). The first call puts
		// back the real ones; see restoreStdio.
		os.Stdout = out
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         plugin.PluginSet{pluginName: &grpcPlugin{server: &server{fns: registry}}},
		GRPCServer:      newGRPCServer,
		Logger:          hclog.New(&hclog.LoggerOptions{Level: hclog.Error, Output: stderr, Name: "go pool"}),
	})
}

// newGRPCServer is go-plugin's server with the limits the nexus's values
// need, and with the hook that puts back standard output.
func newGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts,
		// A value is one message, and a list of a million floats is
		// already 9 MB, past gRPC's default limit of 4 MB.
		grpc.MaxRecvMsgSize(math.MaxInt32),
		grpc.MaxSendMsgSize(math.MaxInt32),
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			restoreStdio()
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			restoreStdio()
			return h(srv, ss)
		}),
	)
	return grpc.NewServer(opts...)
}

// restoreStdio undoes plugin.Serve's swap of os.Stdout and os.Stderr, once.
// Every RPC handler runs after that swap (plugin.Serve makes it before it
// starts serving), and the nexus opens go-plugin's stdio stream as soon as
// it connects, so output is lost only if user code prints between the
// handshake and that moment.
func restoreStdio() {
	restoreOnce.Do(func() {
		if handshakeOut() == nil {
			return
		}
		os.Stdout = stdout
		os.Stderr = stderr
		closeHandshakeOut()
	})
}

var restoreOnce sync.Once

// grpcPlugin is the pool service as go-plugin serves it. A pool is only
// ever the server.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	server *server
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	proto.RegisterPoolServer(s, p.server)
	return nil
}

func (p *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, fmt.Errorf("a Go pool is not a client")
}
