package pool

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/nexus-run/nexus/manifest"
)

// Abandoned calls and replacement.
//
// A pool may not be able to stop a function it runs: the Python and C++
// runtimes run each call in a thread that nothing may kill, and a Go
// function sees the Cancel the call stream carries only if it takes a
// context and watches it. A call whose caller gave up (cancelled, or timed
// out) therefore may go on in its pool, and the supervisor keeps waiting
// for its answer:
// such an abandoned call keeps its slot among the MaxCalls until the pool
// answers it or is stopped, so the bound on calls in flight holds the work
// really running, not only the work still awaited.
//
// Abandoned calls that pile up clog a pool (the C++ runtime has 64
// threads; with all of them asleep in abandoned calls it answers nothing).
// So an instance is replaced when
//
//   - its abandoned calls exceed half its capacity, the smaller of
//     MaxCalls and its runtime's worker bound (maxAbandoned), or
//   - it has calls pending, completed none for a ProbeInterval, and does
//     not answer go-plugin's health check within ProbeTimeout.
//
// Replacing retires the instance: new calls go to a fresh one at once
// (started by the next call), and the retired one is stopped, which ends
// its abandoned calls and frees their slots, as soon as its live calls
// (those whose callers still wait) have ended, or after RetireGrace.
// A replacement is not a death: the restart-loop guard does not count it.

// runtimeWorkers is how many calls a language's pool runtime runs at
// once, or 0 when only memory bounds it: the C++ runtime's kMaxThreads
// (pools/cpp/nexus_pool/nexus_pool.cpp) and the Python runtime's fallback
// server's MAX_CALLS (pools/python/nexus_pool/server.py). Go's runtime
// starts a goroutine per call.
func runtimeWorkers(lang string) int {
	switch lang {
	case manifest.Cpp:
		return 64
	case manifest.Python:
		return 32
	}
	return 0
}

// maxAbandoned is how many abandoned calls a pool of this language
// absorbs: half its capacity, so that at least half of it is left to the
// calls that are awaited.
func (sp *supervised) maxAbandoned() int {
	capacity := sp.sup.opts.MaxCalls
	if w := runtimeWorkers(sp.lang); w > 0 && w < capacity {
		capacity = w
	}
	return capacity / 2
}

// enter returns the running instance, starting one if needed, with one
// more live call counted in it. It never returns a retired instance.
func (sp *supervised) enter(ctx context.Context) (*instance, error) {
	for {
		inst, err := sp.running(ctx)
		if err != nil {
			return nil, err
		}
		sp.mu.Lock()
		if sp.cur == inst {
			inst.live++
			sp.mu.Unlock()
			return inst, nil
		}
		// Replaced or died since running returned it: take the next.
		sp.mu.Unlock()
	}
}

// abandon counts call c of inst as abandoned by its caller, and retires
// inst when that makes too many. It returns false when c had already
// ended, which then stands.
func (sp *supervised) abandon(inst *instance, c *pending) bool {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if c.finished {
		return false
	}
	c.abandoned = true
	inst.live--
	inst.abandoned++
	if inst.abandoned > sp.maxAbandoned() {
		sp.retireLocked(inst, fmt.Sprintf("%d calls abandoned by their callers were still running in it", inst.abandoned))
	}
	sp.idleLocked(inst)
	return true
}

// finished counts call c of inst out, once the pool answered it or was
// stopped.
func (sp *supervised) finished(inst *instance, c *pending) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	c.finished = true
	if c.abandoned {
		inst.abandoned--
	} else {
		inst.live--
	}
	inst.completed++
	sp.idleLocked(inst)
}

// idleLocked lets a retired inst go once no caller waits on it.
func (sp *supervised) idleLocked(inst *instance) {
	if inst.retired != "" && inst.live == 0 {
		select {
		case <-inst.idle:
		default:
			close(inst.idle)
		}
	}
}

// retireLocked replaces inst: no new call goes to it, and it is stopped
// once its live calls end or RetireGrace has passed. sp.mu is held.
func (sp *supervised) retireLocked(inst *instance, why string) {
	if sp.cur == inst {
		sp.cur = nil
	}
	if inst.retired != "" || sp.closed {
		return
	}
	inst.retired = why
	inst.idle = make(chan struct{})
	sp.replaced++
	sp.replacement = why
	sp.event(Event{Kind: Replaced})
	sp.retiring[inst] = struct{}{}
	sp.idleLocked(inst)
	sp.sup.cleanups.Add(1)
	go func() {
		defer sp.sup.cleanups.Done()
		t := time.NewTimer(sp.sup.opts.RetireGrace)
		defer t.Stop()
		select {
		case <-inst.idle:
		case <-t.C:
		case <-inst.stopped:
		}
		inst.stop()
		sp.mu.Lock()
		delete(sp.retiring, inst)
		sp.mu.Unlock()
	}()
}

// retiredWhy says why inst was replaced, or "" if it was not.
func (sp *supervised) retiredWhy(inst *instance) string {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return inst.retired
}

// probe watches inst while it runs: whenever calls are pending and none
// completed for a ProbeInterval, it sends go-plugin's health check, and
// retires inst if no answer comes within ProbeTimeout.
func (sp *supervised) probe(inst *instance) {
	opts := sp.sup.opts
	tick := time.NewTicker(opts.ProbeInterval)
	defer tick.Stop()
	var last uint64
	for {
		select {
		case <-tick.C:
		case <-inst.stopped:
			return
		case <-inst.proc().done:
			return
		}
		sp.mu.Lock()
		pending, completed, retired := inst.live+inst.abandoned, inst.completed, inst.retired != ""
		sp.mu.Unlock()
		if retired {
			return
		}
		if pending == 0 || completed != last {
			last = completed
			continue
		}
		if err := inst.healthCheck(opts.ProbeTimeout); err == nil || inst.stopping.Load() || inst.proc().exited() {
			continue
		}
		sp.mu.Lock()
		sp.retireLocked(inst, fmt.Sprintf("it did not answer a health check within %s while %d calls were pending", opts.ProbeTimeout, pending))
		sp.mu.Unlock()
		return
	}
}

// healthCheck runs go-plugin's health check (grpc.health.v1, service
// "plugin"), bounded by timeout.
func (inst *instance) healthCheck(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(inst.life, timeout)
	defer cancel()
	_, err := grpc_health_v1.NewHealthClient(inst.conn).Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: "plugin"})
	return err
}
