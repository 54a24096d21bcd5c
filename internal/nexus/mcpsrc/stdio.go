package mcpsrc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/osproc"
)

// Stopping a stdio server follows the MCP spec's stdio shutdown: close its
// stdin; if it has not exited after eofGrace, SIGTERM its group; if it has
// not exited stopGrace after that, SIGKILL. Many servers (server-everything
// among them) do not exit when their stdin ends, and a command-line call
// should not wait seconds for that; SIGTERM still lets one save its state.
const (
	eofGrace  = 100 * time.Millisecond
	stopGrace = 2 * time.Second
)

// process is a stdio server's running command. stdin and stdout are the
// protocol; the process's stderr is copied by a goroutine of its own.
type process struct {
	cmd    *exec.Cmd
	group  *osproc.Group
	stdin  *os.File
	stdout *os.File
	stderr *prefixWriter // where lines of stdout that are not messages go
	line   *lineConn     // the connection over stdin and stdout, once made

	exited     chan struct{} // closed once the process is reaped
	stderrDone chan struct{} // closed once its stderr reached EOF
}

// commandError is a server command that could not be started.
type commandError struct {
	command string
	err     error
}

func (e *commandError) Error() string {
	if errors.Is(e.err, exec.ErrNotFound) {
		return fmt.Sprintf("command %q not found (looked in PATH=%s)", e.command, os.Getenv("PATH"))
	}
	return fmt.Sprintf("cannot start command %q: %v", e.command, e.err)
}

func (e *commandError) Unwrap() error { return e.err }

// startProcess starts argv in a process group of its own (killed with
// nexus where the system allows), with the clean environment opts say.
// The pipes are made here rather than by exec so that reaping the process
// never closes them under the SDK's reader.
func startProcess(argv []string, opts Options, stderr *prefixWriter) (*process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	if cmd.Err != nil {
		return nil, &commandError{command: argv[0], err: cmd.Err}
	}
	cmd.Env = cleanEnv(opts.Env)
	cmd.Dir = opts.Dir
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	group, err := osproc.Start(cmd)
	closeAll(inR, outW, errW) // the child has its own copies
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, &commandError{command: argv[0], err: err}
	}
	p := &process{cmd: cmd, group: group, stdin: inW, stdout: outR, stderr: stderr,
		exited: make(chan struct{}), stderrDone: make(chan struct{})}
	go func() {
		group.Wait()
		close(p.exited)
	}()
	go func() {
		defer close(p.stderrDone)
		defer errR.Close()
		stderr.copyLines(errR)
	}()
	return p, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// transport is the connection to the server over its stdin and stdout
// (lineConn), for the SDK's client.
func (p *process) transport() mcp.Transport {
	p.line = &lineConn{
		in:     bufio.NewReaderSize(p.stdout, wholeLine),
		stdout: p.stdout,
		out:    p.stdin,
		noise:  p.stderr,
	}
	return &lineTransport{conn: p.line}
}

// maxMessage bounds one message from a stdio server, as nexus's own stdio
// server bounds one from its client (mcp --max-line): a tool may answer
// tens of megabytes (an image, a file), and no more than this is held in
// memory for one line. The SDK's default, 16 MiB, refused a 20 MB answer
// with a message that named no size.
const maxMessage = 64 << 20

// maxNoiseLine bounds what is kept of one line of a server's stdout that
// is not a message: enough for any log line, and a server that writes
// megabytes without a newline costs no memory.
const maxNoiseLine = 4 << 10

// wholeLine is the size of lineConn's buffer: the longest line it reads
// in place and checks whole. Most messages fit.
const wholeLine = 64 << 10

// mayBeMessage reports whether a line starting with start (all of it
// when it ends with a newline) may be a JSON-RPC message or a batch of
// them, or is blank. A whole line must be a JSON object or list that
// names "jsonrpc", which every message does and a log line does not;
// that is judged from its bytes, not by decoding it, since the SDK
// decodes every message again (a decode here made each call through
// nexus measurably slower than through the Go SDK's own proxy).
func mayBeMessage(start []byte) bool {
	rest := bytes.TrimLeft(start, " \t\r\n")
	if len(rest) == 0 {
		return true
	}
	if rest[0] != '{' && rest[0] != '[' {
		return false
	}
	if start[len(start)-1] != '\n' {
		return true // longer than the buffer: judged by its start
	}
	body := bytes.TrimRight(rest, " \t\r\n")
	closer := byte('}')
	if rest[0] == '[' {
		closer = ']'
	}
	return body[len(body)-1] == closer && bytes.Contains(body, jsonrpcKey)
}

var jsonrpcKey = []byte(`"jsonrpc"`)

// hasExited reports whether the process has been reaped.
func (p *process) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// describe says how the process ended.
func (p *process) describe() string {
	return osproc.Describe(p.cmd.ProcessState)
}

// stop shuts the server down as the spec says (see eofGrace), waits for
// it to be reaped and for its stderr to drain.
func (p *process) stop() {
	p.stdin.Close()
	if !pool.WaitFor(p.exited, eofGrace) {
		p.group.Terminate()
		if !pool.WaitFor(p.exited, stopGrace) {
			p.group.Kill()
			<-p.exited
		}
	}
	p.stdout.Close()
	// The group is dead, so only a process that left it can still hold
	// the stderr pipe open: do not wait for that one.
	pool.WaitFor(p.stderrDone, stopGrace)
}

// exitedSoon reports whether the process exits within stopGrace: a
// connection that closed under a call usually means the server is dying.
func (p *process) exitedSoon() bool {
	return pool.WaitFor(p.exited, stopGrace)
}

// cleanEnv is a server's environment: PATH and HOME from nexus's own, and
// what entries say (NAME passes nexus's value when it has one, NAME=VALUE
// sets it).
func cleanEnv(entries []string) []string {
	var env []string
	for _, name := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	for _, e := range entries {
		if strings.Contains(e, "=") {
			env = append(env, e)
		} else if v, ok := os.LookupEnv(e); ok {
			env = append(env, e+"="+v)
		}
	}
	return env
}

// prefixWriter writes whole lines to w, each prefixed, one at a time, so
// lines of several processes sharing w do not interleave.
type prefixWriter struct {
	w      io.Writer
	prefix string
	mu     sync.Mutex
}

// writeLine writes one line, prefixed.
func (pw *prefixWriter) writeLine(line string) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	io.WriteString(pw.w, pw.prefix+line+"\n")
}

// copyLines copies r to the writer line by line until r ends.
func (pw *prefixWriter) copyLines(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if !strings.HasSuffix(line, "\n") {
				line += "\n"
			}
			pw.mu.Lock()
			io.WriteString(pw.w, pw.prefix+line)
			pw.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}
