package main

import (
	"fmt"
	"strings"
)

// replicaRatio is one ratio of the replicas part: calls/s of row num over
// row den, per function, and the goal it has (0: none, shown for what it
// says).
type replicaRatio struct {
	text     string
	num, den string // row keys
	goal     float64
}

func replicaRatios(pool string) []replicaRatio {
	n := fmt.Sprint(replicaCount)
	return []replicaRatio{
		{"nexus stateless / nexus sessions, direct (" + pool + " pool)", "nexus", "nexus-sessions", 1},
		{"nexus, " + n + " replicas / 1 replica, behind HAProxy", "nexus-n", "nexus-1", 1},
		{"nexus, 1 replica behind HAProxy / direct (the proxy's cost)", "nexus-1", "nexus", 0},
		{"nexus / Go SDK stateless, direct", "nexus", "gosdk", 0},
		{"nexus / Go SDK stateless, 1 replica behind HAProxy", "nexus-1", "gosdk-1", 1.5},
		{"nexus / Go SDK stateless, " + n + " replicas behind HAProxy", "nexus-n", "gosdk-n", 1.5},
		{"Go SDK stateless, " + n + " replicas / 1 replica, behind HAProxy", "gosdk-n", "gosdk-1", 0},
	}
}

// ratio is the row num's calls/s over den's for function fn, if both were
// measured.
func (rb *replicaBench) ratio(num, den, fn string) (float64, bool) {
	a, b := rb.row(num), rb.row(den)
	if a == nil || b == nil || a.runs[fn] == nil || b.runs[fn] == nil {
		return 0, false
	}
	return a.runs[fn].rate() / b.runs[fn].rate(), true
}

// report writes the replicas part: what runs, a table per function, the
// ratios with the goals of issue 14, and each round.
func (rb *replicaBench) report(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	c := rb.c

	p("\n## Stateless MCP, and replicas behind HAProxy\n\n")
	if rb.notRun != "" {
		p("Not run: %s.\n", rb.notRun)
		return
	}
	p("The same three functions (`trivial`, `shout`, `total`, as above), served by nexus from its %s pool and by the Go SDK's server (`-serve-gosdk http-stateless`: `StreamableHTTPOptions{Stateless: true}`, JSON replies), %d replicas of each, every one on its own loopback port. ", rb.pool, replicaCount)
	p("HAProxy runs `deploy/haproxy.cfg` as users get it (leastconn, health checks on `/health`, retries, stickiness on `Mcp-Session-Id`), with only its bind line and server lines replaced, once in front of the first replica alone and once in front of all %d.\n\n", replicaCount)
	p("- **stateless**: MCP `%s` without a session: no `initialize`, every request a POST with `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` and the per-request `_meta` (protocol version, client capabilities, client identity); `server/discover` is asked once per row first and must list `%s`, and an answer carrying a session id fails the row.\n", statelessProtocol, statelessProtocol)
	p("- **sessions**: today's path, as the HTTP rows above: protocol `%s`, `initialize` and a session per client, deleted after the round.\n", protocol)
	p("- **load**: each round, %d clients at once, each making %d sequential calls (%d of `total`); calls/s is all calls over the time from the first call to the last answer; after a warm-up of %d calls (%d of `total`) per row and function. The same lean client as above, every answer checked.\n",
		c.sessions, c.replicaCalls, c.replicaBig, c.replicaWarmUp, c.bigWarmUp)
	p("- **rounds**: %d, alternating the rows; calls/s is the median of the rounds, p50 and p99 are over the calls of all rounds. Client, HAProxy and every replica share the machine's cores.\n", c.rounds)
	if rb.failed != "" {
		p("\nFailed to start: %s\n", rb.failed)
		return
	}

	for _, f := range rb.fns {
		p("\n### `%s :: %s`\n\n", f.name, f.sig)
		p("| server | path | calls/s (%d clients) | p50 | p99 |\n| --- | --- | ---: | ---: | ---: |\n", c.sessions)
		for _, r := range rb.rows {
			p("| %s | %s | %s |\n", r.name, r.where(), seriesCells(r.runs[f.name], len(r.errs) > 0))
		}
	}

	p("\n### Ratios of calls/s, and the goals of issue 14\n\n| ratio | %s | goal | verdict |\n| --- |%s --- | --- |\n",
		fnNames(rb.fns, " | "), strings.Repeat(" ---: |", len(rb.fns)))
	for _, q := range replicaRatios(rb.pool) {
		p("| %s |", q.text)
		var missed []string
		measured := 0
		for _, f := range rb.fns {
			r, ok := rb.ratio(q.num, q.den, f.name)
			p(" %s |", ratioCell(r, ok))
			if ok {
				measured++
				if q.goal > 0 && r < q.goal {
					missed = append(missed, fmt.Sprintf("%s %.2f", f.name, r))
				}
			}
		}
		switch {
		case q.goal == 0:
			p(" | |\n")
		case measured == 0:
			p(" at least %.2g | not measured |\n", q.goal)
		case len(missed) > 0:
			p(" at least %.2g | **missed** (%s) |\n", q.goal, strings.Join(missed, ", "))
		default:
			p(" at least %.2g | met |\n", q.goal)
		}
	}
	p("\nThe goals are reported, never enforced: a timing is no pass/fail test on a shared machine.\n")

	p("\n### Each round\n\nThe calls/s of every round, in the order run, from which the medians above are taken.\n\n")
	p("| server | path | function | calls/s |\n| --- | --- | --- | --- |\n")
	for _, r := range rb.rows {
		for _, f := range rb.fns {
			p("| %s | %s | %s | %s |\n", r.name, r.where(), f.name, roundsCell(r.runs[f.name]))
		}
	}
	if len(rb.errors()) == 0 {
		p("\nEvery call of every row was answered right.\n")
	}
}
