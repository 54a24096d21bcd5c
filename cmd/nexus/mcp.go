package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/internal/nexus/mcp"
	"github.com/nexus-run/nexus/internal/nexus/pool"
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
			"Streamable HTTP at http://HOST:PORT/mcp instead.\n" +
			"`./PROG --mcp-config` prints the entry to paste into an MCP client.",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "http-port", Usage: "serve over HTTP on `PORT` (0 picks a free one) instead of stdio"},
		}, serverFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError{errors.New("mcp needs exactly one program: nexus mcp PROG|MANIFEST [--http-port N]")}
			}
			m, err := manifest.Load(c.Args().First())
			if err != nil {
				return err
			}
			tuneGC()
			if c.IsSet("http-port") {
				return serveProgramHTTP(c, m)
			}
			for _, name := range httpOnlyFlags {
				if c.IsSet(name) {
					return usageError{fmt.Errorf("--%s needs --http-port", name)}
				}
			}
			return serveStdio(m, mcpOptions(c), poolOptions(c))
		},
	}
}

// serveStdio serves program m over stdio until stdin ends or a signal
// comes, then stops the pools.
func serveStdio(m *manifest.Manifest, opts mcp.Options, popts pool.Options) error {
	// First of all, before any pool can inherit it: nothing but protocol
	// messages may reach the real stdout.
	out, err := mcp.ReserveStdout()
	if err != nil {
		return err
	}
	defer out.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	sup := pool.New(m, popts)
	defer sup.Close()
	startPools(ctx, sup, m)
	err = mcp.ServeStdio(ctx, newServer(m, sup, opts, os.Stderr), os.Stdin, out)
	if ctx.Err() != nil {
		return nil // stopped by a signal, as asked
	}
	return err
}

// startPools starts every pool of m at once, in parallel, as servers do:
// a client's first call then waits for no pool, and a pool's start, the
// longest step of a server's start, overlaps the rest of it. A pool that
// fails to start is started again by the first call that needs it, which
// reports the failure.
func startPools(ctx context.Context, sup *pool.Supervisor, m *manifest.Manifest) {
	go func() {
		if err := sup.Start(ctx, poolLangs(m)...); err != nil && ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "nexus: %v\n", err)
		}
	}()
}

// newServer makes the MCP server of program m, calling pools through
// caller, and reports the commands it cannot serve on log.
func newServer(m *manifest.Manifest, caller dispatch.Caller, opts mcp.Options, log io.Writer) *mcp.Server {
	d := &dispatch.Dispatcher{M: m, Pools: caller}
	tools, skipped := mcp.NewTools(m, d, "")
	for _, s := range skipped {
		fmt.Fprintf(log, "nexus: %s\n", s)
	}
	return mcp.NewServer(m.Name, tools, opts)
}

// poolLangs are the languages of m's pools.
func poolLangs(m *manifest.Manifest) []string {
	langs := make([]string, len(m.Pools))
	for i, p := range m.Pools {
		langs[i] = p.Lang
	}
	return langs
}

// printTools prints the tools/list result of m (`./prog --mcp-tools`),
// without starting any pool.
func printTools(m *manifest.Manifest, w, log io.Writer) error {
	srv := newServer(m, nil, mcp.Options{}, log)
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
