// Package router serves several programs behind one HTTP endpoint (nexus
// serve): MCP at /mcp, with every command a tool named
// <module>__<command>, and beside it a JSON API for clients that are not
// MCP clients: POST /call/<module>/<command>, GET /discover, GET /health
// (package health), and Morloc's daemon API, so that its clients work
// unchanged: POST /call/<command> with the arguments by position,
// GET /programs and GET /discover/<program>. GET / is the status page
// (package status).
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
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nexus-run/nexus/internal/jsonlex"
	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/health"
	"github.com/nexus-run/nexus/internal/nexus/mcp"
	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/program"
	"github.com/nexus-run/nexus/internal/nexus/status"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/internal/nexus/tracing"
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
	// Log receives a record (at warn) for each command that cannot be a
	// tool. Nil means none.
	Log *slog.Logger
	// Audit, when set, gets a line for every call, by MCP or the JSON
	// API.
	Audit *guard.Audit
	// Observe, when set, is told of every call that ends, by MCP or the
	// JSON API.
	Observe *observe.Hub
}

// Routes says what nexus serve serves (GET /metrics beside the Router), for
// a 404.
const Routes = "/mcp, POST /call/<module>/<command>, POST /call/<command>, GET /discover, GET /discover/<program>, GET /programs, GET /health, GET /metrics and the status page at GET /"

// Router is several programs behind one http.Handler.
type Router struct {
	programs []*served
	byModule map[string]*served
	tools    *tool.Set // every program's, as the JSON API calls them
	mcp      *mcp.HTTPHandler
	health   *health.Handler
	mux      *http.ServeMux
	audit    *guard.Audit
	observe  *observe.Hub
}

// served is one program served by a Router.
type served struct {
	*program.Program
	module string
	tools  []*tool.Tool
	// skipped says, by tool name, why a command is not served (it reads
	// standard input, ...), for the call routes to say so.
	skipped map[string]string
}

// New returns a Router serving the programs ms, each known by its module
// name, which must differ. It starts no pool.
func New(ms []*manifest.Manifest, opts Options) (*Router, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	rt := &Router{byModule: map[string]*served{}, audit: opts.Audit, observe: opts.Observe}
	var all []*tool.Tool
	var reported []health.Program
	var pages []status.Program
	for _, m := range ms {
		if prev := rt.byModule[m.Name]; prev != nil {
			return nil, fmt.Errorf("two programs are called %s (%s and %s); a module name must say which program a tool is from", m.Name, prev.Manifest.Dir, m.Dir)
		}
		p := &served{Program: program.New(m, opts.Pool), module: m.Name, skipped: map[string]string{}}
		tools, skipped := p.Tools(m.Name + Separator)
		for _, s := range skipped {
			opts.Log.Warn(s.String(), "program", m.Name)
			if c := m.Command(s.Command); c != nil {
				p.skipped[c.ToolName()] = s.Reason
			}
		}
		p.tools = tools
		all = append(all, tools...)
		rt.programs = append(rt.programs, p)
		rt.byModule[m.Name] = p
		reported = append(reported, health.Program{Module: m.Name, Pools: p.Pools})
		pages = append(pages, status.Program{Module: m.Name, Description: strings.Join(m.Doc, "\n"), Tools: tools, Pools: p.Pools})
	}
	rt.tools = tool.NewSet(all, opts.Calls)
	rt.mcp = mcp.NewHTTPHandler(mcp.NewServer("nexus", all, mcp.Options{
		CallTimeout: opts.Calls.CallTimeout, Audit: opts.Audit, Program: moduleOf,
		Observe: opts.Observe, Transport: observe.HTTP}), opts.HTTP)
	rt.health = health.New(reported, rt.mcp.Sessions)
	rt.mux = http.NewServeMux()
	rt.mux.Handle("/mcp", rt.mcp)
	rt.mux.HandleFunc("POST /call/{module}/{command}", rt.call)
	rt.mux.HandleFunc("POST /call/{command}", rt.callDaemon)
	rt.mux.HandleFunc("GET /discover", rt.discover)
	rt.mux.HandleFunc("GET /discover/{program}", rt.discoverOne)
	rt.mux.HandleFunc("GET /programs", rt.listPrograms)
	rt.health.Mount(rt.mux)
	status.New(pages, opts.Observe).Mount(rt.mux)
	// Every other request is answered in JSON too, not by the mux's
	// plain text: a path served for other methods is 405 (a pattern with
	// a method wins over the same path without), anything else 404.
	rt.mux.Handle("/call/{module}/{command}", guard.MethodNotAllowed("", http.MethodPost))
	rt.mux.Handle("/call/{command}", guard.MethodNotAllowed("", http.MethodPost))
	for _, path := range []string{"/discover", "/discover/{program}", "/programs"} {
		rt.mux.Handle(path, guard.MethodNotAllowed("", http.MethodGet, http.MethodHead))
	}
	rt.mux.Handle("/", guard.NotFound(Routes))
	return rt, nil
}

func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) { rt.mux.ServeHTTP(w, r) }

// Tools are the names of the tools each module serves (MCP's and the JSON
// API's names of its commands), for metrics to tell them from names a
// client made up.
func (rt *Router) Tools() map[string][]string {
	out := map[string][]string{}
	for _, p := range rt.programs {
		for _, t := range p.tools {
			out[p.module] = append(out[p.module], t.Name)
		}
	}
	return out
}

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

// call runs a command of the module the path names: the body holds its
// arguments by name, as an MCP client gives them. A command the request's
// credential may not call is 403.
func (rt *Router) call(w http.ResponseWriter, r *http.Request) {
	module, command := r.PathValue("module"), r.PathValue("command")
	rt.invoke(w, r, moduleReply, module, command, func(body []byte) (map[string]json.RawMessage, error) {
		var named map[string]json.RawMessage
		if text := strings.TrimSpace(string(body)); len(text) > 0 {
			if text[0] != '{' && text != "null" && json.Valid(body) {
				msg := "the body must be a JSON object of the arguments by name, not "
				if text[0] == '[' {
					// Morloc's daemon form, sent to nexus's route.
					return nil, badBody(msg + "an array; arguments by position go to POST /call/" + command)
				}
				return nil, badBody(msg + jsonKind(text))
			}
			if err := json.Unmarshal(body, &named); err != nil {
				return nil, badBody("the body must be a JSON object of the arguments by name: " + bodyError(err))
			}
			if named == nil { // null, which Unmarshal takes for an empty map
				return nil, badBody("the body must be a JSON object of the arguments by name, not null")
			}
		}
		return named, nil
	})
}

// invoke is the one call path of both call routes: it runs command of
// module with the named arguments that args reads from the body, and
// answers in form. A call refused while a pool it needs recovers from a
// death is 503 with Retry-After (pool.RefuseWhileRecovering): a client of
// the JSON API retries, rather than waiting for the restart.
func (rt *Router) invoke(w http.ResponseWriter, r *http.Request, form replyForm, module, command string,
	args func(body []byte) (map[string]json.RawMessage, error)) {
	start := time.Now()
	rt.observe.Begin(observe.JSONAPI)
	outcome := guard.OutcomeError
	cred := guard.CredentialOf(r.Context())
	name := module + Separator + command
	seen, failure := observe.BadArguments, ""
	ctx, span := tracing.ToolCall(tracing.FromHeaders(r.Context(), r.Header), start, module, name, observe.JSONAPI, "")
	defer func() {
		rt.audit.Call(cred.String(), module, name, start, outcome)
		rt.observe.Done(observe.Call{Program: module, Tool: name, Transport: observe.JSONAPI,
			Start: start, Duration: time.Since(start), Outcome: seen, Error: failure})
		span.EndCall(seen, failure)
	}()
	if rt.byModule[module] == nil {
		form.fail(w, http.StatusNotFound, fmt.Sprintf("unknown module '%s' (serving %s)", module, strings.Join(rt.modules(), ", ")))
		return
	}
	t := rt.tools.Tool(name)
	if t == nil {
		msg := fmt.Sprintf("module %s has no command '%s'", module, command)
		if why, ok := rt.byModule[module].skipped[command]; ok {
			msg = fmt.Sprintf("command '%s' of module %s is not served: %s", command, module, why)
		} else if c := rt.byModule[module].Manifest.Command(command); c != nil && c.Group != "" {
			msg += fmt.Sprintf(" (it is in group %s: call /call/%s/%s)", c.Group, module, c.ToolName())
		}
		form.fail(w, http.StatusNotFound, msg)
		return
	}
	if cred != nil && !cred.MayCall(name) {
		seen = observe.Denied
		form.fail(w, http.StatusForbidden, cred.Denied(name))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		status, msg := guard.BodyStatus(err)
		form.fail(w, status, msg)
		return
	}
	named, err := args(body)
	if err == nil {
		var msg string
		if named, msg = withRender(r, t, named); msg != "" {
			err = badBody(msg)
		}
	}
	var bad *tool.ArgError
	var badB badBody
	switch {
	case errors.As(err, &bad):
		form.fail(w, http.StatusBadRequest, bad.Msg)
		return
	case errors.As(err, &badB):
		form.fail(w, http.StatusBadRequest, string(badB))
		return
	case err != nil:
		form.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	res, err := rt.tools.Call(pool.RefuseWhileRecovering(observe.WithTool(ctx, name)), name, named)
	if err != nil && !errors.As(err, &bad) {
		seen, failure = observe.FailureOutcome(err), err.Error()
	}
	var down *pool.UnavailableError
	switch {
	case err == nil:
		outcome, seen = guard.OutcomeOK, observe.OK
		writeResult(w, res, form.wrap)
	case errors.As(err, &bad):
		form.fail(w, http.StatusBadRequest, bad.Msg)
	case errors.As(err, &down):
		if down.RetryAfter > 0 {
			w.Header().Set("Retry-After", fmt.Sprint(int(math.Ceil(down.RetryAfter.Seconds()))))
		}
		form.fail(w, http.StatusServiceUnavailable, err.Error())
	case r.Context().Err() != nil:
		// The client went away: there is no one to answer.
	default:
		form.fail(w, http.StatusInternalServerError, err.Error())
	}
}

// badBody is a body that does not hold arguments in the route's form.
type badBody string

func (e badBody) Error() string { return string(e) }

// replyForm is how a call route answers.
type replyForm int

const (
	// moduleReply is POST /call/<module>/<command>'s: {"result": ...},
	// and {"error": ...} as every refusal of the guard.
	moduleReply replyForm = iota
	// daemonReply is POST /call/<command>'s, Morloc's daemon's:
	// {"status": "ok", "result": ...} and
	// {"status": "error", "error": ...}.
	daemonReply
)

// wrap puts the JSON of a result in the route's envelope (writeResult).
func (f replyForm) wrap(value []byte) []byte {
	var out []byte
	if f == daemonReply {
		out = append([]byte(`{"status":"ok","result":`), value...)
	} else {
		out = append([]byte(`{"result":`), value...)
	}
	return append(out, '}')
}

func (f replyForm) fail(w http.ResponseWriter, status int, msg string) {
	if f == moduleReply {
		guard.Error(w, status, msg)
		return
	}
	body, _ := json.Marshal(struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	}{"error", msg})
	w.Header().Set("X-Content-Type-Options", "nosniff")
	writeJSON(w, status, body)
}

// callDaemon runs a command as Morloc's daemon does: POST /call/<command>
// with its arguments by position, the body a JSON array or {"args":
// [...]}, an empty body none. The command is the one of that name among
// the programs served; when several have it, the caller must say which
// (409, naming the /call/<module>/<command> paths).
func (rt *Router) callDaemon(w http.ResponseWriter, r *http.Request) {
	command := r.PathValue("command")
	var has []string
	for _, p := range rt.programs {
		if rt.tools.Tool(p.module+Separator+command) != nil {
			has = append(has, p.module)
		}
	}
	if len(has) != 1 {
		// Audited as every call, though it names no program.
		rt.audit.Call(guard.CredentialOf(r.Context()).String(), "", command, time.Now(), guard.OutcomeError)
	}
	switch len(has) {
	case 0:
		msg := fmt.Sprintf("unknown command '%s' (%s)", command, rt.commandList())
		for _, p := range rt.programs {
			if why, ok := p.skipped[command]; ok {
				msg = fmt.Sprintf("command '%s' of %s is not served: %s (%s)", command, p.module, why, rt.commandList())
			}
		}
		var grouped []string
		for _, p := range rt.programs {
			if c := p.Manifest.Command(command); c != nil && c.Group != "" {
				grouped = append(grouped, fmt.Sprintf("/call/%s in group %s of %s", c.ToolName(), c.Group, p.module))
			}
		}
		if len(grouped) > 0 {
			// A grouped command is called by its tool name.
			msg += "; call " + strings.Join(grouped, " or ")
		}
		daemonReply.fail(w, http.StatusNotFound, msg)
		return
	case 1:
	default:
		paths := make([]string, len(has))
		for i, m := range has {
			paths[i] = "/call/" + m + "/" + command
		}
		daemonReply.fail(w, http.StatusConflict, fmt.Sprintf("command '%s' is in %d programs (%s): call %s", command, len(has), strings.Join(has, ", "), strings.Join(paths, " or ")))
		return
	}
	module := has[0]
	t := rt.tools.Tool(module + Separator + command)
	rt.invoke(w, r, daemonReply, module, command, func(body []byte) (map[string]json.RawMessage, error) {
		values, err := positional(body, "/call/"+module+"/"+command)
		if err != nil {
			return nil, err
		}
		return t.Positional(values)
	})
}

// positional reads the body of a daemon call: a JSON array of the
// arguments, or an object {"args": [...]}; empty, none. named is the
// path that takes the arguments by name, for a body that gives them so.
func positional(body []byte, named string) ([]json.RawMessage, error) {
	const want = `the body must be a JSON array of the arguments, or {"args": [...]}`
	text := strings.TrimSpace(string(body))
	if text == "" {
		return nil, nil
	}
	if text[0] == '{' {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(body, &obj); err != nil {
			return nil, badBody(want + ": " + bodyError(err))
		}
		var unknown []string
		for k := range obj {
			if k != "args" {
				unknown = append(unknown, strconv.Quote(k))
			}
		}
		if len(unknown) > 0 {
			// Sorted, so that the answer does not change with map order.
			slices.Sort(unknown)
			msg := fmt.Sprintf("%s: unknown key %s", want, strings.Join(unknown, ", "))
			if obj["args"] == nil {
				msg += "; arguments by name go to POST " + named
			}
			return nil, badBody(msg)
		}
		body = obj["args"]
		if body == nil {
			return nil, badBody(want + `: "args" is missing`)
		}
		if t := strings.TrimSpace(string(body)); t != "" && t[0] != '[' && t != "null" {
			return nil, badBody(fmt.Sprintf(`%s: "args" is %s, not an array`, want, jsonKind(t)))
		}
	} else if text[0] != '[' && text != "null" {
		if !json.Valid(body) {
			var v any
			return nil, badBody(want + ": " + bodyError(json.Unmarshal(body, &v)))
		}
		return nil, badBody(fmt.Sprintf("%s, not %s", want, jsonKind(text)))
	}
	var values []json.RawMessage
	if err := json.Unmarshal(body, &values); err != nil {
		return nil, badBody(want + ": " + bodyError(err))
	}
	if values == nil {
		return nil, badBody(want + ", not null")
	}
	return values, nil
}

// jsonKind names the kind of the JSON value text (valid, not an array)
// for a message: a Go type in one would tell a client nothing.
func jsonKind(text string) string {
	switch text[0] {
	case '{':
		return "an object"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// discover lists the programs and their tools, as MCP's tools/list shows
// them (to a credential, the tools it may call, unless it may only list),
// with the path that calls each through the JSON API.
func (rt *Router) discover(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Programs []discovered `json:"programs"`
	}{Programs: []discovered{}}
	for _, p := range rt.programs {
		out.Programs = append(out.Programs, rt.discovered(r, p))
	}
	writeValue(w, http.StatusOK, out)
}

// discoverOne is GET /discover/<program>: one entry of GET /discover.
func (rt *Router) discoverOne(w http.ResponseWriter, r *http.Request) {
	p := rt.byModule[r.PathValue("program")]
	if p == nil {
		guard.Error(w, http.StatusNotFound, fmt.Sprintf("unknown program '%s' (serving %s)", r.PathValue("program"), strings.Join(rt.modules(), ", ")))
		return
	}
	writeValue(w, http.StatusOK, rt.discovered(r, p))
}

// programs is GET /programs: each program's module, description and
// command names (those the credential may see, as in /discover), with
// the path of its discovery document.
func (rt *Router) listPrograms(w http.ResponseWriter, r *http.Request) {
	type prog struct {
		Module      string   `json:"module"`
		Description string   `json:"description,omitempty"`
		Commands    []string `json:"commands"`
		Discover    string   `json:"discover"`
	}
	out := struct {
		Programs []prog `json:"programs"`
	}{Programs: []prog{}}
	for _, p := range rt.programs {
		d := rt.discovered(r, p)
		pr := prog{Module: p.module, Description: d.Description, Commands: []string{}, Discover: "/discover/" + p.module}
		for _, e := range d.Tools {
			pr.Commands = append(pr.Commands, strings.TrimPrefix(e.Tool.Name, p.module+Separator))
		}
		out.Programs = append(out.Programs, pr)
	}
	writeValue(w, http.StatusOK, out)
}

// discovered is one program of GET /discover.
type discovered struct {
	Module      string       `json:"module"`
	Description string       `json:"description,omitempty"`
	Tools       []discoEntry `json:"tools"`
}

type discoEntry struct {
	Call string     `json:"call"`
	Tool *tool.Tool `json:"tool"`
}

// discovered is program p as GET /discover shows it to the client of r.
func (rt *Router) discovered(r *http.Request, p *served) discovered {
	d := discovered{Module: p.module, Description: strings.Join(p.Manifest.Doc, "\n"), Tools: []discoEntry{}}
	cred := guard.CredentialOf(r.Context())
	for _, t := range p.tools {
		if cred != nil && !cred.ListOnly() && !cred.MayCall(t.Name) {
			continue
		}
		command := strings.TrimPrefix(t.Name, p.module+Separator)
		d.Tools = append(d.Tools, discoEntry{Call: "/call/" + p.module + "/" + command, Tool: t})
	}
	return d
}

// commandList names the commands served, each once, sorted.
func (rt *Router) commandList() string {
	var names []string
	for _, p := range rt.programs {
		for _, t := range p.tools {
			names = append(names, strings.TrimPrefix(t.Name, p.module+Separator))
		}
	}
	if len(names) == 0 {
		return "no command is served"
	}
	slices.Sort(names)
	return "serving " + strings.Join(slices.Compact(names), ", ")
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
