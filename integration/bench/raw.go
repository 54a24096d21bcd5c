package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/nexus-run/nexus/proto"
)

// The raw gRPC baseline: the same Pool service, served by a second process
// (this binary, started with -serve-raw) that echoes its arguments, and
// called over a Unix socket with no go-plugin, no msgpack and no nexus in
// between. It is what a call costs on this machine before nexus does
// anything, so the pools' figures can be read against it.

type echoServer struct {
	proto.UnimplementedPoolServer
}

func (echoServer) Call(_ context.Context, req *proto.CallRequest) (*proto.CallReply, error) {
	return &proto.CallReply{Result: req.Args}, nil
}

// serveRaw serves the echo Pool service on socket until killed.
func serveRaw(socket string) error {
	lis, err := net.Listen("unix", socket)
	if err != nil {
		return err
	}
	srv := grpc.NewServer()
	proto.RegisterPoolServer(srv, echoServer{})
	fmt.Println("ready")
	return srv.Serve(lis)
}

// rawRoundTrip times calls trivial calls to an echo server in another
// process and returns the latencies.
func rawRoundTrip(calls int) ([]time.Duration, error) {
	dir, err := os.MkdirTemp("", "nexus-bench-raw-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, "raw.sock")
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	srv := exec.Command(self, "-serve-raw", socket)
	out, err := srv.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := srv.Start(); err != nil {
		return nil, err
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	ready := make([]byte, 6)
	if _, err := out.Read(ready); err != nil {
		return nil, fmt.Errorf("raw echo server did not start: %w", err)
	}
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	client := proto.NewPoolClient(conn)
	ctx := context.Background()
	req := &proto.CallRequest{Function: 0, Args: []byte{0x91, 0x01}}
	for i := 0; i < 50; i++ {
		if _, err := client.Call(ctx, req); err != nil {
			return nil, err
		}
	}
	lat := make([]time.Duration, calls)
	for i := range lat {
		start := time.Now()
		if _, err := client.Call(ctx, req); err != nil {
			return nil, err
		}
		lat[i] = time.Since(start)
	}
	return lat, nil
}
