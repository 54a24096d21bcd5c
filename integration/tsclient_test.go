package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The MCP tests drive nexus with the official TypeScript SDK client
// (mcpclient/client.mjs) as well as the Go one, so that what we serve is
// checked by the clients people use, not by our reading of the spec.

// tsOp is one operation for client.mjs: "list", "call" (Name, Arguments),
// "callConcurrent" (Calls, each a Name and Arguments, sent at once), "ping",
// or "terminate" (DELETE the HTTP session).
type tsOp struct {
	Op   string `json:"op,omitempty"`
	Name string `json:"name,omitempty"`
	// Arguments is any JSON value, so a test can also send a malformed one.
	Arguments any    `json:"arguments,omitempty"`
	Calls     []tsOp `json:"calls,omitempty"`
}

// tsSession is what client.mjs saw. Results holds, per operation, the SDK's
// result object (tools/list result, CallToolResult, or for callConcurrent
// an array of those), or {"error":{"code":...,"message":...}} when the SDK
// threw: a JSON-RPC error from the server, a client-side check such as
// structuredContent against the tool's outputSchema, or an HTTP status.
type tsSession struct {
	ServerVersion   json.RawMessage   `json:"serverVersion"`
	ProtocolVersion string            `json:"protocolVersion"`
	Results         []json.RawMessage `json:"results"`
	// ServerExit is how a stdio server ended once its stdin was closed; the
	// SDK sends SIGTERM after 2 s, so a server that ignores EOF shows here.
	ServerExit *tsExit `json:"serverExit"`
	// TransportErrors are the errors the SDK reported to Client.onerror.
	TransportErrors []string `json:"transportErrors"`
	// Stderr is node's stderr, which a stdio server's stderr is part of.
	Stderr string `json:"-"`
}

type tsExit struct {
	Code   *int    `json:"code"`
	Signal *string `json:"signal"`
}

// tsClient runs client.mjs over transport, e.g. {"stdio", nexusBin, "mcp",
// prog} or {"http", url} (optionally followed by "--token", T), with ops
// on its stdin. It runs from a temporary folder, as a user's MCP host
// would, so paths in transport must be absolute. A client that cannot
// connect, or a server that panics, fails the test.
func tsClient(t *testing.T, transport []string, ops ...tsOp) tsSession {
	t.Helper()
	// The test's working directory is integration/.
	dir, err := filepath.Abs("mcpclient")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: run `make setup`")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatal("the MCP client's npm packages are not installed: run `make setup`")
	}
	if ops == nil {
		ops = []tsOp{} // client.mjs wants an array, not null
	}
	in, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{filepath.Join(dir, "client.mjs")}, transport...)
	res := runIn(t, t.TempDir(), in, "node", args...)
	if res.code != 0 {
		t.Fatalf("mcp client %v: exit %d\n%s", transport, res.code, res.stderr)
	}
	if nexusCrashed(res.stderr) {
		t.Fatalf("mcp server %v crashed:\n%s", transport, res.stderr)
	}
	var s tsSession
	if err := json.Unmarshal([]byte(res.stdout), &s); err != nil {
		t.Fatalf("mcp client %v: bad output: %v\n%s", transport, err, res.stdout)
	}
	s.Stderr = res.stderr
	return s
}
