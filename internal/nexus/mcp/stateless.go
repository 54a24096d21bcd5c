package mcp

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/jsonrpc"
	"github.com/nexus-run/nexus/manifest"
)

// The stateless revision, 2026-07-28, has no handshake: every request
// carries in params._meta what initialize used to tell (the protocol
// version, the client's capabilities) and is served on its own. A request
// is of that era when its _meta names a version that is not a legacy one;
// all others follow the lifecycle of their session (session.go). So one
// stdio process, or one HTTP endpoint, serves both eras at once.

// Methods of the stateless revision.
const (
	methodDiscover = "server/discover"
	// methodListen is how a 2026-07-28 client asks to hear of list
	// changes. The tool list of a nexus never changes while it runs, so
	// the server declares no listChanged and answers it as unknown, as
	// the revision allows; the Go SDK's client sends it only to a server
	// that declares listChanged.
	methodListen = "subscriptions/listen"
)

// Keys of _meta in the stateless revision.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Error codes of the stateless revision.
const (
	// CodeHeaderMismatch answers an HTTP request whose MCP headers are
	// missing or say other than its body.
	CodeHeaderMismatch = -32020
	// CodeUnsupportedVersion answers a request of a version the server
	// does not speak; its data lists those it does.
	CodeUnsupportedVersion = -32022
)

// cacheTTL is the ttlMs of server/discover and tools/list: how long a
// client may keep them. Neither changes while the server runs, so the
// bound is about what may change between runs: a redeployed program, a
// credentials file re-read on SIGHUP. Five minutes spares an agent's loop
// from listing again on every step while a change reaches every client
// soon after.
const cacheTTL = 5 * time.Minute

// cacheScope values: a result the same for every client, or one that
// depends on the client's credential (the tool list under a credentials
// file), which only that client may keep.
const (
	cachePublic  = "public"
	cachePrivate = "private"
)

// stateless reports whether protocol version v is served without a
// handshake.
func stateless(v string) bool { return v >= V20260728 }

// envelope is what routing needs from a request's params, read without
// decoding them (they may be a large call's arguments, not yet checked as
// JSON, see jsonrpc.Message.PeekParams): its _meta keys and the name it
// calls.
type envelope struct {
	// version is _meta's protocolVersion, "" when absent or not a string.
	version string
	// caps says _meta has clientCapabilities, an object; capsGiven that
	// it has them, whatever they are.
	caps, capsGiven bool
	// name is the params' name (tools/call), "" when absent.
	name string
}

// isStateless reports whether the request is of the stateless era: its
// _meta names a version, and not a legacy one (a version the server does
// not know is answered with CodeUnsupportedVersion).
func (e envelope) isStateless() bool { return e.version != "" && !isLegacy(e.version) }

// readEnvelope reads the envelope of params.
func readEnvelope(params json.RawMessage) envelope {
	var e envelope
	meta := jsonrpc.Lookup(params, "_meta")
	if meta == nil {
		return e // a legacy request: no need to read further
	}
	if v := jsonrpc.Lookup(meta, metaProtocolVersion); string(v) == `"`+V20260728+`"` {
		e.version = V20260728 // the common case, without decoding
	} else if v != nil {
		_ = json.Unmarshal(v, &e.version)
	}
	caps := jsonrpc.Lookup(meta, metaClientCapabilities)
	e.capsGiven = caps != nil
	e.caps = len(caps) > 0 && caps[0] == '{'
	if name := jsonrpc.Lookup(params, "name"); name != nil {
		_ = json.Unmarshal(name, &e.name)
	}
	return e
}

// checkStateless checks a stateless request for method with envelope e:
// a method the revision has (else CodeMethodNotFound), the _meta keys it
// requires (else CodeInvalidParams) and a version the server speaks (else
// CodeUnsupportedVersion, with the versions it does).
func checkStateless(method string, e envelope) *jsonrpc.Error {
	switch method {
	case methodDiscover, methodToolsList, methodToolsCall:
	default:
		// initialize, ping, logging/setLevel and the like are gone in
		// 2026-07-28; subscriptions/listen is explained at methodListen.
		return methodNotFound(method)
	}
	switch {
	case e.version == "":
		return invalidParams("missing _meta %q: every 2026-07-28 request names its protocol version", metaProtocolVersion)
	case !e.capsGiven:
		return invalidParams("missing _meta %q: every 2026-07-28 request carries the client's capabilities ({} for none)", metaClientCapabilities)
	case !e.caps:
		return invalidParams("_meta %q must be an object ({} for none)", metaClientCapabilities)
	case e.version != V20260728:
		return &jsonrpc.Error{Code: CodeUnsupportedVersion,
			Message: "unsupported protocol version: " + e.version,
			Data:    unsupportedData{Supported: supported, Requested: e.version}}
	}
	return nil
}

// unsupportedData is the data of CodeUnsupportedVersion.
type unsupportedData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

func methodNotFound(method string) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", method)
}

// serveStateless serves m, a stateless request with envelope e, on its
// own: it needs nothing from the session but the calls in flight, which a
// stdio client cancels by id (ids are per process, whichever the era).
func (ss *Session) serveStateless(ctx context.Context, m *jsonrpc.Message, e envelope, reply func([]byte)) {
	if err := checkStateless(m.Method, e); err != nil {
		reply(m.Fail(err))
		return
	}
	switch m.Method {
	case methodDiscover:
		reply(m.ResultJSON(ss.srv.discover))
	case methodToolsList:
		reply(m.ResultJSON(ss.srv.listResult(e.version, guard.CredentialOf(ctx))))
	case methodToolsCall:
		ss.startCall(ctx, m, e.version, reply)
	}
}

// discoverResult is the result of server/discover: the versions spoken,
// the tools capability (no listChanged: the list never changes while the
// server runs) and the server's identity.
func (s *Server) discoverResult() []byte {
	b, _ := json.Marshal(struct {
		ResultType        string                    `json:"resultType"`
		SupportedVersions []string                  `json:"supportedVersions"`
		Capabilities      json.RawMessage           `json:"capabilities"`
		Meta              map[string]implementation `json:"_meta"`
	}{
		ResultType:        "complete",
		SupportedVersions: supported,
		Capabilities:      json.RawMessage(`{"tools":{}}`),
		Meta:              map[string]implementation{metaServerInfo: {Name: s.name, Version: manifest.NexusVersion}},
	})
	// The cache fields close the object, as encodeList writes them.
	return append(appendCache(b[:len(b)-1], cachePublic), '}')
}
