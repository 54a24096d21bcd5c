package integration

import (
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
)

// Traces (docs/operations.md, "Tracing"), end to end: a nexus exporting
// to a local OTLP receiver, serving a program whose command calls a
// Python function and a tool of a second nexus over HTTP, which exports
// to the same receiver.

// receiver is an OTLP trace collector on 127.0.0.1 that keeps every span
// it is sent, with its resource's service.name.
type receiver struct {
	collectortrace.UnimplementedTraceServiceServer
	addr string

	mu    sync.Mutex
	spans []gotSpan
}

type gotSpan struct {
	service string
	*tracepb.Span
}

func (r *receiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		service := attr(rs.GetResource().GetAttributes(), "service.name")
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r.spans = append(r.spans, gotSpan{service: service, Span: s})
			}
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// startReceiver starts a receiver, stopped when the test ends.
func startReceiver(t *testing.T) *receiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &receiver{addr: ln.Addr().String()}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, r)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return r
}

// env is the environment that points a nexus at the receiver.
func (r *receiver) env(service string) []string {
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + r.addr, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc",
		"OTEL_BSP_SCHEDULE_DELAY=100"}
	if service != "" {
		env = append(env, "OTEL_SERVICE_NAME="+service)
	}
	return env
}

// trace returns the spans received of trace id (hex).
func (r *receiver) trace(id string) []gotSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []gotSpan
	for _, s := range r.spans {
		if hex.EncodeToString(s.TraceId) == id {
			out = append(out, s)
		}
	}
	return out
}

func (r *receiver) all() []gotSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]gotSpan(nil), r.spans...)
}

func attr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}

func (s gotSpan) String() string {
	var attrs []string
	for _, kv := range s.Attributes {
		attrs = append(attrs, kv.Key+"="+kv.Value.GetStringValue())
	}
	return fmt.Sprintf("%s %q %s id %x parent %x [%s] status %v",
		s.service, s.Name, s.Kind, s.SpanId, s.ParentSpanId, strings.Join(attrs, " "), s.Status)
}

var downProgram = files{
	"down.py": `
def shout(s):
    return s.upper()

def fail(s):
    raise ValueError("no good")
`,
	"main.loc": `
module down (shout, fail)

import root-py

source Py from "down.py" ("shout" as shoutPy, "fail" as failPy)

shoutPy :: Str -> Str
failPy :: Str -> Str

--' Shout a text.
shout ::
  --' @name text
  Str ->
  Str
shout t = shoutPy t

--' Always fails.
fail ::
  --' @name text
  Str ->
  Str
fail t = failPy t
`,
}

func upProgram(downURL string) files {
	return files{
		"up.py": `
def greet(s):
    return "hello " + s
`,
		"main.loc": `
module up (hello)

import root-py

source Py from "up.py" ("greet" as greetPy)

source MCP from "` + downURL + `" ("shout" as shoutMCP)

greetPy :: Str -> Str

shoutMCP ::
  --' @name text
  Str ->
  Str

--' Greet someone, loudly.
hello ::
  --' @name name
  Str ->
  Str
hello n = greetPy (shoutMCP n)
`,
	}
}

// TestTracesAcrossPoolsAndServers: one call, with a known traceparent,
// gives a tool-call span (the caller's span its parent), and beneath it
// the binding, the Python pool call and the call of the other nexus's
// tool, under which come that nexus's own tool-call and pool spans, all
// of one trace. The trace context comes from _meta at 2026-07-28 (over
// a traceparent header that says otherwise), from the header in a legacy
// session and from the header on the JSON API. No argument value is in
// any span.
func TestTracesAcrossPoolsAndServers(t *testing.T) {
	rcv := startReceiver(t)
	down := build(t, downProgram)
	ds := startHTTP(t, down.tmp, rcv.env("down-nexus"), "mcp", down.launcher)
	up := build(t, upProgram(ds.base+"/mcp"))
	us := startHTTP(t, up.tmp, rcv.env(""), "serve", up.launcher)

	const secret = "zorblax" // the argument, which no span may hold
	// (The other nexus answers the text of its Str result as JSON, which
	// a Str reads as it is: hello "ZORBLAX".)
	want := strings.ToUpper(secret)

	// 2026-07-28: the trace context of _meta, over the header's.
	const meta = "4bf92f3577b34da6a3ce929d0e0e4736"
	meta2026 := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"traceparent": "00-" + meta + "-00f067aa0ba902b7-01", "tracestate": "vendor=x"}
	r := us.rpc("", 1, "tools/call", map[string]any{"_meta": meta2026, "name": "up__hello", "arguments": map[string]any{"name": secret}},
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "up__hello",
		"Traceparent", "00-11111111111111111111111111111111-2222222222222222-01")
	if r.status != 200 || !strings.Contains(string(r.body), want) {
		t.Fatalf("tools/call at 2026-07-28: %v", r)
	}

	// A legacy session: the header's.
	const header = "0af7651916cd43dd8448eb211c80319c"
	sid := us.initialize()
	r = us.rpc(sid, 2, "tools/call", map[string]any{"name": "up__hello", "arguments": map[string]any{"name": secret}},
		"Traceparent", "00-"+header+"-b7ad6b7169203331-01")
	if r.status != 200 || !strings.Contains(string(r.body), want) {
		t.Fatalf("tools/call in a session: %v", r)
	}

	// The JSON API: the header's.
	const api = "a1a2a3a4a5a6a7a8b1b2b3b4b5b6b7b8"
	r = us.do(http.MethodPost, "/call/up/hello", `{"name":"`+secret+`"}`, "Traceparent", "00-"+api+"-c1c2c3c4c5c6c7c8-01")
	if r.status != 200 || !strings.Contains(string(r.body), want) {
		t.Fatalf("the JSON API: %v", r)
	}

	// Stopping flushes the spans not yet exported.
	us.stop()
	// Over stdio, in a legacy revision: _meta's. (The environment the
	// connection's nexus inherits points it at the receiver.)
	const stdio = "5e5e5e5e5e5e5e5e6f6f6f6f6f6f6f6f"
	for _, kv := range rcv.env("") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	c := startMCPConn(t, up)
	c.initialize("2025-06-18")
	rep := c.request(3, "tools/call", map[string]any{"name": "hello", "arguments": map[string]any{"name": secret},
		"_meta": map[string]any{"traceparent": "00-" + stdio + "-d1d2d3d4d5d6d7d8-01"}})
	if rep.Error != nil || !strings.Contains(rep.Line, want) {
		t.Fatalf("tools/call over stdio: %s", rep.Line)
	}
	c.close() // checks that up's pools are gone, the HTTP server's too

	ds.stop()
	up.checkClean()
	down.checkClean()

	checkTrace(t, rcv, meta, "00f067aa0ba902b7", "tools/call up__hello", "2026-07-28")
	checkTrace(t, rcv, header, "b7ad6b7169203331", "tools/call up__hello", "2025-06-18")
	checkTrace(t, rcv, api, "c1c2c3c4c5c6c7c8", "call up__hello", "")
	checkTrace(t, rcv, stdio, "d1d2d3d4d5d6d7d8", "tools/call hello", "2025-06-18")
	if got := rcv.trace("11111111111111111111111111111111"); len(got) != 0 {
		t.Errorf("the header's trace context won over _meta's at 2026-07-28: %v", got)
	}
	for _, s := range rcv.all() {
		if strings.Contains(strings.ToLower(s.String()), secret) {
			t.Errorf("a span holds the argument's value: %v", s)
		}
	}
}

// checkTrace checks the spans of one call of program up's command hello,
// of trace id, whose caller's span is parent, with a tool-call span named
// callName, made by a client of MCP revision protocol ("" for the JSON
// API).
func checkTrace(t *testing.T, rcv *receiver, id, parent, callName, protocol string) {
	t.Helper()
	spans := rcv.trace(id)
	dump := func() string {
		var b strings.Builder
		for _, s := range spans {
			b.WriteString("\n  " + s.String())
		}
		return b.String()
	}
	find := func(service, name string) gotSpan {
		for _, s := range spans {
			if s.service == service && s.Name == name {
				return s
			}
		}
		t.Fatalf("trace %s: no %s span %q; spans:%s", id, service, name, dump())
		return gotSpan{}
	}
	call := find("nexus", callName)
	if hex.EncodeToString(call.ParentSpanId) != parent || call.Kind != tracepb.Span_SPAN_KIND_SERVER ||
		attr(call.Attributes, "gen_ai.tool.name") != strings.Fields(callName)[1] || attr(call.Attributes, "nexus.program") != "up" ||
		attr(call.Attributes, "nexus.outcome") != "ok" || attr(call.Attributes, "mcp.protocol.version") != protocol {
		t.Errorf("trace %s: the tool call's span: %v", id, call)
	}
	childOf := func(s, of gotSpan, what string) {
		t.Helper()
		if string(s.ParentSpanId) != string(of.SpanId) {
			t.Errorf("trace %s: %s %v is not a child of %v", id, what, s, of)
		}
	}
	bind := find("nexus", "bind arguments")
	childOf(bind, call, "the binding")
	pc := find("nexus", "py greetPy")
	childOf(pc, call, "the pool call")
	if attr(pc.Attributes, "nexus.pool.language") != "py" || attr(pc.Attributes, "nexus.function") != "greetPy" || attr(pc.Attributes, "nexus.function.source") != "greet" ||
		attr(pc.Attributes, "nexus.program") != "up" || pc.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("trace %s: the pool call's span: %v", id, pc)
	}
	mc := find("nexus", "tools/call shout")
	childOf(mc, call, "the MCP call")
	if attr(mc.Attributes, "gen_ai.tool.name") != "shout" || attr(mc.Attributes, "nexus.mcp.server") == "" ||
		attr(mc.Attributes, "mcp.method.name") != "tools/call" || mc.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("trace %s: the MCP call's span: %v", id, mc)
	}
	// The other nexus's spans, of the same trace, beneath the MCP call.
	dcall := find("down-nexus", "tools/call shout")
	childOf(dcall, mc, "the other nexus's tool call")
	dpc := find("down-nexus", "py shoutPy")
	childOf(dpc, dcall, "the other nexus's pool call")
}

// TestTracesOff: with an endpoint set but OTEL_SDK_DISABLED=true, or
// OTEL_TRACES_EXPORTER=none, a server exports nothing. (Without any OTEL_*
// variable it has nowhere to export to: the tracing package's unit test
// shows that it then installs no tracer provider at all.)
func TestTracesOff(t *testing.T) {
	rcv := startReceiver(t)
	p := build(t, downProgram)
	for _, env := range [][]string{append(rcv.env(""), "OTEL_SDK_DISABLED=true"), append(rcv.env(""), "OTEL_TRACES_EXPORTER=none")} {
		s := startHTTP(t, p.tmp, env, "serve", p.launcher)
		r := s.do(http.MethodPost, "/call/down/shout", `{"text":"hi"}`, "Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
		if r.status != 200 || !strings.Contains(string(r.body), "HI") {
			t.Fatalf("a call: %v", r)
		}
		s.stop()
	}
	p.checkClean()
	// Anything exported would have been flushed at the stop.
	if got := rcv.all(); len(got) != 0 {
		t.Errorf("spans exported with tracing off: %v", got)
	}
}

// TestTracesFailure: a call whose function raises, and one whose
// arguments do not bind, mark their spans failed, with the outcome.
func TestTracesFailure(t *testing.T) {
	rcv := startReceiver(t)
	p := build(t, downProgram)
	s := startHTTP(t, p.tmp, rcv.env(""), "serve", p.launcher)
	const failed, unbound = "f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1", "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0"
	if r := s.do(http.MethodPost, "/call/down/fail", `{"text":"x"}`, "Traceparent", "00-"+failed+"-0102030405060708-01"); r.status != 500 {
		t.Fatalf("a failing call: %v, want 500", r)
	}
	if r := s.do(http.MethodPost, "/call/down/shout", `{"txt":"x"}`, "Traceparent", "00-"+unbound+"-0102030405060708-01"); r.status != 400 {
		t.Fatalf("a call with a wrong argument: %v, want 400", r)
	}
	s.stop()
	p.checkClean()
	check := func(id, name, outcome string) gotSpan {
		t.Helper()
		for _, sp := range rcv.trace(id) {
			if sp.Name == name {
				if sp.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || (outcome != "" && attr(sp.Attributes, "nexus.outcome") != outcome) {
					t.Errorf("span %v: want status error, outcome %q", sp, outcome)
				}
				return sp
			}
		}
		t.Errorf("trace %s has no span %q: %v", id, name, rcv.trace(id))
		return gotSpan{}
	}
	call := check(failed, "call down__fail", "tool_error")
	if attr(call.Attributes, "error.type") != "tool_error" || !strings.Contains(call.Status.GetMessage(), "no good") {
		t.Errorf("the failed call's span: %v", call)
	}
	check(failed, "py failPy", "")
	check(unbound, "call down__shout", "bad_arguments")
	check(unbound, "bind arguments", "")
}

var poolsTraced = files{
	"main.loc": `
module pools (parent, cpp)

import root-cpp
import root-go

source Cpp from "twice.hpp" ("twice" as twiceCpp)
source Go from "parent.go" ("Parent" as parentGo)

twiceCpp :: Int -> Int
parentGo :: Int -> Str

--' The trace context the Go function was called with.
parent ::
  --' @name x
  Int ->
  Str
parent x = parentGo x

--' Twice x, in C++.
cpp ::
  --' @name x
  Int ->
  Int
cpp x = twiceCpp x
`,
	"twice.hpp": `
#pragma once
#include <cstdint>

inline std::int64_t twice(std::int64_t x) { return 2 * x; }
`,
	"parent.go": `
package pools

import (
	"context"

	gopool "github.com/nexus-run/nexus/pools/go"
)

func Parent(ctx context.Context, x int) string {
	tp, ts := gopool.TraceContext(ctx)
	return tp + " " + ts
}
`,
}

// TestTracesReachPools: a traced call's pool call carries its trace
// context into the pool: the Go pool hands it to a function that takes a
// context (its parent the pool call's span), and the C++ pool, which
// ignores it, answers as ever.
func TestTracesReachPools(t *testing.T) {
	rcv := startReceiver(t)
	p := build(t, poolsTraced)
	s := startHTTP(t, p.tmp, rcv.env(""), "serve", p.launcher)
	const id = "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0"
	r := s.do(http.MethodPost, "/call/pools/parent", `{"x":1}`, "Traceparent", "00-"+id+"-0102030405060708-01", "Tracestate", "k=v")
	if r.status != 200 {
		t.Fatalf("parent: %v", r)
	}
	got := string(r.body)
	if r := s.do(http.MethodPost, "/call/pools/cpp", `{"x":21}`, "Traceparent", "00-"+id+"-0102030405060708-01"); r.status != 200 || !strings.Contains(string(r.body), "42") {
		t.Fatalf("cpp: %v", r)
	}
	s.stop()
	p.checkClean()
	var pc gotSpan
	for _, sp := range rcv.trace(id) {
		if sp.Name == "go parentGo" {
			pc = sp
		}
	}
	if pc.Span == nil {
		t.Fatalf("no pool call span of parentGo: %v", rcv.trace(id))
	}
	if want := fmt.Sprintf("00-%s-%x-01 k=v", id, pc.SpanId); !strings.Contains(got, want) {
		t.Errorf("the Go function saw %s, want %q", got, want)
	}
	found := false
	for _, sp := range rcv.trace(id) {
		found = found || sp.Name == "cpp twiceCpp"
	}
	if !found {
		t.Errorf("no pool call span of twiceCpp: %v", rcv.trace(id))
	}
}
