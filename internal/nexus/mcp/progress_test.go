package mcp

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/progress"
)

func TestProgressToken(t *testing.T) {
	for _, tc := range []struct{ meta, want string }{
		{``, ``},
		{`{}`, ``},
		{`{"progressToken":"abc"}`, `"abc"`},
		{`{"progressToken":7,"other":1}`, `7`},
		{`{"progressToken":-1.5}`, `-1.5`},
		{`{"progressToken":null}`, ``},
		{`{"progressToken":{"x":1}}`, ``},
		{`{"progressToken":true}`, ``},
		{`[1]`, ``},
	} {
		if got := string(progressToken(json.RawMessage(tc.meta))); got != tc.want {
			t.Errorf("progressToken(%s) = %s, want %s", tc.meta, got, tc.want)
		}
	}
}

// notes collects the notifications a sink sends.
type notes struct {
	mu  sync.Mutex
	got []map[string]any
}

func (n *notes) notify(b []byte) {
	var m struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Method != "notifications/progress" {
		panic("not a progress notification: " + string(b))
	}
	n.mu.Lock()
	n.got = append(n.got, m.Params)
	n.mu.Unlock()
}

func (n *notes) all() []map[string]any {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]map[string]any(nil), n.got...)
}

func TestProgressSink(t *testing.T) {
	var n notes
	ctx, end := startProgress(withNotifier(context.Background(), n.notify), json.RawMessage(`"tok"`), V20250618)
	report := progress.From(ctx)
	if report == nil {
		t.Fatal("no progress.Func in the call's context")
	}
	report(progress.Report{Done: 1, Total: 1000, HasTotal: true, Message: "first"})
	report(progress.Report{Done: 1})   // not growing: dropped
	report(progress.Report{Done: 0.5}) // nor this
	for i := 2; i <= 1000; i++ {
		report(progress.Report{Done: float64(i), Total: 1000, HasTotal: true})
	}
	end()
	report(progress.Report{Done: 2000}) // after the reply: dropped
	got := n.all()
	if len(got) == 0 || len(got) > 100 {
		t.Fatalf("%d notifications for 1000 reports in a burst, want the first, a few and the latest", len(got))
	}
	first, last := got[0], got[len(got)-1]
	if first["progressToken"] != "tok" || first["progress"] != 1.0 || first["total"] != 1000.0 || first["message"] != "first" {
		t.Errorf("first notification %v", first)
	}
	if last["progress"] != 1000.0 {
		t.Errorf("last notification %v, want progress 1000 (the latest report)", last)
	}
	for i := 1; i < len(got); i++ {
		if got[i]["progress"].(float64) <= got[i-1]["progress"].(float64) {
			t.Errorf("notification %d does not grow: %v after %v", i, got[i], got[i-1])
		}
	}
}

func TestProgressNeedsTokenAndNotifier(t *testing.T) {
	var n notes
	withN := withNotifier(context.Background(), n.notify)
	for name, ctx := range map[string]context.Context{
		"no token": func() context.Context { c, _ := startProgress(withN, nil, V20250618); return c }(),
		"no notifier": func() context.Context {
			c, _ := startProgress(context.Background(), json.RawMessage(`1`), V20250618)
			return c
		}(),
	} {
		if progress.From(ctx) != nil {
			t.Errorf("%s: the call reports progress", name)
		}
	}
}

func TestProgressMessageByVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		message bool
	}{{V20241105, false}, {V20250326, true}, {V20251125, true}} {
		var n notes
		ctx, end := startProgress(withNotifier(context.Background(), n.notify), json.RawMessage(`5`), tc.version)
		progress.From(ctx)(progress.Report{Done: 1, Message: "hi"})
		end()
		got := n.all()
		if len(got) != 1 {
			t.Fatalf("%s: %d notifications, want 1", tc.version, len(got))
		}
		if _, has := got[0]["message"]; has != tc.message {
			t.Errorf("%s: %v, message wanted: %v", tc.version, got[0], tc.message)
		}
		if _, has := got[0]["total"]; has {
			t.Errorf("%s: %v has a total, the report had none", tc.version, got[0])
		}
	}
}

// TestProgressTotalAndMessage: one rule for what every language reports:
// a total that is not finite or not above 0 is left out (the report is
// kept), and a message is cut to maxProgressMessage bytes.
func TestProgressTotalAndMessage(t *testing.T) {
	long := strings.Repeat("é", maxProgressMessage) // two bytes each
	for _, tc := range []struct {
		name   string
		report progress.Report
		total  any // nil: none
		msg    string
	}{
		{"a total", progress.Report{Done: 1, Total: 4, HasTotal: true}, 4.0, ""},
		{"NaN total", progress.Report{Done: 1, Total: math.NaN(), HasTotal: true}, nil, ""},
		{"infinite total", progress.Report{Done: 1, Total: math.Inf(1), HasTotal: true}, nil, ""},
		{"negative total", progress.Report{Done: 1, Total: -5, HasTotal: true}, nil, ""},
		{"zero total", progress.Report{Done: 1, Total: 0, HasTotal: true}, nil, ""},
		{"long message", progress.Report{Done: 1, Message: long}, nil, long[:maxProgressMessage] + "…"},
	} {
		var n notes
		ctx, end := startProgress(withNotifier(context.Background(), n.notify), json.RawMessage(`5`), V20251125)
		progress.From(ctx)(tc.report)
		end()
		got := n.all()
		if len(got) != 1 {
			t.Fatalf("%s: %d notifications, want 1", tc.name, len(got))
		}
		if total := got[0]["total"]; total != tc.total {
			t.Errorf("%s: total %v, want %v", tc.name, total, tc.total)
		}
		if msg, _ := got[0]["message"].(string); msg != tc.msg {
			t.Errorf("%s: message of %d bytes, want %d", tc.name, len(msg), len(tc.msg))
		}
	}
}

func TestEventStream(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	w := httptest.NewRecorder()
	if newEventStream(w, r) != nil {
		t.Error("an event stream for a request that does not accept one")
	}
	r.Header.Set("Accept", "application/json, text/event-stream")
	e := newEventStream(w, r)
	if e == nil || e.started() {
		t.Fatal("no event stream, or one started before any event")
	}
	e.send([]byte(`{"n":1}`))
	e.send([]byte(`{"n":2}`))
	e.end()
	e.send([]byte(`{"n":3}`)) // the handler returned: not written
	if !e.started() {
		t.Error("not started after an event")
	}
	h := w.Result().Header
	if h.Get("Content-Type") != "text/event-stream" || h.Get("X-Accel-Buffering") != "no" {
		t.Errorf("headers %v", h)
	}
	if want := "event: message\ndata: {\"n\":1}\n\nevent: message\ndata: {\"n\":2}\n\n"; w.Body.String() != want {
		t.Errorf("body %q, want %q", w.Body.String(), want)
	}
	if strings.Contains(w.Body.String(), `"n":3`) {
		t.Error("an event written after the handler returned")
	}
}
