// Package progress carries the progress a function reports while it runs,
// from the pool that runs it to the front end whose caller asked for it.
//
// A front end that wants progress puts a Func in the call's context (With);
// the pool supervisor looks for one (From) and, only when there is one,
// asks the pool for the function's reports. Calls whose context has none
// take the plain path, at no cost.
package progress

import "context"

// Report is one report of a function's progress.
type Report struct {
	// Done is how much is done, in the function's own units.
	Done float64
	// Total is how much there is to do, when HasTotal.
	Total    float64
	HasTotal bool
	// Message says what the function is doing; empty when it says nothing.
	Message string
}

// Func receives the reports of one call, in the order the function made
// them, from one goroutine at a time. It may be called after the call has
// returned (the pool's reports of an abandoned call), so a Func must
// ignore reports once its caller no longer wants them; it must not block
// for long, since the pool's next report waits for it.
type Func func(Report)

type key struct{}

// With returns a context whose calls report their progress to f.
func With(ctx context.Context, f Func) context.Context {
	return context.WithValue(ctx, key{}, f)
}

// From returns the Func of ctx, or nil when its caller wants no progress.
func From(ctx context.Context) Func {
	f, _ := ctx.Value(key{}).(Func)
	return f
}
