package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/nexus/logs"
	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/pool"
)

// oplog is the operational log of the server nexus runs: where it
// listens, commands left out of the tools, pools that did not start,
// shutdown, a line per call (docs/operations.md, Logs). A variable of the
// package, not a parameter, because its lines come from everywhere a
// server runs (signals, listeners, the shutdown's steps), and a process
// runs one command. Until a server sets it up (serverLog) it writes the
// one-line messages "nexus: ..." that nexus run's user sees on Ctrl-C,
// as it did before there was a structured log.
var oplog = slog.New(plainHandler{os.Stderr})

// logFlags are the flags of every server's log.
func logFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "log-format", Value: logs.Text, EnvVars: []string{logs.FormatEnv},
			Usage: "write the log on stderr as `FORMAT`: text (key=value pairs) or json (a JSON object a line)"},
		&cli.StringFlag{Name: "log-level", Value: "info", EnvVars: []string{logs.LevelEnv},
			Usage: "log from `LEVEL` up: debug, info, warn or error (warn leaves the call lines out)"},
		// Off by default: a line written per call costs small calls 5-25%
		// of their rate in make peers (docs/operations.md, Logs), which
		// the metrics count at no measurable cost.
		&cli.BoolFlag{Name: "log-calls", EnvVars: []string{logs.CallsEnv},
			Usage: "log a line (at info) for every tool call: program, tool, transport, protocol, duration, outcome, error; never arguments"},
	}
}

// serverLog sets oplog up from the log flags of c (or their variables),
// on stderr. A format or level it does not know is a usage error.
func serverLog(c *cli.Context) error { return setupLog(c, os.Stderr) }

// setupLog is serverLog writing to w.
func setupLog(c *cli.Context, w io.Writer) error {
	level, err := logs.ParseLevel(c.String("log-level"))
	if err != nil {
		return usageError{fmt.Errorf("--log-level: %w", err)}
	}
	l, err := logs.New(w, c.String("log-format"), level)
	if err != nil {
		return usageError{fmt.Errorf("--log-format: %w", err)}
	}
	oplog = l
	return nil
}

// newHub is the hub of a server's calls, with the call log watching it
// when --log-calls asks for it.
func newHub(c *cli.Context) *observe.Hub {
	hub := observe.NewHub()
	if c.Bool("log-calls") {
		logs.WatchCalls(hub, oplog)
	}
	return hub
}

// plainHandler writes each record's message alone, as "nexus: MESSAGE",
// from info up: the messages of commands that are not servers (nexus
// run, ./prog --mcp-tools), which people read, not log collectors.
type plainHandler struct{ w io.Writer }

func (h plainHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }
func (h plainHandler) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h plainHandler) WithGroup(string) slog.Handler                { return h }

func (h plainHandler) Handle(_ context.Context, r slog.Record) error {
	_, err := fmt.Fprintf(h.w, "nexus: %s\n", r.Message)
	return err
}

// logPoolEvent writes a line for what happens to a pool that the people
// running nexus should see: a death and a replacement (warn), a start
// after the first (info). A start that fails is said by StartPools, or,
// for a pool started by a call, by that call's line.
func logPoolEvent(e pool.Event) {
	attrs := []any{"program", e.Program, "language", e.Lang}
	if e.Server != "" {
		attrs = append(attrs, "server", e.Server)
	}
	switch e.Kind {
	case pool.Died:
		if e.Err != nil {
			attrs = append(attrs, "error", e.Err.Error())
		}
		oplog.Warn("pool died", attrs...)
	case pool.Replaced:
		oplog.Warn("pool replaced", attrs...)
	case pool.Started:
		if e.Restart {
			oplog.Info("pool restarted", attrs...)
		}
	}
}
