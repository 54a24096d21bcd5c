package integration

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Credentials with capabilities (docs/mcp.md, "Credentials"): nexus mcp
// and nexus serve with --auth-file, through raw HTTP, as a client sends
// each header.

// Secrets of the credentials tests; none may show in a log.
const (
	viewerSecret = "viewer-7f2a-0123456789"
	adderSecret  = "adder-9c41-0123456789"
	loaderSecret = "loader-3b8e-0123456789"
	keeperSecret = "keeper-d05f-0123456789"
)

var credSecrets = []string{viewerSecret, adderSecret, loaderSecret, keeperSecret}

func sha256Of(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// writeCreds writes a credentials file in dir and returns its path.
func writeCreds(t *testing.T, path string, entries ...map[string]any) string {
	t.Helper()
	if err := os.WriteFile(path, marshalJSON(t, map[string]any{"credentials": entries}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// auditLine is one line of the audit log.
type auditLine struct {
	Time       time.Time `json:"time"`
	Credential string    `json:"credential"`
	Program    string    `json:"program"`
	Tool       string    `json:"tool"`
	DurationMs *float64  `json:"durationMs"`
	Outcome    string    `json:"outcome"`
}

// readAudit parses every line of the audit log at path strictly.
func readAudit(t *testing.T, path string) []auditLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []auditLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var l auditLine
		if err := dec.Decode(&l); err != nil || l.Time.IsZero() || l.DurationMs == nil || *l.DurationMs < 0 {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	return lines
}

// toolNames are the names of a tools/list reply.
func toolNames(t *testing.T, r httpReply) []string {
	t.Helper()
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(rpcOf(t, r).Result, &res); err != nil {
		t.Fatalf("tools/list: %v: %v", r, err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// callText is the text and isError of a tools/call reply that is a
// result.
func callText(t *testing.T, r httpReply) (string, bool) {
	t.Helper()
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	m := rpcOf(t, r)
	if m.Error != nil || json.Unmarshal(m.Result, &res) != nil || len(res.Content) != 1 {
		t.Fatalf("tools/call: %v, want a result", r)
	}
	return res.Content[0].Text, res.IsError
}

func callParams(tool string, args map[string]any) map[string]any {
	return map[string]any{"name": tool, "arguments": args}
}

// checkNoSecret fails the test when a secret shows in text.
func checkNoSecret(t *testing.T, where, text string) {
	t.Helper()
	for _, s := range credSecrets {
		if strings.Contains(text, s) {
			t.Errorf("a secret is in %s:\n%s", where, text)
		}
	}
}

// TestHTTPCredentials: a list-only credential sees every tool and may call
// none; one restricted by a glob sees and calls what it covers; a wrong
// or missing secret is 401; X-API-Key is as good as Authorization:
// Bearer; a secret given as its SHA-256 works; a session belongs to the
// credential that opened it; every call is one audit line.
func TestHTTPCredentials(t *testing.T) {
	p := build(t, httpProgram)
	dir := t.TempDir()
	creds := writeCreds(t, filepath.Join(dir, "creds.json"),
		map[string]any{"name": "viewer", "secret": viewerSecret, "list": true},
		map[string]any{"name": "adder", "secret": "sha256:" + sha256Of(adderSecret), "call": []string{"add", "po*"}},
	)
	audit := filepath.Join(dir, "audit.log")
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher, "--auth-file", creds, "--audit-log", audit)

	init := rpcLine(1, "initialize", map[string]any{"protocolVersion": "2025-06-18"})
	for _, h := range [][]string{
		nil,
		{"Authorization", "Bearer wrong-0123456789abcdef"},
		{"X-API-Key", "wrong-0123456789abcdef"},
		{"Authorization", "Basic " + viewerSecret},
		{"Authorization", "Bearer sha256:" + sha256Of(adderSecret)}, // the sum is not the secret
	} {
		r := s.do(http.MethodPost, "/mcp", init, h...)
		if r.status != http.StatusUnauthorized || !jsonError(r, "unauthorized") || r.header.Get("Mcp-Session-Id") != "" {
			t.Errorf("initialize with %q: %v, want 401", h, r)
		}
	}

	viewer := []string{"X-API-Key", viewerSecret}
	adder := []string{"Authorization", "Bearer " + adderSecret}
	vs, as := s.initialize(viewer...), s.initialize(adder...)

	if got := toolNames(t, s.rpc(vs, 2, "tools/list", nil, viewer...)); !slices.Equal(got, []string{"add", "fail", "hold", "point"}) {
		t.Errorf("the list-only credential lists %v, want every tool", got)
	}
	if got := toolNames(t, s.rpc(as, 2, "tools/list", nil, adder...)); !slices.Equal(got, []string{"add", "point"}) {
		t.Errorf("the credential of add and po* lists %v", got)
	}
	text, isErr := callText(t, s.rpc(vs, 3, "tools/call", callParams("add", map[string]any{"a": 1, "b": 2}), viewer...))
	if !isErr || !strings.Contains(text, `"viewer"`) || !strings.Contains(text, `"call"`) {
		t.Errorf("the list-only credential calls add: %q (isError %v), want an error naming the call permission", text, isErr)
	}
	if text, isErr := callText(t, s.rpc(as, 3, "tools/call", callParams("add", map[string]any{"a": 1, "b": 2}), adder...)); isErr || text != "3" {
		t.Errorf("adder calls add: %q (isError %v)", text, isErr)
	}
	if text, isErr := callText(t, s.rpc(as, 4, "tools/call", callParams("point", map[string]any{"x": 2}), adder...)); isErr || !strings.Contains(text, `"y":4`) {
		t.Errorf("adder calls point (po*): %q (isError %v)", text, isErr)
	}
	text, isErr = callText(t, s.rpc(as, 5, "tools/call", callParams("fail", map[string]any{"x": 1}), adder...))
	if !isErr || !strings.Contains(text, "add, po*") || strings.Contains(text, "ValueError") {
		t.Errorf("adder calls fail: %q (isError %v), want a refusal naming what it may call", text, isErr)
	}
	// An unknown tool is the protocol's error, whoever asks.
	if m := rpcOf(t, s.rpc(as, 6, "tools/call", callParams("nope", nil), adder...)); m.Error == nil {
		t.Errorf("adder calls an unknown tool: %s, want a JSON-RPC error", m.Line)
	}
	// The same credential by the other header is the same owner; another
	// credential does not see the session.
	if text, _ := callText(t, s.rpc(as, 7, "tools/call", callParams("add", map[string]any{"a": 2, "b": 2}), "X-API-Key", adderSecret)); text != "4" {
		t.Errorf("adder by X-API-Key in its session: %q", text)
	}
	wantRPCError(t, "viewer in adder's session", s.rpc(as, 8, "ping", nil, viewer...), http.StatusNotFound, "8", -32600, "unknown")

	s.stop()
	checkNoSecret(t, "the server's log", s.stderrText())
	data, _ := os.ReadFile(audit)
	checkNoSecret(t, "the audit log", string(data))
	var got []string
	for _, l := range readAudit(t, audit) {
		if l.Program != "work" {
			t.Errorf("audit line %+v: program %q, want work", l, l.Program)
		}
		got = append(got, l.Credential+" "+l.Tool+" "+l.Outcome)
	}
	want := []string{"viewer add isError", "adder add ok", "adder point ok", "adder fail isError", "adder nope error", "adder add ok"}
	if !slices.Equal(got, want) {
		t.Errorf("audit log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	p.checkClean()
}

// TestHTTPCredentialsRefused: a credentials file with a mistake is a usage
// error at start (exit 2) naming the entry and the field, never the
// secret; so is --auth-file beside --auth-token.
func TestHTTPCredentialsRefused(t *testing.T) {
	p := build(t, httpProgram)
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		entries []map[string]any
		says    []string
	}{
		{"short secret", []map[string]any{{"name": "ok", "secret": viewerSecret, "list": true}, {"name": "shorty", "secret": "xq7z", "list": true}},
			[]string{`credential 2 ("shorty")`, "secret is 4 characters"}},
		{"unknown field", []map[string]any{{"name": "v", "secret": viewerSecret, "lists": true}}, []string{`unknown field "lists"`}},
		{"bad pattern", []map[string]any{{"name": "v", "secret": viewerSecret, "call": []string{"a["}}}, []string{`("v")`, `call: "a["`}},
		{"nothing granted", []map[string]any{{"name": "v", "secret": viewerSecret}}, []string{`("v")`, "grants nothing"}},
		{"bad sum", []map[string]any{{"name": "v", "secret": "sha256:" + viewerSecret, "list": true}}, []string{`("v")`, "64 hex digits"}},
	} {
		file := writeCreds(t, filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".json"), c.entries...)
		for _, cmd := range []string{"mcp", "serve"} {
			code, stderr := startRefused(t, p.tmp, nil, cmd, p.launcher, "--auth-file", file)
			if code != 2 {
				t.Errorf("%s: nexus %s exited %d, want 2:\n%s", c.name, cmd, code, stderr)
			}
			for _, w := range append(c.says, file) {
				if !strings.Contains(stderr, w) {
					t.Errorf("%s: nexus %s: stderr does not say %q:\n%s", c.name, cmd, w, stderr)
				}
			}
			checkNoSecret(t, c.name+"'s refusal", stderr)
			if strings.Contains(stderr, "xq7z") {
				t.Errorf("%s: the refusal shows the secret:\n%s", c.name, stderr)
			}
		}
	}
	good := writeCreds(t, filepath.Join(dir, "good.json"), map[string]any{"name": "v", "secret": viewerSecret, "list": true})
	if code, stderr := startRefused(t, p.tmp, nil, "mcp", p.launcher, "--auth-file", good, "--auth-token", adderSecret); code != 2 || !strings.Contains(stderr, "exclude each other") {
		t.Errorf("--auth-file with --auth-token: exit %d:\n%s", code, stderr)
	}
	if code, stderr := startRefused(t, p.tmp, nil, "mcp", p.launcher, "--auth-file", filepath.Join(dir, "missing.json")); code != 2 || !strings.Contains(stderr, "missing.json") {
		t.Errorf("a missing --auth-file: exit %d:\n%s", code, stderr)
	}
	p.checkClean()
}

// TestHTTPCredentialsRevokedMidLoad: SIGHUP re-reads the credentials file
// while callers run. A call in flight of the revoked credential finishes;
// its later requests are refused (401); the credential that stays is
// served throughout; a file that no longer parses leaves the credentials
// in force.
func TestHTTPCredentialsRevokedMidLoad(t *testing.T) {
	p := build(t, httpProgram)
	dir := t.TempDir()
	path := filepath.Join(dir, "creds.json")
	loader := map[string]any{"name": "loader", "secret": loaderSecret, "call": []string{"*"}}
	keeper := map[string]any{"name": "keeper", "secret": keeperSecret, "call": []string{"add", "hold"}}
	writeCreds(t, path, loader, keeper)
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher, "--auth-file", path, "--audit-log", filepath.Join(dir, "audit.log"))

	loaderAuth := []string{"Authorization", "Bearer " + loaderSecret}
	keeperAuth := []string{"X-API-Key", keeperSecret}
	ls, ks := s.initialize(loaderAuth...), s.initialize(keeperAuth...)
	h := newHolder(t)
	held := s.sendAsync(http.MethodPost, "/mcp", holdCall(t, "hold", 1, h.fifo("inflight")),
		append([]string{"Mcp-Session-Id", ls}, loaderAuth...)...)
	s.waitHold("inflight", held)

	// Callers of both credentials, each a bounded loop; the reload comes
	// while they run.
	var loaderOK atomic.Int64
	var reloadDone bool
	var mu sync.Mutex
	isReloaded := func() bool { mu.Lock(); defer mu.Unlock(); return reloadDone }
	type outcome struct {
		who   string
		after bool // sent after the reload was seen
		reply httpReply
		err   error
	}
	results := make(chan outcome, 10000)
	var callers sync.WaitGroup
	const perCaller = 2000 // calls at most, and at most 10 s
	for i := range 4 {
		who, sid, auth := "loader", ls, loaderAuth
		if i%2 == 1 {
			who, sid, auth = "keeper", ks, keeperAuth
		}
		callers.Add(1)
		go func() {
			defer callers.Done()
			deadline := time.Now().Add(10 * time.Second)
			afterCalls := 0
			for n := 0; n < perCaller && time.Now().Before(deadline) && afterCalls < 5; n++ {
				after := isReloaded()
				body := rpcLine(fmt.Sprintf("%s-%d-%d", who, i, n), "tools/call", callParams("add", map[string]any{"a": n, "b": 1}))
				r, err := s.send(t.Context(), http.MethodPost, "/mcp", body, append([]string{"Mcp-Session-Id", sid}, auth...)...)
				results <- outcome{who, after, r, err}
				if who == "loader" && err == nil && r.status == http.StatusOK {
					loaderOK.Add(1)
					s.update(func() {}) // wakes the wait below
				}
				if after {
					afterCalls++
				}
			}
		}()
	}
	// Once loader has been served under load, revoke it.
	s.waitFor("loader's calls to be served", func() bool { return loaderOK.Load() >= 20 })
	writeCreds(t, path, keeper)
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitStderr(`msg="SIGHUP: credentials reloaded" credentials=1`)
	mu.Lock()
	reloadDone = true
	mu.Unlock()
	callers.Wait()
	close(results)

	counts := map[string]int{}
	for o := range results {
		switch {
		case o.err != nil:
			t.Errorf("%s: %v", o.who, o.err)
		case o.who == "keeper" || !o.after:
			// Keeper always; loader before the reload, or refused if
			// its request came after the reload but before we saw it.
			if o.reply.status == http.StatusOK {
				if _, isErr := callText(t, o.reply); isErr {
					t.Errorf("%s: %v", o.who, o.reply)
				}
				counts[o.who+" ok"]++
			} else if o.who == "loader" && o.reply.status == http.StatusUnauthorized {
				counts["loader refused"]++
			} else {
				t.Errorf("%s: %v", o.who, o.reply)
			}
		case o.reply.status != http.StatusUnauthorized:
			t.Errorf("loader after the reload: %v, want 401", o.reply)
		default:
			counts["loader refused"]++
		}
	}
	t.Logf("calls: %v", counts)
	if counts["keeper ok"] == 0 || counts["loader ok"] == 0 || counts["loader refused"] < 10 {
		t.Errorf("the load did not span the reload: %v", counts)
	}
	// The call in flight when loader was revoked finishes.
	h.release("inflight")
	if r, err := held.result(); err != nil || r.status != http.StatusOK {
		t.Errorf("the call in flight across the reload: %v %v", r, err)
	} else if text, isErr := callText(t, r); isErr || text != `"released inflight"` {
		t.Errorf("the call in flight across the reload: %q (isError %v)", text, isErr)
	}
	// A file that no longer parses keeps keeper.
	if err := os.WriteFile(path, []byte(`{"credentials": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitStderr("SIGHUP: keeping the credentials in force")
	if text, _ := callText(t, s.rpc(ks, "k", "tools/call", callParams("add", map[string]any{"a": 1, "b": 1}), keeperAuth...)); text != "2" {
		t.Errorf("keeper after a broken reload: %q", text)
	}
	s.stop()
	checkNoSecret(t, "the server's log", s.stderrText())
	p.checkClean()
}

// TestServeCredentials: under nexus serve a credential's patterns name
// tools as <module>__<command>, so one may be given a program: it lists
// and calls that program's tools, by MCP and by the JSON API (403 for the
// others), and the audit log names the program.
func TestServeCredentials(t *testing.T) {
	work := build(t, httpProgram)
	broken := build(t, brokenProgram)
	dir := t.TempDir()
	creds := writeCreds(t, filepath.Join(dir, "creds.json"),
		map[string]any{"name": "worker", "secret": adderSecret, "call": []string{"work__*"}},
		map[string]any{"name": "viewer", "secret": viewerSecret, "list": true},
	)
	audit := filepath.Join(dir, "audit.log")
	s := startHTTP(t, work.tmp, nil, "serve", work.launcher, broken.launcher, "--auth-file", creds, "--audit-log", audit)
	worker := []string{"Authorization", "Bearer " + adderSecret}
	viewer := []string{"X-API-Key", viewerSecret}

	sid := s.initialize(worker...)
	if got := toolNames(t, s.rpc(sid, 1, "tools/list", nil, worker...)); !slices.Equal(got, []string{"work__add", "work__fail", "work__hold", "work__point"}) {
		t.Errorf("worker lists %v, want work's tools only", got)
	}
	if text, isErr := callText(t, s.rpc(sid, 2, "tools/call", callParams("work__add", map[string]any{"a": 1, "b": 2}), worker...)); isErr || text != "3" {
		t.Errorf("worker calls work__add: %q (isError %v)", text, isErr)
	}
	if text, isErr := callText(t, s.rpc(sid, 3, "tools/call", callParams("broken__ping", map[string]any{"x": 1}), worker...)); !isErr || !strings.Contains(text, "work__*") {
		t.Errorf("worker calls broken__ping: %q (isError %v), want a refusal", text, isErr)
	}
	if r := s.do(http.MethodPost, "/call/work/add", `{"a":2,"b":3}`, worker...); r.status != http.StatusOK || string(r.body) != "{\"result\":5}\n" {
		t.Errorf("worker POST /call/work/add: %v", r)
	}
	if r := s.do(http.MethodPost, "/call/broken/ping", `{"x":1}`, worker...); r.status != http.StatusForbidden || !jsonError(r, "permission denied") {
		t.Errorf("worker POST /call/broken/ping: %v, want 403", r)
	}
	if r := s.do(http.MethodPost, "/call/work/add", `{"a":2,"b":3}`, viewer...); r.status != http.StatusForbidden {
		t.Errorf("viewer POST /call/work/add: %v, want 403", r)
	}
	if r := s.do(http.MethodPost, "/call/work/add", `{"a":2,"b":3}`); r.status != http.StatusUnauthorized {
		t.Errorf("POST /call/work/add without a credential: %v, want 401", r)
	}
	var disc struct {
		Programs []struct {
			Module string `json:"module"`
			Tools  []any  `json:"tools"`
		} `json:"programs"`
	}
	for _, c := range []struct {
		who    string
		header []string
		want   string
	}{{"worker", worker, "work:4 broken:0"}, {"viewer", viewer, "work:4 broken:1"}} {
		r := s.do(http.MethodGet, "/discover", "", c.header...)
		if err := json.Unmarshal(r.body, &disc); err != nil {
			t.Fatalf("/discover: %v", r)
		}
		var got []string
		for _, pr := range disc.Programs {
			got = append(got, fmt.Sprintf("%s:%d", pr.Module, len(pr.Tools)))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: /discover shows %v, want %s", c.who, got, c.want)
		}
	}
	s.stop()
	var got []string
	for _, l := range readAudit(t, audit) {
		got = append(got, strings.Join([]string{l.Credential, l.Program, l.Tool, l.Outcome}, " "))
	}
	want := []string{"worker work work__add ok", "worker broken broken__ping isError", "worker work work__add ok",
		"worker broken broken__ping error", "viewer work work__add error"}
	if !slices.Equal(got, want) {
		t.Errorf("audit log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	work.checkClean()
}
