package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/mcp"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/program"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/manifest"
)

// httpOnlyFlags make sense only when serving over HTTP. (--auth-token is
// not one: NEXUS_MCP_TOKEN may be set for every server a user runs.)
var httpOnlyFlags = []string{"http-host", "allow-no-auth", "session-idle", "max-sessions", "max-body"}

// serverFlags are the flags of every server: nexus mcp and nexus serve.
func serverFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "http-host", Value: "127.0.0.1", Usage: "the address to listen on (`HOST`); beyond loopback it needs a token or --allow-no-auth"},
		&cli.StringFlag{Name: "auth-token", EnvVars: []string{"NEXUS_MCP_TOKEN"}, Usage: "require `TOKEN` as Authorization: Bearer on every HTTP request"},
		&cli.BoolFlag{Name: "allow-no-auth", Usage: "allow a non-loopback --http-host without a token"},
		&cli.DurationFlag{Name: "session-idle", Value: mcp.DefaultSessionIdle, Usage: "end an MCP session after `DURATION` without a request"},
		&cli.IntFlag{Name: "max-sessions", Value: mcp.DefaultMaxSessions, Usage: "at most `N` MCP sessions at once"},
		&cli.Int64Flag{Name: "max-body", Value: guard.DefaultMaxBody, Usage: "refuse request bodies over `BYTES`"},
		&cli.DurationFlag{Name: "timeout", Value: tool.DefaultCallTimeout, Usage: "bound on each tool call (`DURATION`, e.g. 30s or 2h; 0 for none)"},
		&cli.IntFlag{Name: "pool-calls", Value: pool.DefaultMaxCalls, Usage: "at most `N` calls in flight in each pool; more wait"},
	}
}

// serverGC is the garbage collector's target for servers (GOGC), unless
// the user set GOGC: a server's live heap is a few megabytes, so at Go's
// default of 100 a call carrying a large array (100,000 numbers is 2 MB of
// JSON, and as much again decoded and encoded) runs several collections;
// at 200 it runs half as many, for a few megabytes more of memory.
const serverGC = 200

// tuneGC applies serverGC.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGC)
	}
}

func callOptions(c *cli.Context) tool.Options {
	timeout := c.Duration("timeout")
	if timeout == 0 {
		timeout = -1 // none
	}
	return tool.Options{CallTimeout: timeout}
}

func poolOptions(c *cli.Context) pool.Options {
	return pool.Options{Stderr: os.Stderr, MaxCalls: c.Int("pool-calls")}
}

func httpOptions(c *cli.Context) mcp.HTTPOptions {
	return mcp.HTTPOptions{SessionIdle: c.Duration("session-idle"), MaxSessions: c.Int("max-sessions")}
}

// serveProgramHTTP serves one program's tools over Streamable HTTP at /mcp.
func serveProgramHTTP(c *cli.Context, m *manifest.Manifest) error {
	prog := program.New(m, poolOptions(c))
	h := mcp.NewHTTPHandler(newServer(prog, callOptions(c), os.Stderr), httpOptions(c))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	closeAll := func() {
		h.Close()
		prog.Close()
	}
	ctx, stop := onSignals(closeAll)
	defer stop()
	prog.StartPools(ctx, os.Stderr)
	return serveHTTP(ctx, c, mux, "MCP at /mcp", closeAll)
}

// serveHTTP serves h behind the guard on --http-host:--http-port until ctx
// ends (a signal), then shuts down gracefully: it stops accepting, lets
// the requests in flight finish for up to --shutdown-grace, cancels those
// still running, and then calls stop (which ends sessions and stops
// pools).
func serveHTTP(ctx context.Context, c *cli.Context, h http.Handler, what string, stop func()) error {
	addr := net.JoinHostPort(c.String("http-host"), strconv.Itoa(c.Int("http-port")))
	newPolicy := func(addr string) (*guard.Policy, error) {
		return guard.New(guard.Options{
			Addr:        addr,
			Token:       c.String("auth-token"),
			AllowNoAuth: c.Bool("allow-no-auth"),
			MaxBody:     c.Int64("max-body"),
		})
	}
	// Refused before listening at all: an address beyond loopback
	// without a token.
	if _, err := newPolicy(addr); err != nil {
		stop()
		return usageError{err}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		stop()
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	// The port is known only now when 0 asked for a free one.
	policy, err := newPolicy(ln.Addr().String())
	if err != nil {
		ln.Close()
		stop()
		return err
	}
	callTimeout := c.Duration("timeout")
	// Every request's context ends when the grace is over.
	requests, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	srv := &http.Server{
		Handler:     policy.Wrap(h),
		BaseContext: func(net.Listener) context.Context { return requests },
		// Slow clients must not hold connections: headers and bodies come
		// quickly or not at all.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
	}
	if callTimeout > 0 {
		// A reply may take as long as a call may run.
		srv.WriteTimeout = callTimeout + time.Minute
	}
	// Shown as asked (0.0.0.0, not the [::] Go listens on), with the port
	// that 0 picked.
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	fmt.Fprintf(os.Stderr, "nexus: serving %s on http://%s\n", what, net.JoinHostPort(c.String("http-host"), port))
	grace := c.Duration("shutdown-grace")
	sayStopping(ctx, grace)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err = <-served:
	case <-ctx.Done():
		err = drainHTTP(srv, grace, cancelRequests)
	}
	stop()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// drainHTTP stops srv: no new connections, the requests in flight get
// grace to finish, then cancel ends those still running and their
// connections are closed.
func drainHTTP(srv *http.Server, grace time.Duration, cancel func()) error {
	sctx, done := context.WithTimeout(context.Background(), grace)
	defer done()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(os.Stderr, "nexus: stopping: cancelling the calls still running after %v\n", grace)
		cancel()
		err = srv.Close()
	}
	return err
}
