// Package router serves several programs behind one HTTP endpoint (nexus
// serve): MCP at /mcp, with every command a tool named
// <module>__<command>, and beside it a JSON API for clients that are not
// MCP clients: POST /call/<module>/<command>, GET /discover, GET /health
// (package health).
//
// Each program is the runtime stack of nexus/program: its own pools,
// started on first use and supervised.
// Both the MCP tools and the JSON API call commands as the tools of
// nexus/tool, so an argument means the same on both; the JSON API answers
// a bad call (a *tool.ArgError) with 400.
package router

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/nexus-run/nexus/internal/jsonlex"
	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/health"
	"github.com/nexus-run/nexus/internal/nexus/mcp"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/program"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/manifest"
)

// Separator joins a module's name and a command's in a tool name.
const Separator = "__"

// Options configure a Router. The zero value works.
type Options struct {
	// Calls bound each call, by MCP or the JSON API.
	Calls tool.Options
	HTTP  mcp.HTTPOptions
	Pool  pool.Options
	// Log receives a line for each command that cannot be a tool.
	// Nil means io.Discard.
	Log io.Writer
	// Audit, when set, gets a line for every call, by MCP or the JSON
	// API.
	Audit *guard.Audit
}

// Router is several programs behind one http.Handler.
type Router struct {
	programs []*served
	byModule map[string]*served
	tools    *tool.Set // every program's, as the JSON API calls them
	mcp      *mcp.HTTPHandler
	health   *health.Handler
	mux      *http.ServeMux
	audit    *guard.Audit
}

// served is one program served by a Router.
type served struct {
	*program.Program
	module string
	tools  []*tool.Tool
}

// New returns a Router serving the programs ms, each known by its module
// name, which must differ. It starts no pool.
func New(ms []*manifest.Manifest, opts Options) (*Router, error) {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	rt := &Router{byModule: map[string]*served{}, audit: opts.Audit}
	var all []*tool.Tool
	var reported []health.Program
	for _, m := range ms {
		if prev := rt.byModule[m.Name]; prev != nil {
			return nil, fmt.Errorf("two programs are called %s (%s and %s); a module name must say which program a tool is from", m.Name, prev.Manifest.Dir, m.Dir)
		}
		p := &served{Program: program.New(m, opts.Pool), module: m.Name}
		tools, skipped := p.Tools(m.Name + Separator)
		for _, s := range skipped {
			fmt.Fprintf(opts.Log, "nexus: %s: %s\n", m.Name, s)
		}
		p.tools = tools
		all = append(all, tools...)
		rt.programs = append(rt.programs, p)
		rt.byModule[m.Name] = p
		reported = append(reported, health.Program{Module: m.Name, Pools: p.Pools})
	}
	rt.tools = tool.NewSet(all, opts.Calls)
	rt.mcp = mcp.NewHTTPHandler(mcp.NewServer("nexus", all, mcp.Options{
		CallTimeout: opts.Calls.CallTimeout, Audit: opts.Audit, Program: moduleOf}), opts.HTTP)
	rt.health = health.New(reported, rt.mcp.Sessions)
	rt.mux = http.NewServeMux()
	rt.mux.Handle("/mcp", rt.mcp)
	rt.mux.HandleFunc("POST /call/{module}/{command}", rt.call)
	rt.mux.HandleFunc("GET /discover", rt.discover)
	rt.health.Mount(rt.mux)
	// Every other request is answered in JSON too, not by the mux's
	// plain text: a path served for other methods is 405 (a pattern with
	// a method wins over the same path without), anything else 404.
	rt.mux.Handle("/call/{module}/{command}", guard.MethodNotAllowed("", http.MethodPost))
	rt.mux.Handle("/discover", guard.MethodNotAllowed("", http.MethodGet, http.MethodHead))
	rt.mux.Handle("/", guard.NotFound("/mcp, POST /call/<module>/<command>, GET /discover and GET /health"))
	return rt, nil
}

func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) { rt.mux.ServeHTTP(w, r) }

// MCP is the Router's MCP handler, to see its sessions.
func (rt *Router) MCP() *mcp.HTTPHandler { return rt.mcp }

// Health is the Router's GET /health, to say that the server drains.
func (rt *Router) Health() *health.Handler { return rt.health }

// Close ends the MCP sessions and stops every program's pools.
func (rt *Router) Close() error {
	rt.mcp.Close()
	var errs []error
	for _, p := range rt.programs {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

// moduleOf is the module of the tool called name.
func moduleOf(name string) string {
	module, _, _ := strings.Cut(name, Separator)
	return module
}

// call runs a command: the body holds its arguments by name, as an MCP
// client gives them. A command the request's credential may not call is
// 403.
func (rt *Router) call(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	outcome := guard.OutcomeError
	cred := guard.CredentialOf(r.Context())
	module, command := r.PathValue("module"), r.PathValue("command")
	name := module + Separator + command
	defer func() { rt.audit.Call(cred.String(), module, name, start, outcome) }()
	p := rt.byModule[module]
	if p == nil {
		guard.Error(w, http.StatusNotFound, fmt.Sprintf("unknown module '%s' (serving %s)", module, strings.Join(rt.modules(), ", ")))
		return
	}
	t := rt.tools.Tool(name)
	if t == nil {
		guard.Error(w, http.StatusNotFound, fmt.Sprintf("module %s has no command '%s'", module, command))
		return
	}
	if cred != nil && !cred.MayCall(name) {
		guard.Error(w, http.StatusForbidden, cred.Denied(name))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		guard.BodyError(w, err)
		return
	}
	var named map[string]json.RawMessage
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &named); err != nil {
			guard.Error(w, http.StatusBadRequest, "the body must be a JSON object of the arguments by name: "+bodyError(err))
			return
		}
		if named == nil { // null, which Unmarshal takes for an empty map
			guard.Error(w, http.StatusBadRequest, "the body must be a JSON object of the arguments by name, not null")
			return
		}
	}
	named, msg := withRender(r, t, named)
	if msg != "" {
		guard.Error(w, http.StatusBadRequest, msg)
		return
	}
	res, err := rt.tools.Call(r.Context(), name, named)
	var bad *tool.ArgError
	var down *pool.UnavailableError
	switch {
	case err == nil:
		outcome = guard.OutcomeOK
		writeResult(w, res, resultEnvelope)
	case errors.As(err, &bad):
		guard.Error(w, http.StatusBadRequest, bad.Msg)
	case errors.As(err, &down):
		if down.RetryAfter > 0 {
			w.Header().Set("Retry-After", fmt.Sprint(int(math.Ceil(down.RetryAfter.Seconds()))))
		}
		guard.Error(w, http.StatusServiceUnavailable, err.Error())
	case r.Context().Err() != nil:
		// The client went away: there is no one to answer.
	default:
		guard.Error(w, http.StatusInternalServerError, err.Error())
	}
}

// discover lists the programs and their tools, as MCP's tools/list shows
// them (to a credential, the tools it may call, unless it may only list),
// with the path that calls each through the JSON API.
func (rt *Router) discover(w http.ResponseWriter, r *http.Request) {
	type entry struct {
		Call string     `json:"call"`
		Tool *tool.Tool `json:"tool"`
	}
	type prog struct {
		Module      string  `json:"module"`
		Description string  `json:"description,omitempty"`
		Tools       []entry `json:"tools"`
	}
	out := struct {
		Programs []prog `json:"programs"`
	}{Programs: []prog{}}
	for _, p := range rt.programs {
		pr := prog{Module: p.module, Description: strings.Join(p.Manifest.Doc, "\n"), Tools: []entry{}}
		for _, t := range p.tools {
			if cred := guard.CredentialOf(r.Context()); cred != nil && !cred.ListOnly() && !cred.MayCall(t.Name) {
				continue
			}
			command := strings.TrimPrefix(t.Name, p.module+Separator)
			pr.Tools = append(pr.Tools, entry{Call: "/call/" + p.module + "/" + command, Tool: t})
		}
		out.Programs = append(out.Programs, pr)
	}
	writeValue(w, http.StatusOK, out)
}

func (rt *Router) modules() []string {
	names := make([]string, len(rt.programs))
	for i, p := range rt.programs {
		names[i] = p.module
	}
	slices.Sort(names)
	return names
}

func writeValue(w http.ResponseWriter, status int, v any) {
	out, err := json.Marshal(v)
	if err != nil {
		guard.Error(w, http.StatusInternalServerError, "encode reply: "+err.Error())
		return
	}
	writeJSON(w, status, out)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// bodyError says what is wrong with a body that is not a JSON object: too
// deep is said as such, not as the bracket where encoding/json gave up.
func bodyError(err error) string {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) && strings.Contains(syntax.Error(), "exceeded max depth") {
		return fmt.Sprintf("it nests arrays and objects deeper than %d levels, the limit", jsonlex.MaxDepth)
	}
	return err.Error()
}
