package mcpsrc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkServer is the Go SDK's Streamable HTTP server on a loopback port,
// with one tool, add, behind a thin front that can pin the protocol
// version (it rewrites the version the client asks for in initialize, so
// the SDK's server negotiates down to it), records the version header of
// every request, forgets every session (a restart of the server), or
// answers every call with 404 for its session; hold answers once the test
// closes held.
type sdkServer struct {
	url     string
	version string // pinned; "" leaves the client's
	json    bool   // JSON answers instead of SSE

	held    chan struct{} // hold waits for it to close
	holding chan struct{} // hold sends on it when it starts

	handler  atomic.Pointer[mcp.StreamableHTTPHandler]
	refuse   atomic.Bool  // answer tools/call with 404, as for an unknown session
	forget   sync.Map     // session ids answered 404 with a JSON-RPC error, as nexus does
	adds     atomic.Int32 // calls of add that ran
	inits    atomic.Int32 // initialize requests
	mu       sync.Mutex
	versions map[string]string // method -> the MCP-Protocol-Version it came with
}

func newSDKServer(t *testing.T, version string, jsonAnswers bool) *sdkServer {
	t.Helper()
	s := &sdkServer{version: version, json: jsonAnswers, versions: map[string]string{},
		held: make(chan struct{}), holding: make(chan struct{}, 1)}
	s.restart()
	ts := httptest.NewServer(http.HandlerFunc(s.serve)) // 127.0.0.1
	t.Cleanup(ts.Close)
	s.url = ts.URL + "/mcp"
	return s
}

// restart replaces the server by a new one that knows no session.
func (s *sdkServer) restart() {
	server := mcp.NewServer(&mcp.Implementation{Name: "pinned", Version: "1"}, nil)
	type in struct{ A, B int }
	type out struct {
		Sum int `json:"sum"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "add"}, func(_ context.Context, _ *mcp.CallToolRequest, x in) (*mcp.CallToolResult, out, error) {
		s.adds.Add(1)
		return nil, out{x.A + x.B}, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, out, error) {
		s.holding <- struct{}{}
		select {
		case <-s.held:
			return nil, out{42}, nil
		case <-ctx.Done():
			return nil, out{}, ctx.Err()
		}
	})
	s.handler.Store(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: s.version == "2026-07-28", JSONResponse: s.json}))
}

func (s *sdkServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		json.Unmarshal(body, &msg)
		s.mu.Lock()
		s.versions[msg.Method] = r.Header.Get("MCP-Protocol-Version")
		s.mu.Unlock()
		if msg.Method == "initialize" {
			s.inits.Add(1)
			if s.version != "" {
				msg.Params["protocolVersion"] = s.version
				body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(idOf(body)), "method": msg.Method, "params": msg.Params})
			}
		}
		if msg.Method == "tools/call" && s.refuse.Load() && r.Header.Get("Mcp-Session-Id") != "" {
			http.Error(w, "session not found", http.StatusNotFound) // as the SDK's server answers
			return
		}
		if _, ok := s.forget.Load(r.Header.Get("Mcp-Session-Id")); ok && msg.Method != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":"unknown or expired session"}}`, idOf(body))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	s.handler.Load().ServeHTTP(w, r)
}

func idOf(body []byte) []byte {
	var m struct{ ID json.RawMessage }
	json.Unmarshal(body, &m)
	return m.ID
}

func (s *sdkServer) versionOf(method string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.versions[method]
}

func negotiated(t *testing.T, src *Source) string {
	t.Helper()
	src.mu.Lock()
	defer src.mu.Unlock()
	if src.conn == nil || src.conn.session.InitializeResult() == nil {
		t.Fatal("no session")
	}
	return src.conn.session.InitializeResult().ProtocolVersion
}

func addOnce(t *testing.T, src *Source, a, b int) {
	t.Helper()
	r := call(t, src, "add", map[string]any{"A": a, "B": b})
	var out struct{ Sum int }
	if err := json.Unmarshal(r.Structured, &out); err != nil || out.Sum != a+b {
		t.Fatalf("add %d %d: structuredContent %s (%v), want sum %d", a, b, r.Structured, err, a+b)
	}
}

// TestHTTPFollowsServerVersion: against a server that speaks only an
// older revision, the client settles on that revision and sends it in
// MCP-Protocol-Version with every request after the handshake, with JSON
// answers and with SSE ones.
func TestHTTPFollowsServerVersion(t *testing.T) {
	for _, version := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		for _, jsonAnswers := range []bool{false, true} {
			name := version + "/sse"
			if jsonAnswers {
				name = version + "/json"
			}
			t.Run(name, func(t *testing.T) {
				srv := newSDKServer(t, version, jsonAnswers)
				src := newSource(t, Options{Name: "pinned", Server: srv.url})
				addOnce(t, src, 2, 3)
				addOnce(t, src, 4, 5)
				if got := negotiated(t, src); got != version {
					t.Errorf("negotiated %q, want %q", got, version)
				}
				for _, m := range []string{"tools/list", "tools/call"} {
					if got := srv.versionOf(m); got != version {
						t.Errorf("%s came with MCP-Protocol-Version %q, want %q", m, got, version)
					}
				}
				if srv.adds.Load() != 2 {
					t.Errorf("add ran %d times, want 2", srv.adds.Load())
				}
			})
		}
	}
}

// TestHTTPSessionExpiry: the server restarts between two calls and answers
// the second with 404 for the session it no longer knows; the client opens
// a new session and the call runs once. A server that refuses the new
// session too fails the call with an error naming the server, and the
// tool never ran.
func TestHTTPSessionExpiry(t *testing.T) {
	srv := newSDKServer(t, "", false)
	src := newSource(t, Options{Name: "restarting", Server: srv.url})
	addOnce(t, src, 1, 1)
	srv.restart()
	addOnce(t, src, 2, 2)
	if n := srv.inits.Load(); n != 2 {
		t.Errorf("%d initialize requests, want 2 (one per session)", n)
	}
	if n := srv.adds.Load(); n != 2 {
		t.Errorf("add ran %d times, want 2", n)
	}

	srv.refuse.Store(true)
	_, err := src.Call(context.Background(), "add", map[string]any{"A": 3, "B": 3})
	if err == nil || !strings.Contains(err.Error(), "mcp server restarting") {
		t.Fatalf("a session refused twice: %v, want an error naming the server", err)
	}
	t.Logf("a session refused twice: %v", err)
	if n := srv.inits.Load(); n != 3 {
		t.Errorf("%d initialize requests, want 3 (one more session, once)", n)
	}
	if n := srv.adds.Load(); n != 2 {
		t.Errorf("add ran %d times, want still 2", n)
	}
	srv.refuse.Store(false)
	addOnce(t, src, 4, 4)
}

// TestHTTPSessionExpiryConcurrent: calls in flight together when the
// server forgot their session each get its 404, and each runs once on the
// one new session that replaces it.
func TestHTTPSessionExpiryConcurrent(t *testing.T) {
	srv := newSDKServer(t, "", false)
	src := newSource(t, Options{Name: "restarting", Server: srv.url})
	addOnce(t, src, 1, 1)
	srv.restart()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := src.Call(context.Background(), "add", map[string]any{"A": i, "B": i})
			var out struct{ Sum int }
			if err != nil || json.Unmarshal(r.Structured, &out) != nil || out.Sum != 2*i {
				t.Errorf("add %d %d: %+v, %v", i, i, r, err)
			}
		}()
	}
	wg.Wait()
	if n := srv.adds.Load(); n != 17 {
		t.Errorf("add ran %d times, want 17", n)
	}
	if n := srv.inits.Load(); n != 2 {
		t.Errorf("%d initialize requests, want 2 (one new session for all the calls)", n)
	}
}

// TestHTTPSessionReplacedUnderACall: a server that forgets the session
// while one of its calls is still running (as a new instance may take over
// while the old one finishes its work) answers the next call with 404 and
// a JSON-RPC error, as nexus does: that call runs on a new session, and the
// call in flight still gets its answer on the old one.
func TestHTTPSessionReplacedUnderACall(t *testing.T) {
	srv := newSDKServer(t, "", false)
	src := newSource(t, Options{Name: "replaced", Server: srv.url})
	addOnce(t, src, 1, 1)
	old := src.conn.session.ID()
	held := make(chan error, 1)
	go func() {
		r, err := src.Call(context.Background(), "hold", nil)
		var out struct{ Sum int }
		if err == nil && (json.Unmarshal(r.Structured, &out) != nil || out.Sum != 42) {
			err = fmt.Errorf("hold answered %+v", r)
		}
		held <- err
	}()
	<-srv.holding
	srv.forget.Store(old, true)
	addOnce(t, src, 2, 2)
	close(srv.held)
	if err := <-held; err != nil {
		t.Errorf("the call in flight on the replaced session: %v", err)
	}
	if n := srv.inits.Load(); n != 2 {
		t.Errorf("%d initialize requests, want 2", n)
	}
	if src.conn.session.ID() == old {
		t.Errorf("still on session %s", old)
	}
}
