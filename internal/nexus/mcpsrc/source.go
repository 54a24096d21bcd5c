// Package mcpsrc is nexus's client side of MCP: a connection to one other
// MCP server whose tools a program calls, the runtime half of a `source
// MCP` declaration. The server is a command started over stdio or a
// Streamable HTTP endpoint; the protocol is the Go SDK's client and
// transports, and this package adds what nexus needs around them: the
// server's process (clean environment, working directory, stderr prefixed
// with its name, killed with its group), connection on first use, restart
// after the server exits, over HTTP a new session when the server forgot
// the old one (404), a per-request timeout, and errors that name the
// server.
package mcpsrc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/internal/mcpaddr"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/tracing"
)

// DefaultTimeout is how long one request may take when Options.Timeout is
// zero: long enough for a tool doing real work, short enough that a hung
// server does not hang the program calling it.
const DefaultTimeout = 60 * time.Second

// Options say which server to talk to and how.
type Options struct {
	// Name names the server in errors and prefixes its stderr lines; the
	// server string when empty.
	Name string
	// Server is a Streamable HTTP endpoint when it starts with http:// or
	// https://, else a command line, split into arguments with simple
	// '...' and "..." quoting and run without a shell.
	Server string

	// Env lists the variables a stdio server gets besides PATH and HOME:
	// NAME passes nexus's own value (nothing when it is unset), NAME=VALUE
	// sets one.
	Env []string
	// Dir is a stdio server's working directory; nexus's own when empty.
	Dir string
	// Stderr receives a stdio server's stderr, each line prefixed with
	// "Name: "; os.Stderr when nil.
	Stderr io.Writer

	// Bearer, when set, is sent as "Authorization: Bearer <Bearer>" to an
	// HTTP server; Headers are sent as they are.
	Bearer  string
	Headers map[string]string

	// Timeout bounds each request (connecting included); DefaultTimeout
	// when zero.
	Timeout time.Duration
}

// Result is what a tool call returned.
type Result struct {
	// Text holds the text content blocks, in order.
	Text []string
	// Structured is the structuredContent, nil when there is none.
	Structured []byte
	// Other holds every other content block (image, audio, resource
	// link, embedded resource) as its JSON object, in order.
	Other [][]byte
	// IsError says the tool reported a failure; Text usually says which.
	IsError bool
	// Content holds every content block, text included, in the order the
	// server sent them.
	Content []Block
}

// Block is one content block of a Result: a text block's text, or any
// other block as its JSON object.
type Block struct {
	Text string
	JSON []byte // nil for a text block
}

// Source is a connection to one MCP server, opened on first use and
// reopened on the call after the server went away. Its methods may be
// called concurrently; calls share one connection, several in flight.
type Source struct {
	opts    Options
	argv    []string // nil for an HTTP server
	stderr  *prefixWriter
	timeout time.Duration

	opening chan struct{} // held by the caller opening a connection

	mu     sync.Mutex
	conn   *conn
	closed bool
	deaths []time.Time // of the server's process, within pool.DefaultDeathWindow
	last   string      // how it last ended
}

// conn is one session with the server, and its process for a stdio server.
type conn struct {
	session *mcp.ClientSession
	proc    *process // nil over HTTP
	ended   chan struct{}

	// Guarded by Source.mu: the calls using the connection, and whether
	// its session is gone, so that the last of them closes it.
	users   int
	dropped bool

	mu    sync.Mutex
	tools []*mcp.Tool
}

// New checks opts and returns a Source that connects on first use.
func New(opts Options) (*Source, error) {
	if opts.Name == "" {
		opts.Name = mcpaddr.Redact(opts.Server)
	}
	s := &Source{opts: opts, timeout: opts.Timeout, opening: make(chan struct{}, 1)}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if mcpaddr.IsHTTP(opts.Server) {
		if err := mcpaddr.CheckURL(opts.Server); err != nil {
			return nil, err
		}
		return s, nil
	}
	argv, err := mcpaddr.Split(opts.Server)
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: %w", opts.Name, err)
	}
	for _, e := range opts.Env {
		name, _, _ := strings.Cut(e, "=")
		if !mcpaddr.ValidEnvName(name) {
			return nil, fmt.Errorf("mcp server %s: %q is not an environment variable (NAME or NAME=VALUE)", opts.Name, e)
		}
	}
	w := opts.Stderr
	if w == nil {
		w = os.Stderr
	}
	s.argv = argv
	s.stderr = &prefixWriter{w: w, prefix: opts.Name + ": "}
	return s, nil
}

// Name is the server's name, as errors give it.
func (s *Source) Name() string { return s.opts.Name }

// errTimeout is the cause of a context this package cut at Options.Timeout.
var errTimeout = errors.New("mcp request timed out")

// Call calls tool with args. An error means the call did not complete (the
// server is unreachable, exited, timed out, does not have the tool, or ctx
// ended, in which case the server is sent notifications/cancelled); a
// tool's own failure is a Result with IsError set.
func (s *Source) Call(ctx context.Context, tool string, args map[string]any) (Result, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, s.timeout, errTimeout)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	var res *mcp.CallToolResult
	err := s.withSession(ctx, func(ctx context.Context, c *conn) (string, error) {
		if err := c.checkTool(ctx, s.opts.Name, tool); err != nil {
			return "list tools", err
		}
		var err error
		params := &mcp.CallToolParams{Name: tool, Arguments: args}
		if meta := tracing.Meta(ctx); meta != nil {
			params.Meta = meta
		}
		res, err = c.session.CallTool(ctx, params)
		return "call " + tool, err
	})
	if err != nil {
		return Result{}, err
	}
	return newResult(res)
}

// Tools lists the server's tools.
func (s *Source) Tools(ctx context.Context) ([]*mcp.Tool, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, s.timeout, errTimeout)
	defer cancel()
	var tools []*mcp.Tool
	err := s.withSession(ctx, func(ctx context.Context, c *conn) (string, error) {
		var err error
		tools, err = c.listTools(ctx)
		return "list tools", err
	})
	return tools, err
}

// withSession runs op on the open connection, opening one first when
// there is none; op says which step failed. Over HTTP, when the server
// answered one of op's requests that it does not know the session (404:
// it expired, or the server restarted), or op's request was never sent
// because the connection had already failed, op ran nowhere: a new
// session is opened and op runs once more. A call that reached a session
// the server knew is never repeated, since it may have run; when it
// failed with the connection, the next call opens a new one. (Over
// stdio, the connection ends with the server's process, and the next
// call starts it again.)
func (s *Source) withSession(ctx context.Context, op func(context.Context, *conn) (string, error)) error {
	for retried := false; ; retried = true {
		dp := &probe{}
		c, err := s.dial(withProbe(ctx, dp))
		if err != nil {
			return s.explain(ctx, c, "connect", dp.explain(err))
		}
		p := &probe{}
		step, err := op(withProbe(ctx, p), c)
		if err == nil || c.proc != nil || ctx.Err() != nil {
			s.release(c, false)
			if err != nil {
				return s.explain(ctx, c, step, err)
			}
			return nil
		}
		// A request that failed alone (its HTTP connection broke, the
		// server refused it) leaves the session to the other calls; the
		// SDK closing the session does not.
		broken := c.hasEnded() || errors.Is(err, mcp.ErrConnectionClosed)
		again := p.sessionGone.Load() || broken && !p.sent.Load()
		s.release(c, again || broken)
		if !again {
			return s.explain(ctx, c, step, p.explain(err))
		}
		if retried {
			return fmt.Errorf("mcp server %s: %s: the session ended, and so did the new one opened in its place: %w", s.opts.Name, step, p.explain(err))
		}
	}
}

// Close ends the session and the server's process. Calls after Close fail.
func (s *Source) Close() error {
	s.mu.Lock()
	c := s.conn
	s.conn, s.closed = nil, true
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	c.close()
	return nil
}

// dial returns the open connection, opening one when there is none or the
// last one ended (its server exited), for a use that release ends. One caller opens it while the others
// wait, each no longer than its ctx allows.
func (s *Source) dial(ctx context.Context) (*conn, error) {
	if c, err := s.current(); c != nil || err != nil {
		return c, err
	}
	select {
	case s.opening <- struct{}{}:
		defer func() { <-s.opening }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if c, err := s.current(); c != nil || err != nil {
		return c, err // another caller opened it meanwhile
	}
	s.mu.Lock()
	err := s.guard(time.Now())
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	c, err := s.open(ctx)
	if err != nil {
		if c != nil && c.proc != nil {
			s.mu.Lock()
			s.noteDeath(c.proc.describe())
			s.mu.Unlock()
		}
		return c, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.close()
		return nil, fmt.Errorf("closed")
	}
	c.users = 1
	s.conn = c
	return c, nil
}

// release ends a use of c that dial began. With drop, c's session is
// gone: no later call gets c, and the last call using it closes it (not
// before, since closing the SDK's session ends the calls in flight on it,
// whose own answers tell whether they may have run).
func (s *Source) release(c *conn, drop bool) {
	s.mu.Lock()
	c.users--
	if drop {
		c.dropped = true
		if s.conn == c {
			s.conn = nil
		}
	}
	last := c.dropped && c.users == 0
	s.mu.Unlock()
	if last {
		c.close()
	}
}

// current returns the open connection, for a use; nil when there is none, after
// counting the death of the server of one that ended and closing it.
func (s *Source) current() (*conn, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, fmt.Errorf("closed")
	}
	c := s.conn
	if c == nil {
		s.mu.Unlock()
		return nil, nil
	}
	if !c.hasEnded() {
		c.users++
		s.mu.Unlock()
		return c, nil
	}
	if c.proc != nil {
		s.noteDeath(c.proc.describe())
	}
	s.conn = nil
	s.mu.Unlock()
	// Stopping a stdio server may take its grace periods: not while
	// every other call waits for the lock.
	c.close()
	return nil, nil
}

// open starts the server (for a command) and initializes a session with
// it. When that fails after the process started, the returned conn holds
// the stopped process, for the error to say how it ended.
func (s *Source) open(ctx context.Context) (*conn, error) {
	var (
		t    mcp.Transport
		proc *process
		err  error
	)
	if s.argv == nil {
		t = s.httpTransport()
	} else {
		proc, err = startProcess(s.argv, s.opts, s.stderr)
		if err != nil {
			return nil, err
		}
		t = proc.transport()
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "nexus", Version: "mcpsrc"}, nil)
	session, err := client.Connect(ctx, t, nil)
	if err != nil {
		if proc != nil {
			proc.stop()
			return &conn{proc: proc}, err
		}
		return nil, err
	}
	c := &conn{session: session, proc: proc, ended: make(chan struct{})}
	go func() {
		session.Wait()
		close(c.ended)
	}()
	return c, nil
}

// noteDeath counts an end of the server's process, or a failed start.
func (s *Source) noteDeath(how string) {
	s.deaths = append(s.deaths, time.Now())
	s.last = how
}

// guard refuses to start the server again when it died too often lately,
// as pools do: a server that dies that often is broken, and restarting it
// would only hide that.
func (s *Source) guard(now time.Time) error {
	recent := pool.Recent(s.deaths, now, pool.DefaultDeathWindow)
	s.deaths = recent
	if len(recent) < pool.DefaultMaxDeaths {
		return nil
	}
	return &heldError{fmt.Sprintf("the server exited or failed to start %d times within %v; not starting it again for now (last time: %s)",
		len(recent), pool.DefaultDeathWindow, s.last)}
}

// heldError is a start the restart guard refused.
type heldError struct{ msg string }

func (e *heldError) Error() string { return e.msg }

// explain turns err from step into the error a caller sees: it names the
// server and says plainly when the timeout cut the request, the server's
// process exited, or its command could not be started.
func (s *Source) explain(ctx context.Context, c *conn, step string, err error) error {
	err = s.explained(ctx, c, step, err)
	if err == nil || !mcpaddr.IsHTTP(s.opts.Server) {
		return err
	}
	// net/http's errors hold the endpoint's URL, its query (which may
	// hold a token) included.
	return &scrubbed{msg: mcpaddr.Scrub(err.Error(), s.opts.Server), err: err}
}

// scrubbed is an error whose message has the endpoint's secrets hidden.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

func (s *Source) explained(ctx context.Context, c *conn, step string, err error) error {
	name := s.opts.Name
	var (
		notFound *commandError
		held     *heldError
	)
	switch {
	case errors.As(err, &notFound), errors.As(err, &held):
		return fmt.Errorf("mcp server %s: %w", name, err)
	case errors.Is(context.Cause(ctx), errTimeout):
		return fmt.Errorf("mcp server %s: %s: no answer within %v (the request timeout)", name, step, s.timeout)
	case ctx.Err() != nil:
		return fmt.Errorf("mcp server %s: %s: %w", name, step, ctx.Err())
	case c != nil && c.proc != nil && c.proc.line != nil && c.proc.line.fault() != nil:
		// nexus ended the connection for what the server sent, and the
		// server then exited because its stdin closed: say what it sent.
		return fmt.Errorf("mcp server %s: %s: %v; the connection is opened again on the next call", name, step, c.proc.line.fault())
	case c != nil && c.proc != nil && (c.proc.hasExited() || connectionLost(err) && c.proc.exitedSoon()):
		return fmt.Errorf("mcp server %s: %s: the server exited (%s); it is restarted on the next call", name, step, c.proc.describe())
	}
	var unknown *unknownToolError
	if errors.As(err, &unknown) {
		return err
	}
	return fmt.Errorf("mcp server %s: %s: %w", name, step, err)
}

// connectionLost reports whether err says the connection went away, as
// it does when the server exits under a call.
func connectionLost(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// unknownToolError is a call to a tool the server does not list.
type unknownToolError struct {
	server, tool string
	have         []string
}

func (e *unknownToolError) Error() string {
	return fmt.Sprintf("mcp server %s has no tool %q; its tools are: %s", e.server, e.tool, strings.Join(e.have, ", "))
}

// checkTool fails with an unknownToolError when the server does not list
// tool, listing again once first in case the list changed since.
func (c *conn) checkTool(ctx context.Context, server, tool string) error {
	c.mu.Lock()
	tools := c.tools
	c.mu.Unlock()
	for attempt := 0; attempt < 2; attempt++ {
		if tools != nil && slices.ContainsFunc(tools, func(t *mcp.Tool) bool { return t.Name == tool }) {
			return nil
		}
		if attempt == 1 {
			break
		}
		var err error
		if tools, err = c.listTools(ctx); err != nil {
			return err
		}
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return &unknownToolError{server: server, tool: tool, have: names}
}

// listTools asks the server for all its tools and remembers them.
func (c *conn) listTools(ctx context.Context) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	c.mu.Lock()
	c.tools = tools
	c.mu.Unlock()
	return tools, nil
}

// hasEnded reports whether the session ended (the SDK saw it fail).
func (c *conn) hasEnded() bool {
	select {
	case <-c.ended:
		return true
	default:
		// A stdio connection whose reading failed is ending: the SDK
		// fails the calls on it before the session has ended, and the
		// next call must not find it still open.
		return c.proc != nil && c.proc.line.broken.Load()
	}
}

// close ends the session, then the process.
func (c *conn) close() {
	if c.session != nil {
		c.session.Close()
	}
	if c.proc != nil {
		c.proc.stop()
	}
}
