package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/nexus-run/nexus/internal/osproc"
)

// stdioConn is a server started as a child process and spoken to over its
// stdin and stdout, one JSON-RPC message a line, one request at a time.
type stdioConn struct {
	cmd    *exec.Cmd
	group  *osproc.Group
	in     io.WriteCloser
	w      *bufio.Writer
	r      *bufio.Reader
	stderr *tail
	next   int64
	exited chan struct{}
	err    error // from Wait, once exited is closed
}

// startStdio starts argv in dir, in a process group of its own so that
// kill reaches whatever it started too.
func startStdio(argv []string, dir string) (*stdioConn, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	c := &stdioConn{cmd: cmd, stderr: &tail{}, exited: make(chan struct{})}
	cmd.Stderr = c.stderr
	var err error
	if c.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if c.group, err = osproc.Start(cmd); err != nil {
		return nil, err
	}
	c.w = bufio.NewWriterSize(c.in, 64<<10)
	c.r = bufio.NewReaderSize(out, 64<<10)
	go func() {
		c.err = c.group.Wait()
		close(c.exited)
	}()
	return c, nil
}

// guard kills the server when ctx ends, which makes a pending read fail:
// a server that stops answering fails its measurement instead of hanging
// the run. The returned function ends the guard.
func (c *stdioConn) guard(ctx context.Context) func() bool {
	return context.AfterFunc(ctx, c.kill)
}

func (c *stdioConn) kill() {
	c.group.Kill()
}

// roundTrip sends a request and reads lines until its reply.
func (c *stdioConn) roundTrip(method string, params []byte) ([]byte, error) {
	c.next++
	id := c.next
	if err := c.send(request(id, method, params)); err != nil {
		return nil, err
	}
	for {
		line, err := c.readLine()
		if err != nil {
			return nil, c.failure(fmt.Sprintf("reading the reply to %s", method), err)
		}
		m, ok, err := parseReply(line, id)
		if err != nil {
			return nil, c.failure(method, err)
		}
		if ok {
			return m.result()
		}
	}
}

func (c *stdioConn) send(msg []byte) error {
	c.w.Write(msg)
	c.w.WriteByte('\n')
	if err := c.w.Flush(); err != nil {
		return c.failure("writing", err)
	}
	return nil
}

// readLine reads one line, however long.
func (c *stdioConn) readLine() ([]byte, error) {
	line, err := c.r.ReadSlice('\n')
	if err == nil || !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	long := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = c.r.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

// handshake is initialize and notifications/initialized.
func (c *stdioConn) handshake() error {
	res, err := c.roundTrip("initialize", initializeParams)
	if err != nil {
		return err
	}
	if err := checkInitialize(res); err != nil {
		return err
	}
	return c.send(request(-1, "notifications/initialized", nil))
}

// call calls a tool and returns the text of its answer.
func (c *stdioConn) call(tool string, args []byte) (string, error) {
	res, err := c.roundTrip("tools/call", callParams(tool, args))
	if err != nil {
		return "", err
	}
	return toolText(res)
}

// close ends stdin, as a client going away does, and waits for the server
// to exit; after grace it kills the server's process group.
func (c *stdioConn) close(grace time.Duration) error {
	c.in.Close()
	select {
	case <-c.exited:
	case <-time.After(grace):
		c.kill()
		<-c.exited
		return fmt.Errorf("still running %s after its stdin closed; killed", grace)
	}
	return nil
}

// failure wraps err with the end of what the server wrote on stderr.
func (c *stdioConn) failure(what string, err error) error {
	if s := c.stderr.String(); s != "" {
		return fmt.Errorf("%s: %w\nserver stderr (the end):\n%s", what, err, s)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// tail keeps the last 4 KiB written to it: a server's stderr, kept for
// error messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.buf
	if len(s) > tailSize {
		s = s[len(s)-tailSize:]
	}
	return strings.TrimSpace(string(s))
}
