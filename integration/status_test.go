package integration

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// statusToken is the token of the servers of the status page's tests:
// the browser sends it as a header-adding extension would, on every
// request of the tab.
const statusToken = "status-page-token-0123456789"

// chromium is the headless browser the status page's tests drive.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if path := "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"; fileExists(path) {
		return path
	}
	t.Fatal("the status page's test needs headless Chromium (Debian's chromium package): run make setup")
	return ""
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// browser starts headless Chromium for the test; each tab is a context
// from it. foreign.test resolves to 127.0.0.1 in it: a site that is not
// the nexus's, on the same machine.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		// CI runs as root, where Chromium's sandbox cannot start.
		chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()),
		// Chromium's own temporary folders go with the test's.
		chromedp.Env("TMPDIR="+t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("host-resolver-rules", "MAP foreign.test 127.0.0.1"),
		// No https:// first for the foreign site's http:// URL.
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,HttpsUpgrades"),
	)
	// Bounds the whole browser session, should Chromium hang.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	// The first tab starts the browser.
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return bctx
}

// tab opens a new tab of the browser of bctx that sends the token with
// every request (headers), with JavaScript on or off.
func tab(t *testing.T, bctx context.Context, js bool, headers network.Headers) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	t.Cleanup(cancel)
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if headers != nil {
		if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: headers}); err != nil {
			t.Fatal(err)
		}
	}
	if !js {
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
	}
	return ctx
}

func chemFiles(t *testing.T) files {
	t.Helper()
	fs := files{}
	for _, name := range []string{"main.loc", "chem.py", "stats.hpp", "mathx.go"} {
		b, err := os.ReadFile(filepath.Join("..", "examples", "chem", name))
		if err != nil {
			t.Fatal(err)
		}
		fs[name] = string(b)
	}
	return fs
}

// pageHTML is the HTML of the page the tab shows, read through the DOM
// (no script of the page's own runs for it).
func pageHTML(t *testing.T, ctx context.Context) string {
	t.Helper()
	html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		t.Fatal(err)
	}
	return html
}

// pageComplaints collects what the browser says is wrong with the pages
// of the tab from now on: Content-Security-Policy violations and other
// security errors, and uncaught exceptions of their scripts. (A missing
// favicon is a network error, not counted.)
func pageComplaints(t *testing.T, ctx context.Context) func() []string {
	t.Helper()
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var said []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *cdplog.EventEntryAdded:
			if e.Entry.Source == cdplog.EntrySourceSecurity || e.Entry.Source == cdplog.EntrySourceJavascript || e.Entry.Level == cdplog.EntryLevelError && e.Entry.Source != cdplog.EntrySourceNetwork {
				said = append(said, string(e.Entry.Source)+": "+e.Entry.Text)
			}
		case *runtime.EventExceptionThrown:
			said = append(said, "exception: "+e.ExceptionDetails.Text)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(said)
	}
}

// callForm fills the call form of the tool with fields (pairs of a
// property and its text), submits it, and returns what it shows and
// whether that is a failure.
func callForm(t *testing.T, ctx context.Context, tool string, fields ...string) (string, bool) {
	t.Helper()
	form := `form[data-tool="` + tool + `"]`
	var steps []chromedp.Action[chromedp.Void]
	// The script enables the fieldset once the page is loaded.
	steps = append(steps, chromedp.WaitEnabled(chromedp.CSS(form+" button")))
	for i := 0; i+1 < len(fields); i += 2 {
		steps = append(steps, chromedp.SendKeys(chromedp.CSS(form+` [name="`+fields[i]+`"]`), fields[i+1]))
	}
	steps = append(steps, chromedp.Click(chromedp.CSS(form+" button")))
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("fill and submit the form of %s: %v", tool, err)
	}
	type shown struct {
		Text   string `json:"text"`
		Failed bool   `json:"failed"`
	}
	got, err := chromedp.Run(ctx, chromedp.Poll[shown](`(() => {
		const out = document.querySelector('`+form+` pre.result');
		return !out.hidden && out.textContent !== "calling…" && {text: out.textContent, failed: out.classList.contains("failed")};
	})()`))
	if err != nil {
		t.Fatalf("the result of %s: %v", tool, err)
	}
	return got.Text, got.Failed
}

// TestStatusPage drives the status page of `nexus serve` on examples/chem
// (Python, C++ and Go) in headless Chromium: the tools of the three
// languages and the pools are listed, the call form calls a tool that
// runs in all three and shows its result (and a bad call's error), the
// calls are then listed and the pools running; a page of another origin
// cannot read it or call a tool; with JavaScript off, the page is all
// there but the call form.
func TestStatusPage(t *testing.T) {
	bctx := browser(t)
	prog := build(t, chemFiles(t))
	s := startHTTP(t, prog.tmp, []string{"NEXUS_MCP_TOKEN=" + statusToken}, "serve", prog.launcher)
	auth := network.Headers{"Authorization": "Bearer " + statusToken}
	names := []string{"chem__weight", "chem__capped", "chem__stats", "chem__scaled", "chem__describe", "chem__chain", "chem__label", "chem__answer"}

	t.Run("JavaScript", func(t *testing.T) {
		ctx := tab(t, bctx, true, auth)
		complaints := pageComplaints(t, ctx)
		if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(chromedp.ID("tools"))); err != nil {
			t.Fatal(err)
		}
		listed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".tool-name")].map(e => e.textContent)`))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(listed, " ") != strings.Join(names, " ") {
			t.Errorf("tools listed: %q, want %q", listed, names)
		}
		pools := func() []string {
			t.Helper()
			rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("tr.pool")].map(r => [...r.cells].slice(0, 4).map(c => c.textContent).join(" "))`))
			if err != nil {
				t.Fatal(err)
			}
			return rows
		}
		// nexus serve starts a pool on its first call.
		if got, want := strings.Join(pools(), "; "), "chem python py idle; chem c++ cpp idle; chem go go idle"; got != want {
			t.Errorf("pools: %q, want %q", got, want)
		}

		// Weight in Python, scaled in C++, capped in Go.
		if text, failed := callForm(t, ctx, "chem__chain", "formula", "H2O", "factor", "2"); failed || !strings.Contains(text, "36.03") {
			t.Errorf("chem__chain of H2O by 2 shows %q (failed %v), want 36.03", text, failed)
		}
		if text, failed := callForm(t, ctx, "chem__weight"); !failed || !strings.Contains(text, "formula") {
			t.Errorf("chem__weight without its formula shows %q (failed %v), want the error naming formula", text, failed)
		}

		if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("tools"))); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(pools(), "; "), "chem python py running; chem c++ cpp running; chem go go running"; got != want {
			t.Errorf("pools after the call: %q, want %q", got, want)
		}
		calls, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("tr.call")].map(r => [1, 2, 3, 5].map(i => r.cells[i].textContent).join(" "))`))
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"chem chem__weight http 2026-07-28 bad_arguments", "chem chem__chain http 2026-07-28 ok"}; strings.Join(calls, "; ") != strings.Join(want, "; ") {
			t.Errorf("last calls: %q, want %q (newest first)", calls, want)
		}

		// The screenshot: a result shown, the calls listed.
		if text, failed := callForm(t, ctx, "chem__weight", "formula", "C6H12O6"); failed || !strings.Contains(text, "180.156") {
			t.Errorf("chem__weight of C6H12O6 shows %q (failed %v), want 180.156", text, failed)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		shot := filepath.Join(t.ArtifactDir(), "status-page.png")
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot of the page: %s (kept with go test -artifacts)", shot)
		// The page broke no rule of its Content-Security-Policy, and its
		// script threw nothing.
		if c := complaints(); len(c) > 0 {
			t.Errorf("the browser complained about the page:\n%s", strings.Join(c, "\n"))
		}
	})

	t.Run("JavaScriptOff", func(t *testing.T) {
		ctx := tab(t, bctx, false, auth)
		if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/"), chromedp.WaitReady(chromedp.ID("tools"))); err != nil {
			t.Fatal(err)
		}
		html := pageHTML(t, ctx)
		for _, name := range names {
			if !strings.Contains(html, `<code class="tool-name">`+name+`</code>`) {
				t.Errorf("without JavaScript the page does not list %s", name)
			}
		}
		for _, want := range []string{`<td>python</td><td>py</td>`, `<td>c++</td><td>cpp</td>`, `<td>go</td><td>go</td>`, `<code>chem__chain</code></td><td>http`} {
			if !strings.Contains(html, want) {
				t.Errorf("without JavaScript the page lacks %s", want)
			}
		}
		// The script did not run: the forms stay off.
		if !strings.Contains(html, `<fieldset disabled="">`) {
			t.Errorf("the call forms are on without JavaScript")
		}
	})

	t.Run("ForeignOrigin", func(t *testing.T) {
		// Another site's page, on this machine, that reads the status
		// page and calls a tool of the nexus from the browser.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		foreign := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><title>foreign</title><script>
window.outcome = (async () => {
  const out = {};
  try { const r = await fetch(%[1]q + "/"); out.page = "read " + r.status; } catch (e) { out.page = "refused"; }
  try {
    const r = await fetch(%[1]q + "/call/chem/answer", {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"});
    out.call = "read " + r.status;
  } catch (e) { out.call = "refused"; }
  return out;
})();
</script>`, s.base)
		})}
		go foreign.Serve(ln)
		t.Cleanup(func() { foreign.Close() })
		_, port, _ := net.SplitHostPort(ln.Addr().String())

		ctx := tab(t, bctx, true, nil)
		var mu sync.Mutex
		urls := map[network.RequestID]string{}
		statuses := map[string][]int64{}
		var pending []*network.EventResponseReceivedExtraInfo
		note := func(e *network.EventResponseReceivedExtraInfo) {
			if u, ok := urls[e.RequestID]; ok {
				statuses[u] = append(statuses[u], e.StatusCode)
			} else {
				pending = append(pending, e)
			}
		}
		if err := chromedp.Listen(ctx, func(ev any) {
			mu.Lock()
			defer mu.Unlock()
			switch e := ev.(type) {
			case *network.EventRequestWillBeSent:
				urls[e.RequestID] = e.Request.URL
				ps := pending
				pending = nil
				for _, p := range ps {
					note(p)
				}
			case *network.EventResponseReceivedExtraInfo:
				note(e)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.Navigate("http://foreign.test:"+port+"/")); err != nil {
			t.Fatal(err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`window.outcome`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if got["page"] != "refused" || got["call"] != "refused" {
			t.Errorf("the foreign page: %v, want the status page and the call both refused", got)
		}
		mu.Lock()
		page := statuses[s.base+"/"]
		mu.Unlock()
		if len(page) != 1 || page[0] != http.StatusForbidden {
			t.Errorf("the nexus answered the foreign page's GET / with %v, want 403", page)
		}
		// The call never ran: it is not among the last calls.
		r, err := s.send(context.Background(), "GET", "/", "", "Authorization", "Bearer "+statusToken)
		if err != nil {
			t.Fatal(err)
		}
		if r.status != 200 || strings.Contains(string(r.body), "<td><code>chem__answer</code></td>") || !strings.Contains(string(r.body), "<td><code>chem__chain</code></td>") {
			t.Errorf("the page after the foreign call: %d, with chem__answer called: %v", r.status, strings.Contains(string(r.body), "<td><code>chem__answer</code></td>"))
		}
	})

	s.stop()
	prog.checkClean()
}

// TestStatusPageMCP: the call form of `nexus mcp PROG --http-port`, which
// has no JSON API, calls the tool by MCP as well.
func TestStatusPageMCP(t *testing.T) {
	bctx := browser(t)
	prog := build(t, chemFiles(t))
	s := startHTTP(t, prog.tmp, nil, "mcp", prog.launcher)
	ctx := tab(t, bctx, true, nil)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(chromedp.ID("tools"))); err != nil {
		t.Fatal(err)
	}
	if text, failed := callForm(t, ctx, "label", "first", "H2O", "second", "CO2"); failed || !strings.Contains(text, "H2O") || !strings.Contains(text, "CO2") {
		t.Errorf("label shows %q (failed %v)", text, failed)
	}
	// All the arguments as one JSON object.
	if text, failed := callForm(t, ctx, "describe", "_all", `{"precision": 5, "hydrogens": true}`); failed || !strings.Contains(text, "5 digits, with hydrogens") {
		t.Errorf("describe from the JSON textarea shows %q (failed %v), want 5 digits, with hydrogens", text, failed)
	}
	// A field typed for a boolean, and one left out (its default).
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("tools")),
		chromedp.SetValue(chromedp.CSS(`form[data-tool="describe"] select[name="hydrogens"]`), "true")); err != nil {
		t.Fatal(err)
	}
	if text, failed := callForm(t, ctx, "describe"); failed || !strings.Contains(text, "3 digits, with hydrogens") {
		t.Errorf("describe with hydrogens chosen shows %q (failed %v), want 3 digits, with hydrogens", text, failed)
	}
	// The tool ran by MCP, the transport of nexus mcp --http-port.
	calls := pageHTML(t, ctx)
	if !strings.Contains(calls, "<td><code>label</code></td><td>http") {
		t.Errorf("the calls are not listed as MCP over HTTP calls")
	}
	s.stop()
	prog.checkClean()
}
