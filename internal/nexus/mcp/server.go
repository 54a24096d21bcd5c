// Package mcp serves a program's commands as MCP tools: the lifecycle
// (initialize and version negotiation, ping), tools/list with a JSON
// Schema per command, and tools/call, which binds named arguments to the
// command's positional ones, checks them against their types, runs the
// command through dispatch and shapes the result. What a tool is (its
// schema, its binding, its call) is the tool model of nexus/tool; this
// package is the protocol around it.
//
// The protocol is independent of transports and of pools: a Session takes
// one JSON-RPC message at a time and hands back the replies, and the stdio
// transport (stdio.go) and the HTTP one sit on top of it. The JSON-RPC wire
// format is below, in nexus/jsonrpc.
package mcp

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/manifest"
)

// Protocol versions. V20260728 is the newest, served per request with no
// handshake (stateless.go); LatestLegacy is the newest an initialize
// negotiates; the others are older versions whose clients we still answer
// in their own version. The tools part of the protocol is the same in all
// of them but for what the functions below this list say: structured
// results and tool titles (2025-06-18), bad arguments as tool errors,
// tool icons and the bare schema of a tool without arguments
// (2025-11-25), output schemas of every return type, resultType and the
// cache fields of tools/list (2026-07-28).
const (
	LatestLegacy = V20251125
	V20260728    = "2026-07-28"
	V20251125    = "2025-11-25"
	V20250618    = "2025-06-18"
	V20250326    = "2025-03-26"
	V20241105    = "2024-11-05"
)

// legacy lists the versions an initialize may negotiate, newest first.
var legacy = []string{V20251125, V20250618, V20250326, V20241105}

// supported lists every protocol version a client may speak, newest
// first: what server/discover and the -32022 error announce.
var supported = append([]string{V20260728}, legacy...)

// Versions are the protocol versions a client may speak, newest first.
func Versions() []string { return slices.Clone(supported) }

// isLegacy reports whether v is a version of the handshake era.
func isLegacy(v string) bool { return slices.Contains(legacy, v) }

// hasStructured reports whether protocol version v has output schemas and
// structured tool results (2025-06-18 on).
func hasStructured(v string) bool { return v >= V20250618 }

// argErrorsAreResults reports whether protocol version v answers a call
// with bad arguments as a tool result with isError, which a model can
// read and correct, rather than as a JSON-RPC error (2025-11-25 on).
func argErrorsAreResults(v string) bool { return v >= V20251125 }

// listForm is how protocol version v lists tools.
func listForm(v string) tool.ListForm {
	return tool.ListForm{OutputSchema: hasStructured(v), Title: v >= V20250618,
		Icons: v >= V20251125, BareEmptyInput: v >= V20251125, AnyOutput: v >= V20260728}
}

// Options configure a Server. The zero value works.
type Options struct {
	// CallTimeout bounds each tools/call: zero means
	// tool.DefaultCallTimeout, a negative value no bound.
	CallTimeout time.Duration
	// Audit, when set, gets a line for every tools/call.
	Audit *guard.Audit
	// Program names the program a tool is from, in the audit log; nil
	// means the server's name.
	Program func(tool string) string
	// Observe, when set, is told of every tools/call that ends, which
	// came by Transport (observe.Stdio or observe.HTTP).
	Observe   *observe.Hub
	Transport string
}

// Server serves a set of tools. It holds no per-client state (a Session
// does), so one Server serves any number of sessions at once.
type Server struct {
	name  string
	tools *tool.Set
	// lists are the tools/list results, encoded once for each form a
	// protocol version lists tools in (see listForm).
	lists map[tool.ListForm][]byte
	// discover is the result of server/discover, encoded once.
	discover []byte
	all      []*tool.Tool
	audit    *guard.Audit
	prog     func(tool string) string
	// observe is told of each call's end; transport is how calls come.
	observe   *observe.Hub
	transport string
}

// NewServer returns a server named name (the program's name, shown to
// clients as serverInfo.name) that serves tools.
func NewServer(name string, tools []*tool.Tool, opts Options) *Server {
	s := &Server{name: name, tools: tool.NewSet(tools, tool.Options{CallTimeout: opts.CallTimeout}),
		lists: map[tool.ListForm][]byte{}, all: tools, audit: opts.Audit, prog: opts.Program,
		observe: opts.Observe, transport: opts.Transport}
	if s.prog == nil {
		s.prog = func(string) string { return name }
	}
	for _, v := range supported {
		if f := listForm(v); s.lists[f] == nil {
			s.lists[f] = encodeList(tools, v, cachePublic)
		}
	}
	s.discover = s.discoverResult()
	return s
}

// Tools are the tools the server serves, in its order.
func (s *Server) Tools() []*tool.Tool { return s.all }

// ListResult is the result of tools/list in protocol version 2025-06-18:
// what `./prog --mcp-tools` prints, and the form the JSON API's /discover
// shows tools in. The other versions' lists differ from it only as
// listForm says (mcp.md, "Differences between revisions").
func (s *Server) ListResult() json.RawMessage { return s.listResult(V20250618, nil) }

// listResult is the result of tools/list in protocol version v for a
// client with credential cred (nil when the server has none): the tools
// it may call, or all of them when it may only list. Under a credentials
// file the list depends on the credential, so a stateless client is told
// to cache it privately.
func (s *Server) listResult(v string, cred *guard.Credential) []byte {
	switch {
	case cred == nil:
		return s.lists[listForm(v)]
	case cred.ListOnly():
		if !stateless(v) {
			return s.lists[listForm(v)]
		}
		return encodeList(s.all, v, cachePrivate)
	}
	var mine []*tool.Tool
	for _, t := range s.all {
		if cred.MayCall(t.Name) {
			mine = append(mine, t)
		}
	}
	return encodeList(mine, v, cachePrivate)
}

// encodeList encodes the result of tools/list in protocol version v, in
// the order of tools (the program's, so the same on every replica); a
// stateless one with resultType and the cache fields, cacheScope scope.
func encodeList(tools []*tool.Tool, v, scope string) []byte {
	form := listForm(v)
	b := []byte(`{`)
	if stateless(v) {
		b = append(b, `"resultType":"complete",`...)
	}
	b = append(b, `"tools":[`...)
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = t.AppendJSON(b, form)
	}
	b = append(b, ']')
	if stateless(v) {
		b = appendCache(b, scope)
	}
	return append(b, '}')
}

// appendCache appends the cache fields of a stateless result.
func appendCache(b []byte, scope string) []byte {
	b = append(b, `,"ttlMs":`...)
	b = strconv.AppendInt(b, cacheTTL.Milliseconds(), 10)
	b = append(b, `,"cacheScope":"`...)
	b = append(b, scope...)
	return append(b, '"')
}

// initializeResult is the reply to initialize.
type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    capabilities   `json:"capabilities"`
	ServerInfo      implementation `json:"serverInfo"`
}

type capabilities struct {
	Tools toolsCapability `json:"tools"`
}

type toolsCapability struct {
	ListChanged bool `json:"listChanged"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

func (s *Server) initializeResult(version string) initializeResult {
	return initializeResult{
		ProtocolVersion: version,
		Capabilities:    capabilities{Tools: toolsCapability{ListChanged: false}},
		ServerInfo:      implementation{Name: s.name, Version: manifest.NexusVersion},
	}
}

// negotiate is the protocol version to answer an initialize asking for
// asked: asked itself when it is a legacy version, else LatestLegacy, as
// the lifecycle rule of every legacy revision says (the client then
// decides whether it can speak it). A client asking initialize for
// 2026-07-28 gets LatestLegacy too: that revision has no initialize.
func negotiate(asked string) string {
	if isLegacy(asked) {
		return asked
	}
	return LatestLegacy
}
