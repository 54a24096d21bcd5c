package gopool_test

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/proto"
)

// poolCommand is the argv of the test program's Go pool.
func poolCommand(t *testing.T) []string {
	m := program(t)
	for i := range m.Pools {
		if m.Pools[i].Lang == "go" {
			return m.PoolCommand(&m.Pools[i])
		}
	}
	t.Fatal("the test program has no Go pool")
	return nil
}

// TestProtocol speaks go-plugin's protocol to a Go pool the way go-plugin's
// client does, without the supervisor: the handshake line, the health
// service, a call, and Shutdown, after which the pool exits by itself.
func TestProtocol(t *testing.T) {
	hand := pooltest.StartPlugin(t, poolCommand(t))
	conn, stderr, exited := hand.Conn, hand.Stderr, hand.Exited
	// Nothing follows the handshake on stdout, even what init printed.
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(hand.Stdout)
		rest <- string(b)
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	for service, want := range map[string]healthpb.HealthCheckResponse_ServingStatus{"plugin": healthpb.HealthCheckResponse_SERVING, "": healthpb.HealthCheckResponse_SERVING} {
		got, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		if err != nil || got.Status != want {
			t.Errorf("health of %q: %v, %v; want %v", service, got, err, want)
		}
	}
	reply, err := proto.NewPoolClient(conn).Call(ctx, &proto.CallRequest{Function: idShout, Args: []byte{0x91, 0xa2, 'h', 'i'}})
	if err != nil || reply.Error != "" || !bytes.Equal(reply.Result, []byte{0xa2, 'h', 'i'}) {
		t.Fatalf("Shout(\"hi\"): %v, %v", reply, err)
	}
	if err := conn.Invoke(ctx, "/plugin.GRPCController/Shutdown", &emptypb.Empty{}, &emptypb.Empty{}); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case s := <-rest:
		if s != "" {
			t.Errorf("stdout after the handshake: %q", s)
		}
	case <-ctx.Done():
		t.Fatal("the pool's stdout did not end after Shutdown")
	}
	select {
	case <-exited:
		if hand.Err != nil {
			t.Errorf("the pool ended with %v after Shutdown, want exit status 0 (stderr: %s)", hand.Err, stderr.String())
		}
	case <-ctx.Done():
		t.Fatal("the pool did not exit after Shutdown")
	}
}

// TestStartedByHand: run without the nexus's cookie, a pool says what it
// is on stderr, prints nothing on stdout, and exits with status 1.
func TestStartedByHand(t *testing.T) {
	argv := poolCommand(t)
	cmd := exec.Command(argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("run by hand: %v, want exit status 1", err)
	}
	if !strings.Contains(stderr.String(), "not by hand") {
		t.Errorf("stderr %q does not say how the pool is started", stderr.String())
	}
	if strings.TrimPrefix(stdout.String(), "printed at init\n") != "" {
		t.Errorf("stdout %q", stdout.String())
	}
}
