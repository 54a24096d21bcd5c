package router

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/jsonlex"
	"github.com/nexus-run/nexus/internal/nexus/guard"
)

// TestErrorsAreJSON: every refusal of the JSON API, and of paths and
// methods it does not serve, is a JSON body {"error": ...}, like the
// guard's; a chunked body over the limit too.
func TestErrorsAreJSON(t *testing.T) {
	rt, err := New(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	ts := httptest.NewUnstartedServer(nil)
	p, err := guard.New(guard.Options{Addr: ts.Listener.Addr().String(), MaxBody: 100})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = p.Wrap(rt)
	ts.Start()
	defer ts.Close()

	for _, tc := range []struct {
		method, path string
		body         io.Reader
		status       int
		says, allow  string
	}{
		{"GET", "/nowhere", nil, 404, `"/nowhere"`, ""},
		{"POST", "/call/seq", strings.NewReader("[]"), 404, "unknown command 'seq' (no command is served)", ""},
		{"POST", "/call/seq/gc/x", strings.NewReader("{}"), 404, "/call/<module>/<command>", ""},
		{"GET", "/discover/seq", nil, 404, "unknown program 'seq'", ""},
		{"POST", "/programs", strings.NewReader("{}"), 405, "takes GET or HEAD", "GET, HEAD"},
		{"GET", "/call/seq", nil, 405, "GET /call/seq takes POST", "POST"},
		{"POST", "/call/seq/gc", strings.NewReader("{}"), 404, "unknown module 'seq'", ""},
		{"GET", "/call/seq/gc", nil, 405, "GET /call/seq/gc takes POST", "POST"},
		{"POST", "/health", strings.NewReader("{}"), 405, "takes GET or HEAD", "GET, HEAD"},
		{"DELETE", "/discover", nil, 405, "takes GET or HEAD", "GET, HEAD"},
		{"POST", "/", strings.NewReader("{}"), 405, "POST / takes GET or HEAD", "GET, HEAD"}, // the status page
		{"GET", "/index.html", nil, 404, `"/index.html"`, ""},
	} {
		req, err := http.NewRequest(tc.method, ts.URL+tc.path, tc.body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var got struct {
			Error string `json:"error"`
		}
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" ||
			json.Unmarshal(body, &got) != nil || !strings.Contains(got.Error, tc.says) || resp.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: got %d %q Allow %q %s; want %d, a JSON error saying %q, Allow %q",
				tc.method, tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Allow"), body, tc.status, tc.says, tc.allow)
		}
	}
}

// TestBodyTooDeep: a body nested past the limit is said to be too deep, at
// exactly the limit the message check of MCP uses; one level less is read.
func TestBodyTooDeep(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(`{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`)
	}
	var named map[string]json.RawMessage
	if err := json.Unmarshal(nest(jsonlex.MaxDepth), &named); err != nil {
		t.Fatalf("%d levels: %v", jsonlex.MaxDepth, err)
	}
	err := json.Unmarshal(nest(jsonlex.MaxDepth+1), &named)
	if err == nil {
		t.Fatalf("%d levels: read", jsonlex.MaxDepth+1)
	}
	if got, want := bodyError(err), "deeper than 10000 levels"; !strings.Contains(got, want) {
		t.Errorf("bodyError = %q, want it to say %q", got, want)
	}
	if got := bodyError(json.Unmarshal([]byte(`{"a":}`), &named)); strings.Contains(got, "deeper") {
		t.Errorf("bodyError of a syntax error = %q", got)
	}
}
