package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/manifest"
)

// served is metrics of a server of program seq, whose tools are sum and
// mean, whose calls hub reports.
func served(t *testing.T) (*Metrics, *observe.Hub) {
	t.Helper()
	m := New(Options{Version: "1.2.3", Protocols: []string{"2025-06-18", "2025-11-25"}})
	m.Serve("seq", []string{"sum", "mean"})
	hub := observe.NewHub()
	m.Watch(hub, observe.Stdio)
	return m, hub
}

// call reports a call to hub, begun and done.
func call(hub *observe.Hub, program, tool, protocol string, outcome observe.Outcome) {
	hub.Begin(observe.Stdio)
	hub.Done(observe.Call{Program: program, Tool: tool, Transport: observe.Stdio, Protocol: protocol,
		Duration: 20 * time.Millisecond, Outcome: outcome})
}

func TestToolCalls(t *testing.T) {
	m, hub := served(t)
	for range 3 {
		call(hub, "seq", "sum", "2025-06-18", observe.OK)
	}
	call(hub, "seq", "sum", "2025-06-18", observe.ToolError)
	call(hub, "seq", "mean", "2025-11-25", observe.Timeout)
	// Names and revisions a client made up are counted under "".
	for i := range 5 {
		call(hub, "seq", fmt.Sprintf("made-up-%d", i), "1999-01-01", observe.BadArguments)
		call(hub, fmt.Sprintf("other-%d", i), "sum", "2025-06-18", observe.BadArguments)
	}
	hub.Begin(observe.Stdio)
	hub.Begin(observe.Stdio)

	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"seq", "sum", "stdio", "2025-06-18", "ok"}, 3},
		{[]string{"seq", "sum", "stdio", "2025-06-18", "tool_error"}, 1},
		{[]string{"seq", "mean", "stdio", "2025-11-25", "timeout"}, 1},
		{[]string{"seq", "", "stdio", "", "bad_arguments"}, 5},
		{[]string{"", "", "stdio", "2025-06-18", "bad_arguments"}, 5},
	} {
		if got := testutil.ToFloat64(m.calls.WithLabelValues(c.labels...)); got != c.want {
			t.Errorf("nexus_tool_calls_total%v = %v, want %v", c.labels, got, c.want)
		}
	}
	// Five label sets, whatever the clients sent.
	if n := testutil.CollectAndCount(m.calls); n != 5 {
		t.Errorf("nexus_tool_calls_total has %d series, want 5", n)
	}
	if n := testutil.CollectAndCount(m.callSeconds); n != 4 {
		t.Errorf("nexus_tool_call_duration_seconds has %d series, want 4 (seq/sum, seq/mean, seq/\"\", \"\"/\"\")", n)
	}
	const want = `
# HELP nexus_tool_calls_in_flight Tool calls begun and not ended yet, by transport.
# TYPE nexus_tool_calls_in_flight gauge
nexus_tool_calls_in_flight{transport="stdio"} 2
`
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(want), "nexus_tool_calls_in_flight"); err != nil {
		t.Error(err)
	}
	expo := exposition(t, m)
	if !strings.Contains(expo, `nexus_tool_call_duration_seconds_count{program="seq",tool="sum",transport="stdio"} 4`) {
		t.Errorf("no histogram count of 4 calls of sum in\n%s", expo)
	}
	if strings.Contains(expo, "made-up") || strings.Contains(expo, "other-") || strings.Contains(expo, "1999") {
		t.Errorf("a client's name is a label value:\n%s", expo)
	}
	if !strings.Contains(expo, `nexus_build_info{goversion="go`) || !strings.Contains(expo, `version="1.2.3"} 1`) {
		t.Errorf("no nexus_build_info in\n%s", expo)
	}
}

func TestPoolEvents(t *testing.T) {
	m := New(Options{})
	ev := func(kind pool.EventKind, lang string, restart bool, err error) {
		m.PoolEvent(pool.Event{Kind: kind, Program: "seq", Lang: lang, Restart: restart, Duration: time.Millisecond, Err: err})
	}
	ev(pool.Started, manifest.Python, false, nil)
	ev(pool.Started, manifest.Cpp, false, nil)
	ev(pool.Called, manifest.Python, false, nil)
	ev(pool.Called, manifest.Python, false, errors.New("boom"))
	ev(pool.Died, manifest.Python, false, nil)
	ev(pool.StartFailed, manifest.Python, false, errors.New("no python"))
	ev(pool.Started, manifest.Python, true, nil)
	ev(pool.Replaced, manifest.Cpp, false, nil)
	ev(pool.Started, manifest.Cpp, true, nil)
	client := func(err error) {
		m.PoolEvent(pool.Event{Kind: pool.Called, Program: "seq", Lang: manifest.MCP, Server: "weather", Err: err})
	}
	client(nil)
	client(&pool.FunctionError{Function: "f", Message: "no"})
	client(fmt.Errorf("call: %w", context.DeadlineExceeded))
	client(errors.New("connection refused"))

	for _, c := range []struct {
		name  string
		value float64
	}{
		{"starts python", testutil.ToFloat64(m.poolStarts.WithLabelValues("seq", "py"))},
		{"starts cpp", testutil.ToFloat64(m.poolStarts.WithLabelValues("seq", "cpp"))},
		{"restarts python", testutil.ToFloat64(m.poolRestarts.WithLabelValues("seq", "py"))},
		{"restarts cpp", testutil.ToFloat64(m.poolRestarts.WithLabelValues("seq", "cpp"))},
		{"deaths python", testutil.ToFloat64(m.poolDeaths.WithLabelValues("seq", "py"))},
		{"start failures python", testutil.ToFloat64(m.poolStartFailures.WithLabelValues("seq", "py"))},
		{"replacements cpp", testutil.ToFloat64(m.poolReplacements.WithLabelValues("seq", "cpp"))},
		{"client ok", testutil.ToFloat64(m.clientCalls.WithLabelValues("seq", "weather", "ok"))},
		{"client tool_error", testutil.ToFloat64(m.clientCalls.WithLabelValues("seq", "weather", "tool_error"))},
		{"client timeout", testutil.ToFloat64(m.clientCalls.WithLabelValues("seq", "weather", "timeout"))},
		{"client error", testutil.ToFloat64(m.clientCalls.WithLabelValues("seq", "weather", "error"))},
	} {
		want := map[string]float64{"starts python": 2, "starts cpp": 2}[c.name]
		if want == 0 {
			want = 1
		}
		if c.value != want {
			t.Errorf("%s = %v, want %v", c.name, c.value, want)
		}
	}
	expo := exposition(t, m)
	if !strings.Contains(expo, `nexus_pool_call_duration_seconds_count{language="py",program="seq"} 2`) {
		t.Errorf("no histogram count of the 2 python calls in\n%s", expo)
	}
	if strings.Contains(expo, `nexus_pool_call_duration_seconds_count{language="mcp"`) {
		t.Errorf("calls of an MCP server counted as pool calls:\n%s", expo)
	}
}

func TestHTTPRequests(t *testing.T) {
	m := New(Options{})
	m.Sessions(func() int { return 3 })
	mux := http.NewServeMux()
	mux.Handle(Path, m.Handler())
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// An event stream: the counting writer must keep Flush.
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		if _, ok := w.(http.Flusher); !ok {
			t.Error("the counting writer lost Flush")
		}
	}))
	mux.Handle("/", guard.NotFound("/mcp"))
	srv := httptest.NewServer(m.CountHTTP(mux))
	defer srv.Close()
	get := func(path string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	get("/mcp")
	get("/mcp")
	get("/call/seq/sum")
	get("/x-made-up-path")
	get("/metrics")
	for _, c := range []struct {
		route, code string
		want        float64
	}{{"mcp", "200", 2}, {"call", "404", 1}, {"other", "404", 1}, {"metrics", "200", 1}} {
		if got := testutil.ToFloat64(m.httpRequests.WithLabelValues(c.route, c.code)); got != c.want {
			t.Errorf("nexus_http_requests_total{route=%q,code=%q} = %v, want %v", c.route, c.code, got, c.want)
		}
	}
	expo := exposition(t, m)
	if strings.Contains(expo, "made-up") {
		t.Errorf("a path is a label value:\n%s", expo)
	}
	if !strings.Contains(expo, "nexus_mcp_sessions 3") {
		t.Errorf("no nexus_mcp_sessions 3 in\n%s", expo)
	}
}

func TestRouteClass(t *testing.T) {
	for path, want := range map[string]string{
		"/mcp": "mcp", "/call/seq/sum": "call", "/call/sum": "call", "/discover": "discover", "/discover/seq": "discover",
		"/programs": "discover", "/health": "health", "/metrics": "metrics", "/": "status", "/mcp/x": "other", "/metricsx": "other",
	} {
		if got := routeClass(path); got != want {
			t.Errorf("routeClass(%s) = %s, want %s", path, got, want)
		}
	}
}

// TestHandlerNeedsTheCapability: behind a guard with a credentials file,
// GET /metrics is for credentials with "metrics": true; other credentials
// get 403, no credential 401.
func TestHandlerNeedsTheCapability(t *testing.T) {
	const scraper, caller = "scraper-secret-0123456789", "caller-secret-0123456789"
	file := filepath.Join(t.TempDir(), "creds.json")
	if err := os.WriteFile(file, []byte(`{"credentials":[{"name":"scraper","secret":"`+scraper+`","metrics":true},
		{"name":"caller","secret":"`+caller+`","call":["*"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	store, err := guard.OpenCredentials(file)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := guard.New(guard.Options{Addr: "127.0.0.1:0", Credentials: store})
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{})
	h := policy.Wrap(m.Handler())
	for _, c := range []struct {
		method, secret string
		want           int
	}{
		{"GET", scraper, 200}, {"HEAD", scraper, 200}, {"GET", caller, 403}, {"GET", "", 401}, {"DELETE", scraper, 405},
	} {
		r := httptest.NewRequest(c.method, "http://127.0.0.1/metrics", nil)
		if c.secret != "" {
			r.Header.Set("Authorization", "Bearer "+c.secret)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("%s with %q: %d, want %d (%s)", c.method, c.secret, w.Code, c.want, w.Body)
		}
		if c.want == 200 && c.method == "GET" && !strings.Contains(w.Body.String(), "nexus_build_info") {
			t.Errorf("GET: no metrics in %s", w.Body)
		}
	}
}

// TestPromtoolChecksExposition: promtool, Prometheus's own linter, finds
// nothing wrong with an exposition where every metric has series.
func TestPromtoolChecksExposition(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool (Debian's prometheus package) is not installed: run make setup")
	}
	m, hub := served(t)
	m.Sessions(func() int { return 1 })
	call(hub, "seq", "sum", "2025-06-18", observe.OK)
	for _, k := range []pool.EventKind{pool.Started, pool.StartFailed, pool.Died, pool.Replaced, pool.Called} {
		m.PoolEvent(pool.Event{Kind: k, Program: "seq", Lang: manifest.Python, Restart: true})
	}
	m.PoolEvent(pool.Event{Kind: pool.Called, Program: "seq", Lang: manifest.MCP, Server: "weather"})
	h := m.CountHTTP(m.Handler())
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/metrics", nil))
	expo := exposition(t, m)
	for _, name := range []string{"nexus_tool_calls_total", "nexus_tool_call_duration_seconds", "nexus_tool_calls_in_flight",
		"nexus_pool_starts_total", "nexus_pool_restarts_total", "nexus_pool_start_failures_total", "nexus_pool_deaths_total",
		"nexus_pool_replacements_total", "nexus_pool_call_duration_seconds", "nexus_mcp_client_calls_total",
		"nexus_mcp_client_call_duration_seconds", "nexus_mcp_sessions", "nexus_http_requests_total", "nexus_build_info"} {
		if !strings.Contains(expo, "\n"+name+"{") && !strings.Contains(expo, "\n"+name+"_count{") && !strings.Contains(expo, "\n"+name+" ") {
			t.Errorf("no series of %s", name)
		}
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(expo)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

// exposition is what GET /metrics answers.
func exposition(t *testing.T, m *Metrics) string {
	t.Helper()
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if w.Code != 200 {
		t.Fatalf("GET /metrics: %d %s", w.Code, w.Body)
	}
	return w.Body.String()
}
