package tracing

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/nexus-run/nexus/internal/nexus/observe"
)

// Attribute keys. Where OpenTelemetry's semantic conventions have one
// (the MCP conventions, semconv 1.41: mcp.*, gen_ai.tool.name,
// gen_ai.operation.name, network.transport, error.type; rpc.system.name)
// it is used; what is nexus's own is nexus.*.
const (
	keyMCPMethod    = "mcp.method.name"
	keyMCPProtocol  = "mcp.protocol.version"
	keyToolName     = "gen_ai.tool.name"
	keyOperation    = "gen_ai.operation.name"
	keyNetTransport = "network.transport"
	keyErrorType    = "error.type"
	keyRPCSystem    = "rpc.system.name"
	keyProgram      = "nexus.program"
	keyTransport    = "nexus.transport"
	keyOutcome      = "nexus.outcome"
	keyLanguage     = "nexus.pool.language"
	keyFunction     = "nexus.function"
	keyFunctionSrc  = "nexus.function.source"
	keyMCPServer    = "nexus.mcp.server"
	methodToolsCall = "tools/call"
	opExecuteTool   = "execute_tool"
)

// ToolCall starts the server span of a tool call that began at begin:
// tool of program, arriving by transport (observe.Stdio, HTTP or
// JSONAPI) from a client of MCP revision protocol ("" for the JSON API).
// Its parent is the trace context ctx carries (FromHeaders, FromMeta).
// End it with EndCall.
func ToolCall(ctx context.Context, begin time.Time, program, tool, transport, protocol string) (context.Context, *Span) {
	t := current.Load()
	if t == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{
		attribute.String(keyToolName, tool),
		attribute.String(keyOperation, opExecuteTool),
		attribute.String(keyProgram, program),
		attribute.String(keyTransport, transport),
	}
	name := "call " + tool
	if transport != observe.JSONAPI {
		name = methodToolsCall + " " + tool
		attrs = append(attrs, attribute.String(keyMCPMethod, methodToolsCall))
		if protocol != "" {
			attrs = append(attrs, attribute.String(keyMCPProtocol, protocol))
		}
		net := "tcp"
		if transport == observe.Stdio {
			net = "pipe"
		}
		attrs = append(attrs, attribute.String(keyNetTransport, net))
	}
	ctx, s := t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithTimestamp(begin), trace.WithAttributes(attrs...))
	return ctx, &Span{s: s}
}

// EndCall ends a tool call's span with its outcome; any but observe.OK
// marks the span failed, with message (the failure's, or the outcome's
// name when there is none) as its description.
func (s *Span) EndCall(outcome observe.Outcome, message string) {
	if s == nil {
		return
	}
	s.s.SetAttributes(attribute.String(keyOutcome, string(outcome)))
	if outcome != observe.OK {
		if message == "" {
			message = string(outcome)
		}
		s.s.SetAttributes(attribute.String(keyErrorType, string(outcome)))
		s.s.SetStatus(codes.Error, message)
	}
	s.s.End()
}

// Bind starts the span of the binding of a call's arguments. End it with
// End(err), err the binding's failure. The arguments' values are never
// recorded: they may hold anything.
func Bind(ctx context.Context, tool string) (context.Context, *Span) {
	t := current.Load()
	if t == nil {
		return ctx, nil
	}
	return start(ctx, t, "bind arguments", trace.SpanKindInternal, attribute.String(keyToolName, tool))
}

// PoolCall starts the client span of a call of function (its name in
// program, source its name in its source file) in the pool of language
// lang. The context returned carries it into the call (Carrier).
func PoolCall(ctx context.Context, program, lang, function, source string) (context.Context, *Span) {
	t := current.Load()
	if t == nil {
		return ctx, nil
	}
	return start(ctx, t, lang+" "+function, trace.SpanKindClient,
		attribute.String(keyProgram, program),
		attribute.String(keyLanguage, lang),
		attribute.String(keyFunction, function),
		attribute.String(keyFunctionSrc, source),
		attribute.String(keyRPCSystem, "grpc"))
}

// MCPCall starts the client span of a call of tool on the MCP server
// server, as function of program. The context returned carries it to the
// server (Meta, and the headers of InjectHeaders).
func MCPCall(ctx context.Context, program, server, tool, function string) (context.Context, *Span) {
	t := current.Load()
	if t == nil {
		return ctx, nil
	}
	return start(ctx, t, methodToolsCall+" "+tool, trace.SpanKindClient,
		attribute.String(keyMCPMethod, methodToolsCall),
		attribute.String(keyToolName, tool),
		attribute.String(keyOperation, opExecuteTool),
		attribute.String(keyMCPServer, server),
		attribute.String(keyProgram, program),
		attribute.String(keyFunction, function))
}

// FromHeaders returns ctx carrying the trace context of a request's
// traceparent and tracestate headers, if it has them.
func FromHeaders(ctx context.Context, h http.Header) context.Context {
	if !On() || h.Get("Traceparent") == "" {
		return ctx
	}
	return propagator.Extract(ctx, propagation.HeaderCarrier(h))
}

// FromMeta returns ctx carrying the trace context of an MCP request's
// _meta (its traceparent and tracestate keys), and whether it had one.
func FromMeta(ctx context.Context, meta json.RawMessage) (context.Context, bool) {
	if !On() || len(meta) == 0 {
		return ctx, false
	}
	var m struct {
		Traceparent string `json:"traceparent"`
		Tracestate  string `json:"tracestate"`
	}
	if json.Unmarshal(meta, &m) != nil || m.Traceparent == "" {
		return ctx, false
	}
	c := propagation.MapCarrier{"traceparent": m.Traceparent}
	if m.Tracestate != "" {
		c["tracestate"] = m.Tracestate
	}
	sc := trace.SpanContextFromContext(propagator.Extract(context.Background(), c))
	if !sc.IsValid() {
		return ctx, false
	}
	return trace.ContextWithRemoteSpanContext(ctx, sc), true
}

// Carrier returns the traceparent and tracestate values of the span ctx
// carries, for a call into a pool; "" when there is none.
func Carrier(ctx context.Context) (traceparent, tracestate string) {
	if !On() || !trace.SpanContextFromContext(ctx).IsValid() {
		return "", ""
	}
	c := propagation.MapCarrier{}
	propagator.Inject(ctx, c)
	return c["traceparent"], c["tracestate"]
}

// Meta returns the _meta entries (traceparent, tracestate) that pass the
// span ctx carries on to another MCP server; nil when there is none.
func Meta(ctx context.Context) map[string]any {
	tp, ts := Carrier(ctx)
	if tp == "" {
		return nil
	}
	m := map[string]any{"traceparent": tp}
	if ts != "" {
		m["tracestate"] = ts
	}
	return m
}

// InjectHeaders sets the traceparent and tracestate headers of an HTTP
// request to another MCP server from the span ctx carries.
func InjectHeaders(ctx context.Context, h http.Header) {
	if On() && trace.SpanContextFromContext(ctx).IsValid() {
		propagator.Inject(ctx, propagation.HeaderCarrier(h))
	}
}
