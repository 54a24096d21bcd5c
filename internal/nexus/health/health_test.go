package health

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/guard"
)

// The report behind the guard of a server that needs a token: open to a
// health check without one (status only), whole with the token, 503 and
// draining once Drain was called.
func TestHealth(t *testing.T) {
	const token = "0123456789abcdef"
	p, err := guard.New(guard.Options{Addr: "127.0.0.1:8080", Token: token, Open: []string{Path}})
	if err != nil {
		t.Fatal(err)
	}
	h := New(nil, func() int { return 3 })
	mux := http.NewServeMux()
	mux.Handle("GET "+Path, h)
	mux.Handle("/mcp", http.NotFoundHandler())
	srv := p.Wrap(mux)
	ask := func(method, path, bearer string) (int, map[string]any) {
		t.Helper()
		r := httptest.NewRequest(method, "http://127.0.0.1:8080"+path, nil)
		if bearer != "" {
			r.Header.Set("Authorization", "Bearer "+bearer)
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		var body map[string]any
		if method == http.MethodGet && w.Code != http.StatusNotFound {
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatalf("%s %s: %v: %q", method, path, err, w.Body)
			}
		}
		return w.Code, body
	}
	if h.Checked() {
		t.Fatal("Checked before any request")
	}
	for _, tc := range []struct {
		drain        bool
		method, path string
		bearer       string
		code         int
		status       string
		sessions     bool
	}{
		{false, "GET", Path, "", 200, StatusOK, false},
		{false, "GET", Path, "wrong-token-0123456789", 200, StatusOK, false},
		{false, "GET", Path, token, 200, StatusOK, true},
		{false, "HEAD", Path, "", 200, "", false},
		{false, "GET", "/mcp", "", 401, "", false}, // only Open paths are open
		{true, "GET", Path, "", 503, StatusDraining, false},
		{true, "GET", Path, token, 503, StatusDraining, true},
	} {
		if tc.drain {
			h.Drain()
		}
		code, body := ask(tc.method, tc.path, tc.bearer)
		if code != tc.code {
			t.Errorf("%s %s (bearer %q, draining %v): status %d, want %d", tc.method, tc.path, tc.bearer, tc.drain, code, tc.code)
		}
		if tc.status == "" {
			continue
		}
		if body["status"] != tc.status {
			t.Errorf("%s %s (bearer %q, draining %v): %v, want status %q", tc.method, tc.path, tc.bearer, tc.drain, body, tc.status)
		}
		if _, has := body["mcp_sessions"]; has != tc.sessions {
			t.Errorf("%s %s (bearer %q): %v: mcp_sessions shown %v, want %v", tc.method, tc.path, tc.bearer, body, has, tc.sessions)
		}
	}
	if !h.Checked() {
		t.Error("not Checked after requests")
	}
}
