package main

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/nexus-run/nexus/integration/runenv"
)

// env is what the report says about the run and where it ran.
type env struct {
	date    time.Time
	elapsed time.Duration
	command string
	seed    uint64
	rows    []runenv.Row
}

// results is everything the report shows.
type results struct {
	c       config
	env     env
	st      *stats
	servers []*server
	// One snapshot per server, in the order of servers: after the warm-up,
	// the largest seen during the load, after settling.
	start, peak, end []snapshot
	stops            []time.Duration // how long each server took to stop
	late             int             // stdio replies to requests already cancelled
	problems         []string        // leftovers and servers that did not stop well
}

// larger keeps, field by field, the larger of two snapshots.
func larger(a, b snapshot) snapshot {
	out := snapshot{nexus: maxUsage(a.nexus, b.nexus), goroutines: max(a.goroutines, b.goroutines),
		liveHeap: max(a.liveHeap, b.liveHeap), pools: map[string]usage{}}
	for _, s := range []snapshot{a, b} {
		for lang, u := range s.pools {
			out.pools[lang] = maxUsage(out.pools[lang], u)
		}
	}
	return out
}

func maxUsage(a, b usage) usage {
	return usage{pid: max(a.pid, b.pid), rss: max(a.rss, b.rss), fds: max(a.fds, b.fds), threads: max(a.threads, b.threads)}
}

// passed is the verdict: no wrong answer, no corruption, no unexpected
// error, every fault as it must be, nothing left behind.
func (r *results) passed() bool {
	if len(r.st.wrong) > 0 || len(r.st.corrupt) > 0 || len(r.problems) > 0 {
		return false
	}
	for _, t := range r.st.transport {
		if t.unexpected > 0 || t.wrong > 0 {
			return false
		}
	}
	for _, f := range r.st.faults {
		if f.ok != f.injected {
			return false
		}
	}
	return true
}

func (r *results) report() string {
	var w strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&w, format, args...) }
	st := r.st

	p("# Soak: nexus under load with faults\n\n")
	p("Written by `make soak`, which runs `go run ./integration/soak -nexus bin/nexus -duration 10m`: mixed concurrent calls over stdio and HTTP against the fault program (`integration/testdata/fault`), with faults injected at random moments. ")
	p("This run: %s, %.1f minutes of load (%.1f in all), seed %d, as\n\n    %s\n\n", r.env.date.UTC().Format("2006-01-02 15:04 MST"), r.c.duration.Minutes(), r.env.elapsed.Minutes(), r.env.seed, r.env.command)
	p("| machine and software | |\n| --- | --- |\n")
	for _, row := range r.env.rows {
		if row[1] != "" {
			p("| %s | %s |\n", row[0], row[1])
		}
	}

	p("\n## What runs\n\n")
	p("- Two servers side by side: `nexus mcp PROG --timeout %v` over stdio, and the same with `--http-port 0` on 127.0.0.1; each has a TMPDIR of its own and Go's profiler on (NEXUS_DEBUG_ADDR) for its goroutine count.\n", r.c.timeout)
	p("- Load: %d callers share the stdio connection, %d HTTP sessions call at once; each call goes to Python, C++ or Go at random: `ok` (doubles a number; 80%%), `chatty` (writes to fd 1, returns its argument; 15%%), `huge` (a %d MB string; 5%%). Every answer is checked against the known right one; every message is strictly parsed (Go's encoding/json) and must be a JSON-RPC response to a request in flight.\n", r.c.stdioWorkers, r.c.httpWorkers, hugeMB)
	p("- Faults, on each server about every %v, in turn, each on a language picked at random: %s. At most %d faults a minute kill one pool (nexus stops restarting a pool after five deaths a minute). After each, the next call of its language must be right.\n", r.c.faultEvery, strings.Join(faultKinds, "; "), deathBudget)
	p("- An error is **expected** when a fault killed the pool of the call's language while the call was in flight; any other is **unexpected**.\n")

	p("\n## Calls\n\n| transport | calls | right | wrong | expected errors | unexpected errors | p50 | p99 |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, srv := range r.servers {
		t := st.tally(srv.name)
		p("| %s | %d | %d | %d | %d | %d | %s | %s |\n", srv.name, t.calls, t.right, t.wrong, t.expected, t.unexpected, dur(percentile(t.lat, 0.5)), dur(percentile(t.lat, 0.99)))
	}
	p("\nProtocol corruption (a message that is not JSON-RPC, or a reply to no request): **%d**. Replies to stdio requests the client had cancelled: %d (the end of the load cancels the calls then in flight, and a reply already on its way is counted here).\n", len(st.corrupt), r.late)

	p("\n## Faults\n\n| fault | transport | injected | came out right |\n| --- | --- | ---: | ---: |\n")
	for _, kind := range faultKinds {
		for _, srv := range r.servers {
			f := st.faults[faultKey{srv.name, kind}]
			if f == nil {
				p("| %s | %s | 0 | — |\n", kind, srv.name)
				continue
			}
			p("| %s | %s | %d | %d |\n", kind, srv.name, f.injected, f.ok)
		}
	}
	if len(st.exits) > 0 {
		p("\nA stdio server whose client went away mid-call exited %s after its stdin closed (median; the longest %s).\n", dur(percentile(st.exits, 0.5)), dur(percentile(st.exits, 1)))
	}

	p("\n## Errors by kind\n\n")
	if len(st.kinds) == 0 {
		p("None.\n")
	} else {
		p("| transport | error (numbers and quoted values replaced) | count | expected |\n| --- | --- | ---: | --- |\n")
		keys := make([]kindKey, 0, len(st.kinds))
		for k := range st.kinds {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			a, b := keys[i], keys[j]
			if a.expected != b.expected {
				return !a.expected
			}
			return st.kinds[a].n > st.kinds[b].n
		})
		for _, k := range keys {
			p("| %s | %s | %d | %s |\n", k.transport, cell(k.kind), st.kinds[k].n, map[bool]string{true: "yes", false: "**no**"}[k.expected])
		}
	}

	p("\n## Resources\n\nAt the start (after one call of each language), the largest seen during the load (sampled every %v), and at the end (%v after the load stopped). Memory is the resident set; the nexus's live heap (what its Go heap holds right after a collection, which the profiler runs first) and goroutines are read from its profiler. The resident set of a Go process keeps heap it no longer uses until the runtime returns it to the system, minutes later: the live heap is what says whether anything is kept.\n\n", r.c.sample, r.c.settle)
	p("| process | RSS start / max / end | live heap start / max / end | open files start / max / end | threads start / max / end | goroutines start / max / end |\n| --- | --- | --- | --- | --- | --- |\n")
	for i, srv := range r.servers {
		a, m, b := r.start[i], r.peak[i], r.end[i]
		p("| nexus (%s) | %s / %s / %s | %s / %s / %s | %d / %d / %d | %d / %d / %d | %d / %d / %d |\n", srv.name,
			mib(a.nexus.rss), mib(m.nexus.rss), mib(b.nexus.rss), mib(a.liveHeap), mib(m.liveHeap), mib(b.liveHeap), a.nexus.fds, m.nexus.fds, b.nexus.fds,
			a.nexus.threads, m.nexus.threads, b.nexus.threads, a.goroutines, m.goroutines, b.goroutines)
		for _, lang := range langs {
			pa, pm, pb := a.pools[lang], m.pools[lang], b.pools[lang]
			p("| %s pool (%s) | %s / %s / %s | | %d / %d / %d | %d / %d / %d | |\n", lang, srv.name,
				mib(pa.rss), mib(pm.rss), mib(pb.rss), pa.fds, pm.fds, pb.fds, pa.threads, pm.threads, pb.threads)
		}
	}
	p("\nA pool restarted by a fault is a new process: its figures at the end are those of the pool then running. Stopping took %s.\n", stopsText(r))

	p("\n## Verdict\n\n")
	var bad []string
	for _, x := range st.wrong {
		bad = append(bad, "wrong answer: "+x)
	}
	for _, x := range st.corrupt {
		bad = append(bad, "protocol corruption: "+x)
	}
	for k, n := range st.kinds {
		if !k.expected {
			bad = append(bad, fmt.Sprintf("unexpected error (%d×, %s): %s", n.n, k.transport, firstLine(n.example)))
		}
	}
	for k, f := range st.faults {
		for _, d := range f.failures {
			bad = append(bad, fmt.Sprintf("fault %q over %s did not come out right: %s", k.kind, k.transport, firstLine(d)))
		}
	}
	bad = append(bad, r.problems...)
	sort.Strings(bad)
	if len(bad) == 0 {
		p("Zero wrong answers, zero protocol corruption, zero unexpected errors; every fault came out right; nothing left behind. Client and servers shared the machine's %d cores.\n", runtime.NumCPU())
	} else {
		p("Failed:\n\n")
		for _, b := range bad {
			p("- %s\n", cell(b))
		}
	}
	return w.String()
}

func stopsText(r *results) string {
	var out []string
	for i, srv := range r.servers {
		out = append(out, fmt.Sprintf("%s for the %s server", dur(r.stops[i]), srv.name))
	}
	return strings.Join(out, " and ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 300 {
		line = line[:300] + "…"
	}
	return line
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func mib(n int64) string {
	switch {
	case n <= 0: // not read
		return "—"
	case n < 10<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
}

// dur is runenv.Dur, with a dash for no duration at all.
func dur(d time.Duration) string {
	if d == 0 {
		return "—"
	}
	return runenv.Dur(d)
}
