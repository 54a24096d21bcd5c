package mcp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/jsonrpc"
)

// Methods and notifications the server knows.
const (
	methodInitialize  = "initialize"
	methodPing        = "ping"
	methodToolsList   = "tools/list"
	methodToolsCall   = "tools/call"
	notifyInitialized = "notifications/initialized"
	notifyCancelled   = "notifications/cancelled"
)

// state is where a session is in the lifecycle.
type state int

const (
	fresh       state = iota // nothing but ping and initialize yet
	initialized              // initialize answered; waiting for notifications/initialized
	ready                    // the handshake is complete
)

// Session is one client's conversation with a Server: its place in the
// lifecycle, its protocol version and its calls in flight. A transport
// makes one per connection (stdio) or per Mcp-Session-Id (HTTP).
type Session struct {
	srv *Server

	mu      sync.Mutex
	state   state
	version string
	calls   map[string]*inflight // by the request id's JSON
	wg      sync.WaitGroup       // calls in flight
}

// inflight is a tools/call being run.
type inflight struct {
	cancel context.CancelFunc
	// cancelled is set when the client cancelled the call, whose reply is
	// then not sent.
	cancelled bool
}

// NewSession starts a session with a client.
func (s *Server) NewSession() *Session {
	return &Session{srv: s, calls: map[string]*inflight{}}
}

// Handle handles one incoming message, data. For a request (and for data
// that is no valid message) reply is called once, with the reply to send,
// or with nil when there is none to send: the client cancelled the call.
// For a notification or a response reply is not called. Handle reports
// whether reply is (or will be) called.
//
// Everything but tools/call is answered before Handle returns, so the
// lifecycle keeps the order in which messages arrive. A tools/call runs on
// a goroutine of its own, and Handle returns at once; cancelling ctx (the
// client went away, the server stops) cancels it. reply may therefore be
// called from several goroutines at once, and after Handle returns; it
// must write each reply whole. Handle is safe for concurrent use.
func (ss *Session) Handle(ctx context.Context, data []byte, reply func([]byte)) (replies bool) {
	m, id, err := decode(data)
	if err != nil {
		reply(jsonrpc.Fail(id, err))
		return true
	}
	ss.handle(ctx, m, readEnvelope(m.PeekParams()), reply)
	return m.IsRequest()
}

// decode decodes one incoming message. A large tools/call comes back
// while it is still being checked as JSON, so that binding its arguments
// runs beside the check (see jsonrpc.ReadParams); any other message is
// checked first.
func decode(data []byte) (*jsonrpc.Message, json.RawMessage, *jsonrpc.Error) {
	return jsonrpc.Decode(data, methodToolsCall)
}

// handle is Handle for a message already decoded (by decode), with its
// envelope e (readEnvelope), which says its era: a transport that had to
// look at it first (Streamable HTTP routes on the method and the era)
// hands them on, so that a large call's arguments are read once, not
// twice.
func (ss *Session) handle(ctx context.Context, m *jsonrpc.Message, e envelope, reply func([]byte)) {
	switch {
	case m.IsNotification():
		ss.notify(m)
	case m.IsRequest():
		ss.request(ctx, m, e, reply)
	}
	// A response to a request of ours: the server sends none, so there
	// is nothing to match it with.
}

// Wait blocks until every tools/call in flight has ended and its reply
// has been handed to reply.
func (ss *Session) Wait() { ss.wg.Wait() }

// begun reports whether initialize has succeeded.
func (ss *Session) begun() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state != fresh
}

// Busy reports whether calls are in flight.
func (ss *Session) Busy() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.calls) > 0
}

// Cancel cancels every call in flight. Their replies are still sent.
func (ss *Session) Cancel() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, c := range ss.calls {
		c.cancel()
	}
}

func (ss *Session) request(ctx context.Context, m *jsonrpc.Message, e envelope, reply func([]byte)) {
	if e.isStateless() {
		ss.serveStateless(ctx, m, e, reply)
		return
	}
	switch m.Method {
	case methodPing:
		reply(m.Result(struct{}{}))
	case methodInitialize:
		reply(ss.initialize(m))
	case methodToolsList:
		if err := ss.needReady(); err != nil {
			reply(m.Fail(err))
			return
		}
		reply(m.ResultJSON(ss.listResult(guard.CredentialOf(ctx))))
	case methodToolsCall:
		if err := ss.needReady(); err != nil {
			reply(m.Fail(err))
			return
		}
		ss.mu.Lock()
		version := ss.version
		ss.mu.Unlock()
		ss.startCall(ctx, m, version, reply)
	default:
		reply(m.Fail(methodNotFound(m.Method)))
	}
}

func (ss *Session) initialize(m *jsonrpc.Message) []byte {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	params, err := m.Params()
	if err != nil {
		return m.Fail(err)
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return m.Fail(invalidParams("invalid initialize params: %v", err))
		}
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state != fresh {
		return m.Fail(jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "the session is already initialized"))
	}
	ss.version = negotiate(p.ProtocolVersion)
	ss.state = initialized
	return m.Result(ss.srv.initializeResult(ss.version))
}

// needReady is the error for a request that needs the handshake done.
func (ss *Session) needReady() *jsonrpc.Error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	switch ss.state {
	case fresh:
		return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "the session is not initialized: send initialize first")
	case initialized:
		return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "the session is not initialized: send notifications/initialized first")
	}
	return nil
}

func (ss *Session) listResult(cred *guard.Credential) []byte {
	ss.mu.Lock()
	v := ss.version
	ss.mu.Unlock()
	return ss.srv.listResult(v, cred)
}

func (ss *Session) notify(m *jsonrpc.Message) {
	switch m.Method {
	case notifyInitialized:
		ss.mu.Lock()
		if ss.state == initialized {
			ss.state = ready
		}
		ss.mu.Unlock()
	case notifyCancelled:
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		params, err := m.Params()
		if err != nil || json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
			return
		}
		ss.mu.Lock()
		if c := ss.calls[string(p.RequestID)]; c != nil {
			c.cancelled = true
			c.cancel()
		}
		ss.mu.Unlock()
	}
	// Other notifications need nothing from a server without
	// subscriptions.
}

// startCall registers a tools/call of protocol version version and runs
// it on a goroutine of its own.
func (ss *Session) startCall(ctx context.Context, m *jsonrpc.Message, version string, reply func([]byte)) {
	key := m.Key()
	ctx, cancel := context.WithCancel(ctx)
	c := &inflight{cancel: cancel}
	ss.mu.Lock()
	if ss.calls[key] != nil {
		ss.mu.Unlock()
		cancel()
		reply(m.Fail(jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "request id %s is already in use by a call in flight", key)))
		return
	}
	ss.calls[key] = c
	ss.wg.Add(1)
	ss.mu.Unlock()

	go func() {
		defer ss.wg.Done()
		out := ss.srv.call(ctx, m, version)
		cancel()
		ss.mu.Lock()
		delete(ss.calls, key)
		cancelled := c.cancelled
		ss.mu.Unlock()
		if cancelled {
			out = nil
		}
		reply(out)
	}()
}
