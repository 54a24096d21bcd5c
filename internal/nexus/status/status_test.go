package status

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/program"
	"github.com/nexus-run/nexus/internal/pooltest"
)

// shop is a program whose docs hold markup, with arguments of every
// shape the page describes: a required string, defaults, a flag, a list,
// a record given whole, a list of records and a map.
const shop = `
--' A <b>shop</b>.
module shop (buy, stock, pick)
import root-py
source Py from "fns.py" ("show1" as showBuy, "show2" as showStock, "show2" as showPick)

showBuy :: Order -> Str
showStock :: [Item] -> Map Str [Real] -> Str
showPick :: ?Int -> Str -> Str

--' An order.
--' unroll: true
record Order where
  --' What to buy
  item :: Str
  --' How many
  --' default: 2
  count :: Int
  --' Gift-wrap it
  --' true: --wrap
  --' default: false
  wrap :: Bool

record Py => Order = "dict"

--' One item.
record Item where
  --' Its name
  name :: Str
  --' Its price
  price :: Real

record Py => Item = "dict"

--' Buy something. <script>alert("buy")</script>
--' title: Buy it
buy :: Order -> Str
buy o = showBuy o

--' Count the stock.
stock ::
  --' The items
  --' arg: --items
  [Item] ->
  --' Prices by shop
  --' arg: --prices
  Map Str [Real] ->
  Str
stock xs ps = showStock xs ps

--' Pick one.
pick ::
  --' @name n
  ?Int ->
  --' @name label
  Str ->
  Str
pick n l = showPick n l
`

const shopPy = `
def show1(a): return repr(a)
def show2(a, b): return repr((a, b))
`

const token = "0123456789abcdef0123"

// server is the page of shop behind a guard that needs token, with the
// calls reported to the hub it returns.
func server(t *testing.T) (*observe.Hub, http.Handler) {
	t.Helper()
	m := pooltest.Compile(t, shop, shopPy)
	prog := program.New(m, pool.Options{})
	t.Cleanup(func() { prog.Close() })
	tools, _ := prog.Tools("")
	hub := observe.NewHub()
	mux := http.NewServeMux()
	New([]Program{{Module: m.Name, Description: strings.Join(m.Doc, "\n"), Tools: tools, Pools: prog.Pools}}, hub).Mount(mux)
	mux.Handle("/", guard.NotFound("/mcp and GET /"))
	p, err := guard.New(guard.Options{Addr: "127.0.0.1:8080", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return hub, p.Wrap(mux)
}

func get(h http.Handler, method, path string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "http://127.0.0.1:8080"+path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestPage: the page lists the program's tools with their arguments
// described, its pools, and the last calls newest first; every text from
// the program or a call is escaped.
func TestPage(t *testing.T) {
	hub, srv := server(t)
	start := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
	hub.Done(observe.Call{Program: "shop", Tool: "pick", Transport: observe.HTTP, Protocol: "2026-07-28",
		Start: start, Duration: 1500 * time.Microsecond, Outcome: observe.OK})
	hub.Done(observe.Call{Program: "shop", Tool: "buy", Transport: observe.JSONAPI,
		Start: start.Add(time.Second), Duration: 2 * time.Second, Outcome: observe.ToolError, Error: "<img src=x onerror=alert(1)> failed"})

	w := get(srv, "GET", "/", "Authorization", "Bearer "+token)
	if w.Code != 200 {
		t.Fatalf("GET /: %d %s", w.Code, w.Body)
	}
	for name, want := range map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Security-Policy": "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
		"X-Content-Type-Options":  "nosniff",
		"Cache-Control":           "no-store",
	} {
		if got := w.Header().Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	body := w.Body.String()
	for _, want := range []string{
		// The program and its tools, with a title and the arguments.
		`<h3>shop</h3>`, `<p class="doc">A &lt;b&gt;shop&lt;/b&gt;.</p>`,
		`<code class="tool-name">buy</code> <span class="title">Buy it</span>`,
		`<code class="tool-name">stock</code>`, `<code class="tool-name">pick</code>`,
		// An unrolled record's fields, each a property: required, or
		// with its default (said once, not again in the description).
		`<tr><td><code>item</code></td><td>string</td><td>yes</td><td></td><td><span class="doc">What to buy</span></td></tr>`,
		`<tr><td><code>count</code></td><td>integer</td><td>no</td><td><code>2</code></td><td><span class="doc">How many</span></td></tr>`,
		`<tr><td><code>wrap</code></td><td>true or false</td><td>no</td><td><code>false</code></td><td><span class="doc">Gift-wrap it</span></td></tr>`,
		// A list of records, its fields in a table of their own; a map.
		`<td><code>items</code></td><td>list of records</td><td>yes</td><td></td><td><span class="doc">The items</span><table class="args">`,
		`<tr><td><code>price</code></td><td>number</td><td>yes</td><td></td><td><span class="doc">Its price</span></td></tr>`,
		`<td><code>prices</code></td><td>map from string to lists of numbers</td>`,
		// What a tool returns.
		`<div class="returns">Returns: string</div>`,
		// An optional argument.
		`<td><code>n</code></td><td>integer or null</td><td>no</td>`,
		// The call form, one field per property, read by its kind; its
		// fields stay off until the script turns them on.
		`<form class="call" data-tool="buy">`, `<fieldset disabled>`,
		`<input name="item" data-input="string"`, `<input name="count" data-input="json"`,
		`<select name="wrap" data-input="boolean">`, `<textarea name="_all" data-input="all"`,
		// The pool, not started.
		`<tr class="pool"><td>shop</td><td>python</td><td>py</td><td><span class="state state-idle">idle</span></td><td>0</td>`,
		// The calls, with their outcome, transport and error.
		`<td>2026-12-02 05:00:01.000</td><td>shop</td><td><code>buy</code></td><td>api</td><td>2s</td><td><span class="outcome outcome-tool_error">tool_error</span></td><td class="error">&lt;img src=x onerror=alert(1)&gt; failed</td>`,
		`<td>http <span class="note">2026-07-28</span></td><td>1.5ms</td>`,
		// The stylesheet and the script are the server's own.
		`<link rel="stylesheet" href="/status/status.css">`, `<script src="/status/call.js" defer></script>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	// Markup from the program or a call is text, never markup.
	if !strings.Contains(body, `Buy something. &lt;script&gt;alert(&#34;buy&#34;)&lt;/script&gt;`) {
		t.Errorf("the description with <script> is not shown escaped")
	}
	for _, bad := range []string{"<script>alert", "<img src=x", "<b>shop"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	if i, j := strings.Index(body, "<code>buy</code></td><td>api"), strings.Index(body, "<code>pick</code></td><td>http"); i < 0 || j < 0 || i > j {
		t.Errorf("the calls are not newest first (buy at %d, pick at %d)", i, j)
	}
	// Exactly one <script> element, the page's own.
	if n := strings.Count(body, "<script"); n != 1 {
		t.Errorf("the page has %d <script elements, want 1", n)
	}
}

// TestGuard: the page and its files are behind the guard like every
// route; only exactly / is the page, other paths stay JSON 404s.
func TestGuard(t *testing.T) {
	_, srv := server(t)
	auth := []string{"Authorization", "Bearer " + token}
	for _, tc := range []struct {
		method, path string
		header       []string
		code         int
		says         string // in the body
		contentType  string
	}{
		{"GET", "/", nil, 401, "unauthorized", "application/json"},
		{"GET", "/", []string{"Authorization", "Bearer wrong-token-0123456789"}, 401, "unauthorized", "application/json"},
		{"GET", "/", append([]string{"Origin", "http://evil.example"}, auth...), 403, `Origin \"http://evil.example\"`, "application/json"},
		{"GET", "/", append([]string{"Host", "evil.example:8080"}, auth...), 403, "forbidden: Host", "application/json"},
		{"GET", "/?token=" + token, nil, 401, "unauthorized", "application/json"},
		{"GET", StylePath, nil, 401, "unauthorized", "application/json"},
		{"GET", ScriptPath, nil, 401, "unauthorized", "application/json"},
		{"GET", "/", auth, 200, "<h1>nexus status</h1>", "text/html; charset=utf-8"},
		{"GET", "/", append([]string{"Origin", "http://127.0.0.1:8080"}, auth...), 200, "<h1>nexus status</h1>", "text/html; charset=utf-8"},
		{"HEAD", "/", auth, 200, "", "text/html; charset=utf-8"},
		{"GET", StylePath, auth, 200, "system-ui", "text/css; charset=utf-8"},
		{"GET", ScriptPath, auth, 200, `"tools/call"`, "text/javascript; charset=utf-8"},
		{"GET", "/index.html", auth, 404, `not found: \"/index.html\"`, "application/json"},
		{"GET", "/status/", auth, 404, "not found", "application/json"},
		{"DELETE", "/", auth, 405, "DELETE / takes GET or HEAD", "application/json"},
	} {
		r := httptest.NewRequest(tc.method, "http://127.0.0.1:8080"+tc.path, nil)
		for i := 0; i+1 < len(tc.header); i += 2 {
			if tc.header[i] == "Host" {
				r.Host = tc.header[i+1]
				continue
			}
			r.Header.Set(tc.header[i], tc.header[i+1])
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != tc.code || !strings.Contains(w.Body.String(), tc.says) || w.Header().Get("Content-Type") != tc.contentType {
			t.Errorf("%s %s %q: %d %s %.200s; want %d %s saying %s", tc.method, tc.path, tc.header, w.Code,
				w.Header().Get("Content-Type"), w.Body, tc.code, tc.contentType, tc.says)
		}
	}
}

// TestCredentials: under a credentials file, a client sees the tools it
// may call and their calls alone; a list-only one sees every tool.
func TestCredentials(t *testing.T) {
	m := pooltest.Compile(t, shop, shopPy)
	prog := program.New(m, pool.Options{})
	defer prog.Close()
	tools, _ := prog.Tools("")
	hub := observe.NewHub()
	mux := http.NewServeMux()
	New([]Program{{Module: "shop", Tools: tools, Pools: prog.Pools}}, hub).Mount(mux)
	hub.Done(observe.Call{Program: "shop", Tool: "buy", Transport: observe.HTTP, Outcome: observe.OK})
	hub.Done(observe.Call{Program: "shop", Tool: "pick", Transport: observe.HTTP, Outcome: observe.OK})
	file := filepath.Join(t.TempDir(), "creds.json")
	if err := os.WriteFile(file, []byte(`{"credentials": [
		{"name": "picker", "secret": "picker-0123456789abcdef", "call": ["pick"]},
		{"name": "viewer", "secret": "viewer-0123456789abcdef", "list": true}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	creds, err := guard.OpenCredentials(file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := guard.New(guard.Options{Addr: "127.0.0.1:8080", Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	srv := p.Wrap(mux)
	for _, tc := range []struct {
		secret    string
		see, hide []string
	}{
		{"picker-0123456789abcdef", []string{`data-tool="pick"`, `<code>pick</code></td><td>http`},
			[]string{`data-tool="buy"`, `data-tool="stock"`, `<code>buy</code></td><td>http`}},
		{"viewer-0123456789abcdef", []string{`data-tool="pick"`, `data-tool="buy"`, `data-tool="stock"`, `<code>buy</code></td><td>http`}, nil},
	} {
		body := get(srv, "GET", "/", "X-API-Key", tc.secret).Body.String()
		for _, s := range tc.see {
			if !strings.Contains(body, s) {
				t.Errorf("%s: the page lacks %s", tc.secret[:6], s)
			}
		}
		for _, s := range tc.hide {
			if strings.Contains(body, s) {
				t.Errorf("%s: the page shows %s", tc.secret[:6], s)
			}
		}
	}
}
