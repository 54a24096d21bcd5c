// Package dispatch evaluates a command's body: the one place where a
// request, already turned into typed argument values by a front end (the
// command line, MCP, the HTTP API), becomes literals, variables, field
// accesses and calls of sourced functions in their pools.
//
// Values are in the canonical Go form of manifest/types. Calls cross to the
// pools as msgpack through a Caller, so dispatch knows nothing about how
// pools are started or reached, and nothing about any front end.
package dispatch

import (
	"context"
	"errors"
	"fmt"

	"github.com/nexus-run/nexus/manifest"
)

// Caller runs a sourced function in its pool: args is a msgpack array of
// the function's arguments, and the result is its msgpack value. An error
// is the failure of the call (an exception with its traceback, a pool that
// died or could not start), with a message fit to show a user that names
// the function.
//
// A Dispatcher may call Call from several goroutines at once, for calls to
// different pools within one body.
type Caller interface {
	Call(ctx context.Context, f *manifest.Function, args []byte) ([]byte, error)
}

// Dispatcher evaluates the commands of manifest M, sending calls to Pools.
// Pools may be nil for pure commands, whose bodies call no sourced
// function. A Dispatcher holds no state of its own: one may serve any
// number of concurrent Run calls when Pools allows it.
type Dispatcher struct {
	M     *manifest.Manifest
	Pools Caller
}

// ThrowError is the failure of an @throw in a body: Message is the text
// the program gave.
type ThrowError struct {
	Message string
}

func (e *ThrowError) Error() string { return e.Message }

// Run evaluates c's body with args, the canonical values of c's arguments
// in order (one per c.Args entry; an unrolled record is its record value),
// and returns the result as a canonical value of c.Return.
func (d *Dispatcher) Run(ctx context.Context, c *manifest.Command, args []any) (any, error) {
	if c == nil {
		return nil, errors.New("no command to run")
	}
	if len(args) != len(c.Args) {
		return nil, fmt.Errorf("command %s takes %d arguments, got %d", c.Name, len(c.Args), len(args))
	}
	return d.evalClosing(ctx, c.Body, args)
}

// RunAction applies output action a to result, a command's result, and
// returns the action's value (of type a.Return).
func (d *Dispatcher) RunAction(ctx context.Context, a *manifest.Action, result any) (any, error) {
	if a == nil {
		return nil, errors.New("no output action to run")
	}
	return d.evalClosing(ctx, a.Body, []any{result})
}
