// Package haproxy runs HAProxy on loopback with the configuration users get,
// deploy/haproxy.cfg, for the replica test (integration/replicas_test.go)
// and the benchmarks (integration/peers). The one rule shared by both: the
// file is used as it is, with only its frontend's bind address and its
// backend's server lines replaced.
package haproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nexus-run/nexus/internal/pooltest"
)

// Balancer is a running HAProxy. Log holds what it printed (its own
// messages and the warnings of deploy/haproxy.cfg's log level); it may be
// read while HAProxy runs.
type Balancer struct {
	Base string // http://127.0.0.1:PORT, the frontend
	Log  *pooltest.Buffer
	cmd  *exec.Cmd
	done chan struct{}
}

// serverLine is a server of the backend; bindLine the frontend's address.
// Their indent is [ \t], not \s, which would match the newline of the
// line before and eat a blank line too.
var (
	serverLine = regexp.MustCompile(`(?m)^[ \t]*server .*\n`)
	bindLine   = regexp.MustCompile(`(?m)^([ \t]*bind )\S+`)
)

// Config is the configuration tmpl (deploy/haproxy.cfg's text) with its
// frontend bound to 127.0.0.1:port and its server lines replaced by one per
// backend address (host:port), named r1, r2, ... in order, each checked.
func Config(tmpl []byte, port int, backends []string) ([]byte, error) {
	if n, b := len(serverLine.FindAll(tmpl, -1)), len(bindLine.FindAll(tmpl, -1)); n == 0 || b != 1 {
		return nil, fmt.Errorf("haproxy configuration: want one bind line and server lines, found %d bind and %d server lines", b, n)
	}
	if len(backends) == 0 {
		return nil, errors.New("haproxy configuration: no backend given")
	}
	var servers strings.Builder
	for i, b := range backends {
		fmt.Fprintf(&servers, "    server r%d %s check\n", i+1, b)
	}
	cfg := serverLine.ReplaceAll(tmpl, nil)
	cfg = bindLine.ReplaceAll(cfg, []byte("${1}127.0.0.1:"+strconv.Itoa(port)))
	return append(cfg, servers.String()...), nil
}

// Start writes Config(template file, a free port, backends) into dir,
// checks it with `haproxy -c`, runs binary in the foreground with it, and
// waits up to wait for GET /health through it to answer 200 (a backend is
// up). On an error HAProxy is not left running.
func Start(ctx context.Context, binary, template, dir string, backends []string, wait time.Duration) (*Balancer, error) {
	tmpl, err := os.ReadFile(template)
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	cfg, err := Config(tmpl, port, backends)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", template, err)
	}
	path := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(path, cfg, 0o644); err != nil {
		return nil, err
	}
	if out, err := exec.CommandContext(ctx, binary, "-c", "-f", path).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("haproxy -c -f %s: %v\n%s\nconfiguration:\n%s", path, err, out, cfg)
	}
	b := &Balancer{Base: "http://127.0.0.1:" + strconv.Itoa(port), Log: &pooltest.Buffer{}, done: make(chan struct{})}
	// -db: in the foreground, logging to stderr.
	b.cmd = exec.Command(binary, "-db", "-f", path)
	b.cmd.Stdout, b.cmd.Stderr = b.Log, b.Log
	if err := b.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		b.cmd.Wait()
		close(b.done)
	}()
	if err := b.waitHealthy(ctx, wait); err != nil {
		b.Kill()
		return nil, err
	}
	return b, nil
}

// waitHealthy polls GET /health through HAProxy until it answers 200.
func (b *Balancer) waitHealthy(ctx context.Context, wait time.Duration) error {
	hc := &http.Client{Timeout: time.Second}
	defer hc.CloseIdleConnections()
	deadline := time.Now().Add(wait)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.Base+"/health", nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("GET /health answered %s", resp.Status)
		}
		select {
		case <-b.done:
			return fmt.Errorf("haproxy exited:\n%s", b.Log)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("haproxy did not answer GET /health with 200 within %v (last: %v)\n%s", wait, err, b.Log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop ends HAProxy with SIGTERM (at once, dropping connections: callers
// stop it once their load is over) and waits up to grace for it to exit,
// killing it after that.
func (b *Balancer) Stop(grace time.Duration) error {
	b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
		return nil
	case <-time.After(grace):
		b.Kill()
		return fmt.Errorf("haproxy did not stop within %v of SIGTERM; killed", grace)
	}
}

// Kill kills HAProxy and waits for it to exit; it may follow Stop.
func (b *Balancer) Kill() {
	b.cmd.Process.Kill()
	<-b.done
}

// FreePort is a TCP port of 127.0.0.1 free a moment ago: HAProxy cannot
// bind port 0 and say which it got.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
