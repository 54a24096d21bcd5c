package main

import (
	"errors"
	"net/http"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/nexus/metrics"
	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/router"
	"github.com/nexus-run/nexus/manifest"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "serve several programs behind one HTTP endpoint: MCP and a JSON API",
		ArgsUsage: "PROG|MANIFEST... --http-port N [--socket PATH]",
		Description: "MCP at /mcp, where each command is a tool named <module>__<command>, and\n" +
			"beside it a JSON API: POST /call/<module>/<command> with the arguments by name\n" +
			"as a JSON object, GET /discover (the programs and their tools), GET /health\n" +
			"(each program's pools, and draining once stopping). Pools start on first use.\n" +
			"Morloc's daemon API too: POST /call/<command> with the arguments by position\n" +
			"([5, 10] or {\"args\": [5, 10]}), GET /programs, GET /discover/<program>.",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "http-port", DefaultText: "none", Usage: "listen on `PORT` (0 picks a free one); needed unless --socket is given"},
			&cli.DurationFlag{Name: "recovery-window", Value: pool.DefaultRecoveryWindow,
				Usage: "after a pool dies, answer the JSON API's calls that need it 503 with Retry-After while it restarts, for at most `DURATION`"},
		}, append(serverFlags(), shutdownFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError{errors.New("serve needs at least one program: nexus serve PROG... --http-port N")}
			}
			if !c.IsSet("http-port") && !c.IsSet("socket") {
				return usageError{errors.New("serve needs --http-port N, --socket PATH, or both")}
			}
			if err := checkBounds(c); err != nil {
				return err
			}
			if err := serverLog(c); err != nil {
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
			acc, endTracing, err := httpStart(c)
			if err != nil {
				return err
			}
			defer endTracing()
			tuneGC()
			hub, popts := newHub(c), poolOptions(c)
			met := newMetrics(hub, &popts, observe.HTTP, observe.JSONAPI)
			rt, err := router.New(ms, router.Options{
				Calls: callOptions(c), HTTP: httpOptions(c), Pool: popts, Log: oplog, Audit: acc.audit,
				Observe: hub,
			})
			if err != nil {
				acc.close()
				return err
			}
			for module, tools := range rt.Tools() {
				met.Serve(module, tools)
			}
			met.Sessions(rt.MCP().Sessions)
			mux := http.NewServeMux()
			mux.Handle(metrics.Path, met.Handler())
			mux.Handle("/", rt)
			closeAll := func() { rt.Close() }
			ctx, stop := onSignals(closeAll)
			defer stop()
			return serveHTTP(ctx, c, acc, mux, met, rt.Health(), "MCP at /mcp and the JSON API", closeAll)
		},
	}
}
