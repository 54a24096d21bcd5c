// Package status serves the status page of nexus's HTTP servers (nexus mcp
// --http-port and nexus serve) at GET /: the programs and their tools with
// their arguments, the state of each program's pools, the last calls, and
// a form per tool that calls it.
//
// The page is rendered on the server from templates embedded in the
// binary, so it is whole without JavaScript; only the call form needs the
// one small script, which calls the tool by a stateless MCP tools/call
// POST to /mcp (the endpoint both servers have). The page loads nothing
// from elsewhere, and says so in its Content-Security-Policy. It sits
// behind the server's guard like every route: the Host and Origin checks
// and the token apply to it and to its stylesheet and script.
package status

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/tool"
)

// Path is where the page is served; StylePath and ScriptPath are its
// stylesheet and the call form's script.
const (
	Path       = "/"
	StylePath  = "/status/status.css"
	ScriptPath = "/status/call.js"
)

// RecentCalls is how many of the last calls the page lists: enough to
// see what a client just did, few enough to read at a glance.
const RecentCalls = 50

// policy is the page's Content-Security-Policy: everything from the
// server itself, no inline script or style, no frames, forms posting
// only here.
const policy = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

//go:embed assets
var assets embed.FS

var page = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"args":     argRows,
	"result":   result,
	"fields":   fieldsOf,
	"when":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000") },
	"duration": formatDuration,
}).ParseFS(assets, "assets/page.html"))

// Program is one program the page shows.
type Program struct {
	Module string
	// Description is the program's docstring.
	Description string
	// Tools are its tools, named as MCP clients call them.
	Tools []*tool.Tool
	Pools *pool.Supervisor
}

// Handler serves the page and its two files.
type Handler struct {
	programs []Program
	recent   *observe.Recent
}

// New returns the page of programs, whose recent calls are those hub
// reports from now on (none when hub is nil).
func New(programs []Program, hub *observe.Hub) *Handler {
	h := &Handler{programs: programs, recent: observe.NewRecent(RecentCalls)}
	if hub != nil {
		hub.Watch(h.recent.Add)
	}
	return h
}

// Mount serves the page at exactly GET / (HEAD too) and its files, and
// answers other methods there with 405 in JSON. Every other path stays
// the mux's: a path under / that nothing serves is still a JSON 404.
func (h *Handler) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", h.servePage)
	mux.Handle("/{$}", guard.MethodNotAllowed("", http.MethodGet, http.MethodHead))
	mux.HandleFunc("GET "+StylePath, serveAsset("assets/status.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET "+ScriptPath, serveAsset("assets/call.js", "text/javascript; charset=utf-8"))
}

// view is what the template renders.
type view struct {
	Programs []programView
	Recent   []observe.Call
}

type programView struct {
	Module, Description string
	Tools               []*tool.Tool
	Pools               []pool.Status
}

func (h *Handler) servePage(w http.ResponseWriter, r *http.Request) {
	cred := guard.CredentialOf(r.Context())
	// Under a credentials file a client sees the tools it may call (all
	// of them when it may only list), as in tools/list, and the calls of
	// those tools alone: another client's calls are not its business.
	visible := func(name string) bool { return cred == nil || cred.ListOnly() || cred.MayCall(name) }
	var v view
	for _, p := range h.programs {
		pv := programView{Module: p.Module, Description: p.Description, Pools: p.Pools.Status()}
		for _, t := range p.Tools {
			if visible(t.Name) {
				pv.Tools = append(pv.Tools, t)
			}
		}
		v.Programs = append(v.Programs, pv)
	}
	for _, c := range h.recent.List() {
		if visible(c.Tool) {
			v.Recent = append(v.Recent, c)
		}
	}
	var b bytes.Buffer
	if err := page.Execute(&b, v); err != nil {
		guard.Error(w, http.StatusInternalServerError, "render the status page: "+err.Error())
		return
	}
	setHeaders(w, "text/html; charset=utf-8")
	// The page changes with every call; a cached one would mislead.
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b.Bytes())
}

func serveAsset(name, contentType string) http.HandlerFunc {
	body, err := assets.ReadFile(name)
	if err != nil {
		panic("status: the embedded " + name + " is missing: " + err.Error()) // a build mistake, not input
	}
	return func(w http.ResponseWriter, r *http.Request) {
		setHeaders(w, contentType)
		_, _ = w.Write(body)
	}
}

func setHeaders(w http.ResponseWriter, contentType string) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Security-Policy", policy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

// formatDuration is d rounded to what a person reads: microseconds
// below a millisecond, milliseconds below a second, else tenths of ms.
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}
