package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkCall is the protocol's own cost of a tools/call: decoding,
// binding and checking the arguments, evaluating the body, shaping and
// encoding the reply, with the pool answering in this process.
func BenchmarkCall(b *testing.B) {
	srv, _ := callsServer(b, Options{})
	ss := srv.NewSession()
	for _, l := range []string{initLine, initializedLine} {
		ss.Handle(context.Background(), []byte(l), func([]byte) {})
	}
	line := []byte(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"add","arguments":{"_1":1,"_2":2}}}`)
	done := make(chan []byte, 1)
	reply := func(r []byte) { done <- r }
	b.ReportAllocs()
	for b.Loop() {
		ss.Handle(context.Background(), line, reply)
		<-done
	}
}

// BenchmarkHTTPCall is the cost of a tools/call through the Streamable
// HTTP handler (no network): in a legacy session, and as a stateless
// 2026-07-28 request, which carries _meta and headers instead.
func BenchmarkHTTPCall(b *testing.B) {
	srv, _ := callsServer(b, Options{})
	h := NewHTTPHandler(srv, HTTPOptions{})
	defer h.Close()
	post := func(body string, headers ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	init := post(initLine)
	sid := init.Header().Get(HeaderSessionID)
	post(initializedLine, HeaderSessionID, sid, HeaderProtocolVersion, LatestLegacy)
	call := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"add","arguments":{"_1":1,"_2":2}}}`
	b.Run("session", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if w := post(call, HeaderSessionID, sid, HeaderProtocolVersion, LatestLegacy); w.Code != http.StatusOK {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	})
	modernCall := modern("6", "tools/call", `"name":"add","arguments":{"_1":1,"_2":2}`)
	b.Run("stateless", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if w := post(modernCall, HeaderProtocolVersion, V20260728, HeaderMethod, "tools/call", HeaderName, "add"); w.Code != http.StatusOK {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	})
}
