package mcp

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/jsonrpc"
	"github.com/nexus-run/nexus/internal/nexus/tracing"
)

// Defaults of HTTPOptions.
const (
	// DefaultSessionIdle is how long a session lives without a request:
	// long enough for an agent that pauses between tool calls, short
	// enough that abandoned sessions do not pile up.
	DefaultSessionIdle = time.Hour
	// DefaultMaxSessions caps the session table. A session costs a few
	// hundred bytes, so the cap is about stopping a client that opens
	// sessions in a loop, not about memory in normal use.
	DefaultMaxSessions = 10000
	// DefaultMaxClientSessions caps the sessions of one client (see
	// guard.Client): a tenth of the table, so that one client opening
	// sessions in a loop leaves room for the others, while an agent
	// running hundreds of sub-agents still fits.
	DefaultMaxClientSessions = 1000
	// DefaultSessionUnused is how long a session lives when no request
	// has come since initialize. A client lists its tools right after
	// the handshake; a session that asks nothing was opened for nothing,
	// or to fill the table.
	DefaultSessionUnused = 30 * time.Second
)

// Headers of the Streamable HTTP transport: the session's (legacy), the
// version's (both eras), and those that let a proxy route a 2026-07-28
// request without reading its body (see headers.go).
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
)

// HTTPOptions configure an HTTPHandler. The zero value works.
type HTTPOptions struct {
	// SessionIdle is how long a session may go without a request before it
	// expires; zero means DefaultSessionIdle.
	SessionIdle time.Duration
	// MaxSessions caps the sessions alive at once; zero means
	// DefaultMaxSessions.
	MaxSessions int
	// MaxClientSessions caps the sessions of one client (guard.Client:
	// one token, or one address when there is none); zero means
	// DefaultMaxClientSessions.
	MaxClientSessions int
	// SessionUnused is how long a session lives when it has made no
	// request since initialize (notifications do not count); zero means
	// DefaultSessionUnused. It never exceeds SessionIdle.
	SessionUnused time.Duration
}

// HTTPHandler serves a Server over MCP's Streamable HTTP transport: each
// POST carries one JSON-RPC message, and the reply to a request is the
// response body (JSON, or a one-event stream for a client that accepts
// only text/event-stream). Sessions begin with initialize, which answers
// with an Mcp-Session-Id, and end with DELETE, after SessionIdle without
// a request, or after SessionUnused when no request came after
// initialize. Each client (guard.Client) may hold MaxClientSessions, and
// all together MaxSessions. A session belongs to the credentials (the Authorization
// header) that created it: any other sees it as unknown.
//
// HTTPHandler checks nothing about who may call it: put it behind
// guard.Policy. Its methods are safe for concurrent use.
type HTTPHandler struct {
	srv       *Server
	idle      time.Duration
	unused    time.Duration
	max       int
	maxClient int

	mu       sync.Mutex
	sessions map[string]*httpSession
	clients  map[string]int // sessions by client
	closed   bool
	stop     chan struct{} // closed by Close, ending the sweeper
}

// httpSession is a Session with what HTTP adds: its owner and its age.
type httpSession struct {
	*Session
	owner  [sha256.Size]byte // the SHA-256 of the Authorization header
	client string            // guard.Client of the request that opened it
	// Guarded by HTTPHandler.mu:
	last time.Time // of the last request
	used bool      // a request came after initialize
}

// NewHTTPHandler returns a handler serving srv. Close it to end its
// sessions.
func NewHTTPHandler(srv *Server, opts HTTPOptions) *HTTPHandler {
	h := &HTTPHandler{srv: srv, idle: opts.SessionIdle, unused: opts.SessionUnused,
		max: opts.MaxSessions, maxClient: opts.MaxClientSessions,
		sessions: map[string]*httpSession{}, clients: map[string]int{}, stop: make(chan struct{})}
	if h.idle <= 0 {
		h.idle = DefaultSessionIdle
	}
	if h.unused <= 0 {
		h.unused = DefaultSessionUnused
	}
	h.unused = min(h.unused, h.idle)
	if h.max <= 0 {
		h.max = DefaultMaxSessions
	}
	if h.maxClient <= 0 {
		h.maxClient = DefaultMaxClientSessions
	}
	go h.sweep()
	return h
}

// Sessions is the number of sessions alive.
func (h *HTTPHandler) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// Close ends every session, cancelling their calls, and refuses new ones.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	close(h.stop)
	sessions := h.sessions
	h.sessions = map[string]*httpSession{}
	h.clients = map[string]int{}
	h.mu.Unlock()
	for _, s := range sessions {
		s.Cancel()
		s.Wait()
	}
}

func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost:
		if tracing.On() {
			// A call's parent span, unless its _meta names one (traceCall).
			r = r.WithContext(tracing.FromHeaders(r.Context(), r.Header))
		}
		h.post(w, r)
	case statelessHeader(r.Header.Get(HeaderProtocolVersion)):
		// No stream to open and no session to end in 2026-07-28.
		statelessMethodNotAllowed.ServeHTTP(w, r)
	case r.Method == http.MethodDelete:
		h.delete(w, r)
	default:
		// No server-initiated stream: this server never sends requests or
		// notifications of its own.
		methodNotAllowed.ServeHTTP(w, r)
	}
}

// methodNotAllowed answers the methods the endpoint has no use for.
var (
	methodNotAllowed          = guard.MethodNotAllowed("POST JSON-RPC messages, DELETE to end a session", http.MethodPost, http.MethodDelete)
	statelessMethodNotAllowed = guard.MethodNotAllowed("protocol "+V20260728+" has no sessions and no server stream", http.MethodPost)
)

// statelessHeader reports whether an MCP-Protocol-Version header names a
// version of the stateless era (or one this server does not know, which
// only a client newer than it sends).
func statelessHeader(v string) bool { return v != "" && !isLegacy(v) }

func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		guard.BodyError(w, err)
		return
	}
	m, id, rpcErr := decode(body)
	if rpcErr != nil {
		writeJSON(w, http.StatusBadRequest, jsonrpc.Fail(id, rpcErr))
		return
	}
	// A notification's _meta makes it stateless too (it is answered 202).
	e := readEnvelope(m.PeekParams())
	sid := r.Header.Get(HeaderSessionID)
	hv := r.Header.Get(HeaderProtocolVersion)
	// The era: 2026-07-28 by the body or the header; by a version header
	// this server does not know only without a session, whose client
	// speaks a legacy version and is told so below.
	if e.isStateless() || hv == V20260728 || statelessHeader(hv) && sid == "" {
		h.postStateless(w, r, m, e)
		return
	}
	var s *httpSession
	switch {
	case sid == "" && m.IsRequest() && m.Method == methodInitialize:
		var status int
		var msg string
		if s, sid, status, msg = h.open(r); s == nil {
			if status == http.StatusServiceUnavailable {
				w.Header().Set("Retry-After", "60")
			}
			refuse(w, m, status, jsonrpc.Errorf(jsonrpc.CodeInternalError, "%s", msg))
			return
		}
	case sid == "" && m.IsRequest() && !sessionMethod(m.Method):
		// A method this server does not have, or a server/discover
		// without the _meta of 2026-07-28, is answered as such, with its
		// id, so that the client falls back to initialize.
		refuse(w, m, http.StatusOK, methodNotFound(m.Method))
		return
	case sid == "":
		refuse(w, m, http.StatusBadRequest, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
			"missing %s header: send initialize first, then the session id it returns with every request", HeaderSessionID))
		return
	default:
		if s = h.lookup(sid, r); s == nil {
			refuse(w, m, http.StatusNotFound, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
				"unknown or expired session: initialize a new one"))
			return
		}
		// After initialize, requests say which version they speak.
		if hv != "" && !isLegacy(hv) {
			refuse(w, m, http.StatusBadRequest, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
				"unsupported %s: %s (a session speaks %s)", HeaderProtocolVersion, hv, strings.Join(legacy, ", ")))
			return
		}
	}
	defer h.touch(s, m.IsRequest() && m.Method != methodInitialize)

	if !m.IsRequest() {
		s.handle(r.Context(), m, e, func([]byte) {})
		w.WriteHeader(http.StatusAccepted)
		return
	}
	events := newEventStream(w, r) // for a call's progress, when it has some
	defer events.end()
	reply, ok := await(r, func(send func([]byte)) { s.handle(events.context(r.Context()), m, e, send) })
	if !ok {
		return
	}
	if m.Method == methodInitialize {
		if !s.begun() {
			h.drop(sid)
		} else {
			w.Header().Set(HeaderSessionID, sid)
		}
	}
	writeReply(w, r, m, reply, events)
}

// postStateless serves a POST of the stateless era, m, a request with
// envelope e or a notification, on its own: no session is looked up,
// minted or echoed, and the request's context is the call's, so a client
// that closes the response stream cancels its call.
func (h *HTTPHandler) postStateless(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, e envelope) {
	if !m.IsRequest() {
		// Nothing a notification could say to a server without state:
		// cancellation is the closing of the request's stream.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// A _meta without a version is refused first (-32602, or 404 for a
	// method the revision has not): the headers have nothing to be
	// compared with.
	if e.version == "" {
		err := checkStateless(m.Method, e)
		refuse(w, m, statelessStatus(err), err)
		return
	}
	if err := checkHeaders(r.Header, m.Method, e); err != nil {
		refuse(w, m, http.StatusBadRequest, err)
		return
	}
	// The header must equal the _meta version before that version is
	// judged: a request whose two disagree is refused for that (-32020),
	// whichever of them nexus speaks. A _meta without a version is
	// refused by checkStateless (-32602).
	if err := checkVersionHeader(r.Header, e); err != nil {
		refuse(w, m, http.StatusBadRequest, err)
		return
	}
	if err := checkStateless(m.Method, e); err != nil {
		refuse(w, m, statelessStatus(err), err)
		return
	}
	ss := h.srv.NewSession()
	events := newEventStream(w, r) // for a call's progress, when it has some
	defer events.end()
	reply, ok := await(r, func(send func([]byte)) { ss.serveStateless(events.context(r.Context()), m, e, send) })
	if ok {
		writeReply(w, r, m, reply, events)
	}
}

// statelessStatus is the HTTP status of err, a stateless request's
// refusal by checkStateless: 404 for a method it does not have, else 400.
func statelessStatus(err *jsonrpc.Error) int {
	if err.Code == jsonrpc.CodeMethodNotFound {
		return http.StatusNotFound
	}
	return http.StatusBadRequest
}

// await runs serve, which hands the reply to a request to send, and
// returns that reply; ok is false when the client went away first (the
// call's context, the request's, is cancelled with it, and there is no
// one to answer).
func await(r *http.Request, serve func(send func([]byte))) (reply []byte, ok bool) {
	replies := make(chan []byte, 1)
	serve(func(b []byte) { replies <- b })
	select {
	case reply = <-replies:
		return reply, true
	case <-r.Context().Done():
		return nil, false
	}
}

// writeReply writes reply, the reply to m, as the response to r: as the
// last event of events when the call sent notifications there.
func writeReply(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, reply []byte, events *eventStream) {
	switch {
	case events.started():
		events.send(reply)
	case reply != nil && m.Check() != nil:
		// A large call that turned out not to be JSON, answered with the
		// parse error: with the status of a small one (see decode above).
		writeJSON(w, http.StatusBadRequest, reply)
	case reply == nil:
		// The client cancelled the call: no reply, by the protocol.
		w.WriteHeader(http.StatusAccepted)
	case acceptsOnlyEvents(r.Header.Values("Accept")):
		// A one-event stream (events is not nil: the client accepts them).
		events.send(reply)
	default:
		writeJSON(w, http.StatusOK, reply)
	}
}

func (h *HTTPHandler) delete(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(HeaderSessionID)
	if sid == "" {
		guard.Error(w, http.StatusBadRequest, "missing "+HeaderSessionID+" header: DELETE ends the session it names")
		return
	}
	s := h.lookup(sid, r)
	if s == nil {
		guard.Error(w, http.StatusNotFound, "unknown or expired session")
		return
	}
	h.drop(sid)
	s.Cancel()
	w.WriteHeader(http.StatusNoContent)
}

// open starts a session for the client of r. On failure it returns the
// status to answer and why: 503 when the table, or the client's share of
// it, is full, 410 when closed.
func (h *HTTPHandler) open(r *http.Request) (*httpSession, string, int, string) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, "", http.StatusInternalServerError, "cannot make a session id: " + err.Error()
	}
	sid := hex.EncodeToString(raw[:])
	s := &httpSession{Session: h.srv.NewSession(), owner: owner(r), client: guard.Client(r), last: time.Now()}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, "", http.StatusGone, "the server is shutting down"
	}
	if len(h.sessions) >= h.max || h.clients[s.client] >= h.maxClient {
		h.expireLocked(time.Now())
	}
	switch {
	case len(h.sessions) >= h.max:
		return nil, "", http.StatusServiceUnavailable, "too many sessions; try again later"
	case h.clients[s.client] >= h.maxClient:
		return nil, "", http.StatusServiceUnavailable, fmt.Sprintf(
			"too many sessions from this client (%d); end unused ones with DELETE, or try again later", h.maxClient)
	}
	h.sessions[sid] = s
	h.clients[s.client]++
	return s, sid, 0, ""
}

// lookup returns the session sid when it is alive and belongs to the
// client of r, else nil.
func (h *HTTPHandler) lookup(sid string, r *http.Request) *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[sid]
	if s == nil || s.owner != owner(r) {
		return nil
	}
	if h.expiredLocked(s, time.Now()) {
		h.removeLocked(sid, s)
		return nil
	}
	s.last = time.Now()
	return s
}

// touch notes a message of session s as its last; used says the message
// was a request after initialize.
func (h *HTTPHandler) touch(s *httpSession, used bool) {
	h.mu.Lock()
	s.last = time.Now()
	s.used = s.used || used
	h.mu.Unlock()
}

func (h *HTTPHandler) drop(sid string) {
	h.mu.Lock()
	if s := h.sessions[sid]; s != nil {
		h.removeLocked(sid, s)
	}
	h.mu.Unlock()
}

// removeLocked takes session sid, s, out of the table.
func (h *HTTPHandler) removeLocked(sid string, s *httpSession) {
	delete(h.sessions, sid)
	if h.clients[s.client]--; h.clients[s.client] <= 0 {
		delete(h.clients, s.client)
	}
}

// sweep ends idle sessions now and then, so that clients that never come
// back do not keep theirs forever.
func (h *HTTPHandler) sweep() {
	every := min(max(h.unused/4, 10*time.Millisecond), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case now := <-t.C:
			h.mu.Lock()
			h.expireLocked(now)
			h.mu.Unlock()
		}
	}
}

func (h *HTTPHandler) expireLocked(now time.Time) {
	for sid, s := range h.sessions {
		if h.expiredLocked(s, now) {
			h.removeLocked(sid, s)
			s.Cancel()
		}
	}
}

// expiredLocked reports whether s has been idle too long: SessionIdle, or
// SessionUnused when it has made no request since initialize. A session
// with a call in flight is not idle.
func (h *HTTPHandler) expiredLocked(s *httpSession, now time.Time) bool {
	limit := h.idle
	if !s.used {
		limit = h.unused
	}
	return now.Sub(s.last) > limit && !s.Busy()
}

// sessionMethod reports whether method is one a session serves.
func sessionMethod(method string) bool {
	switch method {
	case methodInitialize, methodPing, methodToolsList, methodToolsCall:
		return true
	}
	return false
}

// owner identifies the credentials of r: the credential's name when the
// server has a credentials file (so that Authorization: Bearer and
// X-API-Key with one secret are one owner, and a session survives a
// reload that keeps its credential), else the Authorization header.
// Hashing keeps the token itself out of the session table.
func owner(r *http.Request) [sha256.Size]byte {
	if c := guard.CredentialOf(r.Context()); c != nil {
		return sha256.Sum256([]byte("credential\x00" + c.Name))
	}
	return sha256.Sum256([]byte(r.Header.Get("Authorization")))
}

// acceptsOnlyEvents reports whether an Accept header admits
// text/event-stream and no JSON: such a client gets even a lone reply as a
// one-event stream.
func acceptsOnlyEvents(accept []string) bool {
	events, json := accepted(accept)
	return events && !json
}

// acceptsEvents reports whether an Accept header names text/event-stream,
// which clients of Streamable HTTP list beside JSON.
func acceptsEvents(accept []string) bool {
	events, _ := accepted(accept)
	return events
}

// accepted reads the values of an Accept header: whether they name
// text/event-stream, and whether they admit JSON.
func accepted(accept []string) (events, json bool) {
	for _, a := range accept {
		for part := range strings.SplitSeq(a, ",") {
			mt, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "text/event-stream":
				events = true
			case "application/json", "application/*", "*/*":
				json = true
			}
		}
	}
	return events, json
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// refuse answers m with status and err, or with 400 and the parse error
// when m turns out not to be JSON (a large call, whose check may still
// run).
func refuse(w http.ResponseWriter, m *jsonrpc.Message, status int, err *jsonrpc.Error) {
	if m.Check() != nil {
		status = http.StatusBadRequest
	}
	writeJSON(w, status, m.Fail(err))
}

// readBody reads a request's body. A body of known length (as clients send
// a call's arguments) is read into one buffer of that size; io.ReadAll
// would grow one from 512 bytes, copying a 2 MB call's arguments twice
// over. The length is trusted up to guard.DefaultMaxBody only: the guard
// in front has refused longer ones, and without it a lying header must not
// reserve gigabytes.
func readBody(r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n > 0 && n <= guard.DefaultMaxBody {
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, err
		}
		return body, nil
	}
	return io.ReadAll(r.Body)
}
