package main

import (
	"errors"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/nexus/router"
	"github.com/nexus-run/nexus/manifest"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "serve several programs behind one HTTP endpoint: MCP and a JSON API",
		ArgsUsage: "PROG|MANIFEST... --http-port N",
		Description: "MCP at /mcp, where each command is a tool named <module>__<command>, and\n" +
			"beside it a JSON API: POST /call/<module>/<command> with the arguments by name\n" +
			"as a JSON object, GET /discover (the programs and their tools), GET /health\n" +
			"(each program's pools, and draining once stopping). Pools start on first use.",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "http-port", Required: true, Usage: "listen on `PORT` (0 picks a free one)"},
		}, append(serverFlags(), shutdownFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError{errors.New("serve needs at least one program: nexus serve PROG... --http-port N")}
			}
			if err := checkBounds(c); err != nil {
				return err
			}
			var ms []*manifest.Manifest
			for _, path := range c.Args().Slice() {
				m, err := manifest.Load(path)
				if err != nil {
					return err
				}
				ms = append(ms, m)
			}
			acc, err := httpAccess(c)
			if err != nil {
				return err
			}
			tuneGC()
			rt, err := router.New(ms, router.Options{
				Calls: callOptions(c), HTTP: httpOptions(c), Pool: poolOptions(c), Log: os.Stderr, Audit: acc.audit,
			})
			if err != nil {
				acc.close()
				return err
			}
			closeAll := func() { rt.Close() }
			ctx, stop := onSignals(closeAll)
			defer stop()
			return serveHTTP(ctx, c, acc, rt, rt.Health(), "MCP at /mcp and the JSON API", closeAll)
		},
	}
}
