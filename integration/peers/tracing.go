package main

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync/atomic"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
)

// The tracing row (issue 18): nexus's Go pool served with tracing on,
// exporting every span over OTLP/gRPC to a receiver in this process on
// loopback, measured in the same rounds as the row with tracing off (the
// default), to show what tracing costs when on and that it costs nothing
// measurable when off.

// tracedKey is the key of the row with tracing on; tracedOf its row with
// tracing off.
const (
	tracedKey = "nexus-go-traced"
	tracedOf  = "nexus-go"
)

// spanReceiver is an OTLP trace receiver that counts the spans it gets
// and drops them.
type spanReceiver struct {
	collectortrace.UnimplementedTraceServiceServer
	spans atomic.Int64
}

func (r *spanReceiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	var n int64
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			n += int64(len(ss.Spans))
		}
	}
	r.spans.Add(n)
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// receiver is the run's, started by tracedCommand; it serves until the
// process ends.
var receiver *spanReceiver

// tracedCommand returns argv run with tracing on: through env(1), with
// the OTEL_* variables pointing nexus at the receiver, which it starts on
// the first call.
func tracedCommand(argv []string) ([]string, error) {
	if receiver == nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		receiver = &spanReceiver{}
		srv := grpc.NewServer()
		collectortrace.RegisterTraceServiceServer(srv, receiver)
		go srv.Serve(ln)
		receiverAddr = ln.Addr().String()
	}
	env, err := exec.LookPath("env")
	if err != nil {
		return nil, err
	}
	return append([]string{env, "OTEL_EXPORTER_OTLP_ENDPOINT=http://" + receiverAddr, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"}, argv...), nil
}

var receiverAddr string

// reportTracing writes the row with tracing on against the row with it
// off, as ratios of the same rounds.
func (b *bench) reportTracing(w *strings.Builder) {
	on, off := b.server(tracedKey), b.server(tracedOf)
	if on == nil || off == nil {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n## Tracing: on / off, in the same rounds\n\n")
	p("nexus's Go pool with tracing on (every call a tool-call, binding and pool-call span, exported over OTLP/gRPC in batches to a receiver in the benchmark's process, which got %d spans) against the same program with tracing off, the default. ", receiver.spans.Load())
	p("Calls/s below 1 and cold start above 1: tracing costs that much. Tracing off is the nexus row of every other table: beside the peers, and against `-baseline` (a nexus before tracing existed) when given.\n\n")
	p("| function | cold start | stdio calls/s | HTTP calls/s |\n| --- | ---: | ---: | ---: |\n")
	for _, f := range b.fns {
		p("| %s |", f.name)
		for _, m := range []metric{metrics[2], metrics[0], metrics[1]} {
			p(" %s |", ratioCell(m.ratio(on, off, f.name)))
		}
		p("\n")
	}
}
