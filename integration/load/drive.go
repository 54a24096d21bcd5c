package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// protocol is the version the session path asks for: the one nexus served
// before 2026-07-28, with sessions. Left to itself the SDK client would try
// its newer protocol first.
const protocol = "2025-06-18"

// statelessProtocol is the version the stateless path asks for: no
// initialize and no session; every request carries the revision's headers
// and `_meta`, which the SDK's client sends.
const statelessProtocol = "2026-07-28"

// driven is what one load against one server did.
type driven struct {
	calls      int
	errors     int64
	messages   []string // the first errors
	elapsed    time.Duration
	lat        []time.Duration // sorted
	sessionIDs []string
}

// drive connects sessions clients at once, then has each make calls
// sequential tools/call of tool with distinct values, checking every
// answer, then closes them all (which sends DELETE). The time measured runs
// from the first call to the last answer; connecting and closing are not in
// it, but their failures are errors too. With stateless, the clients speak
// 2026-07-28 and must get no session: a client that fell back to
// initialize (a server without the revision) is an error, not a
// measurement of the session path under another name.
func drive(ctx context.Context, endpoint, tool string, sessions, calls int, stateless bool) (driven, error) {
	// One connection pool for all sessions, big enough to keep a
	// connection per session alive (the default keeps 2 idle).
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        2 * sessions,
		MaxIdleConnsPerHost: 2 * sessions,
		IdleConnTimeout:     30 * time.Second,
	}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: time.Minute}

	var (
		errs     atomic.Int64
		mu       sync.Mutex
		messages []string
	)
	fail := func(format string, args ...any) {
		errs.Add(1)
		mu.Lock()
		defer mu.Unlock()
		if len(messages) < 5 {
			messages = append(messages, fmt.Sprintf(format, args...))
		}
	}

	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	css := make([]*mcp.ClientSession, sessions)
	var wg sync.WaitGroup
	for i := range css {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			client := mcp.NewClient(&mcp.Implementation{Name: "nexus-load", Version: "1"}, nil)
			// No reconnection attempts: a failure must show as one.
			transport := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}
			version := protocol
			if stateless {
				version = statelessProtocol
			}
			cs, err := client.Connect(cctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				fail("session %d: connect: %v", i, err)
				return
			}
			if got := cs.InitializeResult().ProtocolVersion; got != version || (stateless && cs.ID() != "") {
				fail("session %d: asked for %s, got protocol %s and session id %q", i, version, got, cs.ID())
				cs.Close()
				return
			}
			css[i] = cs
		}(i)
	}
	wg.Wait()

	lat := make([][]time.Duration, sessions)
	start := time.Now()
	for i, cs := range css {
		if cs == nil {
			continue
		}
		wg.Add(1)
		go func(i int, cs *mcp.ClientSession) {
			defer wg.Done()
			mine := make([]time.Duration, 0, calls)
			for j := 0; j < calls && ctx.Err() == nil; j++ {
				v := int64(i)*1_000_000 + int64(j)
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"x": v}})
				mine = append(mine, time.Since(t0))
				if err := checkIdent(res, err, v); err != nil {
					fail("session %d call %d: %v", i, j, err)
				}
			}
			lat[i] = mine
		}(i, cs)
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := ctx.Err(); err != nil {
		return driven{}, fmt.Errorf("the run went over -deadline: %w", err)
	}

	var ids []string
	for i, cs := range css {
		if cs == nil {
			continue
		}
		if id := cs.ID(); id != "" {
			ids = append(ids, id)
		}
		wg.Add(1)
		go func(i int, cs *mcp.ClientSession) {
			defer wg.Done()
			if err := cs.Close(); err != nil {
				fail("session %d: close: %v", i, err)
			}
		}(i, cs)
	}
	wg.Wait()

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	return driven{calls: len(all), errors: errs.Load(), messages: messages, elapsed: elapsed, lat: all, sessionIDs: ids}, nil
}

// checkIdent checks one answer of the identity: one text block holding v.
func checkIdent(res *mcp.CallToolResult, err error, v int64) error {
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("tool error: %s", contentText(res))
	}
	if len(res.Content) != 1 {
		return fmt.Errorf("%d content blocks, want 1", len(res.Content))
	}
	if got, want := contentText(res), strconv.FormatInt(v, 10); got != want {
		return fmt.Errorf("answered %q, want %q", got, want)
	}
	return nil
}

func contentText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// checkSessionsGone sends a ping in each deleted session: every one must
// get 404 (unknown session), which proves the DELETE ended it on the
// server. It returns a problem, or "".
func checkSessionsGone(ctx context.Context, endpoint string, ids []string) string {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Timeout: 10 * time.Second, Transport: tr}
	alive := 0
	var first string
	for _, id := range ids {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			return err.Error()
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", protocol)
		resp, err := hc.Do(req)
		if err != nil {
			return fmt.Sprintf("ping in a deleted session: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			alive++
			if first == "" {
				first = fmt.Sprintf("session %s answered %d", id, resp.StatusCode)
			}
		}
	}
	if alive > 0 {
		return fmt.Sprintf("%d of %d deleted sessions still answer (want 404): %s", alive, len(ids), first)
	}
	return ""
}

// ---------------------------------------------------------------------------
// The ceiling: the Go SDK's own server, in this process.

type identArgs struct {
	X int64 `json:"x"`
}

func identHandler(_ context.Context, _ *mcp.CallToolRequest, in identArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.FormatInt(in.X, 10)}}}, nil, nil
}

// startCeiling serves the identity tool `ident` ({"x": integer}) with the
// Go SDK's server and Streamable HTTP handler on a loopback listener,
// answering in JSON as nexus does. It returns the endpoint and a stop.
func startCeiling() (string, func(), error) {
	server := mcp.NewServer(&mcp.Implementation{Name: "ceiling", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "ident", Description: "The identity."}, identHandler)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{JSONResponse: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln) //nolint:errcheck // ends with Close
	return "http://" + ln.Addr().String() + "/mcp", func() { hs.Close() }, nil
}

// settledGoroutines waits up to d for this process's goroutine count to
// drop to want (or, with want 0, to hold still for a moment), and returns it.
func settledGoroutines(ctx context.Context, want int, d time.Duration) int {
	deadline := time.Now().Add(d)
	last := runtime.NumGoroutine()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(200 * time.Millisecond)
		n := runtime.NumGoroutine()
		if (want > 0 && n <= want) || (want == 0 && n == last) {
			return n
		}
		last = n
	}
	return last
}
