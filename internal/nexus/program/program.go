// Package program assembles a program's runtime stack, the same for every
// front end: its manifest, the supervisor of its pools, the connections to
// the other MCP servers whose tools it calls, the dispatcher that runs its
// commands through both, and its commands as tools. nexus run, nexus mcp
// and nexus serve all build on it.
//
// Only when pools start differs, and the front end says: a Program starts
// nothing by itself, so a pool starts on the first call that needs it
// (the command line, and nexus serve); StartPools starts them all at once,
// in parallel (nexus mcp). MCP servers always connect on their first call.
package program

import (
	"context"
	"errors"
	"log/slog"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/internal/nexus/logs"
	"github.com/nexus-run/nexus/internal/nexus/mcpsrc"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/internal/nexus/tracing"
	"github.com/nexus-run/nexus/manifest"
)

// Program is one program's runtime stack. Its methods are safe to call
// concurrently; Close ends it.
type Program struct {
	Manifest *manifest.Manifest
	// Pools runs the program's sourced functions, each pool started on
	// the first call that needs it unless StartPools started it before.
	Pools *pool.Supervisor
	// Servers runs the program's tools of other MCP servers (functions of
	// pool manifest.MCP), each server connected on its first call.
	Servers *mcpsrc.Caller
	// Dispatcher runs the program's commands, calling Pools and Servers
	// through Caller.
	Dispatcher *dispatch.Dispatcher
}

// New returns the stack of program m, whose pools run with opts; stdio MCP
// servers' stderr goes where the pools' does (to opts.Log, a record a
// line, when set), and their calls' events where the pools' do. It starts
// no pool and connects to no server.
func New(m *manifest.Manifest, opts pool.Options) *Program {
	sup := pool.New(m, opts)
	stderr := opts.Stderr
	if opts.Log != nil {
		stderr = logs.Lines(opts.Log.With(slog.String("program", m.Name)), MCPServerOutput)
	}
	servers := mcpsrc.NewCaller(m, stderr)
	servers.Events = opts.Events
	return &Program{Manifest: m, Pools: sup, Servers: servers,
		Dispatcher: &dispatch.Dispatcher{M: m, Pools: route{m: m, pools: sup, servers: servers}}}
}

// MCPServerOutput is the message of the log records that carry a line a
// stdio MCP server printed on stderr (prefixed with the server's name).
const MCPServerOutput = "mcp server output"

// Caller runs any sourced function of the program: a tool of an MCP server
// through Servers, any other function in its pool through Pools.
func (p *Program) Caller() dispatch.Caller { return p.Dispatcher.Pools }

// route sends each call to what runs its function. It is where every
// call of a sourced function passes, so it traces them (a span each, in
// whose context the call goes on, carrying it to the pool or server).
type route struct {
	m              *manifest.Manifest
	pools, servers dispatch.Caller
}

func (r route) Call(ctx context.Context, f *manifest.Function, args []byte) (out []byte, err error) {
	var span *tracing.Span
	defer func() { span.End(err) }()
	if f.Pool == manifest.MCP {
		if tracing.On() && f.Server >= 0 && f.Server < len(r.m.Servers) {
			ctx, span = tracing.MCPCall(ctx, r.m.Name, r.m.Servers[f.Server].Name, f.Source, f.Name)
		}
		return r.servers.Call(ctx, f, args)
	}
	ctx, span = tracing.PoolCall(ctx, r.m.Name, f.Pool, f.Name, f.Source)
	return r.pools.Call(ctx, f, args)
}

// Tools are the program's commands as tools, one per command in manifest
// order, named prefix+command and run by the program's dispatcher.
// Commands that cannot be tools are left out and returned as skipped.
func (p *Program) Tools(prefix string) ([]*tool.Tool, []tool.Skipped) {
	return tool.FromProgram(p.Manifest, p.Dispatcher, prefix)
}

// StartPools starts every pool of the program at once, in parallel, in
// the background, as servers do: a client's first call then waits for no
// pool, and a pool's start, the longest step of a server's start,
// overlaps the rest of it. It returns once every pool's process has been
// launched (pool.Supervisor.Launch), so a server calls it first, before
// building its tools. A pool that fails to start is reported on log, at warn
// (unless ctx ended), and started again by the first call that needs it,
// which reports the failure to its caller (a start that Close cuts short
// is not reported). The channel returned is closed
// once every pool is running or has failed to start; a server need not
// wait for it.
func (p *Program) StartPools(ctx context.Context, log *slog.Logger) <-chan struct{} {
	langs := make([]string, len(p.Manifest.Pools))
	for i, pl := range p.Manifest.Pools {
		langs[i] = pl.Lang
	}
	started := p.Pools.Launch(ctx, langs...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Close cutting the start short is the end asked for, not a
		// failure to report.
		err := <-started
		if err != nil && ctx.Err() == nil && !errors.Is(err, pool.ErrClosed) {
			log.Warn("a pool did not start", "program", p.Manifest.Name, "error", err.Error())
		}
	}()
	return done
}

// Close closes the program's connections to MCP servers, stopping the
// stdio ones, and stops its pools.
func (p *Program) Close() error {
	return errors.Join(p.Servers.Close(), p.Pools.Close())
}
