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
	"time"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/manifest"
)

// Protocol versions. Latest is what we speak; the others are older
// versions whose clients we still answer in their own version. The tools
// part of the protocol is the same in all of them but for what the
// functions below this list say: structured results and tool titles
// (2025-06-18), bad arguments as tool errors, tool icons and the bare
// schema of a tool without arguments (2025-11-25).
const (
	Latest    = V20251125
	V20251125 = "2025-11-25"
	V20250618 = "2025-06-18"
	V20250326 = "2025-03-26"
	V20241105 = "2024-11-05"
)

// supported lists every protocol version a client may ask for.
var supported = []string{V20251125, V20250618, V20250326, V20241105}

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
		Icons: v >= V20251125, BareEmptyInput: v >= V20251125}
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
}

// Server serves a set of tools. It holds no per-client state (a Session
// does), so one Server serves any number of sessions at once.
type Server struct {
	name  string
	tools *tool.Set
	// lists are the tools/list results, encoded once for each form a
	// protocol version lists tools in (see listForm).
	lists map[tool.ListForm][]byte
	all   []*tool.Tool
	audit *guard.Audit
	prog  func(tool string) string
}

// NewServer returns a server named name (the program's name, shown to
// clients as serverInfo.name) that serves tools.
func NewServer(name string, tools []*tool.Tool, opts Options) *Server {
	s := &Server{name: name, tools: tool.NewSet(tools, tool.Options{CallTimeout: opts.CallTimeout}),
		lists: map[tool.ListForm][]byte{}, all: tools, audit: opts.Audit, prog: opts.Program}
	if s.prog == nil {
		s.prog = func(string) string { return name }
	}
	for _, v := range supported {
		if f := listForm(v); s.lists[f] == nil {
			s.lists[f] = encodeList(tools, f)
		}
	}
	return s
}

// ListResult is the result of tools/list in protocol version 2025-06-18:
// what `./prog --mcp-tools` prints, and the form the JSON API's /discover
// shows tools in. The other versions' lists differ from it only as
// listForm says (mcp.md, "Differences between revisions").
func (s *Server) ListResult() json.RawMessage { return s.listResult(V20250618, nil) }

// listResult is the result of tools/list in protocol version v for a
// client with credential cred (nil when the server has none): the tools
// it may call, or all of them when it may only list.
func (s *Server) listResult(v string, cred *guard.Credential) []byte {
	if cred == nil || cred.ListOnly() {
		return s.lists[listForm(v)]
	}
	var mine []*tool.Tool
	for _, t := range s.all {
		if cred.MayCall(t.Name) {
			mine = append(mine, t)
		}
	}
	return encodeList(mine, listForm(v))
}

func encodeList(tools []*tool.Tool, form tool.ListForm) []byte {
	b := []byte(`{"tools":[`)
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = t.AppendJSON(b, form)
	}
	return append(b, "]}"...)
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

// negotiate is the protocol version to answer a client asking for asked:
// asked itself when supported, else Latest, as the lifecycle rule of every
// revision says (the client then decides whether it can speak it).
func negotiate(asked string) string {
	for _, v := range supported {
		if v == asked {
			return v
		}
	}
	return Latest
}
