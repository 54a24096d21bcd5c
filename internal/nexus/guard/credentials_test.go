package guard

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	viewerSecret = "viewer-secret-0123456789"
	adderSecret  = "adder-secret-0123456789"
)

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestParseCredentialsRefusesMistakes(t *testing.T) {
	for _, tc := range []struct {
		name, file, want string
	}{
		{"not JSON", `{`, "not a credentials file"},
		{"unknown field", `{"credentials":[{"name":"a","secret":"0123456789abcdef","list":true,"cal":["x"]}]}`, `unknown field "cal"`},
		{"empty", `{"credentials":[]}`, "is empty"},
		{"no name", `{"credentials":[{"secret":"0123456789abcdef","list":true}]}`, `credential 1 (""): name`},
		{"short secret", `{"credentials":[{"name":"a","secret":"xq7z-short","list":true}]}`, `credential 1 ("a"): secret is 10 characters`},
		{"bad sum", `{"credentials":[{"name":"a","secret":"sha256:abc","list":true}]}`, "64 hex digits"},
		{"bad pattern", `{"credentials":[{"name":"a","secret":"0123456789abcdef","call":["[x"]}]}`, `call: "[x"`},
		{"grants nothing", `{"credentials":[{"name":"a","secret":"0123456789abcdef"}]}`, "grants nothing"},
		{"same name", `{"credentials":[{"name":"a","secret":"0123456789abcdef","list":true},{"name":"a","secret":"fedcba9876543210","list":true}]}`, "used twice"},
		{"same secret", `{"credentials":[{"name":"a","secret":"0123456789abcdef","list":true},{"name":"b","secret":"sha256:` + sha256Hex("0123456789abcdef") + `","list":true}]}`, `same secret as "a"`},
	} {
		_, err := ParseCredentials([]byte(tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
			continue
		}
		for _, secret := range []string{"0123456789abcdef", "xq7z-short", "fedcba9876543210"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: the error shows a secret: %v", tc.name, err)
			}
		}
	}
}

func TestCredentialPermissions(t *testing.T) {
	cs, err := ParseCredentials([]byte(`{"credentials":[
		{"name":"viewer","secret":"` + viewerSecret + `","list":true},
		{"name":"adder","secret":"sha256:` + sha256Hex(adderSecret) + `","call":["seq__*","add"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	viewer, adder := cs.find(viewerSecret), cs.find(adderSecret)
	if viewer == nil || viewer.Name != "viewer" || adder == nil || adder.Name != "adder" {
		t.Fatalf("find: got %v and %v", viewer, adder)
	}
	if cs.find("wrong-secret-0123456789") != nil {
		t.Error("a wrong secret found a credential")
	}
	if !viewer.ListOnly() || viewer.MayCall("add") || adder.ListOnly() {
		t.Error("viewer should be list-only, adder not")
	}
	for name, want := range map[string]bool{"add": true, "seq__gc": true, "chem__gc": false, "addx": false} {
		if got := adder.MayCall(name); got != want {
			t.Errorf("adder.MayCall(%s) = %v, want %v", name, got, want)
		}
	}
	if d := viewer.Denied("add"); !strings.Contains(d, `"call"`) || !strings.Contains(d, "viewer") {
		t.Errorf("Denied: %s", d)
	}
}

// TestMetricsCapability: "metrics": true alone is a credential (a
// scraper's), which may read the metrics and call nothing; the others may
// not read them.
func TestMetricsCapability(t *testing.T) {
	cs, err := ParseCredentials([]byte(`{"credentials":[
		{"name":"scraper","secret":"` + viewerSecret + `","metrics":true},
		{"name":"adder","secret":"` + adderSecret + `","call":["*"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	scraper, adder := cs.find(viewerSecret), cs.find(adderSecret)
	if !scraper.MayReadMetrics() || scraper.MayCall("add") || scraper.ListOnly() {
		t.Error("scraper should read the metrics and call nothing")
	}
	if adder.MayReadMetrics() {
		t.Error("adder may read the metrics without the permission")
	}
	if d := adder.DeniedMetrics(); !strings.Contains(d, `"metrics"`) || !strings.Contains(d, "adder") {
		t.Errorf("DeniedMetrics: %s", d)
	}
}

func TestWrapWithCredentials(t *testing.T) {
	file := filepath.Join(t.TempDir(), "creds.json")
	write := func(body string) {
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"credentials":[{"name":"viewer","secret":"` + viewerSecret + `","list":true}]}`)
	store, err := OpenCredentials(file)
	if err != nil {
		t.Fatal(err)
	}
	p := mustPolicy(t, Options{Addr: "127.0.0.1:8080", Credentials: store})
	var seen string
	h := p.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = CredentialOf(r.Context()).String() + "|" + Client(r)
	}))
	// do sends the headers, name and value pairs (Add: a name may come
	// twice).
	do := func(headers ...string) int {
		seen = ""
		req := httptest.NewRequest("GET", "http://127.0.0.1:8080/mcp", nil)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Add(headers[i], headers[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	for _, tc := range []struct {
		name    string
		headers []string
		want    int
	}{
		{"bearer", []string{"Authorization", "Bearer " + viewerSecret}, 200},
		{"api key", []string{"X-API-Key", viewerSecret}, 200},
		{"both, the same", []string{"Authorization", "Bearer " + viewerSecret, "X-API-Key", viewerSecret}, 200},
		{"wrong", []string{"Authorization", "Bearer " + adderSecret}, 401},
		{"missing", nil, 401},
		// Two different secrets are none: the server does not guess.
		{"both, different", []string{"Authorization", "Bearer " + viewerSecret, "X-API-Key", adderSecret}, 401},
		{"bearer twice, different", []string{"Authorization", "Bearer " + viewerSecret, "Authorization", "Bearer " + adderSecret}, 401},
		{"api key twice, different", []string{"X-API-Key", viewerSecret, "X-API-Key", adderSecret}, 401},
	} {
		if got := do(tc.headers...); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
		if tc.want == 200 && seen != "viewer|credential viewer" {
			t.Errorf("%s: the handler saw %q", tc.name, seen)
		}
	}
	// A reload revokes viewer and admits adder; a file that does not
	// parse keeps them.
	write(`{"credentials":[{"name":"adder","secret":"` + adderSecret + `","call":["*"]}]}`)
	if _, err := store.Reload(); err != nil {
		t.Fatal(err)
	}
	if do("X-API-Key", viewerSecret) != 401 || do("X-API-Key", adderSecret) != 200 {
		t.Error("the reload did not take")
	}
	write(`{"credentials":`)
	if _, err := store.Reload(); err == nil {
		t.Error("a broken file reloaded")
	}
	if do("X-API-Key", adderSecret) != 200 {
		t.Error("a broken file dropped the credentials in force")
	}
	if _, err := New(Options{Addr: "127.0.0.1:8080", Credentials: store, Token: adderSecret}); err == nil {
		t.Error("a token beside a credentials file was accepted")
	}
}

// TestDocsExampleParses: the complete example of docs/mcp.md,
// "Credentials", is a valid credentials file.
func TestDocsExampleParses(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Credentials\n")
	_, example, ok2 := strings.Cut(section, "```json\n")
	example, _, ok3 := strings.Cut(example, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/mcp.md has no Credentials section with a JSON example")
	}
	cs, err := ParseCredentials([]byte(example))
	if err != nil {
		t.Fatalf("the example of docs/mcp.md: %v", err)
	}
	if cs.Len() != 3 {
		t.Errorf("the example has %d credentials, want 3", cs.Len())
	}
}
