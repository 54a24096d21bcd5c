// Package tracing gives a running nexus OpenTelemetry traces: one server
// span per tool call, with child spans for the binding of its arguments,
// each call into a pool and each call of another MCP server's tool; the
// W3C trace context is taken from the request and passed on to pools and
// to other MCP servers.
//
// Tracing is off unless the standard OTEL_* environment variables ask for
// it (see Setup). Off, every function here returns at once with what it
// was given and a nil *Span, whose methods do nothing: no tracer
// provider is made, no goroutine runs and the call path allocates
// nothing for tracing. Callers need no check of their own, except to
// avoid work only tracing wants (On).
package tracing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// DefaultServiceName is service.name unless OTEL_SERVICE_NAME (or
// OTEL_RESOURCE_ATTRIBUTES) names the service otherwise.
const DefaultServiceName = "nexus"

// instrumentation names the tracer, as OpenTelemetry asks: the module.
const instrumentation = "github.com/nexus-run/nexus"

// current holds the tracer of every span, nil while tracing is off.
// Setup sets it, the shutdown clears it; calls read it on every step, an
// atomic load.
var current atomic.Pointer[state]

type state struct{ tracer trace.Tracer }

// propagator reads and writes traceparent and tracestate.
var propagator = propagation.TraceContext{}

// On reports whether tracing is on.
func On() bool { return current.Load() != nil }

// Config is what the environment asks for: whether to trace, and over
// which OTLP protocol to export.
type Config struct {
	On       bool
	Protocol string // "grpc" or "http/protobuf"
}

// FromEnv reads the configuration from the OTEL_* variables getenv
// returns. Tracing is on when OTEL_TRACES_EXPORTER is otlp, or when it is
// unset and an OTLP endpoint is (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); OTEL_SDK_DISABLED=true and
// OTEL_TRACES_EXPORTER=none turn it off. The protocol is
// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL,
// else http/protobuf, the specification's default. An exporter or
// protocol nexus does not have is an error, not a silent no-op: someone
// who asked for traces should learn why none come.
func FromEnv(getenv func(string) string) (Config, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return Config{}, nil
	}
	var c Config
	switch exp := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); exp {
	case "none":
		return Config{}, nil
	case "otlp":
		c.On = true
	case "":
		c.On = getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	default:
		return Config{}, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: nexus exports traces over OTLP only (otlp or none)", exp)
	}
	if !c.On {
		return c, nil
	}
	c.Protocol = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"))
	if c.Protocol == "" {
		c.Protocol = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
	}
	switch c.Protocol {
	case "":
		c.Protocol = "http/protobuf"
	case "grpc", "http/protobuf":
	default:
		return Config{}, fmt.Errorf("OTLP protocol %q: nexus exports traces over grpc or http/protobuf", c.Protocol)
	}
	return c, nil
}

// Setup turns tracing on when the environment asks for it (FromEnv) and
// returns the function that flushes the spans not yet exported and stops
// the exporter, which a server calls as it shuts down. Off, it starts
// nothing and the shutdown does nothing. The exporters read the rest of
// the OTLP settings themselves (endpoint, headers, timeout, TLS), the SDK
// the sampler (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG) and the
// batching (OTEL_BSP_*). Setup is called once, before any call is served.
func Setup(ctx context.Context) (shutdown func(context.Context) error, err error) {
	none := func(context.Context) error { return nil }
	c, err := FromEnv(os.Getenv)
	if err != nil || !c.On {
		return none, err
	}
	var exp sdktrace.SpanExporter
	if c.Protocol == "grpc" {
		exp, err = otlptracegrpc.New(ctx)
	} else {
		exp, err = otlptracehttp.New(ctx)
	}
	if err != nil {
		return none, fmt.Errorf("tracing: %w", err)
	}
	// The default name first, so that the environment's name wins.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", DefaultServiceName)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return none, fmt.Errorf("tracing: OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagator)
	current.Store(&state{tracer: tp.Tracer(instrumentation)})
	return func(ctx context.Context) error {
		current.Store(nil)
		return tp.Shutdown(ctx)
	}, nil
}

// Span is a span in progress. A nil *Span (tracing off) does nothing.
type Span struct {
	s trace.Span
}

// End ends the span; a non-nil err marks it failed, with err's message.
func (s *Span) End(err error) {
	if s == nil {
		return
	}
	if err != nil {
		s.s.SetStatus(codes.Error, err.Error())
	}
	s.s.End()
}

// start starts a span named name of kind kind as a child of ctx's, with
// t, the tracer current returned.
func start(ctx context.Context, t *state, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, *Span) {
	ctx, s := t.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	return ctx, &Span{s: s}
}
