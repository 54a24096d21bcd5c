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

// Plugin is a pool process started as go-plugin's client starts one,
// without a supervisor, for the tests of the pool protocol itself: the
// handshake, the gRPC services, the pool's own exit. It is the one way
// tests start a pool by hand, for every language.
type Plugin struct {
	// Conn is a gRPC connection to Socket, closed when the test ends.
	Conn *grpc.ClientConn
	// Pid is the pool's process id.
	Pid int
	// Socket is where the pool listens, as its handshake line said.
	Socket string
	// Stdout is the rest of the pool's stdout, after the handshake line.
	Stdout *bufio.Reader
	// Stderr is what the pool wrote on its stderr so far.
	Stderr *Buffer
	// Exited is closed once the process has exited, Err then holding
	// what exec.Cmd.Wait returned.
	Exited <-chan struct{}
	Err    error
}

// StartPlugin starts the pool argv with the environment go-plugin's
// client gives it (plus env), in a private socket folder, and reads its
// handshake line, which must be `1|1|unix|<folder>/pool.sock|grpc`. The
// process is killed when the test ends, and its stderr logged if the
// test failed.
func StartPlugin(t testing.TB, argv []string, env ...string) *Plugin {
	t.Helper()
	// Short, so the socket path stays under the 107 bytes Unix allows.
	dir, err := os.MkdirTemp("", "nexus-plugin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(),
		proto.MagicCookieKey+"="+proto.MagicCookieValue,
		"PLUGIN_PROTOCOL_VERSIONS=1",
		"PLUGIN_UNIX_SOCKET_DIR="+dir)
	cmd.Env = append(cmd.Env, env...)
	p := &Plugin{Socket: filepath.Join(dir, "pool.sock"), Stderr: &Buffer{}}
	cmd.Stderr = p.Stderr
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
	p.Pid = cmd.Process.Pid
	exited := make(chan struct{})
	p.Exited = exited
	go func() {
		p.Err = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill() // in case the test ended before the pool did
		<-exited
		if t.Failed() {
			t.Logf("the pool's stderr:\n%s", p.Stderr.String())
		}
	})
	p.Stdout = bufio.NewReader(out)
	line, err := p.Stdout.ReadString('\n')
	if want := "1|1|unix|" + p.Socket + "|grpc\n"; err != nil || line != want {
		t.Fatalf("handshake %q, %v; want %q (stderr: %s)", line, err, want, p.Stderr.String())
	}
	if p.Conn, err = grpc.NewClient("unix:"+p.Socket, grpc.WithTransportCredentials(insecure.NewCredentials())); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Conn.Close() })
	return p
}

// Launch starts the first pool of m with StartPlugin.
func Launch(t testing.TB, m *manifest.Manifest) *Plugin {
	t.Helper()
	return StartPlugin(t, m.PoolCommand(&m.Pools[0]))
}
