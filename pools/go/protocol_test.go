package gopool_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/types/known/emptypb"

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
	hand := startByHand(t)
	conn, stderr, exited := hand.conn, hand.stderr, hand.exited
	// Nothing follows the handshake on stdout, even what init printed.
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(hand.stdout)
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
		if *hand.waitErr != nil {
			t.Errorf("the pool ended with %v after Shutdown, want exit status 0 (stderr: %s)", *hand.waitErr, stderr.String())
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

// byHand is a Go pool started as go-plugin's client starts one, without
// the supervisor, and a gRPC connection to it.
type byHand struct {
	conn    *grpc.ClientConn
	stdout  *bufio.Reader // after the handshake
	stderr  *bytes.Buffer // complete once exited is closed
	exited  chan struct{}
	waitErr *error // set once exited is closed
	socket  string
}

// startByHand starts the test program's Go pool, checks its handshake and
// connects to it. When the test ends, the pool is killed.
func startByHand(t *testing.T) *byHand {
	argv := poolCommand(t)
	dir := t.TempDir()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(),
		proto.MagicCookieKey+"="+proto.MagicCookieValue,
		"PLUGIN_PROTOCOL_VERSIONS=1",
		"PLUGIN_UNIX_SOCKET_DIR="+dir)
	h := &byHand{stderr: &bytes.Buffer{}, exited: make(chan struct{}), waitErr: new(error)}
	cmd.Stderr = h.stderr
	out, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		*h.waitErr = cmd.Wait()
		close(h.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill() // in case the test failed before Shutdown
		<-h.exited
	})

	h.stdout = bufio.NewReader(out)
	line, err := h.stdout.ReadString('\n')
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	h.socket = filepath.Join(dir, "pool.sock")
	if want := "1|1|unix|" + h.socket + "|grpc\n"; line != want {
		t.Fatalf("handshake %q, want %q", line, want)
	}
	h.conn, err = grpc.NewClient("unix:"+h.socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.conn.Close() })
	return h
}
