package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/urfave/cli/v2"

	nexuscli "github.com/nexus-run/nexus/internal/nexus/cli"
	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/program"
	"github.com/nexus-run/nexus/manifest"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:            "run",
		Usage:           "run a built program's command (what the launcher calls)",
		ArgsUsage:       "MANIFEST [command] [args...]",
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return usageError{fmt.Errorf("run needs a program: nexus run PROG|MANIFEST [command] [args...]")}
			}
			m, err := manifest.Load(c.Args().First())
			if err != nil {
				return err
			}
			argv := c.Args().Slice()[1:]
			if len(argv) == 1 {
				switch argv[0] {
				case "--mcp-tools":
					return printTools(m, c.App.Writer, c.App.ErrWriter)
				case "--mcp-config":
					warnServerEnv(m, progName(m), c.App.ErrWriter)
					return printConfig(m, progName(m), c.App.Writer)
				}
			}
			return exitCode(runProgram(m, argv))
		},
	}
}

// runProgram runs one command line of program m. Ctrl-C or SIGTERM cancels
// the call and stops the pools before exiting; a second one exits at once
// (see onSignals).
func runProgram(m *manifest.Manifest, argv []string) int {
	// The stack is built only for a command that calls a pool, and
	// starts only the pools it calls, on its first call of each.
	var prog atomic.Pointer[program.Program]
	closePools := func() {
		if p := prog.Load(); p != nil {
			p.Close()
		}
	}
	ctx, stop := onSignals(closePools)
	defer stop()
	defer closePools()
	r := &nexuscli.Runner{
		M:    m,
		Prog: progName(m),
		NewPools: func() (dispatch.Caller, error) {
			p := program.New(m, pool.Options{Stderr: os.Stderr})
			prog.Store(p)
			return p.Caller(), nil
		},
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
	}
	code := r.Run(ctx, argv)
	if ctx.Err() != nil {
		return 130
	}
	return code
}

// progName is the launcher's name: the build folder is NAME-build.
func progName(m *manifest.Manifest) string {
	base := filepath.Base(m.Dir)
	if name, ok := strings.CutSuffix(base, "-build"); ok && name != "" {
		return name
	}
	return m.Name
}
