package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/mcp"
	"github.com/nexus-run/nexus/internal/nexus/metrics"
	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/manifest"
)

// newMetrics returns the metrics of a server whose calls hub reports, by
// transports, and points popts' events at them.
func newMetrics(hub *observe.Hub, popts *pool.Options, transports ...string) *metrics.Metrics {
	met := metrics.New(metrics.Options{Version: manifest.NexusVersion, Protocols: mcp.Versions()})
	met.Watch(hub, transports...)
	logged := popts.Events
	popts.Events = func(e pool.Event) {
		met.PoolEvent(e)
		if logged != nil {
			logged(e)
		}
	}
	return met
}

// serveProgram declares the tools srv serves, of program module, to met.
func serveProgram(met *metrics.Metrics, module string, srv *mcp.Server) {
	var names []string
	for _, t := range srv.Tools() {
		names = append(names, t.Name)
	}
	met.Serve(module, names)
}

// metricsAddrFlag serves a stdio server's metrics over HTTP.
var metricsAddrFlag = &cli.StringFlag{Name: "metrics-addr",
	Usage: "over stdio, serve the metrics at http://`HOST:PORT`/metrics (a loopback address; port 0 picks a free one; --auth-token or " + tokenEnv + " guards it)"}

// checkMetricsAddr refuses a --metrics-addr that is not HOST:PORT on a
// loopback address: the listener has no TLS and, without a token, no
// authentication, and a stdio server is not meant to be reached from
// elsewhere (serve it over HTTP for that).
func checkMetricsAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageError{fmt.Errorf("--metrics-addr %s: not HOST:PORT (%v)", addr, err)}
	}
	if !guard.IsLoopback(host) {
		return usageError{fmt.Errorf("--metrics-addr %s: %s is not a loopback address (127.0.0.1, ::1 or localhost); to be scraped from elsewhere, serve over HTTP with --http-port, whose /metrics has the token or credentials", addr, host)}
	}
	return nil
}

// serveMetrics serves met alone at GET /metrics on addr, behind the guard
// (Host and Origin checks, and token when not ""), until ctx ends. It
// returns once listening, having said where on stderr.
func serveMetrics(ctx context.Context, met *metrics.Metrics, addr, token string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--metrics-addr: listen on %s: %w", addr, err)
	}
	policy, err := guard.New(guard.Options{Addr: ln.Addr().String(), Token: token})
	if err != nil {
		ln.Close()
		return usageError{err}
	}
	mux := http.NewServeMux()
	mux.Handle(metrics.Path, met.Handler())
	mux.Handle("/", guard.NotFound("GET "+metrics.Path))
	srv := &http.Server{Handler: met.CountHTTP(policy.Wrap(mux)), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(os.Stderr, "nexus: serving metrics on http://%s%s\n", ln.Addr(), metrics.Path)
	go func() {
		if err := srv.Serve(guard.LimitListener(ln, guard.DefaultMaxConns)); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(os.Stderr, "nexus: metrics: %v\n", err)
		}
	}()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	return nil
}
