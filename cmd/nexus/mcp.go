package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/mcp"
	"github.com/nexus-run/nexus/internal/nexus/metrics"
	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/program"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/internal/osproc"
	"github.com/nexus-run/nexus/internal/steptrace"
	"github.com/nexus-run/nexus/manifest"
)

func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:      "mcp",
		Usage:     "serve a program's commands as MCP tools, over stdio or HTTP",
		ArgsUsage: "PROG|MANIFEST [--http-port N]",
		Description: "Every exported command of the program becomes an MCP tool. Over stdio\n" +
			"(the default) messages are JSON-RPC, one a line on stdin and stdout; logs and\n" +
			"the pools' output go to stderr. With --http-port the tools are served over\n" +
			"Streamable HTTP at http://HOST:PORT/mcp instead (or, with --socket, on a\n" +
			"unix socket, beside or instead of HTTP).\n" +
			"`./PROG --mcp-config` prints the entry to paste into an MCP client.",
		Flags: append(append([]cli.Flag{
			// Left out, the server speaks stdio, which is what the help
			// says instead of the zero that a port of 0 would mean.
			&cli.IntFlag{Name: "http-port", DefaultText: "stdio", Usage: "serve over HTTP on `PORT` (0 picks a free one) instead of stdio"},
			metricsAddrFlag,
		}, serverFlags()...), append(stdioFlags(), shutdownFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError{errors.New("mcp needs exactly one program: nexus mcp PROG|MANIFEST [--http-port N]")}
			}
			if err := checkBounds(c); err != nil {
				return err
			}
			if err := serverLog(c); err != nil {
				return err
			}
			m, err := manifest.Load(c.Args().First())
			if err != nil {
				return err
			}
			steptrace.Mark("manifest loaded")
			tuneGC()
			if c.IsSet("http-port") || c.IsSet("socket") {
				if c.IsSet("metrics-addr") {
					return usageError{errors.New("--metrics-addr is for stdio: over HTTP the metrics are at GET /metrics")}
				}
				for _, name := range stdioOnlyFlags {
					if c.IsSet(name) {
						return usageError{fmt.Errorf("--%s is for stdio, not --http-port (see --max-body)", name)}
					}
				}
				return serveProgramHTTP(c, m)
			}
			for _, name := range httpOnlyFlags {
				// The token guards --metrics-addr too.
				if c.IsSet(name) && (name != "auth-token" || !c.IsSet("metrics-addr")) {
					return usageError{fmt.Errorf("--%s needs --http-port or --socket", name)}
				}
			}
			var mopts metricsOptions
			if c.IsSet("metrics-addr") {
				mopts.addr = c.String("metrics-addr")
				if err := checkMetricsAddr(mopts.addr); err != nil {
					return err
				}
				token, err := authToken(c)
				if err != nil {
					return err
				}
				mopts.token = token
			}
			return serveStdio(m, callOptions(c), poolOptions(c), stdioOptions(c), mopts, newHub(c))
		},
	}
}

// stdioOnlyFlags make sense only when serving over stdio.
var stdioOnlyFlags = []string{"max-line", "max-backlog"}

// stdioFlags bound what a stdio client may make the nexus hold.
func stdioFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Int64Flag{Name: "max-line", Value: mcp.DefaultMaxLine, Usage: "over stdio, refuse messages (lines) over `BYTES`, as --max-body does over HTTP"},
		&cli.Int64Flag{Name: "max-backlog", Value: mcp.DefaultMaxBacklog, Usage: "over stdio, stop reading requests while over `BYTES` of replies wait for the client to read them"},
	}
}

func stdioOptions(c *cli.Context) mcp.StdioOptions {
	// One scheduler thread, unless the user set GOMAXPROCS. Not before
	// ServeStdio: the start overlaps the pools' launch with building the
	// tools, on every core.
	return mcp.StdioOptions{Grace: c.Duration("shutdown-grace"), MaxLine: c.Int64("max-line"), MaxBacklog: c.Int64("max-backlog"),
		OneProc: os.Getenv("GOMAXPROCS") == ""}
}

// metricsOptions say where a stdio server serves its metrics: nowhere
// when addr is "".
type metricsOptions struct {
	addr, token string
}

// serveStdio serves program m over stdio until stdin ends or a signal
// comes, then stops the pools (see onSignals); its calls are told to hub,
// and its metrics served as mopts say.
func serveStdio(m *manifest.Manifest, opts tool.Options, popts pool.Options, sopts mcp.StdioOptions, mopts metricsOptions, hub *observe.Hub) error {
	// First of all, before any pool can inherit it: nothing but protocol
	// messages may reach the real stdout.
	out, err := mcp.ReserveStdout()
	if err != nil {
		return err
	}
	defer out.Close()
	endTracing, err := startTracing()
	if err != nil {
		return err
	}
	defer endTracing()
	// Counted only when someone may read them: nobody else could.
	var met *metrics.Metrics
	if mopts.addr != "" {
		met = newMetrics(hub, &popts, observe.Stdio)
	}
	prog := program.New(m, popts)
	ctx, stop := onSignals(func() { prog.Close() })
	defer stop()
	defer prog.Close() // first, with a second signal still watched
	sayStopping(ctx, sopts.Grace)
	if met != nil {
		mctx, endMetrics := context.WithCancel(ctx)
		defer endMetrics()
		if err := serveMetrics(mctx, met, mopts.addr, mopts.token); err != nil {
			return err
		}
	}

	prog.StartPools(ctx, oplog)
	srv := newServer(prog, opts, nil, hub, observe.Stdio, oplog)
	if met != nil {
		serveProgram(met, m.Name, srv)
	}
	steptrace.Mark("tool table built")
	err = mcp.ServeStdio(ctx, srv, osproc.PolledStdin(), out, sopts)
	if ctx.Err() != nil {
		return nil // stopped by a signal, as asked
	}
	return err
}

// newServer makes the MCP server of prog, which writes its calls to audit
// (nil: nowhere) and tells hub of each (nil: no one), calls that come by
// transport, and reports the commands it cannot serve on log, a record
// (one line) each.
func newServer(prog *program.Program, opts tool.Options, audit *guard.Audit, hub *observe.Hub, transport string, log *slog.Logger) *mcp.Server {
	tools, skipped := prog.Tools("")
	for _, s := range skipped {
		log.Warn(s.String(), "program", prog.Manifest.Name)
	}
	return mcp.NewServer(prog.Manifest.Name, tools, mcp.Options{CallTimeout: opts.CallTimeout, Audit: audit,
		Observe: hub, Transport: transport})
}

// printTools prints the tools/list result of m (`./prog --mcp-tools`),
// without starting any pool (nothing is called).
func printTools(m *manifest.Manifest, w, log io.Writer) error {
	srv := newServer(program.New(m, pool.Options{}), tool.Options{}, nil, nil, "", slog.New(plainHandler{log}))
	out, err := indentJSON(srv.ListResult())
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// indentJSON indents raw for people, keeping its key order.
func indentJSON(raw []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
