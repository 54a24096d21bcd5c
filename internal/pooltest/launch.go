package pooltest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/proto"
)

// Launched is a pool process started as go-plugin's client starts it, but
// without the supervisor, for tests that speak the pool protocol
// (proto/pool.proto) themselves: the handshake is read and checked, and
// Conn is a gRPC connection to the pool's socket.
type Launched struct {
	Conn   *grpc.ClientConn
	Pid    int
	Stderr *Buffer
	// Exited is closed when the process has ended; Err is then how.
	Exited chan struct{}
	Err    error
}

// Launch starts the first pool of m and connects to it. When the test
// ends the connection is closed and the process killed.
func Launch(t testing.TB, m *manifest.Manifest) *Launched {
	t.Helper()
	argv := m.PoolCommand(&m.Pools[0])
	// Short, so the socket path stays under the 107 bytes Unix allows.
	dir, err := os.MkdirTemp("", "nexus-launch-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(),
		proto.MagicCookieKey+"="+proto.MagicCookieValue,
		"PLUGIN_PROTOCOL_VERSIONS=1",
		"PLUGIN_UNIX_SOCKET_DIR="+dir)
	p := &Launched{Stderr: &Buffer{}, Exited: make(chan struct{})}
	cmd.Stderr = p.Stderr
	out, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	p.Pid = cmd.Process.Pid
	go func() {
		p.Err = cmd.Wait()
		close(p.Exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.Exited
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	socket := filepath.Join(dir, "pool.sock")
	if want := "1|1|unix|" + socket + "|grpc\n"; err != nil || line != want {
		t.Fatalf("handshake %q, %v; want %q (stderr: %s)", line, err, want, p.Stderr)
	}
	p.Conn, err = grpc.NewClient("unix:"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Conn.Close() })
	return p
}
