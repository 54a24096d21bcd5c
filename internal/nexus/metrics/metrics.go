// Package metrics counts what a running nexus does, for Prometheus: tool
// calls, pools, MCP sessions, HTTP requests and the calls made to other
// MCP servers, served at GET /metrics in Prometheus's text format. It
// keeps its own registry (not the process-wide default), so that nothing
// else a library registers ends up in it, and tests can make as many as
// they like.
//
// Every label takes its values from a bounded set: names the programs
// being served declare (programs, tools, languages, MCP servers), or a
// fixed list (transports, protocol revisions, outcomes, route classes,
// status codes). A name a client sends that is not one of them (an
// unknown tool) is counted under "", never under the client's string,
// which would let any client grow the series without end.
package metrics

import (
	"errors"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/pool"
)

// Path is where the metrics are served.
const Path = "/metrics"

// durationBuckets are the histograms' buckets, in seconds: a tool call
// takes from a millisecond (a small function in a warm pool) to minutes,
// so they span both, beyond Prometheus's default of 10 seconds at most.
var durationBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}

// Options configure Metrics.
type Options struct {
	// Version is nexus's version, for nexus_build_info.
	Version string
	// Protocols are the MCP protocol revisions the server speaks: a
	// call's protocol label is one of them, or "".
	Protocols []string
}

// Metrics is one server's metrics. Its methods are safe for concurrent
// use.
type Metrics struct {
	reg       *prometheus.Registry
	protocols []string

	calls       *prometheus.CounterVec
	callSeconds *prometheus.HistogramVec

	poolStarts, poolRestarts, poolStartFailures *prometheus.CounterVec
	poolDeaths, poolReplacements                *prometheus.CounterVec
	poolCallSeconds                             *prometheus.HistogramVec

	clientCalls       *prometheus.CounterVec
	clientCallSeconds *prometheus.HistogramVec

	httpRequests *prometheus.CounterVec

	mu sync.RWMutex
	// tools are the names of the tools each program serves.
	tools map[string]map[string]bool
}

// New returns the metrics of a server, with none of its calls counted
// yet, and Go's and the process's own metrics beside them.
func New(opts Options) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), protocols: slices.Clone(opts.Protocols), tools: map[string]map[string]bool{}}
	f := factory{m.reg}
	m.calls = f.counter("nexus_tool_calls_total",
		"Tool calls that ended, by program, tool, transport (stdio, http, api), MCP protocol revision (\"\" for the JSON API) and outcome.",
		"program", "tool", "transport", "protocol", "outcome")
	m.callSeconds = f.histogram("nexus_tool_call_duration_seconds",
		"How long tool calls took, from the request read to the reply ready, by program, tool and transport.",
		"program", "tool", "transport")
	poolLabels := []string{"program", "language"}
	m.poolStarts = f.counter("nexus_pool_starts_total", "Pool starts that succeeded (restarts included), by program and language.", poolLabels...)
	m.poolRestarts = f.counter("nexus_pool_restarts_total", "Pool starts after the pool's first (after a death or a replacement), by program and language.", poolLabels...)
	m.poolStartFailures = f.counter("nexus_pool_start_failures_total", "Pool starts that failed, by program and language.", poolLabels...)
	m.poolDeaths = f.counter("nexus_pool_deaths_total", "Pools that died while running (exited or were killed), by program and language.", poolLabels...)
	m.poolReplacements = f.counter("nexus_pool_replacements_total",
		"Pools replaced by a fresh one (abandoned calls piling up, a failed health check), by program and language.", poolLabels...)
	m.poolCallSeconds = f.histogram("nexus_pool_call_duration_seconds",
		"How long calls of a pool's functions took, waiting for a free slot and for the pool's start included, by program and language.", poolLabels...)
	m.clientCalls = f.counter("nexus_mcp_client_calls_total",
		"Calls of other MCP servers' tools that a program makes, by program, server and outcome (ok, tool_error, timeout, cancelled, error).",
		"program", "server", "outcome")
	m.clientCallSeconds = f.histogram("nexus_mcp_client_call_duration_seconds",
		"How long calls of other MCP servers' tools took, by program and server.", "program", "server")
	m.httpRequests = f.counter("nexus_http_requests_total",
		"HTTP requests answered, by route class (mcp, call, discover, health, metrics, status, other) and status code.", "route", "code")
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "nexus_build_info",
		Help: "Always 1: the labels say which nexus is running, built by which Go."}, []string{"version", "goversion"})
	m.reg.MustRegister(build)
	build.WithLabelValues(opts.Version, runtime.Version()).Set(1)
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// factory makes and registers metric vectors.
type factory struct{ reg *prometheus.Registry }

func (f factory) counter(name, help string, labels ...string) *prometheus.CounterVec {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(v)
	return v
}

func (f factory) histogram(name, help string, labels ...string) *prometheus.HistogramVec {
	v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: durationBuckets}, labels)
	f.reg.MustRegister(v)
	return v
}

// Registry is the registry the metrics are in (for tests).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Serve declares the tools program serves, by the names clients call
// them: calls of other names are counted under the tool "".
func (m *Metrics) Serve(program string, tools []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	known := m.tools[program]
	if known == nil {
		known = map[string]bool{}
		m.tools[program] = known
	}
	for _, t := range tools {
		known[t] = true
	}
}

// Watch counts the calls hub reports, and the calls in flight of each of
// transports (those hub's calls come by) as nexus_tool_calls_in_flight.
// Watch a hub once.
func (m *Metrics) Watch(hub *observe.Hub, transports ...string) {
	hub.Watch(m.called)
	for _, t := range transports {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "nexus_tool_calls_in_flight",
			Help: "Tool calls begun and not ended yet, by transport.", ConstLabels: prometheus.Labels{"transport": t}},
			func() float64 { return float64(hub.InFlight(t)) }))
	}
}

// called counts a finished tool call.
func (m *Metrics) called(c observe.Call) {
	program, tool := m.known(c.Program, c.Tool)
	protocol := ""
	if slices.Contains(m.protocols, c.Protocol) {
		protocol = c.Protocol
	}
	m.calls.WithLabelValues(program, tool, c.Transport, protocol, string(c.Outcome)).Inc()
	m.callSeconds.WithLabelValues(program, tool, c.Transport).Observe(c.Duration.Seconds())
}

// known returns program and tool as labels: each as it is when Serve
// declared it, else "".
func (m *Metrics) known(program, tool string) (string, string) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	tools, ok := m.tools[program]
	if !ok {
		return "", ""
	}
	if !tools[tool] {
		return program, ""
	}
	return program, tool
}

// PoolEvent counts an event of a program's pools or MCP servers: it is
// pool.Options.Events. Every label comes from the program's manifest.
func (m *Metrics) PoolEvent(e pool.Event) {
	if e.Kind == pool.Called && e.Server != "" {
		m.clientCalls.WithLabelValues(e.Program, e.Server, clientOutcome(e.Err)).Inc()
		m.clientCallSeconds.WithLabelValues(e.Program, e.Server).Observe(e.Duration.Seconds())
		return
	}
	switch e.Kind {
	case pool.Started:
		m.poolStarts.WithLabelValues(e.Program, e.Lang).Inc()
		if e.Restart {
			m.poolRestarts.WithLabelValues(e.Program, e.Lang).Inc()
		}
	case pool.StartFailed:
		m.poolStartFailures.WithLabelValues(e.Program, e.Lang).Inc()
	case pool.Died:
		m.poolDeaths.WithLabelValues(e.Program, e.Lang).Inc()
	case pool.Replaced:
		m.poolReplacements.WithLabelValues(e.Program, e.Lang).Inc()
	case pool.Called:
		m.poolCallSeconds.WithLabelValues(e.Program, e.Lang).Observe(e.Duration.Seconds())
	}
}

// clientOutcome is the outcome of a call of another MCP server's tool
// that returned err: ok, tool_error (the tool answered with isError),
// timeout, cancelled, or error (the server could not be reached, did not
// answer, or answered what the program cannot read).
func clientOutcome(err error) string {
	var fe *pool.FunctionError
	switch {
	case err == nil:
		return string(observe.OK)
	case errors.As(err, &fe):
		return string(observe.ToolError)
	}
	if o := observe.FailureOutcome(err); o != observe.ToolError {
		return string(o)
	}
	return "error"
}

// Sessions reports open() as nexus_mcp_sessions: the MCP sessions open
// over HTTP. Call it once.
func (m *Metrics) Sessions(open func() int) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "nexus_mcp_sessions",
		Help: "MCP sessions open over HTTP."}, func() float64 { return float64(open()) }))
}

// routes are the route classes of nexus_http_requests_total.
var routes = []string{"mcp", "call", "discover", "health", "metrics", "status", "other"}

// routeClass is the class of a request's path: a fixed set, since the
// paths themselves (a module and command in /call/..., anything a client
// makes up) are not.
func routeClass(path string) string {
	switch {
	case path == "/mcp":
		return "mcp"
	case path == "/call" || strings.HasPrefix(path, "/call/"):
		return "call"
	case path == "/discover" || strings.HasPrefix(path, "/discover/") || path == "/programs":
		return "discover"
	case path == "/health":
		return "health"
	case path == Path:
		return "metrics"
	case path == "/" || path == "/status" || strings.HasPrefix(path, "/status/"):
		return "status"
	}
	return "other"
}

// CountHTTP counts each request h answers, by route class and status
// code. It goes outside the guard, so that refused requests (401, 403,
// 413...) count too.
func (m *Metrics) CountHTTP(h http.Handler) http.Handler {
	byRoute := map[string]http.Handler{}
	for _, r := range routes {
		// promhttp reads the status code h writes, keeping the writer's
		// Flush (MCP's event streams need it).
		byRoute[r] = promhttp.InstrumentHandlerCounter(m.httpRequests.MustCurryWith(prometheus.Labels{"route": r}), h)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		byRoute[routeClass(r.URL.Path)].ServeHTTP(w, r)
	})
}

// Handler serves the metrics, for GET and HEAD. Behind the guard like
// every other path: with a credentials file, only a credential with the
// "metrics" capability may read them (403 for the others).
func (m *Metrics) Handler() http.Handler {
	expo := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			guard.MethodNotAllowed("", http.MethodGet, http.MethodHead).ServeHTTP(w, r)
			return
		}
		if cred := guard.CredentialOf(r.Context()); cred != nil && !cred.MayReadMetrics() {
			guard.Error(w, http.StatusForbidden, cred.DeniedMetrics())
			return
		}
		expo.ServeHTTP(w, r)
	})
}
