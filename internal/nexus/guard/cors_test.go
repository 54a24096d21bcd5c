package guard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCORS: an allowed origin's preflight is answered 204 with the CORS
// headers and without a token, its requests pass the Origin check (the
// token still applies) and carry Access-Control-Allow-Origin; any other
// foreign origin is 403, preflight or not.
func TestCORS(t *testing.T) {
	const token = "s3cret-0123456789"
	const app = "https://app.example:8443"
	p := mustPolicy(t, Options{Addr: "127.0.0.1:8080", Token: token, CORSOrigins: []string{"HTTPS://App.Example:8443/"}})
	none := mustPolicy(t, Options{Addr: "127.0.0.1:8080", Token: token})
	reached := 0
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.WriteHeader(http.StatusOK)
	})
	for _, tc := range []struct {
		name          string
		p             *Policy
		method        string
		origin, auth  string
		want          int
		allowOrigin   string
		reachedHandle bool
	}{
		{"preflight, allowed", p, "OPTIONS", app, "", 204, app, false},
		{"preflight, another origin", p, "OPTIONS", "https://evil.example", "", 403, "", false},
		{"preflight, no CORS origins", none, "OPTIONS", app, "", 403, "", false},
		{"call, allowed, with the token", p, "POST", app, "Bearer " + token, 200, app, true},
		{"call, allowed, without the token", p, "POST", app, "", 401, app, false},
		{"call, another origin", p, "POST", "https://evil.example", "Bearer " + token, 403, "", false},
		{"call, localhost as before", p, "POST", "http://localhost:3000", "Bearer " + token, 200, "", true},
		{"call, no CORS origins", none, "POST", app, "Bearer " + token, 403, "", false},
	} {
		before := reached
		req := httptest.NewRequest(tc.method, "http://127.0.0.1:8080/call/add", strings.NewReader("[1]"))
		req.Header.Set("Origin", tc.origin)
		req.Header.Set("Content-Type", "application/json")
		if tc.method == "OPTIONS" {
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "content-type, authorization")
		}
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		rec := httptest.NewRecorder()
		tc.p.Wrap(next).ServeHTTP(rec, req)
		h := rec.Header()
		if rec.Code != tc.want || h.Get("Access-Control-Allow-Origin") != tc.allowOrigin || (reached > before) != tc.reachedHandle {
			t.Errorf("%s: %d, Access-Control-Allow-Origin %q, handler reached %v; want %d, %q, %v",
				tc.name, rec.Code, h.Get("Access-Control-Allow-Origin"), reached > before, tc.want, tc.allowOrigin, tc.reachedHandle)
		}
		if tc.p == p && h.Get("Vary") != "Origin" {
			t.Errorf("%s: Vary %q, want Origin", tc.name, h.Get("Vary"))
		}
		if tc.allowOrigin != "" && !strings.Contains(h.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
			t.Errorf("%s: Access-Control-Expose-Headers %q, want Mcp-Session-Id", tc.name, h.Get("Access-Control-Expose-Headers"))
		}
		if rec.Code == 204 {
			for _, w := range []string{"Content-Type", "Authorization", "Mcp-Session-Id", "Mcp-Protocol-Version"} {
				if !strings.Contains(h.Get("Access-Control-Allow-Headers"), w) {
					t.Errorf("%s: Access-Control-Allow-Headers %q lacks %s", tc.name, h.Get("Access-Control-Allow-Headers"), w)
				}
			}
			if !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") || h.Get("Access-Control-Max-Age") == "" {
				t.Errorf("%s: Allow-Methods %q, Max-Age %q", tc.name, h.Get("Access-Control-Allow-Methods"), h.Get("Access-Control-Max-Age"))
			}
		}
	}
}

func TestCheckOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:3000": "http://localhost:3000",
		"HTTPS://App.Example/":  "https://app.example",
		"https://[::1]:8443":    "https://[::1]:8443",
		// A default port, which no browser's Origin has, is dropped.
		"https://App.example:443": "https://app.example",
		"http://localhost:80":     "http://localhost",
		"http://app.example:443":  "http://app.example:443",
		"https://[::1]:443":       "https://[::1]",
		"*":                       "",
		"app.example":             "",
		"https://app.example/x":   "",
		"ftp://app.example":       "",
		"https://u@app.example":   "",
		"https://app.example?q=1": "",
	} {
		got, err := CheckOrigin(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("CheckOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := New(Options{Addr: "127.0.0.1:1", CORSOrigins: []string{"*"}}); err == nil || !strings.Contains(err.Error(), "list the origins") {
		t.Errorf("New with * as an origin: %v", err)
	}
}

// TestUnixSocketHost: on a unix socket any Host is this server (curl
// sends localhost, other clients the socket's path); the Origin check and
// the token apply as on loopback.
func TestUnixSocketHost(t *testing.T) {
	p := mustPolicy(t, Options{Unix: true, Token: "s3cret-0123456789"})
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, tc := range []struct {
		host, origin, auth string
		want               int
	}{
		{"localhost", "", "Bearer s3cret-0123456789", 200},
		{"%2Frun%2Fnexus.sock", "", "Bearer s3cret-0123456789", 200},
		{"localhost", "", "", 401},
		{"localhost", "https://evil.example", "Bearer s3cret-0123456789", 403},
	} {
		req := httptest.NewRequest("GET", "http://localhost/health", nil)
		req.Host = tc.host
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		rec := httptest.NewRecorder()
		p.Wrap(ok).ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("Host %q Origin %q: %d, want %d", tc.host, tc.origin, rec.Code, tc.want)
		}
	}
}
