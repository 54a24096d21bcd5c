package router

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/nexus-run/nexus/internal/nexus/tool"
)

// What a call of the JSON API answers, the same for every route that
// calls a command (so that each gets media and renderers alike):
//
//   - `?render=NAME` picks the command's output action as MCP's _render
//     property does (and wins over a _render in the body); `?render=raw`
//     asks for the result itself, past a @default action. An unknown
//     name is 400, naming the valid ones.
//   - A media result (mime: on the result's type) is its bytes, with
//     that Content-Type.
//   - A render action's text is text/plain; charset=utf-8, as it is.
//   - Anything else is JSON, in the route's own envelope (wrap).

// renderParam is the query parameter that picks an output action.
const renderParam = "render"

// withRender is named with the request's ?render= as the _render of tool
// t; msg says why the request is bad (answer 400), "" when it is not.
func withRender(r *http.Request, t *tool.Tool, named map[string]json.RawMessage) (_ map[string]json.RawMessage, msg string) {
	q := r.URL.Query()
	if !q.Has(renderParam) {
		return named, ""
	}
	v := q.Get(renderParam)
	values := t.RenderValues()
	if len(values) == 0 {
		if v == tool.RenderRaw {
			return named, ""
		}
		return nil, fmt.Sprintf("unknown render '%s': command %s has no output actions; render=%s is its result", v, t.Name, tool.RenderRaw)
	}
	if named == nil {
		named = map[string]json.RawMessage{}
	}
	named[tool.RenderKey] = tool.AppendString(nil, v)
	return named, ""
}

// writeResult answers a call that succeeded with res. wrap puts the JSON
// of a result that is neither media nor rendered text into the route's
// envelope ({"result": ...} for POST /call/<module>/<command>).
func writeResult(w http.ResponseWriter, res tool.Result, wrap func(value []byte) []byte) {
	switch {
	case res.Mime != "":
		// The bytes come from a function, and the media type from the
		// program: a text/html or image/svg+xml result must not run as a
		// page of this origin if a browser ever shows it.
		w.Header().Set("Content-Type", res.Mime)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(res.Media)
	case res.Rendered:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
		text := res.Text
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		_, _ = w.Write([]byte(text))
	default:
		writeJSON(w, http.StatusOK, wrap(res.Value))
	}
}
