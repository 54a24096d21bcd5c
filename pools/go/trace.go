package gopool

import "context"

// TraceContext returns the W3C trace context of the call whose context
// ctx is: the values of the traceparent and tracestate headers, as the
// nexus sent them with the call when it traces (see docs/operations.md),
// else "". A function that takes a context.Context (see Progress) can
// hand them to its own tracing, to make its spans children of the pool
// call's span. The pool itself does nothing with them.
func TraceContext(ctx context.Context) (traceparent, tracestate string) {
	if t, ok := ctx.Value(traceKey{}).(traceContext); ok {
		return t.parent, t.state
	}
	return "", ""
}

type traceKey struct{}

type traceContext struct{ parent, state string }

// withTrace returns ctx carrying a call's trace context, when it has one.
func withTrace(ctx context.Context, parent, state string) context.Context {
	if parent == "" {
		return ctx
	}
	return context.WithValue(ctx, traceKey{}, traceContext{parent: parent, state: state})
}
