package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/internal/pooltest"
)

// The MCP benchmark: sequential tools/call throughput over stdio, for the
// `trivial :: Int -> Int` command of callsProgram served by `nexus mcp`
// with a Go pool and with a Python pool, beside the ceiling: this binary
// re-executed (with -serve-mcp-ceiling) as a stdio MCP server made with the
// official Go SDK, whose handler does the same work in-process. Every
// server is driven by the same client, the Go SDK's, over the same kind of
// pipes, so the ratio to the ceiling is what the pools and nexus's own
// protocol layer cost.
//
// All servers are started first and then called in turns of mcpRounds
// chunks each, so that machine noise hits every row alike.

// mcpProtocol is the protocol version the client asks every server for: the
// one nexus serves. Left to itself the SDK client would first try
// server/discover for its newer protocol, and, where the server speaks it
// (the ceiling does), put protocol version, client info and capabilities in
// the _meta of every request, which would give the ceiling more work per
// call than nexus.
const mcpProtocol = "2025-06-18"

// mcpWarmUp is how many calls each server gets before the measured ones:
// the first calls pay for lazy set-up in every layer (pool start included).
const mcpWarmUp = 100

// mcpDeadline bounds the whole section.
const mcpDeadline = 10 * time.Minute

// mcpRounds is how many turns the measured calls are split into.
const mcpRounds = 10

// mcpTrivialArgs is the trivial tool's input, as the ceiling declares it;
// the schema the SDK infers from it is the one nexus publishes for
// `trivial :: Int -> Int`: {"type":"object","properties":{"_1":{"type":
// "integer"}},"required":["_1"],"additionalProperties":false}.
type mcpTrivialArgs struct {
	X int64 `json:"_1"`
}

// serveMCPCeiling serves the tool `trivial` over stdio until the client
// closes stdin: the pool-less ceiling.
func serveMCPCeiling() error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "calls", Version: "bench"},
		&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	mcp.AddTool(srv, &mcp.Tool{Name: "trivial"},
		func(_ context.Context, _ *mcp.CallToolRequest, in mcpTrivialArgs) (*mcp.CallToolResult, any, error) {
			// What nexus does with a result: one text block holding its
			// compact JSON.
			text, err := json.Marshal(in.X)
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil, nil
		})
	return srv.Run(context.Background(), &mcp.StdioTransport{})
}

// mcpRow is one server under measurement.
type mcpRow struct {
	name string
	lang string // pool language; "" for the ceiling
	argv []string

	session *mcp.ClientSession
	stderr  *pooltest.Buffer
	lat     []time.Duration
	wall    time.Duration
	err     error
}

func benchMCP(nexus string, calls int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	rows := []*mcpRow{
		{name: "in-process Go SDK server (ceiling)", argv: []string{self, "-serve-mcp-ceiling"}},
		{name: "`nexus mcp`, Go pool", lang: "go"},
		{name: "`nexus mcp`, Python pool", lang: "py"},
	}
	for _, r := range rows {
		if r.lang == "" {
			continue
		}
		launcher, err := makeCalls(nexus, r.lang)
		if err != nil {
			r.err = err
			continue
		}
		defer os.RemoveAll(filepath.Dir(launcher))
		r.argv = []string{nexus, "mcp", launcher}
	}

	// One deadline for the whole section, so that a server that stops
	// answering fails the run instead of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), mcpDeadline)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "nexus-bench", Version: "bench"}, nil)
	for _, r := range rows {
		if r.err == nil {
			r.err = r.connect(ctx, client)
		}
		if r.session != nil {
			defer r.close()
		}
	}
	for _, r := range rows {
		if r.err == nil {
			r.err = r.warmUp(ctx)
		}
	}
	for round := 0; round < mcpRounds; round++ {
		from, to := calls*round/mcpRounds, calls*(round+1)/mcpRounds
		for _, r := range rows {
			if r.err == nil {
				r.err = r.measure(ctx, from, to)
			}
		}
	}

	fmt.Printf("\nMCP tools/call over stdio, the Go SDK client, protocol %s (%d sequential calls of `trivial` per server, in %d alternating turns, after %d warm-up calls)\n\n",
		mcpProtocol, calls, mcpRounds, mcpWarmUp)
	fmt.Printf("| server | calls/s | median | p99 | ratio to ceiling |\n| --- | ---: | ---: | ---: | ---: |\n")
	ceiling := rows[0]
	ratio := map[string]float64{}
	var errs []error
	for _, r := range rows {
		if r.err != nil {
			fmt.Printf("| %s | failed | | | |\n", r.name)
			errs = append(errs, fmt.Errorf("%s: %w", strings.ReplaceAll(r.name, "`", ""), r.err))
			continue
		}
		rate := float64(calls) / r.wall.Seconds()
		cell := "1"
		if r != ceiling {
			cell = ""
			if ceiling.err == nil {
				ratio[r.lang] = rate / (float64(calls) / ceiling.wall.Seconds())
				cell = fmt.Sprintf("%.2f", ratio[r.lang])
			}
		}
		fmt.Printf("| %s | %.0f | %s | %s | %s |\n", r.name, rate, us(median(r.lat)), us(percentile(r.lat, 0.99)), cell)
	}
	fmt.Printf("\ngoals: Go pool at least 0.50 of the ceiling (%s), Python pool at least 0.30 (%s)\n",
		goal(ratio, "go", 0.5), goal(ratio, "py", 0.3))
	return errors.Join(errs...)
}

func goal(ratio map[string]float64, lang string, want float64) string {
	got, ok := ratio[lang]
	switch {
	case !ok:
		return "not measured"
	case got >= want:
		return fmt.Sprintf("%.2f: met", got)
	default:
		return fmt.Sprintf("%.2f: not met", got)
	}
}

// connect starts the server and completes the MCP handshake, then checks
// that tools/list has the tool to be called.
func (r *mcpRow) connect(ctx context.Context, client *mcp.Client) error {
	cmd := exec.Command(r.argv[0], r.argv[1:]...)
	r.stderr = &pooltest.Buffer{}
	cmd.Stderr = r.stderr
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cs, err := client.Connect(cctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: mcpProtocol})
	if err != nil {
		return r.failure("connecting", err)
	}
	r.session = cs
	if v := cs.InitializeResult().ProtocolVersion; v != mcpProtocol {
		return fmt.Errorf("server answered protocol %s, not %s", v, mcpProtocol)
	}
	tools, err := cs.ListTools(cctx, nil)
	if err != nil {
		return r.failure("tools/list", err)
	}
	for _, t := range tools.Tools {
		if t.Name == "trivial" {
			return nil
		}
	}
	return fmt.Errorf("tools/list has no tool 'trivial'")
}

func (r *mcpRow) warmUp(ctx context.Context) error {
	for i := 0; i < mcpWarmUp; i++ {
		if err := r.call(ctx, int64(i)); err != nil {
			return err
		}
	}
	return nil
}

// measure makes the calls from..to-1, each with its index as argument.
func (r *mcpRow) measure(ctx context.Context, from, to int) error {
	begin := time.Now()
	for i := from; i < to; i++ {
		start := time.Now()
		err := r.call(ctx, int64(i))
		r.lat = append(r.lat, time.Since(start))
		if err != nil {
			return err
		}
	}
	r.wall += time.Since(begin)
	return nil
}

// call calls trivial(x) and checks that the answer is exactly x.
func (r *mcpRow) call(ctx context.Context, x int64) error {
	res, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: "trivial", Arguments: map[string]any{"_1": x}})
	if err != nil {
		return r.failure(fmt.Sprintf("trivial(%d)", x), err)
	}
	want := strconv.FormatInt(x, 10)
	if len(res.Content) == 1 {
		if t, ok := res.Content[0].(*mcp.TextContent); ok && t.Text == want && !res.IsError {
			return nil
		}
	}
	got, _ := json.Marshal(res)
	return fmt.Errorf("trivial(%d) answered %s, want one text block %q", x, got, want)
}

func (r *mcpRow) close() {
	if err := r.session.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "bench: closing %s: %v\n", r.name, err)
	}
}

// failure wraps err with what the server wrote on stderr, if anything.
func (r *mcpRow) failure(what string, err error) error {
	if out := strings.TrimSpace(r.stderr.String()); out != "" {
		return fmt.Errorf("%s: %w\nserver stderr:\n%s", what, err, out)
	}
	return fmt.Errorf("%s: %w", what, err)
}
