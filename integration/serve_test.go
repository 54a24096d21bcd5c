package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/integration/rpcmsg"
)

// nexus serve: several programs behind one endpoint, and beside MCP the
// JSON API: POST /call/<module>/<command>, GET /discover, GET /health.
// (Its MCP side is in mcp_http_test.go.)

// brokenProgram cannot start its Python pool: its source raises at import.
var brokenProgram = files{
	"broken.py": `
raise RuntimeError("broken cannot start: the database is missing")

def ping(x):
    return x
`,
	"main.loc": `
--' Fails to start.
module broken (ping)

import root-py

source Py from "broken.py" ("ping" as pingPy)

pingPy :: Int -> Int

--' Never answers.
ping ::
  --' @name x
  Int ->
  Int
ping x = pingPy x
`,
}

// healthReply is GET /health.
type healthReply struct {
	Status   string `json:"status"`
	Sessions int    `json:"mcp_sessions"`
	Programs []struct {
		Module string `json:"module"`
		Pools  []struct {
			Lang     string `json:"lang"`
			Name     string `json:"name"`
			State    string `json:"state"`
			Calls    int    `json:"calls"`
			Deaths   int    `json:"deaths"`
			Last     string `json:"last"`
			Replaced int    `json:"replaced"`
		} `json:"pools"`
	} `json:"programs"`
}

// states sums up the pools, as "module:pool=state ...".
func (h healthReply) states() string {
	var out []string
	for _, p := range h.Programs {
		for _, pool := range p.Pools {
			out = append(out, fmt.Sprintf("%s:%s=%s", p.Module, pool.Name, pool.State))
		}
	}
	return strings.Join(out, " ")
}

// calls is the number of calls in flight in module's pools.
func (h healthReply) calls(module string) int {
	n := 0
	for _, p := range h.Programs {
		if p.Module == module {
			for _, pool := range p.Pools {
				n += pool.Calls
			}
		}
	}
	return n
}

// health is GET /health of nexus serve.
func health(t *testing.T, s *httpServer) healthReply {
	t.Helper()
	r := s.do(http.MethodGet, "/health", "")
	var h healthReply
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" || json.Unmarshal(r.body, &h) != nil {
		t.Fatalf("GET /health: %v", r)
	}
	return h
}

// waitHealth polls /health until cond holds.
func waitHealth(t *testing.T, s *httpServer, what string, cond func(healthReply) bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		h := health(t, s)
		if cond(h) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: /health still says %+v after %v", what, h, hangGuard)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func poolCalls(t *testing.T, s *httpServer, module string) int {
	t.Helper()
	return health(t, s).calls(module)
}

// TestServeJSONAPI: /call's statuses, /discover and /health, with a
// working program and one whose pool cannot start.
func TestServeJSONAPI(t *testing.T) {
	work := build(t, httpProgram)
	broken := build(t, brokenProgram)
	// Read before the server runs: a launcher run checks no pool is left.
	workTools, brokenTools := toolsJSON(t, work, "work__"), toolsJSON(t, broken, "broken__")
	s := startHTTP(t, work.tmp, nil, "serve", work.launcher, broken.launcher, "--max-body", "2000")

	// Pools start on first use.
	if h := health(t, s); h.Status != "ok" || h.Sessions != 0 || h.states() != "work:python=idle broken:python=idle" {
		t.Errorf("/health before any call: %+v", h)
	}

	// /discover: both programs, each tool as tools/list shows it, with
	// the path that calls it.
	type discovered struct {
		Call string         `json:"call"`
		Tool map[string]any `json:"tool"`
	}
	want := map[string]any{"programs": []map[string]any{
		{"module": "work", "description": "Commands for the HTTP tests.", "tools": []discovered{}},
		{"module": "broken", "description": "Fails to start.", "tools": []discovered{}},
	}}
	for i, tools := range [][]map[string]any{workTools, brokenTools} {
		prog := want["programs"].([]map[string]any)[i]
		for _, tool := range tools {
			module, command, _ := strings.Cut(tool["name"].(string), "__")
			prog["tools"] = append(prog["tools"].([]discovered), discovered{"/call/" + module + "/" + command, tool})
		}
	}
	if r := s.do(http.MethodGet, "/discover", ""); r.status != http.StatusOK || !equalJSON(r.body, marshalJSON(t, want)) {
		t.Errorf("GET /discover: %v\nwant: %s", r, marshalJSON(t, want))
	}

	for _, c := range []struct {
		name, method, path, body string
		header                   []string
		status                   int
		// reply is the exact body of a success; says, words of an error.
		reply string
		says  []string
	}{
		{"a result", "POST", "/call/work/add", `{"a":2,"b":3}`, nil, 200, `{"result":5}`, nil},
		{"a record", "POST", "/call/work/point", `{"x":4}`, nil, 200, `{"result":{"x":4,"y":8}}`, nil},
		{"a wrong type", "POST", "/call/work/add", `{"a":"two","b":3}`, nil, 400, "", []string{"'a'"}},
		{"an unknown argument", "POST", "/call/work/add", `{"a":2,"b":3,"c":4}`, nil, 400, "", []string{"'c'"}},
		{"a missing argument", "POST", "/call/work/add", `{"a":2}`, nil, 400, "", []string{"missing", "'b'"}},
		{"no body", "POST", "/call/work/add", ``, nil, 400, "", []string{"missing", "'a'"}},
		{"a body that is no object", "POST", "/call/work/add", `[2,3]`, nil, 400, "", []string{"JSON object"}},
		{"a body that is null", "POST", "/call/work/add", `null`, nil, 400, "", []string{"JSON object", "null"}},
		{"a body that is no JSON", "POST", "/call/work/add", `{"a":`, nil, 400, "", []string{"JSON object"}},
		{"an unknown module", "POST", "/call/nope/add", `{}`, nil, 404, "", []string{"'nope'", "broken, work"}},
		{"an unknown command", "POST", "/call/work/nope", `{}`, nil, 404, "", []string{"'nope'", "work"}},
		{"an exception", "POST", "/call/work/fail", `{"x":7}`, nil, 500, "", []string{"ValueError", "no good: 7"}},
	} {
		r := s.do(c.method, c.path, c.body, c.header...)
		var reply struct {
			Error string `json:"error"`
		}
		switch {
		case r.status != c.status || r.header.Get("Content-Type") != "application/json":
			t.Errorf("%s: %s %s: %v (%s), want %d JSON", c.name, c.path, c.body, r, r.header.Get("Content-Type"), c.status)
		case c.status == http.StatusOK:
			if string(r.body) != c.reply+"\n" {
				t.Errorf("%s: %s %s: %v, want %s", c.name, c.path, c.body, r, c.reply)
			}
		case json.Unmarshal(r.body, &reply) != nil || reply.Error == "" || !equalJSON(r.body, marshalJSON(t, reply)):
			t.Errorf("%s: %s %s: %v, want {\"error\": message}", c.name, c.path, c.body, r)
		default:
			for _, w := range c.says {
				if !strings.Contains(reply.Error, w) {
					t.Errorf("%s: %s %s: error %q does not say %q", c.name, c.path, c.body, reply.Error, w)
				}
			}
		}
	}
	// The guard and the router's own answers.
	if r := s.do("POST", "/call/work/add", `{"a":2,"b":3}`, "Content-Type", "text/plain"); r.status != http.StatusUnsupportedMediaType {
		t.Errorf("/call with text/plain: %v, want 415", r)
	}
	big := `{"a":1,"b":1,"pad":"` + strings.Repeat("x", 3000) + `"}`
	if r := s.do("POST", "/call/work/add", big); r.status != http.StatusRequestEntityTooLarge || !strings.Contains(string(r.body), "2000") {
		t.Errorf("/call with a body over --max-body: %d %.100s, want 413 naming the limit", r.status, r.body)
	}
	req, err := http.NewRequest(http.MethodPost, s.base+"/call/work/add", io.MultiReader(strings.NewReader(big)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r, err := doHTTP(req); err != nil || r.status != http.StatusRequestEntityTooLarge || !jsonError(r, "2000") {
		t.Errorf("/call with a chunked body over --max-body: %v %v, want 413 with a JSON error naming the limit", r, err)
	}
	if r := s.do("GET", "/call/work/add", ""); r.status != http.StatusMethodNotAllowed || !jsonError(r, "POST") {
		t.Errorf("GET /call/work/add: %v, want 405 with a JSON error", r)
	}
	if r := s.do("GET", "/nowhere", ""); r.status != http.StatusNotFound || !jsonError(r, "/discover") {
		t.Errorf("GET /nowhere: %v, want 404 with a JSON error", r)
	}
	if r := s.do("POST", "/call/work/add", `{"a":2,"b":3}`, "Origin", "http://evil.example"); r.status != http.StatusForbidden {
		t.Errorf("/call from another site: %v, want 403", r)
	}

	if h := health(t, s); h.Status != "ok" || h.states() != "work:python=running broken:python=idle" || h.calls("work") != 0 {
		t.Errorf("/health after calls: %+v", h)
	}

	// A pool that cannot start: 503 saying why, every time, until it has
	// failed too often and is held, which says when to try again.
	const why = "RuntimeError: broken cannot start: the database is missing"
	for attempt := 1; ; attempt++ {
		r := s.do("POST", "/call/broken/ping", `{"x":1}`)
		var reply struct {
			Error string `json:"error"`
		}
		if r.status != http.StatusServiceUnavailable || json.Unmarshal(r.body, &reply) != nil || !strings.Contains(reply.Error, why) {
			t.Fatalf("call %d of a pool that cannot start: %v, want 503 saying %q", attempt, r, why)
		}
		if attempt == 1 {
			h := health(t, s)
			if h.Status != "ok" || h.states() != "work:python=running broken:python=down" ||
				h.Programs[1].Pools[0].Deaths != 1 || !strings.Contains(h.Programs[1].Pools[0].Last, why) {
				t.Errorf("/health after a failed start: %+v", h)
			}
		}
		retry := r.header.Get("Retry-After")
		if retry == "" {
			if attempt == 10 {
				t.Fatalf("a pool that failed to start 10 times is still tried again: %v", r)
			}
			continue
		}
		if secs, err := strconv.Atoi(retry); err != nil || secs < 1 || secs > 60 {
			t.Errorf("held pool: Retry-After %q, want seconds up to the minute of the death window", retry)
		}
		if !strings.Contains(reply.Error, "not starting it again") {
			t.Errorf("held pool: %q does not say it is held", reply.Error)
		}
		t.Logf("held after %d failed starts", attempt-1)
		break
	}
	h := health(t, s)
	if h.Status != "degraded" || h.states() != "work:python=running broken:python=held" {
		t.Errorf("/health with a held pool: %+v", h)
	}

	// Through MCP a pool that cannot start is a failed call, and the other
	// program is unaffected.
	sid := s.initialize()
	r := s.rpc(sid, 1, "tools/call", map[string]any{"name": "broken__ping", "arguments": map[string]any{"x": 1}})
	var res rpcmsg.ToolResult
	if m := rpcOf(t, r); r.status != http.StatusOK || json.Unmarshal(m.Result, &res) != nil || !res.IsError ||
		len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, why) {
		t.Errorf("tools/call broken__ping: %v, want isError saying %q", r, why)
	}
	r = s.rpc(sid, 2, "tools/call", map[string]any{"name": "work__add", "arguments": map[string]any{"a": 2, "b": 3}})
	if m := rpcOf(t, r); r.status != http.StatusOK || !equalJSON(m.Result, []byte(`{"content":[{"type":"text","text":"5"}]}`)) {
		t.Errorf("tools/call work__add: %v", r)
	}
	if r := s.do("POST", "/call/work/add", `{"a":2,"b":3}`); r.status != http.StatusOK {
		t.Errorf("/call/work/add with the other program held: %v", r)
	}

	s.stop()
	work.checkClean()
	broken.checkClean()
}

// TestServeStartErrors: nexus serve refuses, before listening, what it
// cannot serve.
func TestServeStartErrors(t *testing.T) {
	a, b := build(t, httpProgram), build(t, httpProgram)
	for _, c := range []struct {
		name string
		args []string
		says []string
	}{
		{"two programs with the same module name", []string{a.launcher, b.launcher}, []string{"two programs are called work", a.dir, b.dir}},
		{"no program", nil, []string{"at least one program"}},
	} {
		args := append(append([]string{"TMPDIR=" + a.tmp, nexusBin, "serve"}, c.args...), "--http-port", "0")
		res := runIn(t, t.TempDir(), nil, "env", args...)
		if res.code == 0 || strings.Contains(res.stderr, "serving") {
			t.Errorf("%s: exit %d, stderr %q; want a refusal", c.name, res.code, res.stderr)
		}
		for _, w := range c.says {
			if !strings.Contains(res.stderr, w) {
				t.Errorf("%s: stderr %q does not say %q", c.name, res.stderr, w)
			}
		}
	}
	a.checkClean()
	b.checkClean()
}
