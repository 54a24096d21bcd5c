package pool

import "time"

// Events: what happens to the pools, told to Options.Events as it
// happens, for metrics. A callback rather than the metrics themselves so
// that this package depends on no metrics library.

// EventKind is what happened.
type EventKind string

const (
	// Started: an instance of the pool started and answered its
	// handshake. Restart tells a start after the pool's first.
	Started EventKind = "start"
	// StartFailed: a start failed (not one that Close cut short).
	StartFailed EventKind = "start_failure"
	// Died: a running instance died (exited or was killed), once per
	// instance.
	Died EventKind = "death"
	// Replaced: a running instance was retired for a fresh one (see
	// abandon.go). A replacement is not a death.
	Replaced EventKind = "replacement"
	// Called: a call of a function ended; Duration is its whole time in
	// Supervisor.Call (or, for a tool of an MCP server, in
	// mcpsrc.Caller.Call), waiting for a free slot and a start included,
	// and Err its failure or nil.
	Called EventKind = "call"
)

// Event is one thing that happened to a program's pool.
type Event struct {
	Kind EventKind
	// Program is the program's module name (manifest.Manifest.Name);
	// Lang the pool's language (manifest.Python, ...; manifest.MCP for
	// the tools of an MCP server, whose name is Server).
	Program, Lang, Server string
	// Restart marks a Started that is not the pool's first.
	Restart  bool
	Duration time.Duration
	Err      error
}

// event tells opts.Events of e, if anyone listens. It may be called with
// a pool's lock held: Events must be quick and must not call the pool.
func (sp *supervised) event(e Event) {
	if f := sp.sup.opts.Events; f != nil {
		e.Program, e.Lang = sp.sup.m.Name, sp.lang
		f(e)
	}
}
