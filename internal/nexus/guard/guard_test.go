package guard

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNewRefusesOpenAddresses(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		ok   bool
	}{
		{Options{Addr: "127.0.0.1:8080"}, true},
		{Options{Addr: "localhost:8080"}, true},
		{Options{Addr: "[::1]:8080"}, true},
		{Options{Addr: "0.0.0.0:8080"}, false},
		{Options{Addr: ":8080"}, false},
		{Options{Addr: "192.168.1.5:8080"}, false},
		{Options{Addr: "0.0.0.0:8080", Token: "0123456789abcdef"}, true},
		{Options{Addr: "0.0.0.0:8080", Token: "t"}, false},
		{Options{Addr: "0.0.0.0:8080", AllowNoAuth: true}, true},
		{Options{Addr: "no-port"}, false},
	} {
		_, err := New(tc.opts)
		if (err == nil) != tc.ok {
			t.Errorf("%+v: got error %v, want ok=%v", tc.opts, err, tc.ok)
		}
	}
}

func TestWrap(t *testing.T) {
	reached := 0
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		if _, err := io.ReadAll(r.Body); err != nil {
			BodyError(w, err)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	loop := mustPolicy(t, Options{Addr: "127.0.0.1:8080", MaxBody: 10})
	withToken := mustPolicy(t, Options{Addr: "127.0.0.1:8080", Token: "s3cret-0123456789"})
	open := mustPolicy(t, Options{Addr: "0.0.0.0:8080", Token: "s3cret-0123456789"})
	json := map[string]string{"Content-Type": "application/json"}
	for _, tc := range []struct {
		name    string
		p       *Policy
		method  string
		host    string
		headers map[string]string
		body    string
		want    int
	}{
		{"plain", loop, "POST", "127.0.0.1:8080", json, "{}", 200},
		{"localhost", loop, "POST", "localhost:8080", json, "{}", 200},
		{"content type with charset", loop, "POST", "127.0.0.1:8080", map[string]string{"Content-Type": "application/json; charset=utf-8"}, "{}", 200},
		{"rebinding host", loop, "POST", "evil.example:8080", json, "{}", 403},
		{"other port", loop, "POST", "127.0.0.1:9999", json, "{}", 403},
		{"foreign origin", loop, "POST", "127.0.0.1:8080", map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example"}, "{}", 403},
		{"null origin", loop, "POST", "127.0.0.1:8080", map[string]string{"Content-Type": "application/json", "Origin": "null"}, "{}", 403},
		{"local origin", loop, "POST", "127.0.0.1:8080", map[string]string{"Content-Type": "application/json", "Origin": "http://localhost:3000"}, "{}", 200},
		{"text body", loop, "POST", "127.0.0.1:8080", map[string]string{"Content-Type": "text/plain"}, "{}", 415},
		{"no content type", loop, "POST", "127.0.0.1:8080", nil, "{}", 415},
		{"GET needs no content type", loop, "GET", "127.0.0.1:8080", nil, "", 200},
		{"body over the limit", loop, "POST", "127.0.0.1:8080", json, strings.Repeat("x", 11), 413},
		{"no token", withToken, "POST", "127.0.0.1:8080", json, "{}", 401},
		{"wrong token", withToken, "POST", "127.0.0.1:8080", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer s3cret-012345678"}, "{}", 401},
		{"not bearer", withToken, "POST", "127.0.0.1:8080", map[string]string{"Content-Type": "application/json", "Authorization": "Basic s3cret-0123456789"}, "{}", 401},
		{"right token", withToken, "POST", "127.0.0.1:8080", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer s3cret-0123456789"}, "{}", 200},
		{"token before content type", withToken, "POST", "127.0.0.1:8080", nil, "{}", 401},
		{"host before token", withToken, "POST", "evil.example:8080", json, "{}", 403},
		{"any host on every interface", open, "POST", "box.lan:8080", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer s3cret-0123456789"}, "{}", 200},
		{"own origin on every interface", open, "POST", "box.lan:8080", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer s3cret-0123456789", "Origin": "http://box.lan:8080"}, "{}", 200},
		{"foreign origin on every interface", open, "POST", "box.lan:8080", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer s3cret-0123456789", "Origin": "http://evil.example"}, "{}", 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := reached
			r := httptest.NewRequest(tc.method, "http://"+tc.host+"/mcp", strings.NewReader(tc.body))
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			tc.p.Wrap(next).ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Errorf("got %d %s, want %d", w.Code, strings.TrimSpace(w.Body.String()), tc.want)
			}
			if tc.want == 401 && !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without WWW-Authenticate: Bearer: %q", w.Header().Get("WWW-Authenticate"))
			}
			if tc.want == 403 || tc.want == 401 || tc.want == 415 {
				if reached != before {
					t.Errorf("the handler ran for a refused request")
				}
			}
			if strings.Contains(w.Body.String(), "s3cret-0123456789") {
				t.Errorf("the reply shows the token: %s", w.Body.String())
			}
		})
	}
}

func mustPolicy(t *testing.T, opts Options) *Policy {
	t.Helper()
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckToken: a token no client could send, or that is easy to guess,
// is refused at start, on loopback too, and the refusal never shows it.
func TestCheckToken(t *testing.T) {
	for _, tc := range []struct {
		token string
		says  string // "" for accepted
	}{
		{"0123456789abcdef", ""},
		{"correct horse battery staple", ""},
		{"ünïcödé-töken-16", ""},
		{" ", "blank"},
		{"\t\n ", "blank"},
		{"0123456789abcde", "is 15 characters"},
		{"xq7", "is 3 characters"},
		{" 0123456789abcdef", "white space"},
		{"0123456789abcdef\n", "white space"},
		{"0123456789\x00abcdef", "control character"},
	} {
		for _, addr := range []string{"127.0.0.1:8080", "0.0.0.0:8080"} {
			_, err := New(Options{Addr: addr, Token: tc.token})
			switch {
			case tc.says == "" && err != nil:
				t.Errorf("token %q on %s: %v", tc.token, addr, err)
			case tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "at least 16")):
				t.Errorf("token %q on %s: error %v, want one saying %q and the minimum", tc.token, addr, err, tc.says)
			case err != nil && strings.TrimSpace(tc.token) != "" && strings.Contains(err.Error(), strings.TrimSpace(tc.token)):
				t.Errorf("token %q on %s: the error shows it: %v", tc.token, addr, err)
			}
		}
	}
}
