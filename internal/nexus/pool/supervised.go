package pool

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// supervised is the pool of one language over its life: the running
// instance, the start in flight, and the recent deaths that guard against
// restart loops.
type supervised struct {
	sup  *Supervisor
	lang string
	argv []string
	// slots holds a token per call in flight, bounding them.
	slots chan struct{}
	// launched is closed once the first start has launched the pool's
	// process or ended without (see Supervisor.Launch).
	launched     chan struct{}
	launchedOnce sync.Once

	// mu guards the fields below. It is never held while waiting on a
	// pool.
	mu       sync.Mutex
	closed   bool
	cur      *instance // the running instance, or nil
	starting *instance // the instance being started, or nil
	attempt  *attempt  // the start in flight, or nil
	deaths   []time.Time
	last     string // how the last death or failed start ended
	// diedAt is when the running instance was last seen dead, zero once
	// a replacement runs: the start of the recovery window (recovery.go).
	diedAt time.Time
	// startTook is how long the last successful start took.
	startTook time.Duration
	// retiring holds the replaced instances not stopped yet.
	retiring    map[*instance]struct{}
	replaced    int    // replacements so far
	replacement string // why the last replacement
	starts      int    // successful starts so far
}

// attempt is one start; callers that need the pool meanwhile wait for it.
type attempt struct {
	done chan struct{} // closed when inst or err is set
	inst *instance
	err  error
}

func (sp *supervised) name() string { return Name(sp.lang) }

// markLaunched closes launched, the first time.
func (sp *supervised) markLaunched() {
	sp.launchedOnce.Do(func() { close(sp.launched) })
}

// running returns the running instance, starting one if there is none.
// ctx bounds the wait, not the start: a start outlives an impatient caller
// so the next one finds the pool ready.
func (sp *supervised) running(ctx context.Context) (*instance, error) {
	sp.mu.Lock()
	if sp.closed {
		sp.mu.Unlock()
		return nil, ErrClosed
	}
	if sp.cur != nil && sp.cur.proc().exited() {
		// Died while idle; the watcher may not have run yet.
		sp.diedLocked(sp.cur)
	}
	if inst := sp.cur; inst != nil {
		sp.mu.Unlock()
		return inst, nil
	}
	if refusesWhileRecovering(ctx) {
		if err := sp.recoveringLocked(time.Now()); err != nil {
			sp.mu.Unlock()
			return nil, err
		}
	}
	a := sp.attempt
	if a == nil {
		if err := sp.guardLocked(time.Now()); err != nil {
			sp.mu.Unlock()
			return nil, err
		}
		a = sp.launchLocked()
	}
	sp.mu.Unlock()
	select {
	case <-a.done:
		return a.inst, a.err
	case <-ctx.Done():
		return nil, fmt.Errorf("start %s pool: %w", sp.name(), ctx.Err())
	}
}

// launchLocked begins a start in the background and returns it. sp.mu is
// held and no start is in flight.
func (sp *supervised) launchLocked() *attempt {
	a := &attempt{done: make(chan struct{})}
	inst := newInstance(sp)
	sp.attempt, sp.starting = a, inst
	sp.sup.cleanups.Add(1)
	go func() {
		defer sp.sup.cleanups.Done()
		sp.start(a, inst)
	}()
	return a
}

// start runs one attempt to completion.
func (sp *supervised) start(a *attempt, inst *instance) {
	began := time.Now()
	err := inst.start()
	sp.markLaunched() // if the start failed before the launch
	sp.mu.Lock()
	sp.attempt, sp.starting = nil, nil
	if sp.closed {
		// Whatever happened, it is because Close stopped the start.
		err = ErrClosed
	}
	if err != nil {
		if err != ErrClosed {
			sp.noteLocked(err.Error())
			err = &UnavailableError{Pool: sp.name(), Err: err}
			sp.event(Event{Kind: StartFailed, Duration: time.Since(began), Err: err})
		}
		a.err = err
	} else {
		sp.cur, a.inst = inst, inst
		sp.diedAt, sp.startTook = time.Time{}, time.Since(began)
		sp.event(Event{Kind: Started, Restart: sp.starts > 0, Duration: sp.startTook})
		sp.starts++
		sp.sup.cleanups.Add(2)
		go func() {
			defer sp.sup.cleanups.Done()
			sp.watch(inst)
		}()
		go func() {
			defer sp.sup.cleanups.Done()
			sp.probe(inst)
		}()
	}
	sp.mu.Unlock()
	if err != nil {
		inst.stop()
	}
	close(a.done)
}

// watch notices when inst dies on its own and stops it (go-plugin's
// connection, goroutines and socket folder), so the next call starts a
// fresh instance.
func (sp *supervised) watch(inst *instance) {
	select {
	case <-inst.proc().done:
	case <-inst.stopped:
		return
	}
	sp.mu.Lock()
	sp.diedLocked(inst)
	sp.mu.Unlock()
	inst.stop()
}

// diedLocked records the death of inst, once. sp.mu is held.
func (sp *supervised) diedLocked(inst *instance) {
	wasCur := sp.cur == inst
	if wasCur {
		sp.cur = nil
	}
	if inst.ended.Load() || inst.deathNoted {
		return
	}
	inst.deathNoted = true
	sp.event(Event{Kind: Died})
	if wasCur {
		// A replaced instance dying does not leave the pool without one.
		sp.diedAt = time.Now()
	}
	sp.noteLocked(inst.proc().how())
}

func (sp *supervised) noteLocked(how string) {
	sp.deaths = append(sp.deaths, time.Now())
	sp.last = how
}

// guardLocked refuses a start when the pool died too often lately.
func (sp *supervised) guardLocked(now time.Time) error {
	opts := sp.sup.opts
	recent := Recent(sp.deaths, now, opts.DeathWindow)
	sp.deaths = recent
	if len(recent) < opts.MaxDeaths {
		return nil
	}
	return &UnavailableError{
		Pool:       sp.name(),
		RetryAfter: recent[0].Add(opts.DeathWindow).Sub(now),
		Err: fmt.Errorf("%s pool died or failed to start %d times within %s; not starting it again for now (last time: %s)",
			sp.name(), len(recent), opts.DeathWindow, sp.last),
	}
}

// status fills in st from the pool's state.
func (sp *supervised) status(st *Status) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	now := time.Now()
	for _, t := range sp.deaths {
		if now.Sub(t) < sp.sup.opts.DeathWindow {
			st.Deaths++
		}
	}
	st.Last = sp.last
	st.Calls = len(sp.slots)
	st.Replaced, st.Replacement = sp.replaced, sp.replacement
	for inst := range sp.retiring {
		st.Abandoned += inst.abandoned
	}
	if sp.cur != nil {
		st.Abandoned += sp.cur.abandoned
	}
	switch {
	case sp.closed:
		st.State = "stopped"
	case sp.cur != nil && !sp.cur.proc().exited():
		st.State = "running"
	case sp.attempt != nil:
		st.State = "starting"
	case st.Deaths >= sp.sup.opts.MaxDeaths:
		st.State = "held"
	case st.Deaths > 0:
		st.State = "down"
	}
}

// close stops the running instance, any being started and the replaced
// ones, for good.
func (sp *supervised) close() {
	sp.mu.Lock()
	sp.closed = true
	all := []*instance{sp.cur, sp.starting}
	for inst := range sp.retiring {
		all = append(all, inst)
	}
	sp.cur = nil
	sp.mu.Unlock()
	var wg sync.WaitGroup
	for _, inst := range all {
		if inst == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			inst.stop()
		}()
	}
	wg.Wait()
}
