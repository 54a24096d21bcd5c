package gopool

import (
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// A Go pool gives memory back to the system after a call that allocated
// much. Go's collector runs when allocation goes on, and its scavenger
// returns pages only once a collection has freed them; a pool that turns
// idle after a call that allocated a gigabyte allocates nothing more, so
// the garbage stays, resident, until the runtime's forced collection
// minutes later. A memory limit (debug.SetMemoryLimit) would not help an
// idle pool either, and one below a real working set makes the collector
// run without end; a lower GOGC costs every call. So the pool watches what
// each call allocated (runtime/metrics, cheap enough to read per call) and
// after a large one runs debug.FreeOSMemory: a full collection and the
// return of every free page, a few milliseconds on a small heap, paid only
// after calls that allocated at least largeCall.

// largeCall is the allocation during a call after which the pool returns
// memory: well above what a call of ordinary values allocates (a list of
// a million floats is 8 MB), well below what is worth giving back.
const largeCall = 64 << 20

// releaseDelay lets the call's reply leave (gRPC encodes it after the
// handler returns) before the collection, so that its buffers are freed
// too, and gathers a burst of large calls into one collection.
const releaseDelay = 100 * time.Millisecond

// releasing is set while a release is scheduled.
var releasing atomic.Bool

// allocated is the number of bytes the pool has allocated on the heap
// since it started.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// afterCall schedules the return of memory to the system when the heap
// allocation has grown by largeCall since before (allocated() at the call's
// start; other calls' allocation counts too, which only makes the release
// more likely when the pool is busy allocating).
func afterCall(before uint64) {
	if allocated()-before < largeCall || !releasing.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(releaseDelay, func() {
		releasing.Store(false)
		debug.FreeOSMemory()
	})
}
