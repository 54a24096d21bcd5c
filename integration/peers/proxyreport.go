package main

import (
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/integration/runenv"
)

// report writes the proxies part: what runs, a table per tool, nexus as
// ratios to the other proxies, and the goals of issue 13.
func (pb *proxyBench) report(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	c := pb.c

	p("\n## Proxies: server-everything's tools directly and through a proxy\n\n")
	p("The same lean client calls two tools of `@modelcontextprotocol/server-everything` (a server none of us wrote), each answering one text block:\n\n")
	for i, f := range proxyFunctions("get-sum") {
		p("- `%s`: %s;\n", proxyTools[i], f.what)
	}
	p("\nThe rows (each proxy talks stdio to a server-everything of its own, started once and shared by every call):\n\n")
	for _, x := range pb.proxies {
		p("- **%s**: %s\n", x.name, proxyNote(x))
		if x.notBuilt != "" {
			p("  **Not built** in this run, so not measured: `nexus make` said: %s\n", strings.ReplaceAll(x.notBuilt, "`", "'"))
		}
	}
	p("\nThere is no direct HTTP row: server-everything's HTTP mode listens on every interface, which nothing here may do; ")
	p("running it in a network namespace with only loopback would need the client in that namespace too, and so the whole run. ")
	p("The HTTP rows' added latency is therefore over the direct stdio call: the whole hop, its HTTP front included.\n\n")
	p("- **sequential**: %d calls per round of each tool, one after the other, after a warm-up of %d; over HTTP the same in one session. ", c.proxyCalls, c.proxyWarmUp)
	p("A row makes no new call once %s have passed in a round (%s in its warm-up), so a slow row makes fewer: **calls** is how many were measured over all rounds. ", c.proxyStep, 2*c.proxyStep)
	p("calls/s is calls over the time spent waiting for the answers; **p50 added** is the row's p50 less the direct call's p50.\n")
	p("- **HTTP, %d sessions at once**: %d sessions each making %d sequential calls; calls/s is all calls over the time from the first call to the last answer. It shows whether a proxy keeps several calls in flight on its one connection to server-everything.\n", c.sessions, c.sessions, c.proxyHTTPCalls)
	p("- **rounds**: %d, alternating the rows (each turn starts with the next one); calls/s is the median of the rounds, p50 and p99 are over the calls of all rounds.\n", c.rounds)
	p("- **peak memory**: the sum of the peak resident sets of the row's server and its descendants (its server-everything included), read just before it is stopped.\n")

	direct := pb.row("direct", "stdio")
	for i, tool := range proxyTools {
		p("\n### `%s`\n\n", tool)
		p("| path | calls | calls/s | p50 | p99 | p50 added | HTTP calls/s (%d sessions) | p50 | p99 | peak memory |\n", c.sessions)
		p("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, x := range pb.proxies {
			if x.notBuilt != "" {
				p("| %s | not built (see above) | | | | | | | | |\n", x.name)
				continue
			}
			for _, r := range pb.rows {
				if r.p != x {
					continue
				}
				failed := len(r.errs) > 0
				p("| %s | %s | %s | %s | ", r.name(), callsCell(r.seq[i]), seriesCells(r.seq[i], failed), addedCell(r, direct, i))
				if r.transport == "HTTP" {
					p("%s | ", seriesCells(r.conc[i], failed))
				} else {
					p("| | | ")
				}
				p("%s |\n", memCell(r.mem))
			}
		}
	}

	nexusOf := func(t string) *proxyRow { return pb.row("nexus-proxy", t) }
	others := []struct{ key, name string }{{"gosdk-proxy", "Go SDK proxy"}, {"fastmcp-proxy", "FastMCP proxy"}}
	p("\n### nexus as a ratio to each proxy, calls/s (above 1: nexus answers more calls)\n\n")
	p("| measure | tool | nexus / Go SDK proxy | nexus / FastMCP proxy |\n| --- | --- | ---: | ---: |\n")
	for _, m := range proxyMeasures(c.sessions) {
		for i, tool := range proxyTools {
			p("| %s | `%s` |", m.name, tool)
			for _, o := range others {
				p(" %s |", ratioCell(m.ratio(nexusOf(m.transport), pb.row(o.key, m.transport), i)))
			}
			p("\n")
		}
	}

	goals := []struct {
		text, peer string
		want       float64
	}{
		{"nexus at least as fast as the Go SDK proxy", "gosdk-proxy", 1},
		{"nexus at least 3× FastMCP's proxy", "fastmcp-proxy", 3},
	}
	p("\n### Goals (issue 13), calls/s of nexus / the proxy on every row\n\n| goal |")
	var cols int
	for _, m := range proxyMeasures(c.sessions) {
		for _, tool := range proxyTools {
			p(" %s, `%s` |", m.name, tool)
			cols++
		}
	}
	p(" verdict |\n| --- |%s --- |\n", strings.Repeat(" ---: |", cols))
	for _, g := range goals {
		p("| %s |", g.text)
		var missed []string
		measured := 0
		for _, m := range proxyMeasures(c.sessions) {
			for i, tool := range proxyTools {
				r, ok := m.ratio(nexusOf(m.transport), pb.row(g.peer, m.transport), i)
				if !ok {
					p(" — |")
					continue
				}
				measured++
				p(" %.2f |", r)
				if r < g.want {
					missed = append(missed, fmt.Sprintf("%s %s %.2f", m.name, tool, r))
				}
			}
		}
		switch {
		case measured < cols:
			p(" not measured |\n")
		case len(missed) == 0:
			p(" met |\n")
		default:
			p(" **missed** (%s) |\n", strings.Join(missed, ", "))
		}
	}

	p("\n### Each round\n\nThe calls/s of every round, in the order run, from which the medians above are taken.\n\n")
	p("| path | tool | sequential calls/s | HTTP calls/s (%d sessions) |\n| --- | --- | --- | --- |\n", c.sessions)
	for _, r := range pb.rows {
		for i, tool := range proxyTools {
			p("| %s | %s | %s | %s |\n", r.name(), tool, roundsCell(r.seq[i]), roundsCell(r.conc[i]))
		}
	}
	if errs := pb.errors(); len(errs) > 0 {
		p("\n### Failures\n\n- %s\n", strings.ReplaceAll(strings.Join(errs, "\n- "), "\n", "\n  "))
	} else {
		p("\nEvery call of every row was answered right.\n")
	}
}

func proxyNote(x *proxy) string {
	switch x.key {
	case "direct":
		return "server-everything itself over stdio (`mcp-server-everything stdio`), the client talking to it with no hop between."
	case "nexus-proxy":
		return "`nexus mcp` serving `servers/nexus/proxy/main.loc` (`source MCP from \"mcp-server-everything stdio\" (\"echo\", \"get-sum\" as getSum)`, both exported), built with `nexus make`; `--http-port 0` for HTTP. Its `Str` results are answered as JSON strings, as nexus answers every value."
	case "gosdk-proxy":
		return "this benchmark's binary re-executed with `-serve-gosdk-proxy` (`gosdkproxy.go`): the Go SDK's client (`CommandTransport`, one session) and server (`Server.AddTool` with server-everything's own tool definitions, handlers forwarding the raw arguments and returning the result unchanged) in one process, on `StdioTransport` or `NewStreamableHTTPHandler` (JSON replies)."
	case "fastmcp-proxy":
		return "`servers/fastmcp_proxy.py`: FastMCP's own proxy, `create_proxy(StdioTransport(...))` (FastMCP 3 replaced `FastMCP.as_proxy` with it), used as documented, nothing tuned, served by `run(transport=\"stdio\")` or `transport=\"http\"` (uvicorn, JSON replies, stateful sessions, no access log)."
	}
	return ""
}

func callsCell(s *series) string {
	if s == nil {
		return ""
	}
	return thousands(float64(len(s.lat)))
}

// row is the row of the proxy key over transport, or nil.
func (pb *proxyBench) row(key, transport string) *proxyRow {
	for _, r := range pb.rows {
		if r.p.key == key && r.transport == transport {
			return r
		}
	}
	return nil
}

// addedCell is the p50 latency the row adds over the direct call.
func addedCell(r, direct *proxyRow, i int) string {
	if r == direct {
		return ""
	}
	if direct == nil || direct.seq[i] == nil || r.seq[i] == nil {
		return "—"
	}
	d := r.seq[i].percentile(0.50) - direct.seq[i].percentile(0.50)
	if d < 0 {
		return "−" + runenv.Dur(-d)
	}
	return "+" + runenv.Dur(d)
}

// proxyMeasure is one calls/s compared between rows of one transport.
type proxyMeasure struct {
	name      string
	transport string
	get       func(*proxyRow) []*series
}

func proxyMeasures(sessions int) []proxyMeasure {
	seq := func(r *proxyRow) []*series { return r.seq }
	return []proxyMeasure{
		{"stdio", "stdio", seq},
		{"HTTP", "HTTP", seq},
		{fmt.Sprintf("HTTP, %d sessions", sessions), "HTTP", func(r *proxyRow) []*series { return r.conc }},
	}
}

// ratio is nexus's calls/s over the other row's on tool i.
func (m proxyMeasure) ratio(nexus, other *proxyRow, i int) (float64, bool) {
	if nexus == nil || other == nil {
		return 0, false
	}
	a, b := m.get(nexus)[i], m.get(other)[i]
	if a == nil || b == nil {
		return 0, false
	}
	return a.rate() / b.rate(), true
}
