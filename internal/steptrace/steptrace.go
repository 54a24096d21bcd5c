// Package steptrace timestamps the steps of a nexus's start and first
// call, for profiling how long each takes from the process's exec: with
// the environment variable Var set to 1, Mark writes one line per step to
// standard error, "nexus-step UNIX_MICROS NAME", which a harness that
// noted when it exec'd the nexus subtracts from. Unset, Mark costs an
// atomic load.
//
// Only the first mark of each name is written: the steps of interest are
// the first ones (the first call, the first reply), and a server that
// serves a million calls writes no more than at its start.
package steptrace

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Var names the environment variable that turns the marks on.
const Var = "NEXUS_STEPS"

var (
	on   atomic.Bool
	mu   sync.Mutex
	seen = map[string]bool{}
)

func init() { on.Store(os.Getenv(Var) == "1") }

// On reports whether the marks are written.
func On() bool { return on.Load() }

// Mark writes the time of step name, the first time it is reached.
func Mark(name string) {
	if !on.Load() {
		return
	}
	now := time.Now()
	mu.Lock()
	defer mu.Unlock()
	if seen[name] {
		return
	}
	seen[name] = true
	fmt.Fprintf(os.Stderr, "nexus-step %d %s\n", now.UnixMicro(), name)
}
