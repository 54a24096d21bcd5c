package pool

import (
	"context"
	"fmt"
	"time"
)

// DefaultRecoveryWindow caps a pool's recovery window when Options leave
// it zero: long enough for a pool that imports heavy modules to start
// again, short enough that a replacement that never comes does not turn
// calls away for long.
const DefaultRecoveryWindow = 30 * time.Second

// The recovery window of a pool runs from the moment a running pool is
// seen dead (its process exited) until its replacement is running, and at
// most Options.RecoveryWindow. A call made with a context from
// RefuseWhileRecovering that needs a pool in its window is not kept
// waiting for the restart: it fails at once with an *UnavailableError
// whose Recovering is set and whose RetryAfter says when to try again,
// and the first such call starts the replacement in the background. A
// pool that failed to start (never ran) has no window: calls wait for the
// next start and get its error, as without the marker. Once the window is
// over, or for a context without the marker (MCP), a call waits for the
// restart as always.

// recoveryKey is the context key of RefuseWhileRecovering.
type recoveryKey struct{}

// RefuseWhileRecovering returns ctx marked so that its calls of a pool in
// its recovery window fail at once instead of waiting for the restart.
// Clients of a daemon API retry on 503 with Retry-After; an MCP client
// has no such convention, so MCP calls wait.
func RefuseWhileRecovering(ctx context.Context) context.Context {
	return context.WithValue(ctx, recoveryKey{}, true)
}

func refusesWhileRecovering(ctx context.Context) bool {
	v, _ := ctx.Value(recoveryKey{}).(bool)
	return v
}

// recoveringLocked returns the error for a call refused during the
// recovery window, or nil when the pool is not in it. It starts the
// replacement when none is starting. sp.mu is held, and sp.cur is known
// to be nil (the running instance is dead or there is none).
func (sp *supervised) recoveringLocked(now time.Time) error {
	if sp.diedAt.IsZero() || now.Sub(sp.diedAt) >= sp.sup.opts.RecoveryWindow {
		return nil
	}
	if sp.attempt == nil {
		if err := sp.guardLocked(now); err != nil {
			return err // held: its own Retry-After
		}
		sp.launchLocked()
	}
	// The estimate is how long the last start took; the client is asked
	// to come back no sooner than a second, and no later than the
	// window's end, after which calls wait for the start.
	retry := max(sp.startTook, time.Second)
	if left := sp.sup.opts.RecoveryWindow - now.Sub(sp.diedAt); retry > left {
		retry = max(left, time.Second)
	}
	return &UnavailableError{
		Pool:       sp.name(),
		RetryAfter: retry,
		Recovering: true,
		Err:        fmt.Errorf("the %s pool is being restarted after it died (%s); retry shortly", sp.name(), sp.last),
	}
}
