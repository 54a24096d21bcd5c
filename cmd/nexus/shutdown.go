package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
)

// How nexus ends on signals, the one rule of every command that runs or
// serves (nexus run, nexus mcp over stdio or HTTP, nexus serve): the first
// SIGINT or SIGTERM asks for a graceful stop, which each command bounds
// (a run cancels its call; a server over HTTP that a load balancer
// health-checks first reports draining on GET /health for --drain; a
// server stops reading requests and lets the calls in flight finish for up to --shutdown-grace, then cancels them,
// stops the pools and exits 0); the second stops at once: the pools are
// killed and nexus exits 128 + the signal's number (130 for Ctrl-C), as a
// shell reports a process the signal ended.

// defaultShutdownGrace is how long a stopping server lets the calls in
// flight finish: enough for a quick call to answer, short enough that a
// user who pressed Ctrl-C or a client that closed stdin (MCP's stdio
// shutdown, after which clients wait a few seconds before sending
// SIGTERM) is not kept waiting by a call that will not end.
const defaultShutdownGrace = 2 * time.Second

// killWait bounds how long the immediate stop waits for the pools to be
// killed before exiting anyway (a pool left then dies with its parent:
// see docs/pool-protocol.md).
const killWait = 2 * time.Second

// defaultDrain is how long a stopping HTTP server reports draining on GET
// /health before it stops accepting: three times the interval at which
// deploy/haproxy.cfg checks it, so that the proxy has seen it at least
// twice and sends nothing new before the listener closes.
const defaultDrain = 3 * time.Second

// shutdownFlags are the flags of every server that set how it stops.
func shutdownFlags() []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "shutdown-grace", Value: defaultShutdownGrace,
			Usage: "on the first SIGINT or SIGTERM (or end of stdin), let the calls in flight finish for `DURATION`, then cancel them; a second signal stops at once"},
		&cli.DurationFlag{Name: "drain", Value: defaultDrain,
			Usage: "over HTTP, on the first SIGINT or SIGTERM, when GET /health was ever asked, report draining there (503) for `DURATION` while still serving, before the shutdown grace; 0 for none"},
	}
}

// onSignals watches SIGINT and SIGTERM. The context it returns is done at
// the first; at the second, kill is called (for at most killWait) and the
// process exits. stop ends the watch (and the context); called after the
// second signal, it does not return.
func onSignals(kill func()) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	hard := make(chan struct{}) // closed at the second signal
	go func() {
		select {
		case <-sigs:
			cancel(errSignal)
		case <-done:
			return
		}
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-done:
			return
		}
		close(hard)
		oplog.Warn("stopping now: killing the pools")
		killed := make(chan struct{})
		go func() {
			kill()
			close(killed)
		}()
		select {
		case <-killed:
		case <-time.After(killWait):
		}
		os.Exit(signalExit(sig))
	}()
	var once sync.Once
	return ctx, func() {
		select {
		case <-hard:
			// The command ended because the pools were killed under it:
			// the exit is the immediate stop's, once they are gone.
			select {}
		default:
		}
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel(nil)
		})
	}
}

// errSignal is the cause of the context of onSignals when a signal ended it.
var errSignal = errors.New("stopped by a signal")

// sayStopping tells the user on stderr what the first signal does, once
// it came: ctx is onSignals's.
func sayStopping(ctx context.Context, grace time.Duration) {
	context.AfterFunc(ctx, func() { sayFinishing(ctx, grace) })
}

// sayFinishing says, when a signal ended ctx (onSignals's), that the
// calls in flight now get grace to finish.
func sayFinishing(ctx context.Context, grace time.Duration) {
	if context.Cause(ctx) == errSignal {
		oplog.Info("stopping: finishing the calls in flight (a second signal stops at once)", "grace", grace.String())
	}
}

// signalExit is the exit status of a process ended by sig.
func signalExit(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}
