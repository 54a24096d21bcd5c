// Package program assembles a program's runtime stack, the same for every
// front end: its manifest, the supervisor of its pools, the dispatcher
// that runs its commands through them, and its commands as tools. nexus
// run, nexus mcp and nexus serve all build on it.
//
// Only when pools start differs, and the front end says: a Program starts
// nothing by itself, so a pool starts on the first call that needs it
// (the command line, and nexus serve); StartPools starts them all at once,
// in parallel (nexus mcp).
package program

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/manifest"
)

// Program is one program's runtime stack. Its methods are safe to call
// concurrently; Close ends it.
type Program struct {
	Manifest *manifest.Manifest
	// Pools runs the program's sourced functions, each pool started on
	// the first call that needs it unless StartPools started it before.
	Pools *pool.Supervisor
	// Dispatcher runs the program's commands, calling Pools.
	Dispatcher *dispatch.Dispatcher
}

// New returns the stack of program m, whose pools run with opts. It starts
// no pool.
func New(m *manifest.Manifest, opts pool.Options) *Program {
	sup := pool.New(m, opts)
	return &Program{Manifest: m, Pools: sup, Dispatcher: &dispatch.Dispatcher{M: m, Pools: sup}}
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
// overlaps the rest of it. A pool that fails to start is reported on log
// (unless ctx ended), and started again by the first call that needs it,
// which reports the failure to its caller (a start that Close cuts short
// is not reported). The channel returned is closed
// once every pool is running or has failed to start; a server need not
// wait for it.
func (p *Program) StartPools(ctx context.Context, log io.Writer) <-chan struct{} {
	langs := make([]string, len(p.Manifest.Pools))
	for i, pl := range p.Manifest.Pools {
		langs[i] = pl.Lang
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Close cutting the start short is the end asked for, not a
		// failure to report.
		err := p.Pools.Start(ctx, langs...)
		if err != nil && ctx.Err() == nil && !errors.Is(err, pool.ErrClosed) {
			fmt.Fprintf(log, "nexus: %v\n", err)
		}
	}()
	return done
}

// Close stops the program's pools.
func (p *Program) Close() error { return p.Pools.Close() }
