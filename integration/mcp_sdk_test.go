package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/internal/pooltest"
)

// The examples as the official Go SDK client sees them over stdio, in each
// protocol version we answer. The same calls in every version; what
// changes is the negotiated version and whether record results carry
// structuredContent (2025-06-18 only) and tools their outputSchema.

// sdkCall is one tools/call and what must come back.
type sdkCall struct {
	tool string
	args map[string]any
	// text is the exact text block of a success: the result's compact JSON.
	text string
	// record says the result is a record, so in 2025-06-18 it also comes
	// as structuredContent equal to text.
	record bool
	// failure, when set, says the call fails inside the function: the
	// result has isError and its text holds every one of these.
	failure []string
}

var seqCalls = []sdkCall{
	{tool: "gc", args: map[string]any{"sequence": "ACGG"}, text: "0.75"},
	{tool: "revcomp", args: map[string]any{"sequence": "ACGT"}, text: `"ACGT"`},
	{tool: "revcomp", args: map[string]any{"sequence": "AACG"}, text: `"CGTT"`},
	{tool: "kmers", args: map[string]any{"sequence": "ACGT"}, text: `{"AC":1,"CG":1,"GT":1}`},
	{tool: "kmers", args: map[string]any{"sequence": "ACGTAC", "size": 3}, text: `{"ACG":1,"CGT":1,"GTA":1,"TAC":1}`},
	{tool: "translate", args: map[string]any{"sequence": "ATGGCC"}, text: `"MA"`},
	{tool: "summary", args: map[string]any{"_1": []string{"ACGT", "GG"}}, record: true,
		text: `{"count":2,"total_length":6,"mean_gc":0.75,"longest":"ACGT"}`},
	{tool: "summary", args: map[string]any{}, record: true,
		text: `{"count":0,"total_length":0,"mean_gc":0,"longest":null}`},
	{tool: "motif", args: map[string]any{"motif": "acg", "sequence": "ACGTACGT", "ignore-case": true}, text: "[0,4]"},
	{tool: "motif", args: map[string]any{"motif": "acg", "sequence": "ACGTACGT"}, text: "[]"},
	{tool: "gcrev", args: map[string]any{"sequence": "AAAAC"}, text: "0.2"},
	{tool: "codons", args: map[string]any{}, text: "64"},
	{tool: "gc", args: map[string]any{"sequence": ""}, failure: []string{"ValueError", "empty sequence"}},
}

var chemCalls = []sdkCall{
	{tool: "weight", args: map[string]any{"formula": "H2O"}, text: "18.015"},
	{tool: "capped", args: map[string]any{"formula": "C6H12O6"}, text: "180.156"},
	{tool: "capped", args: map[string]any{"formula": "C6H12O6", "max": 100}, text: "100"},
	{tool: "stats", args: map[string]any{"_1": []float64{1, 2, 3, 4}}, record: true,
		text: `{"mean":2.5,"sd":1.2909944487358056}`},
	{tool: "scaled", args: map[string]any{"factor": 2, "_1": []float64{1, 2.5}}, text: "[2,5]"},
	{tool: "describe", args: map[string]any{"precision": 5, "hydrogens": true}, text: `"5 digits, with hydrogens"`},
	{tool: "describe", args: map[string]any{}, text: `"3 digits, without hydrogens"`},
	// The Python → C++ → Go chain.
	{tool: "chain", args: map[string]any{"formula": "C6H12O6", "factor": 2, "max": 300}, text: "300"},
	{tool: "chain", args: map[string]any{"formula": "H2O", "factor": 0.5}, text: "9.0075"},
	{tool: "label", args: map[string]any{"first": "H2O", "second": "CO2"}, text: `"H2O=18.02, CO2=44.01"`},
	{tool: "answer", args: map[string]any{}, text: "42"},
	// A C++ exception, and a Python one in the middle of the chain.
	{tool: "stats", args: map[string]any{}, failure: []string{"summarize needs at least one number"}},
	{tool: "chain", args: map[string]any{"formula": "Xx2"}, failure: []string{"unknown element", "Xx"}},
}

func TestMCPGoSDK(t *testing.T) {
	type example struct {
		name  string
		p     *program
		calls []sdkCall
		// tools is `--mcp-tools`' list, read before any server runs (a
		// launcher run checks that no pool of its program is left), in
		// the form of each version.
		tools map[string][]byte
	}
	var programs []example
	for _, e := range []struct {
		name  string
		calls []sdkCall
	}{{"seq", seqCalls}, {"chem", chemCalls}} {
		p := build(t, exampleFiles(t, e.name))
		tools := map[string][]byte{}
		for _, v := range []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
			tools[v] = mcpToolsOutputAt(t, p, v)
		}
		tools[""] = tools["2025-11-25"] // and the other output schemas (withAnyOutput)
		programs = append(programs, example{e.name, p, e.calls, tools})
	}
	for _, version := range []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", ""} {
		name := version
		if name == "" {
			name = "unpinned"
		}
		t.Run(name, func(t *testing.T) {
			for _, prog := range programs {
				t.Run(prog.name, func(t *testing.T) {
					testSDKSession(t, prog.p.in(t), prog.name, version, prog.tools[version], prog.calls)
				})
			}
		})
	}
}

// testSDKSession connects the Go SDK to `nexus mcp` for p asking for
// version ("" lets the SDK choose), and checks the handshake, that the tool
// list is tools (as JSON), the calls, then that the server ends well when
// the client leaves.
func testSDKSession(t *testing.T, p *program, name, version string, tools []byte, calls []sdkCall) {
	ctx := context.Background()
	s := startSDKSession(t, p, version)

	// An unpinned client of this SDK speaks 2026-07-28: it asks
	// server/discover and, answered, never initializes.
	wantVersion := version
	if version == "" {
		wantVersion = "2026-07-28"
		log := s.log.String()
		if !strings.Contains(log, `"method":"server/discover"`) || strings.Contains(log, `"method":"initialize"`) {
			t.Errorf("the SDK should have sent server/discover and no initialize:\n%s", log)
		}
	}
	info := s.cs.InitializeResult()
	if info.ProtocolVersion != wantVersion {
		t.Errorf("negotiated protocol version %q, want %q", info.ProtocolVersion, wantVersion)
	}
	if info.ServerInfo == nil || info.ServerInfo.Name != name {
		t.Errorf("serverInfo %+v, want the name %q", info.ServerInfo, name)
	}
	if info.Capabilities == nil || info.Capabilities.Tools == nil || info.Capabilities.Tools.ListChanged {
		t.Errorf("capabilities %+v, want tools with listChanged false", info.Capabilities)
	}

	list, err := s.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if wantVersion >= "2026-07-28" {
		tools = withAnyOutput(t, list.Tools, tools)
	}
	if got := marshalJSON(t, list.Tools); !sameJSON(t, got, tools) {
		t.Errorf("tools/list differs from --mcp-tools\ngot:  %s\nwant: %s", got, tools)
	}

	for _, c := range calls {
		res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Errorf("%s %v: %v", c.tool, c.args, err)
			continue
		}
		checkSDKResult(t, c, res, wantVersion)
	}

	if err := s.close(); err != nil {
		t.Errorf("nexus mcp did not exit cleanly once the client closed stdin: %v\nstderr:\n%s", err, s.stderr.String())
	}
	if stderr := s.stderr.String(); nexusCrashed(stderr) {
		t.Errorf("nexus mcp crashed:\n%s", stderr)
	}
	p.checkClean()
}

// withAnyOutput is tools, a list as --mcp-tools shows it, as a client of
// 2026-07-28 sees it: with an output schema for every tool, where the
// older list has one for records only. The schemas of the others are
// those got, the list the client got, shows; they must be there.
func withAnyOutput(t *testing.T, got []*mcp.Tool, tools []byte) []byte {
	t.Helper()
	var want []map[string]any
	if err := json.Unmarshal(tools, &want); err != nil {
		t.Fatal(err)
	}
	for i, tool := range want {
		if _, ok := tool["outputSchema"]; ok || i >= len(got) {
			continue
		}
		if got[i].OutputSchema == nil {
			t.Errorf("%s: no output schema in 2026-07-28", tool["name"])
			continue
		}
		tool["outputSchema"] = got[i].OutputSchema
	}
	return marshalJSON(t, want)
}

// checkSDKResult checks res, the result of c in protocol version: a
// record's is structured from 2025-06-18 on, every result from
// 2026-07-28 on.
func checkSDKResult(t *testing.T, c sdkCall, res *mcp.CallToolResult, version string) {
	t.Helper()
	if len(res.Content) != 1 {
		t.Errorf("%s %v: %d content blocks, want one text block", c.tool, c.args, len(res.Content))
		return
	}
	block, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Errorf("%s %v: content %T, want text", c.tool, c.args, res.Content[0])
		return
	}
	if c.failure != nil {
		if !res.IsError {
			t.Errorf("%s %v: want isError, got %q", c.tool, c.args, block.Text)
		}
		for _, w := range c.failure {
			if !strings.Contains(block.Text, w) {
				t.Errorf("%s %v: failure %q does not say %q", c.tool, c.args, block.Text, w)
			}
		}
		if res.StructuredContent != nil {
			t.Errorf("%s %v: a failure carries structuredContent", c.tool, c.args)
		}
		return
	}
	if res.IsError {
		t.Errorf("%s %v failed: %s", c.tool, c.args, block.Text)
		return
	}
	if block.Text != c.text {
		t.Errorf("%s %v = %s, want %s", c.tool, c.args, block.Text, c.text)
	}
	switch {
	case c.record && version >= "2025-06-18", version >= "2026-07-28":
		if res.StructuredContent == nil {
			t.Errorf("%s %v: a record result without structuredContent", c.tool, c.args)
		} else if got := marshalJSON(t, res.StructuredContent); !sameJSON(t, got, []byte(c.text)) {
			t.Errorf("%s %v: structuredContent %s, want %s", c.tool, c.args, got, c.text)
		}
	case res.StructuredContent != nil:
		t.Errorf("%s %v: unexpected structuredContent %v (record result: %v, version %s)", c.tool, c.args, res.StructuredContent, c.record, version)
	}
}

// sdkSession is a Go SDK client session with `nexus mcp`.
type sdkSession struct {
	cs     *mcp.ClientSession
	stderr *pooltest.Buffer // the server's
	log    *pooltest.Buffer // every message both ways, as the SDK logs them
	close  func() error     // closes the session; nil once the server exited 0
}

// startSDKSession starts `nexus mcp` for p (with flags) under the Go
// SDK's command transport and connects, asking for version. The server is
// killed when the test ends if it is still running.
func startSDKSession(t *testing.T, p *program, version string, flags ...string) *sdkSession {
	t.Helper()
	s := &sdkSession{stderr: &pooltest.Buffer{}, log: &pooltest.Buffer{}}
	cmd := exec.Command(nexusBin, append(append([]string{"mcp"}, flags...), p.launcher)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+p.tmp)
	cmd.Stderr = s.stderr
	transport := &mcp.LoggingTransport{
		// The SDK sends SIGTERM when the server has not exited this long
		// after stdin closed; long enough that a server exiting on EOF, as
		// it must, never meets it, so close reports its own exit status.
		Transport: &mcp.CommandTransport{Command: cmd, TerminateDuration: hangGuard},
		Writer:    s.log,
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "nexus-integration", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, transport, opts)
	if err != nil {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
		t.Fatalf("connect with protocol version %q: %v\nstderr:\n%s\nmessages:\n%s", version, err, s.stderr, s.log)
	}
	s.cs = cs
	var once sync.Once
	var closeErr error
	s.close = func() error {
		once.Do(func() { closeErr = cs.Close() })
		return closeErr
	}
	t.Cleanup(func() {
		// Harmless once the server has exited; ends it if the test failed
		// before closing the session.
		cmd.Process.Kill()
		s.close()
	})
	return s
}

// mcpToolsOutputAt is `./prog --mcp-tools`'s list of tools (that of
// 2025-06-18) as a client of version sees it: before 2025-06-18 without
// output schemas, from 2025-11-25 on with the input schema of a tool
// without arguments bare.
func mcpToolsOutputAt(t *testing.T, p *program, version string) []byte {
	t.Helper()
	var tools []map[string]any
	if err := json.Unmarshal(mcpToolsOutput(t, p, version >= "2025-06-18"), &tools); err != nil {
		t.Fatal(err)
	}
	if version >= "2025-11-25" {
		bareEmptyInputs(tools)
	}
	return marshalJSON(t, tools)
}

// bareEmptyInputs rewrites, in tools as --mcp-tools lists them, the input
// schema of each tool without arguments as 2025-11-25 lists it.
func bareEmptyInputs(tools []map[string]any) {
	for _, tool := range tools {
		if in, ok := tool["inputSchema"].(map[string]any); ok {
			if props, ok := in["properties"].(map[string]any); ok && len(props) == 0 {
				tool["inputSchema"] = map[string]any{"type": "object", "additionalProperties": false}
			}
		}
	}
}

// mcpToolsOutput is `./prog --mcp-tools`'s list of tools, as JSON, with the
// output schemas left out when withOutput is false (clients before
// 2025-06-18 know nothing of them).
func mcpToolsOutput(t *testing.T, p *program, withOutput bool) []byte {
	t.Helper()
	var list struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal([]byte(p.ok("--mcp-tools")), &list); err != nil {
		t.Fatalf("--mcp-tools: %v", err)
	}
	if !withOutput {
		for _, tool := range list.Tools {
			delete(tool, "outputSchema")
		}
	}
	return marshalJSON(t, list.Tools)
}

// TestMCPTypeScriptSDK: the TypeScript SDK's stdio client lists and calls
// the examples' tools through `nexus mcp`, and closing its end of stdin
// stops the server (exit 0, no pool left).
func TestMCPTypeScriptSDK(t *testing.T) {
	for _, e := range []struct {
		name  string
		calls []sdkCall
	}{{"seq", seqCalls}, {"chem", chemCalls}} {
		t.Run(e.name, func(t *testing.T) {
			p := build(t, exampleFiles(t, e.name))
			var tools []map[string]any
			if err := json.Unmarshal(mcpToolsOutputAt(t, p, "2025-11-25"), &tools); err != nil {
				t.Fatal(err)
			}
			tsSDKSession(t, []string{"stdio", "env", "TMPDIR=" + p.tmp, nexusBin, "mcp", p.launcher}, e.name, tools, e.calls)
			p.checkClean()
		})
	}
}
