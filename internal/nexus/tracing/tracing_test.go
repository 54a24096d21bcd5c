package tracing

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/nexus-run/nexus/internal/nexus/observe"
)

// otelVars are every variable FromEnv reads.
var otelVars = []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
	"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"}

func TestFromEnv(t *testing.T) {
	cases := []struct {
		env     map[string]string
		want    Config
		wantErr bool
	}{
		{env: nil, want: Config{}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, want: Config{On: true, Protocol: "http/protobuf"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, want: Config{On: true, Protocol: "grpc"}},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}, want: Config{On: true, Protocol: "grpc"}},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, want: Config{}},
		{env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, want: Config{}},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, wantErr: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, wantErr: true},
	}
	for _, c := range cases {
		got, err := FromEnv(func(k string) string { return c.env[k] })
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("FromEnv(%v) = %+v, %v; want %+v, error %v", c.env, got, err, c.want, c.wantErr)
		}
	}
}

// TestOffDoesNothing: with no OTEL_* variable set, Setup installs no
// tracer provider, and the call path makes no span, passes no trace
// context on and allocates nothing.
func TestOffDoesNothing(t *testing.T) {
	for _, k := range otelVars {
		t.Setenv(k, "")
	}
	shutdown, err := Setup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(context.Background())
	if On() {
		t.Fatal("tracing is on with no OTEL_* variable set")
	}
	if tp, ok := otel.GetTracerProvider().(*sdktrace.TracerProvider); ok {
		t.Fatalf("a tracer provider is installed: %v", tp)
	}
	h := http.Header{"Traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}
	meta := json.RawMessage(`{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`)
	bg, out := context.Background(), http.Header{}
	allocs := testing.AllocsPerRun(100, func() {
		ctx := FromHeaders(bg, h)
		ctx, _ = FromMeta(ctx, meta)
		ctx, call := ToolCall(ctx, time.Time{}, "prog", "tool", "http", "2025-11-25")
		_, bind := Bind(ctx, "tool")
		bind.End(nil)
		pctx, pc := PoolCall(ctx, "prog", "py", "f", "f")
		if tp, _ := Carrier(pctx); tp != "" {
			t.Errorf("Carrier passes %q on with tracing off", tp)
		}
		pc.End(nil)
		mctx, mc := MCPCall(ctx, "prog", "srv", "tool", "f")
		if Meta(mctx) != nil {
			t.Error("Meta passes a trace context on with tracing off")
		}
		InjectHeaders(mctx, out)
		mc.End(nil)
		call.EndCall(observe.OK, "")
		if ctx != bg || call != nil || bind != nil || pc != nil || mc != nil {
			t.Error("tracing off made spans or contexts")
		}
	})
	if allocs != 0 || len(out) != 0 {
		t.Errorf("the call path allocates %v times per call with tracing off", allocs)
	}
}
