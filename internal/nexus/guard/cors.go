package guard

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// CORS: the browser origins a server lets call it from their pages
// (--cors-origin), beside its own and localhost's, which the Origin check
// always lets through. None by default.

// The headers of a CORS answer.
const (
	corsMethods = "GET, POST, DELETE, OPTIONS"
	// corsHeaders are those a page may send: what the JSON API and MCP's
	// Streamable HTTP read, and the credentials.
	corsHeaders = "Content-Type, Authorization, X-API-Key, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Accept"
	// corsExpose are the response headers a page may read beyond the
	// safelisted ones: MCP's session, and when to retry a 503.
	corsExpose = "Mcp-Session-Id, Retry-After"
	// corsMaxAge is how long a browser may keep a preflight's answer:
	// ten minutes, so that an origin taken off the list stops working
	// soon after a restart.
	corsMaxAge = 600
)

// CheckOrigin reads one --cors-origin: scheme, host and optional port,
// as a browser sends it in Origin (http://localhost:3000), without a
// path. It returns the form compared with a request's Origin.
func CheckOrigin(origin string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(origin))
	switch {
	case strings.TrimSpace(origin) == "*":
		return "", fmt.Errorf("CORS origin %q: list the origins allowed, each as scheme://host[:port]; any origin is not allowed", origin)
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return "", fmt.Errorf("CORS origin %q is not an origin: write it as scheme://host[:port], as a browser sends it (http://localhost:3000)", origin)
	}
	// A browser leaves a scheme's default port out of Origin, so
	// https://app.example:443 would match no request.
	host := u.Host
	if p := u.Port(); p == map[string]string{"http": "80", "https": "443"}[u.Scheme] {
		host = strings.TrimSuffix(host, ":"+p)
	}
	return strings.ToLower(u.Scheme + "://" + host), nil
}

// corsAllowed reports whether origin is one of the CORS origins.
func (p *Policy) corsAllowed(origin string) bool {
	if len(p.cors) == 0 {
		return false
	}
	_, ok := p.cors[strings.ToLower(origin)]
	return ok
}

// setCORS adds to every answer to an allowed origin the headers that let
// its page read the answer. (Vary: Origin is on every answer of a server
// with CORS origins, see Wrap.)
func setCORS(w http.ResponseWriter, origin string) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Expose-Headers", corsExpose)
}

// preflight answers a browser's OPTIONS preflight from an allowed origin:
// 204 with what the page may send. A preflight carries no credential, so
// it is answered before the token is asked for.
func preflight(w http.ResponseWriter, origin string) {
	setCORS(w, origin)
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", corsMethods)
	h.Set("Access-Control-Allow-Headers", corsHeaders)
	h.Set("Access-Control-Max-Age", strconv.Itoa(corsMaxAge))
	w.WriteHeader(http.StatusNoContent)
}
