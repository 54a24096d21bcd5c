package mcpsrc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/internal/nexus/tracing"
)

// httpTransport is the SDK's Streamable HTTP client transport, sending the
// bearer token and extra headers with every request.
func (s *Source) httpTransport() mcp.Transport {
	headers := http.Header{}
	for k, v := range s.opts.Headers {
		headers.Set(k, v)
	}
	if s.opts.Bearer != "" {
		headers.Set("Authorization", "Bearer "+s.opts.Bearer)
	}
	return &mcp.StreamableClientTransport{
		Endpoint:   s.opts.Server,
		HTTPClient: &http.Client{Transport: &headerTransport{base: http.DefaultTransport, headers: headers}},
		// nexus only calls tools: the answers (and whatever the server
		// sends while answering) come on each call's own response. The
		// standalone GET stream would only carry what nexus ignores (list
		// changes, logging), hold a connection per server, and end the
		// whole session after a few failed reconnects, where a session the
		// server forgot is better found by the next call (withSession).
		DisableStandaloneSSE: true,
	}
}

// sessionHeader carries the session's id, from the server's answer to
// initialize onwards.
const sessionHeader = "Mcp-Session-Id"

// probe records what became of the HTTP requests made for one attempt at
// an operation: whether any was sent, and whether the server answered a
// POST of one (a request, never the stream of its answer, which may come
// after the call ran) with 404 to its session id, which means the server
// does not know the session and ran nothing. The SDK alone never opens a
// new session, and sees that 404 as a lost session only when its body is
// not a JSON-RPC error with an id (nexus's own is).
type probe struct {
	sent, sessionGone atomic.Bool
	refused           atomic.Pointer[statusError] // the last answer with an error status
}

// statusError is an HTTP answer with an error status, which the SDK
// reports by its status text alone.
type statusError struct {
	code int
	body string // the start of the server's explanation
	err  error  // the SDK's error, set by probe.explain
}

func (e *statusError) Error() string {
	msg := fmt.Sprintf("HTTP %d %s", e.code, http.StatusText(e.code))
	switch e.code {
	case http.StatusUnauthorized, http.StatusForbidden:
		msg += " (a missing or wrong @bearer token or @header?)"
	}
	if e.body != "" {
		msg += ": " + e.body
	}
	return msg
}

func (e *statusError) Unwrap() error { return e.err }

// explain returns err, the failure of the requests p saw, saying the HTTP
// status and the server's words when the server refused one.
func (p *probe) explain(err error) error {
	e := p.refused.Load()
	if e == nil {
		return err
	}
	return &statusError{code: e.code, body: e.body, err: err}
}

// maxReason bounds how much of an error answer's body an error quotes.
const maxReason = 300

type probeKey struct{}

// withProbe returns ctx carrying p: the SDK makes a call's requests with
// the call's context, where headerTransport finds p.
func withProbe(ctx context.Context, p *probe) context.Context {
	return context.WithValue(ctx, probeKey{}, p)
}

// headerTransport adds fixed headers to every request and fills in the
// probe of the request's context.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range t.headers {
		req.Header[k] = vs
	}
	tracing.InjectHeaders(req.Context(), req.Header)
	p, _ := req.Context().Value(probeKey{}).(*probe)
	if p == nil {
		return t.base.RoundTrip(req)
	}
	p.sent.Store(true)
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	if resp.StatusCode == http.StatusNotFound && req.Method == http.MethodPost && req.Header.Get(sessionHeader) != "" {
		p.sessionGone.Store(true)
	}
	// The body is read here to quote it, and handed on whole to the SDK,
	// which reads a JSON-RPC error from it.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	reason := strings.Join(strings.Fields(string(body)), " ")
	if len(reason) > maxReason {
		reason = strings.ToValidUTF8(reason[:maxReason], "") + "..."
	}
	p.refused.Store(&statusError{code: resp.StatusCode, body: reason})
	return resp, nil
}
