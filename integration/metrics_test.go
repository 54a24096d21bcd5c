package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/pooltest"
)

// Prometheus metrics (GET /metrics, docs/operations.md): a real Prometheus
// scrapes a real nexus serve, and the counts it stores are the calls made.

// metricsProgram has a Python pool and a C++ one.
var metricsProgram = files{
	"work.py": `
def double(x):
    return 2 * x

def refuse(x):
    raise ValueError("refused %d" % x)
`,
	"work.hpp": `#pragma once
#include <cstdint>
inline std::int64_t twice(std::int64_t x) { return 2 * x; }
`,
	"main.loc": `
module mix (double, refuse, twice)
import root-py
import root-cpp
source Py from "work.py" ("double" as doublePy, "refuse" as refusePy)
source Cpp from "work.hpp" ("twice" as twiceCpp)
doublePy :: Int -> Int
refusePy :: Int -> Int
twiceCpp :: Int -> Int

--' Doubles, in Python.
double ::
  --' @name x
  Int ->
  Int
double x = doublePy x

--' Always fails.
refuse ::
  --' @name x
  Int ->
  Int
refuse x = refusePy x

--' Doubles, in C++.
twice ::
  --' @name x
  Int ->
  Int
twice x = twiceCpp x
`,
}

// needPrometheus returns the path of Debian's prometheus or promtool.
func needPrometheus(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed (Debian's prometheus package): run make setup", name)
	}
	return path
}

// freeLoopbackPort is a TCP port free on 127.0.0.1 a moment ago.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// prometheusServer is a Prometheus scraping one target every second.
type prometheusServer struct {
	t    *testing.T
	base string
}

// startPrometheus runs Prometheus on 127.0.0.1, its data in a temporary
// folder, scraping target (HOST:PORT) every second; it is killed when the
// test ends.
func startPrometheus(t *testing.T, target string) *prometheusServer {
	t.Helper()
	bin := needPrometheus(t, "prometheus")
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(config, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: nexus
    scrape_interval: 1s
    scrape_timeout: 1s
    static_configs:
      - targets: ['%s']
`, target)), 0o644); err != nil {
		t.Fatal(err)
	}
	var p *prometheusServer
	var logs *pooltest.Buffer
	// A port found free may be taken before Prometheus listens on it:
	// then it exits, and another is tried.
	for attempt := 0; attempt < 3; attempt++ {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(freeLoopbackPort(t)))
		cmd := exec.Command(bin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, fmt.Sprint("data", attempt)),
			"--web.listen-address="+addr, "--log.level=warn")
		logs = &pooltest.Buffer{}
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		t.Cleanup(func() {
			cmd.Process.Kill()
			<-exited
		})
		p = &prometheusServer{t: t, base: "http://" + addr}
		deadline := time.Now().Add(hangGuard)
		for time.Now().Before(deadline) {
			select {
			case <-exited:
				deadline = time.Time{} // ends this attempt
			default:
			}
			if resp, err := http.Get(p.base + "/-/ready"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return p
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Fatalf("prometheus did not get ready:\n%s", logs.String())
	return nil
}

// query evaluates a PromQL expression that must give one number, and
// returns it (-1 when it gives no series).
func (p *prometheusServer) query(expr string) float64 {
	p.t.Helper()
	resp, err := http.Get(p.base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		p.t.Fatalf("query %s: %v %s", expr, err, body)
	}
	switch len(r.Data.Result) {
	case 0:
		return -1
	case 1:
		s, _ := r.Data.Result[0].Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			p.t.Fatalf("query %s: value %s", expr, body)
		}
		return v
	}
	p.t.Fatalf("query %s gives %d series, want one: %s", expr, len(r.Data.Result), body)
	return 0
}

// TestMetricsScrapedByPrometheus: nexus serve runs a Python and a C++ pool;
// Prometheus scrapes it every second. After a bounded load (20 calls that
// succeed, 5 that fail in the tool, 3 with bad arguments, 2 calls of C++),
// the counts a scrape after the load stored are exactly those calls, and
// each pool started once.
func TestMetricsScrapedByPrometheus(t *testing.T) {
	p := build(t, metricsProgram)
	s := startHTTP(t, p.tmp, nil, "serve", p.launcher)
	defer func() {
		s.stop()
		p.checkClean()
	}()
	prom := startPrometheus(t, s.listen)

	post := func(command, body string, want int) {
		t.Helper()
		if r := s.do(http.MethodPost, "/call/mix/"+command, body); r.status != want {
			t.Fatalf("POST /call/mix/%s %s: %s, want %d", command, body, r, want)
		}
	}
	for i := range 20 {
		post("double", fmt.Sprintf(`{"x": %d}`, i), http.StatusOK)
	}
	for i := range 5 {
		post("refuse", fmt.Sprintf(`{"x": %d}`, i), http.StatusInternalServerError)
	}
	for _, body := range []string{`{"x": "two"}`, `{"y": 1}`, `{}`} {
		post("double", body, http.StatusBadRequest)
	}
	for i := range 2 {
		post("twice", fmt.Sprintf(`{"x": %d}`, i), http.StatusOK)
	}
	// A call is counted once its reply is written, so the last ones may
	// be counted a moment after the client has their replies: wait until
	// nexus has counted every request (after the call's own counts), then
	// for a scrape that began after that.
	settled := []string{
		`nexus_http_requests_total{code="200",route="call"} 22`,
		`nexus_http_requests_total{code="500",route="call"} 5`,
		`nexus_http_requests_total{code="400",route="call"} 3`,
	}
	counted := func() bool {
		body := string(s.do(http.MethodGet, "/metrics", "").body)
		for _, line := range settled {
			if !strings.Contains(body, line+"\n") {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(hangGuard)
	for !counted() {
		if time.Now().After(deadline) {
			t.Fatalf("nexus did not count the load within %v: want %v in\n%s", hangGuard, settled, s.do(http.MethodGet, "/metrics", "").body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	loadEnd := time.Now()
	for {
		ts := prom.query(`timestamp(up{job="nexus"})`)
		if ts >= float64(loadEnd.UnixMilli())/1000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no scrape after the load within %v (last at %v)\nstderr:\n%s", hangGuard, ts, s.stderrText())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if up := prom.query(`up{job="nexus"}`); up != 1 {
		t.Fatalf("up = %v: Prometheus could not scrape nexus", up)
	}
	for _, c := range []struct {
		expr string
		want float64
	}{
		{`nexus_tool_calls_total{program="mix",tool="mix__double",transport="api",protocol="",outcome="ok"}`, 20},
		{`nexus_tool_calls_total{program="mix",tool="mix__refuse",transport="api",outcome="tool_error"}`, 5},
		{`nexus_tool_calls_total{program="mix",tool="mix__double",transport="api",outcome="bad_arguments"}`, 3},
		{`nexus_tool_calls_total{program="mix",tool="mix__twice",transport="api",outcome="ok"}`, 2},
		{`sum(nexus_tool_calls_total)`, 30},
		{`nexus_tool_call_duration_seconds_count{program="mix",tool="mix__double",transport="api"}`, 23},
		{`nexus_tool_call_duration_seconds_count{program="mix",tool="mix__refuse",transport="api"}`, 5},
		{`nexus_tool_call_duration_seconds_count{program="mix",tool="mix__twice",transport="api"}`, 2},
		{`nexus_tool_call_duration_seconds_bucket{program="mix",tool="mix__double",transport="api",le="+Inf"}`, 23},
		{`nexus_tool_calls_in_flight{transport="api"}`, 0},
		// Pools start on first use under nexus serve: once each.
		{`nexus_pool_starts_total{program="mix",language="py"}`, 1},
		{`nexus_pool_starts_total{program="mix",language="cpp"}`, 1},
		{`sum(nexus_pool_restarts_total) or vector(0)`, 0},
		{`sum(nexus_pool_deaths_total) or vector(0)`, 0},
		// Bad arguments never reach a pool.
		{`nexus_pool_call_duration_seconds_count{program="mix",language="py"}`, 25},
		{`nexus_pool_call_duration_seconds_count{program="mix",language="cpp"}`, 2},
		{`nexus_http_requests_total{route="call",code="200"}`, 22},
		{`nexus_http_requests_total{route="call",code="500"}`, 5},
		{`nexus_http_requests_total{route="call",code="400"}`, 3},
		{`nexus_mcp_sessions`, 0},
		{`count(nexus_build_info == 1)`, 1},
	} {
		if got := prom.query(c.expr); got != c.want {
			t.Errorf("%s = %v, want %v", c.expr, got, c.want)
		}
	}

	// The exposition itself passes Prometheus's linter.
	r := s.do(http.MethodGet, "/metrics", "")
	if r.status != http.StatusOK {
		t.Fatalf("GET /metrics: %s", r)
	}
	lint := exec.Command(needPrometheus(t, "promtool"), "check", "metrics")
	lint.Stdin = strings.NewReader(string(r.body))
	if out, err := lint.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// TestMetricsNeedTheCapability: under --auth-file, GET /metrics is for a
// credential with "metrics": true; another credential gets 403, none 401.
func TestMetricsNeedTheCapability(t *testing.T) {
	p := build(t, metricsProgram)
	const scraper, caller = "scraper-secret-0123456789", "caller-secret-0123456789"
	creds := filepath.Join(t.TempDir(), "creds.json")
	if err := os.WriteFile(creds, []byte(`{"credentials": [
		{"name": "prometheus", "secret": "`+scraper+`", "metrics": true},
		{"name": "ci", "secret": "`+caller+`", "call": ["*"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startHTTP(t, p.tmp, nil, "serve", p.launcher, "--auth-file", creds, "--audit-log", filepath.Join(t.TempDir(), "audit"))
	defer s.stop()
	for _, c := range []struct {
		header []string
		want   int
	}{
		{[]string{"Authorization", "Bearer " + scraper}, 200},
		{[]string{"X-API-Key", caller}, 403},
		{nil, 401},
	} {
		r := s.do(http.MethodGet, "/metrics", "", c.header...)
		if r.status != c.want {
			t.Errorf("GET /metrics with %v: %s, want %d", c.header, r, c.want)
		}
		if c.want == 403 && !strings.Contains(string(r.body), `no \"metrics\" permission`) {
			t.Errorf("403 does not say which permission is missing: %s", r)
		}
	}
	// The scraper may read the metrics and call nothing.
	if r := s.do(http.MethodPost, "/call/mix/double", `{"x": 1}`, "Authorization", "Bearer "+scraper); r.status != http.StatusForbidden {
		t.Errorf("the scraper's call: %s, want 403", r)
	}
}

// metricsLine is how a stdio server says where its metrics are.
var metricsLine = regexp.MustCompile(`nexus: serving metrics on (http://\S+)\n`)

// TestMetricsAddrStdio: nexus mcp over stdio serves its metrics on
// --metrics-addr, a loopback address only, behind the token when one is
// given.
func TestMetricsAddrStdio(t *testing.T) {
	p := build(t, metricsProgram)
	const token = "stdio-metrics-token-0123"
	c := startMCPConn(t, p, "--metrics-addr", "127.0.0.1:0", "--auth-token", token)
	var m []string
	c.waitFor("the line saying where the metrics are", func() bool {
		m = metricsLine.FindStringSubmatch(c.stderr.String())
		return m != nil
	})
	c.initialize("2025-06-18")
	for i := range 3 {
		if r := c.callTool(i, "double", map[string]any{"x": i}); r.Error != nil || r.tool(t).IsError {
			t.Fatalf("call %d: %s", i, r.Line)
		}
	}
	if r := c.callTool("bad", "no_such_tool", map[string]any{}); r.Error == nil {
		t.Fatalf("a call of an unknown tool: %s, want an error", r.Line)
	}
	get := func(auth bool) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, m[1], nil)
		if err != nil {
			t.Fatal(err)
		}
		if auth {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		r, err := doHTTP(req)
		if err != nil {
			t.Fatal(err)
		}
		return r.status, string(r.body)
	}
	if status, _ := get(false); status != http.StatusUnauthorized {
		t.Errorf("GET without the token: %d, want 401", status)
	}
	status, body := get(true)
	if status != http.StatusOK {
		t.Fatalf("GET with the token: %d %s", status, body)
	}
	for _, want := range []string{
		`nexus_tool_calls_total{outcome="ok",program="mix",protocol="2025-06-18",tool="double",transport="stdio"} 3`,
		// The unknown tool's name is not a label value.
		`nexus_tool_calls_total{outcome="bad_arguments",program="mix",protocol="2025-06-18",tool="",transport="stdio"} 1`,
		`nexus_tool_calls_in_flight{transport="stdio"} 0`,
		// nexus mcp starts every pool at once.
		`nexus_pool_starts_total{language="py",program="mix"} 1`,
		`nexus_pool_starts_total{language="cpp",program="mix"} 1`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("no %s in\n%s", want, body)
		}
	}
	if strings.Contains(body, "no_such_tool") {
		t.Errorf("a client's tool name is a label value:\n%s", body)
	}
	c.closeAll()
}

// TestMetricsAddrLoopbackOnly: --metrics-addr beyond loopback is refused
// before anything starts, and so is --metrics-addr over HTTP.
func TestMetricsAddrLoopbackOnly(t *testing.T) {
	p := build(t, metricsProgram)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--metrics-addr", "0.0.0.0:9464", p.launcher}, "0.0.0.0 is not a loopback address"},
		{[]string{"mcp", "--metrics-addr", "9464", p.launcher}, "not HOST:PORT"},
		{[]string{"mcp", "--metrics-addr", "127.0.0.1:0", "--http-port", "0", p.launcher}, "--metrics-addr is for stdio"},
	} {
		res := runIn(t, p.dir, nil, nexusBin, c.args...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) || nexusCrashed(res.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, res.code, res.stderr, c.want)
		}
	}
}
