package main

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/nexus-run/nexus/integration/runenv"
	"github.com/nexus-run/nexus/integration/stepprofile"
)

// report is the markdown document of the run: what ran where, then each
// part that ran (b, pb or rb nil: that part did not).
func report(e env, b *bench, pb *proxyBench, rb *replicaBench) string {
	var w strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&w, format, args...) }

	p("# Benchmarks: nexus beside hand-written MCP servers\n\n")
	p("Written by `make peers`, which runs `go run ./integration/peers -nexus bin/nexus`: every server below, on the same functions, side by side in one run. ")
	p("This run: %s, %.1f minutes, as\n\n    %s\n\n", e.date.UTC().Format("2006-01-02 15:04 MST"), e.elapsed.Minutes(), e.command)
	p("| machine and software | |\n| --- | --- |\n")
	for _, r := range e.rows {
		p("| %s | %s |\n", r[0], r[1])
	}
	if b != nil {
		b.report(&w)
	}
	if pb != nil {
		pb.report(&w)
	}
	if rb != nil {
		rb.report(&w)
	}
	return w.String()
}

// report writes the peers part: what runs, the tables, nexus as ratios to
// each peer, and the goals of issue #6.
func (b *bench) report(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }

	p("\n## What runs\n\n")
	p("Each server serves three tools, every one answering with a single text block holding the compact JSON of its value, as nexus does:\n\n")
	for _, f := range b.fns {
		p("- `%s :: %s`: %s;\n", f.name, f.sig, f.what)
	}
	p("\nThe servers (sources in `integration/peers/servers`):\n\n")
	for _, s := range b.servers {
		p("- **%s**: %s\n", s.name, serverNote(s))
	}
	p("\nThe client is our own lean JSON-RPC client in Go (`integration/peers/stdio.go`, `http.go`), the same code for every server, ")
	p("asking for protocol `%s`. It is not an SDK client on purpose: an SDK client's own JSON work per call costs as much as some servers' whole answer, and would hide their differences. ", protocol)
	p("Every answer is checked (the sum to 1e-9, since servers add in their own order and print reals their own way). Client and servers share the machine's %d cores.\n\n", runtime.NumCPU())
	p("- **cold start**: over stdio, from the process's start to the answer of the first `tools/call` (after `initialize` and `notifications/initialized`); the median of %d starts per server and function. nexus starts its pools as it starts; the programs were built with `nexus make` beforehand.\n", b.c.cold)
	p("- **stdio**: one server process per server, %d sequential calls per round of `trivial` and of `shout`, %d of `total`, after a warm-up of %d calls (%d of `total`); calls/s is calls over the time spent waiting for the answers.\n",
		b.c.stdioCalls, b.c.stdioBigCalls, b.c.warmUp, b.c.bigWarmUp)
	p("- **HTTP**: Streamable HTTP on loopback, one server process per server; each round opens %d sessions at once, each makes %d sequential calls (%d of `total`), and deletes its session; calls/s is all calls over the time from the first call to the last answer. Peers answer in JSON rather than SSE, as nexus does.\n",
		b.c.sessions, b.c.httpCalls, b.c.httpBigCalls)
	p("- **rounds**: %d, alternating the servers (each turn starts with the next one), so that machine noise hits every server alike; calls/s is the median of the rounds, p50 and p99 are over the calls of all rounds.\n", b.c.rounds)
	p("- **peak memory**: the sum of the peak resident sets (VmHWM) of the server process and all its descendants (pools, interpreters), read from /proc just before the server is stopped; the stdio column covers the stdio process's whole life (warm-up and rounds), the HTTP column the HTTP process's.\n")

	p("\n## Results\n")
	for _, f := range b.fns {
		p("\n### `%s :: %s`\n\n", f.name, f.sig)
		p("| server | cold start | stdio calls/s | stdio p50 | stdio p99 | HTTP calls/s (%d sessions) | HTTP p50 | HTTP p99 |\n", b.c.sessions)
		p("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, s := range b.servers {
			p("| %s | %s | %s | %s |\n", s.name, b.coldCell(s, f), seriesCells(s.seq[f.name], s.failed["stdio"]), seriesCells(s.conc[f.name], s.failed["http"]))
		}
	}
	p("\n### Peak memory (server and its descendants)\n\n| server | processes | stdio | HTTP |\n| --- | ---: | ---: | ---: |\n")
	for _, s := range b.servers {
		p("| %s | %s | %s | %s |\n", s.name, procsCell(s), memCell(s.memStdio), memCell(s.memHTTP))
	}
	if spread := b.spread(); spread != "" {
		p("\n%s\n", spread)
	}

	var nexusRows, peers []*server
	for _, s := range b.servers {
		if s.peer {
			peers = append(peers, s)
		} else {
			nexusRows = append(nexusRows, s)
		}
	}
	if len(nexusRows) > 0 && len(peers) > 0 {
		p("\n## nexus as a ratio to each peer, in the same run\n")
		for _, m := range metrics {
			p("\n### %s\n\n| nexus | %s |", m.title, m.column)
			for _, peer := range peers {
				p(" / %s |", peer.name)
			}
			p("\n| --- | --- |%s\n", strings.Repeat(" ---: |", len(peers)))
			for _, n := range nexusRows {
				for _, f := range m.functions(b.fns) {
					p("| %s | %s |", n.name, f)
					for _, peer := range peers {
						p(" %s |", ratioCell(m.ratio(n, peer, f)))
					}
					p("\n")
				}
			}
		}
	}

	b.reportBaseline(w)
	b.reportTracing(w)
	b.reportSteps(w)

	p("\n## Goals (issues #6 and #15)\n\nEach goal on the functions it names (— where it names none).\n\n| goal | %s | verdict |\n| --- |%s --- |\n", fnNames(b.fns, " | "), strings.Repeat(" ---: |", len(b.fns)))
	for _, g := range goals {
		n := b.server(g.nexus)
		var against []*server
		for _, s := range b.servers {
			if s.key == g.peer || (g.peer == everyPeer && s.peer) {
				against = append(against, s)
			}
		}
		if n == nil || len(against) == 0 {
			continue
		}
		p("| %s |", g.text)
		var missed []string
		measured, asked := 0, 0
		for _, f := range b.fns {
			if !g.on(f.name) {
				p(" — |")
				continue
			}
			asked++
			// Against every peer: the least favourable ratio.
			r, ok := 0.0, true
			for i, peer := range against {
				ri, oki := g.metric.ratio(n, peer, f.name)
				if !oki {
					ok = false
					break
				}
				if i == 0 || (g.atLeast && ri < r) || (!g.atLeast && ri > r) {
					r = ri
				}
			}
			if !ok {
				p(" not measured |")
				continue
			}
			measured++
			p(" %.2f |", r)
			if !g.met(r) {
				missed = append(missed, fmt.Sprintf("%s %.2f", f.name, r))
			}
		}
		switch {
		case measured < asked:
			p(" not measured |\n")
		case len(missed) == 0:
			p(" met |\n")
		default:
			p(" **missed** (%s) |\n", strings.Join(missed, ", "))
		}
	}

	p("\n## Each round\n\nThe calls/s of every round, in the order run, from which the medians above are taken.\n\n")
	p("| server | function | stdio calls/s | HTTP calls/s |\n| --- | --- | --- | --- |\n")
	for _, s := range b.servers {
		for _, f := range b.fns {
			p("| %s | %s | %s | %s |\n", s.name, f.name, roundsCell(s.seq[f.name]), roundsCell(s.conc[f.name]))
		}
	}

	var errs []string
	for _, s := range b.servers {
		for _, e := range s.errs {
			errs = append(errs, fmt.Sprintf("- %s, %s", s.name, strings.ReplaceAll(e, "\n", "\n  ")))
		}
	}
	if len(errs) > 0 {
		p("\n## Failures\n\n%s\n", strings.Join(errs, "\n"))
	} else {
		p("\nEvery call of every server was answered right.\n")
	}
}

func serverNote(s *server) string {
	switch s.key {
	case "fastmcp":
		return "`servers/fastmcp_server.py`, FastMCP's `@mcp.tool` on `async def` functions, `mcp.run(transport=\"stdio\")` or `transport=\"http\"` (uvicorn, JSON replies, stateful sessions, no access log)."
	case "ts":
		return "`servers/ts/server.mjs`, the SDK's `McpServer` with `registerTool` and zod schemas, on `StdioServerTransport` or one `StreamableHTTPServerTransport` per session (JSON replies) behind `node:http`."
	case "gosdk":
		return "this benchmark's binary re-executed with `-serve-gosdk`: the SDK's `mcp.Server` with `mcp.AddTool`, on `StdioTransport` or `NewStreamableHTTPHandler` (JSON replies). The functions run in the server's own process: the ceiling for a server without pools."
	}
	if s.key == tracedKey {
		return "the Go program again, served with tracing on: `env OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:PORT OTEL_EXPORTER_OTLP_PROTOCOL=grpc nexus mcp ...`, exporting to an OTLP receiver in the benchmark's process (see \"Tracing: on / off\")."
	}
	if s.baseline {
		return fmt.Sprintf("the same, with the nexus given as `-baseline` (`%s`), which also built the program.", s.stdio[0])
	}
	return fmt.Sprintf("`nexus mcp` serving `servers/nexus/%s` (the functions written in %s), built with `nexus make`; `--http-port 0` for HTTP.",
		map[string]string{"nexus-py": "python", "nexus-go": "go", "nexus-cpp": "cpp"}[s.key], s.lang)
}

func (b *bench) server(key string) *server {
	for _, s := range b.servers {
		if s.key == key {
			return s
		}
	}
	return nil
}

func (b *bench) coldCell(s *server, f *function) string {
	ds := s.cold[f.name]
	if len(ds) == 0 {
		return "failed"
	}
	cell := runenv.Dur(medianDuration(ds))
	if len(ds) < b.c.cold {
		cell += fmt.Sprintf(" (%d of %d)", len(ds), b.c.cold)
	}
	return cell
}

func seriesCells(s *series, failed bool) string {
	if s == nil {
		if failed {
			return "failed | | "
		}
		return "— | | "
	}
	return fmt.Sprintf("%s | %s | %s", thousands(s.rate()), runenv.Dur(s.percentile(0.50)), runenv.Dur(s.percentile(0.99)))
}

func procsCell(s *server) string {
	return fmt.Sprint(max(s.memStdio.procs, s.memHTTP.procs))
}

func memCell(m memPeak) string {
	if m.bytes == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f MiB", float64(m.bytes)/(1<<20))
}

func ratioCell(r float64, ok bool) string {
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.2f", r)
}

// spread says how far apart the rounds' rates were, the largest over all
// series: how much to trust a ratio near a goal.
func (b *bench) spread() string {
	worst := func(get func(*server) map[string]*series) (float64, string) {
		w, where := 0.0, ""
		for _, s := range b.servers {
			for _, f := range b.fns {
				ser := get(s)[f.name]
				if ser == nil || len(ser.rates) < 2 {
					continue
				}
				lo, hi := math.Inf(1), 0.0
				for _, r := range ser.rates {
					lo, hi = math.Min(lo, r), math.Max(hi, r)
				}
				if d := hi/lo - 1; d > w {
					w, where = d, s.name+", "+f.name
				}
			}
		}
		return w, where
	}
	seq, seqAt := worst(func(s *server) map[string]*series { return s.seq })
	conc, concAt := worst(func(s *server) map[string]*series { return s.conc })
	if seqAt == "" && concAt == "" {
		return ""
	}
	return fmt.Sprintf("Noise: the fastest round of a server and function was at most %.0f%% above its slowest over stdio (%s) and %.0f%% over HTTP (%s).",
		100*seq, seqAt, 100*conc, concAt)
}

// metric is one figure compared as nexus / peer.
type metric struct {
	title     string
	column    string // what the second column names
	functions func([]*function) []string
	ratio     func(n, peer *server, fn string) (float64, bool)
}

func perFunction(fns []*function) []string {
	var out []string
	for _, f := range fns {
		out = append(out, f.name)
	}
	return out
}

func fnNames(fns []*function, sep string) string {
	var out []string
	for _, f := range fns {
		out = append(out, "`"+f.name+"`")
	}
	return strings.Join(out, sep)
}

func rateRatio(get func(*server) map[string]*series) func(n, peer *server, fn string) (float64, bool) {
	return func(n, peer *server, fn string) (float64, bool) {
		a, b := get(n)[fn], get(peer)[fn]
		if a == nil || b == nil {
			return 0, false
		}
		return a.rate() / b.rate(), true
	}
}

var (
	seqRatio  = rateRatio(func(s *server) map[string]*series { return s.seq })
	concRatio = rateRatio(func(s *server) map[string]*series { return s.conc })
)

func coldRatio(n, peer *server, fn string) (float64, bool) {
	a, b := n.cold[fn], peer.cold[fn]
	if len(a) == 0 || len(b) == 0 {
		return 0, false
	}
	return float64(medianDuration(a)) / float64(medianDuration(b)), true
}

var metrics = []metric{
	{"stdio calls/s, nexus / peer (above 1: nexus answers more calls)", "function", perFunction, seqRatio},
	{"HTTP calls/s, nexus / peer (above 1: nexus answers more calls)", "function", perFunction, concRatio},
	{"cold start, nexus / peer (below 1: nexus answers its first call sooner)", "function", perFunction, coldRatio},
	{"peak memory, nexus / peer (below 1: nexus uses less)", "transport", func([]*function) []string { return []string{"stdio", "HTTP"} },
		func(n, peer *server, transport string) (float64, bool) {
			a, b := n.memStdio, peer.memStdio
			if transport == "HTTP" {
				a, b = n.memHTTP, peer.memHTTP
			}
			if a.bytes == 0 || b.bytes == 0 {
				return 0, false
			}
			return float64(a.bytes) / float64(b.bytes), true
		}},
}

// goal is one of the goals of issues #6 and #15: nexus / peer on a
// metric, on the functions fns (every function when empty). A goal
// against everyPeer holds against each, and reports the least favourable
// ratio.
type goal struct {
	text        string
	nexus, peer string
	metric      metric
	want        float64
	atLeast     bool // met when the ratio is at least want; else when below
	fns         []string
}

// everyPeer as a goal's peer: every hand-written server of the run.
const everyPeer = "*"

// on reports whether g is about function fn.
func (g goal) on(fn string) bool {
	return len(g.fns) == 0 || slices.Contains(g.fns, fn)
}

func (g goal) met(r float64) bool {
	if g.atLeast {
		return r >= g.want
	}
	return r < g.want
}

var goals = []goal{
	{"#6: nexus Python pool at least 3× FastMCP's calls/s over stdio", "nexus-py", "fastmcp", metrics[0], 3, true, nil},
	{"#6: nexus Python pool at least 5× FastMCP's calls/s over HTTP", "nexus-py", "fastmcp", metrics[1], 5, true, nil},
	{"#6: nexus Go pool at least 0.6 of the Go SDK's calls/s over stdio", "nexus-go", "gosdk", metrics[0], 0.6, true, nil},
	{"#6: nexus C++ pool at least 0.6 of the Go SDK's calls/s over stdio", "nexus-cpp", "gosdk", metrics[0], 0.6, true, nil},
	{"#6: nexus Python pool's cold start under 2× FastMCP's", "nexus-py", "fastmcp", metrics[2], 2, false, nil},
	{"#6: nexus Go pool's cold start under 2× the Go SDK's", "nexus-go", "gosdk", metrics[2], 2, false, nil},
	{"#6: nexus C++ pool's cold start under 2× the Go SDK's", "nexus-cpp", "gosdk", metrics[2], 2, false, nil},
	{"#15: nexus C++ pool at least 1.0× the TypeScript SDK's calls/s over stdio, small calls", "nexus-cpp", "ts", metrics[0], 1, true, small},
	{"#15: nexus Go pool at least 1.0× the TypeScript SDK's calls/s over stdio, small calls", "nexus-go", "ts", metrics[0], 1, true, small},
	{"#15: nexus Python pool at least 2× FastMCP's calls/s over stdio on the 100k sum", "nexus-py", "fastmcp", metrics[0], 2, true, big},
	{"#15: nexus Python pool at least 2× every peer over stdio on the 100k sum", "nexus-py", everyPeer, metrics[0], 2, true, big},
	{"#15: nexus Go pool at least 2× every peer over stdio on the 100k sum", "nexus-go", everyPeer, metrics[0], 2, true, big},
	{"#15: nexus C++ pool at least 2× every peer over stdio on the 100k sum", "nexus-cpp", everyPeer, metrics[0], 2, true, big},
	{"#15: nexus Python pool at least 2× every peer over HTTP on the 100k sum", "nexus-py", everyPeer, metrics[1], 2, true, big},
	{"#15: nexus Go pool at least 2× every peer over HTTP on the 100k sum", "nexus-go", everyPeer, metrics[1], 2, true, big},
	{"#15: nexus C++ pool at least 2× every peer over HTTP on the 100k sum", "nexus-cpp", everyPeer, metrics[1], 2, true, big},
	{"#15: nexus Go pool's cold start under 1.5× the Go SDK's", "nexus-go", "gosdk", metrics[2], 1.5, false, nil},
	{"#15: nexus C++ pool's cold start under 1.5× the Go SDK's", "nexus-cpp", "gosdk", metrics[2], 1.5, false, nil},
}

// The functions of issue #15's goals: the small calls and the large one.
var (
	small = []string{"trivial", "shout"}
	big   = []string{"total"}
)

// reportBaseline writes, when -baseline ran, each nexus row against its
// baseline row of the same rounds: the before and after of a change.
func (b *bench) reportBaseline(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	var rows [][2]*server
	for _, s := range b.servers {
		if before := b.server(baselineKey(s.key)); before != nil && !s.peer && !s.baseline {
			rows = append(rows, [2]*server{s, before})
		}
	}
	if len(rows) == 0 {
		return
	}
	p("\n## Before and after: nexus / the -baseline nexus, in the same rounds\n\n")
	p("Calls/s above 1 and cold start below 1: the nexus measured is faster.\n\n")
	p("| pool | function | cold start | stdio calls/s | HTTP calls/s |\n| --- | --- | ---: | ---: | ---: |\n")
	for _, r := range rows {
		for _, f := range b.fns {
			p("| %s | %s |", r[0].lang, f.name)
			for _, m := range []metric{metrics[2], metrics[0], metrics[1]} {
				p(" %s |", ratioCell(m.ratio(r[0], r[1], f.name)))
			}
			p("\n")
		}
	}
}

// thousands formats a rate with a thousands separator: 12,345.
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	if v < 10 {
		s = fmt.Sprintf("%.1f", v)
	}
	var out []byte
	digits := strings.IndexByte(s+".", '.')
	for i := 0; i < len(s); i++ {
		if i > 0 && i < digits && (digits-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func roundsCell(s *series) string {
	if s == nil {
		return "—"
	}
	var out []string
	for _, r := range s.rates {
		out = append(out, thousands(r))
	}
	return strings.Join(out, ", ")
}

// reportSteps writes the steps profile of each nexus row: a cold start,
// step by step, and the stages of a small call after it.
func (b *bench) reportSteps(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	var rows []*server
	for _, s := range b.servers {
		if s.steps != nil {
			rows = append(rows, s)
		}
	}
	if len(rows) == 0 {
		return
	}
	p("\n## Where the time goes: a cold start step by step, and the stages of a small call\n\n")
	p("Measured by package `integration/stepprofile` (also `go run ./integration/startsteps`): the nexus started with `NEXUS_STEPS=1` marks each step of its start on stderr; the client's own step is the answer read. ")
	p("The median of %d starts per row, in ms from just before the exec, calling `trivial`; then, after each start, %d rounds of four requests, each reaching one stage further: a ping (the transport: stdin, parsing, dispatch, the reply written), a `tools/call` of an unknown tool (the call's goroutine, the lookup, an error result), one with an unknown argument (binding), and the call (encoding, the pool's round trip, decoding, the result).\n\n", b.c.cold, b.c.stageCalls)
	var order []string
	for _, s := range rows {
		for _, st := range s.steps.Steps {
			if !slices.Contains(order, st.Name) {
				order = append(order, st.Name)
			}
		}
	}
	p("| step (ms from exec) |")
	for _, s := range rows {
		p(" %s |", s.name)
	}
	p("\n| --- |%s\n", strings.Repeat(" ---: |", len(rows)))
	for _, name := range order {
		p("| %s |", name)
		for _, s := range rows {
			cell := "—"
			for _, st := range s.steps.Steps {
				if st.Name == name {
					cell = fmt.Sprintf("%.2f", float64(st.At.Microseconds())/1000)
				}
			}
			p(" %s |", cell)
		}
		p("\n")
	}
	p("\n| stage of a small call: median µs (what it adds) |")
	for _, s := range rows {
		p(" %s |", s.name)
	}
	p("\n| --- |%s\n", strings.Repeat(" ---: |", len(rows)))
	for i, name := range stepprofile.StageNames {
		p("| %s |", name)
		for _, s := range rows {
			st := s.steps.Stages[i]
			p(" %.1f (%+.1f) |", float64(st.Median.Nanoseconds())/1000, float64(st.Adds.Nanoseconds())/1000)
		}
		p("\n")
	}
}
