package router

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
)

// daemonProgram is a program called module whose commands are add and
// own_<module>. Its pool is never started here: these tests stop before a
// call runs.
func daemonProgram(t *testing.T, module string) *manifest.Manifest {
	return pooltest.Compile(t, `
--' Program `+module+`.
module `+module+` (add, own_`+module+`)
import root-py
source Py from "fns.py" ("add" as addPy)
addPy :: Int -> Int -> Int
--' Adds.
add :: Int -> Int -> Int
add x y = addPy x y
own_`+module+` :: Int -> Int
own_`+module+` x = addPy x 1
`, "def add(x, y):\n    return x + y\n")
}

func daemonServer(t *testing.T, ms ...*manifest.Manifest) (*Router, *httptest.Server) {
	rt, err := New(ms, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	ts := httptest.NewUnstartedServer(nil)
	p, err := guard.New(guard.Options{Addr: ts.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = p.Wrap(rt)
	ts.Start()
	t.Cleanup(ts.Close)
	return rt, ts
}

func request(t *testing.T, ts *httptest.Server, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	return resp.StatusCode, out
}

// TestDaemonCallRefusals: POST /call/<command> finds the command among
// the programs, reads its arguments by position, and refuses in the
// daemon's form {"status":"error","error":...} before any pool runs.
func TestDaemonCallRefusals(t *testing.T) {
	_, ts := daemonServer(t, daemonProgram(t, "alpha"), daemonProgram(t, "beta"))
	for _, tc := range []struct {
		path, body string
		status     int
		says       []string
	}{
		{"/call/add", `[1, 2]`, 409, []string{"'add' is in 2 programs", "/call/alpha/add or /call/beta/add"}},
		{"/call/nope", `[]`, 404, []string{"unknown command 'nope'", "serving add, own_alpha, own_beta"}},
		{"/call/own_alpha", `[1, 2]`, 400, []string{"alpha__own_alpha takes 1 argument (_1), got 2"}},
		{"/call/own_alpha", ``, 400, []string{"takes 1 argument (_1), got 0"}},
		{"/call/own_alpha", `{"args": []}`, 400, []string{"got 0"}},
		{"/call/own_alpha", `{"args": [1], "kwargs": {}}`, 400, []string{`unknown key "kwargs"`}},
		{"/call/own_alpha", `{}`, 400, []string{`"args" is missing`}},
		{"/call/own_alpha", `null`, 400, []string{"JSON array", "not null"}},
		{"/call/own_alpha", `{"args": null}`, 400, []string{"JSON array", "not null"}},
		{"/call/own_alpha", `3`, 400, []string{"JSON array"}},
		{"/call/own_alpha", `["one"]`, 400, []string{"invalid value for argument '_1'", "expected an integer"}},
		// Found probing issue 17: keys in map order, Go types in messages,
		// and no word on where named arguments go.
		{"/call/own_alpha", `{"_2": 1, "_1": 2}`, 400, []string{`unknown key "_1", "_2"; arguments by name go to POST /call/alpha/own_alpha`}},
		{"/call/own_alpha", `{"args": {"a": 1}}`, 400, []string{`"args" is an object, not an array`}},
		{"/call/own_alpha", `{"args": "x"}`, 400, []string{`"args" is a string, not an array`}},
		{"/call/own_alpha", `"x"`, 400, []string{`{"args": [...]}, not a string`}},
		{"/call/own_alpha", `{"_1": 1}`, 400, []string{`unknown key "_1"; arguments by name go to POST /call/alpha/own_alpha`}},
		{"/call/own_alpha", `tru`, 400, []string{"JSON array", "invalid character"}},
	} {
		status, body := request(t, ts, "POST", tc.path, tc.body)
		var reply struct {
			Status string `json:"status"`
			Error  string `json:"error"`
		}
		if status != tc.status || json.Unmarshal(body, &reply) != nil || reply.Status != "error" {
			t.Errorf("%s %s: %d %s, want %d {\"status\":\"error\",...}", tc.path, tc.body, status, body, tc.status)
			continue
		}
		if strings.Contains(reply.Error, "Go value") {
			t.Errorf("%s %s: %q names a Go type", tc.path, tc.body, reply.Error)
		}
		for _, w := range tc.says {
			if !strings.Contains(reply.Error, w) {
				t.Errorf("%s %s: %q does not say %q", tc.path, tc.body, reply.Error, w)
			}
		}
	}
	// The module route keeps its own form.
	if status, body := request(t, ts, "POST", "/call/alpha/own_alpha", `{"_1":"x"}`); status != 400 || !strings.HasPrefix(string(body), `{"error":`) {
		t.Errorf("/call/alpha/own_alpha: %d %s, want 400 {\"error\":...}", status, body)
	}
}

// TestPrograms: GET /programs lists each program's commands with the path
// of its discovery document, which is its entry of GET /discover.
func TestPrograms(t *testing.T) {
	_, ts := daemonServer(t, daemonProgram(t, "alpha"), daemonProgram(t, "beta"))
	status, body := request(t, ts, "GET", "/programs", "")
	want := `{"programs":[
		{"module":"alpha","description":"Program alpha.","commands":["add","own_alpha"],"discover":"/discover/alpha"},
		{"module":"beta","description":"Program beta.","commands":["add","own_beta"],"discover":"/discover/beta"}]}`
	var got, w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if status != 200 || json.Unmarshal(body, &got) != nil || !reflect.DeepEqual(got, w) {
		t.Errorf("GET /programs: %d %s\nwant %s", status, body, want)
	}
	_, all := request(t, ts, "GET", "/discover", "")
	var disc struct {
		Programs []json.RawMessage `json:"programs"`
	}
	if err := json.Unmarshal(all, &disc); err != nil || len(disc.Programs) != 2 {
		t.Fatalf("GET /discover: %s", all)
	}
	for i, module := range []string{"alpha", "beta"} {
		status, body := request(t, ts, "GET", "/discover/"+module, "")
		var one, entry any
		if status != 200 || json.Unmarshal(body, &one) != nil || json.Unmarshal(disc.Programs[i], &entry) != nil || !reflect.DeepEqual(one, entry) {
			t.Errorf("GET /discover/%s: %d %s\nwant %s", module, status, body, disc.Programs[i])
		}
	}
	if status, body := request(t, ts, "GET", "/discover/gamma", ""); status != 404 || !strings.Contains(string(body), "unknown program 'gamma' (serving alpha, beta)") {
		t.Errorf("GET /discover/gamma: %d %s", status, body)
	}
}

// TestModuleCallBodyKinds: the module route, given a body that is no
// object, says what it got (it named a Go type), and for an array where
// the positional route is (Morloc's form sent to nexus's route).
func TestModuleCallBodyKinds(t *testing.T) {
	_, ts := daemonServer(t, daemonProgram(t, "alpha"))
	for body, want := range map[string]string{
		`[1]`:   "the body must be a JSON object of the arguments by name, not an array; arguments by position go to POST /call/own_alpha",
		`"x"`:   "the body must be a JSON object of the arguments by name, not a string",
		`3`:     "not a number",
		`null`:  "not null",
		`{"_1"`: "the body must be a JSON object of the arguments by name: unexpected end of JSON input",
	} {
		status, out := request(t, ts, "POST", "/call/alpha/own_alpha", body)
		var reply struct{ Error string }
		if status != 400 || json.Unmarshal(out, &reply) != nil || !strings.Contains(reply.Error, want) || strings.Contains(reply.Error, "Go value") {
			t.Errorf("%s: %d %s, want 400 saying %q", body, status, out, want)
		}
	}
}

// TestGroupedCommandHint: a grouped command is called by its tool name
// (manage_add); its bare name on either call route says so.
func TestGroupedCommandHint(t *testing.T) {
	m := pooltest.Compile(t, `
module calc (
  --* group: manage
  add
)
source Py from "fns.py" ("add")
add :: Int -> Int -> Int
`, "def add(x, y):\n    return x + y\n")
	_, ts := daemonServer(t, m)
	for path, want := range map[string]string{
		"/call/add":      "unknown command 'add' (serving manage_add); call /call/manage_add in group manage of calc",
		"/call/calc/add": "module calc has no command 'add' (it is in group manage: call /call/calc/manage_add)",
	} {
		status, out := request(t, ts, "POST", path, `[]`)
		var reply struct{ Error string }
		if status != 404 || json.Unmarshal(out, &reply) != nil || reply.Error != want {
			t.Errorf("%s: %d %s, want 404 saying %q", path, status, out, want)
		}
	}
}

// TestSkippedCommandSaysWhy: a command that is no tool (it reads standard
// input) is answered on the call routes with why, not as unknown.
func TestSkippedCommandSaysWhy(t *testing.T) {
	m := pooltest.Compile(t, `
module calc (rev)
source Py from "fns.py" ("rev")
rev ::
  --' @stdin
  Str -> Str
`, "def rev(s):\n    return s[::-1]\n")
	_, ts := daemonServer(t, m)
	for path, want := range map[string]string{
		"/call/rev":      "command 'rev' of calc is not served: it reads standard input",
		"/call/calc/rev": "command 'rev' of module calc is not served: it reads standard input",
	} {
		status, out := request(t, ts, "POST", path, `[]`)
		var reply struct{ Error string }
		if status != 404 || json.Unmarshal(out, &reply) != nil || !strings.HasPrefix(reply.Error, want) {
			t.Errorf("%s: %d %s, want 404 saying %q", path, status, out, want)
		}
	}
}
