package mcpsrc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/internal/mcpaddr"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Caller runs the functions of a program that are tools of other MCP
// servers (Function.Pool is manifest.MCP), as the dispatcher's Caller does
// for pool functions: msgpack arguments in, the msgpack value of the
// function's declared return type out.
//
// It holds one Source per manifest.Server, made on the first call to one
// of its tools and shared by every call after it, concurrent ones
// included; Close closes them all. Its methods may be called concurrently.
type Caller struct {
	// Events, when set (before the first call), is told of the end of
	// each call, as a pool.Called event of language manifest.MCP; it must
	// be quick.
	Events func(pool.Event)

	m      *manifest.Manifest
	stderr io.Writer

	mu      sync.Mutex
	sources map[int]*Source // by index in m.Servers
	closed  bool
	closing chan struct{} // closed once the first Close has finished
}

// NewCaller returns the Caller of m's MCP tools. Stdio servers' stderr goes
// to stderr (os.Stderr when nil), each line prefixed with the server's
// name. It connects to nothing yet.
func NewCaller(m *manifest.Manifest, stderr io.Writer) *Caller {
	return &Caller{m: m, stderr: stderr, sources: map[int]*Source{}}
}

// Call calls tool f.Source of server f.Server with args, a msgpack array of
// f.Args, and returns the tool's result read as f.Return (see resultValue),
// in msgpack. A result marked isError fails with a *pool.FunctionError
// holding the server's message; every error names f.
func (c *Caller) Call(ctx context.Context, f *manifest.Function, args []byte) (_ []byte, err error) {
	if f.Pool != manifest.MCP {
		return nil, fmt.Errorf("%s: a %s function, not a tool of an MCP server", f.Name, f.Pool)
	}
	if c.Events != nil && f.Server >= 0 && f.Server < len(c.m.Servers) {
		start := time.Now()
		defer func() {
			c.Events(pool.Event{Kind: pool.Called, Program: c.m.Name, Lang: manifest.MCP, Server: c.m.Servers[f.Server].Name,
				Duration: time.Since(start), Err: err})
		}()
	}
	src, err := c.source(f.Server)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	named, err := toolArgs(f, args)
	if err != nil {
		return nil, fmt.Errorf("%s: arguments of tool %q of mcp server %s: %w", f.Name, f.Source, src.Name(), err)
	}
	res, err := src.Call(ctx, f.Source, named)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	v, err := resultValue(f, src.Name(), res)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := types.EncodeMsgpack(msgpack.NewEncoder(&buf), f.Return, v); err != nil {
		return nil, fmt.Errorf("%s: encode the result of tool %q: %w", f.Name, f.Source, err)
	}
	return buf.Bytes(), nil
}

// Close closes every server's connection, stopping the stdio servers, at
// once rather than one after the other. Calls after Close fail. Like the
// pool supervisor's, a Close called while another runs returns only once
// that one has finished.
func (c *Caller) Close() error {
	c.mu.Lock()
	if c.closed {
		closing := c.closing
		c.mu.Unlock()
		<-closing
		return nil
	}
	c.closed = true
	c.closing = make(chan struct{})
	defer close(c.closing)
	sources := c.sources
	c.sources = map[int]*Source{}
	c.mu.Unlock()
	errs := make([]error, 0, len(sources))
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for _, s := range sources {
		wg.Go(func() {
			err := s.Close()
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// source returns the Source of server i, making it on first use. A Source
// that cannot be made (a @bearer variable that is not set) is not kept:
// the next call tries again.
func (c *Caller) source(i int) (*Source, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("the program is closed")
	}
	if s := c.sources[i]; s != nil {
		return s, nil
	}
	if i < 0 || i >= len(c.m.Servers) {
		return nil, fmt.Errorf("mcp server %d out of range (%d servers)", i, len(c.m.Servers))
	}
	opts, err := sourceOptions(&c.m.Servers[i])
	if err != nil {
		return nil, err
	}
	opts.Stderr = c.stderr
	s, err := New(opts)
	if err != nil {
		return nil, err
	}
	c.sources[i] = s
	return s, nil
}

// sourceOptions are the Options of a Source for sv, with the bearer token
// read from the environment now. Errors name the server and the variable,
// never a value.
func sourceOptions(sv *manifest.Server) (Options, error) {
	opts := Options{
		Name:    sv.Name,
		Server:  sv.Server,
		Env:     sv.Env,
		Dir:     sv.Dir,
		Timeout: time.Duration(sv.TimeoutMS) * time.Millisecond,
	}
	if sv.Bearer != "" {
		opts.Bearer = os.Getenv(sv.Bearer)
		if opts.Bearer == "" {
			return Options{}, fmt.Errorf("mcp server %s: the environment variable %s, whose value @bearer sends as the token, is not set or empty", sv.Name, sv.Bearer)
		}
	}
	if len(sv.Headers) > 0 {
		opts.Headers = make(map[string]string, len(sv.Headers))
		for _, h := range sv.Headers {
			name, value, ok := mcpaddr.ParseHeader(h)
			if !ok {
				return Options{}, fmt.Errorf("mcp server %s: header %q is not \"Name: value\"", sv.Name, h)
			}
			opts.Headers[name] = value
		}
	}
	return opts, nil
}
