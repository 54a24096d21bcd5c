package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/codegen"
	"github.com/nexus-run/nexus/internal/codegen/build"
)

func makeCommand() *cli.Command {
	return &cli.Command{
		Name:      "make",
		Usage:     "compile a .loc program into a command-line program",
		ArgsUsage: "main.loc",
		Description: "Writes NAME-build/ (the manifest and generated pools) and the launcher ./NAME,\n" +
			"which works from any folder. NAME defaults to the module name.\n" +
			"Python functions run under the interpreter found now (--python, else\n" +
			"NEXUS_PYTHON, else python3 on PATH), recorded by its absolute path, so the\n" +
			"program works whatever PATH it is started with (an MCP client's, say).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the program's `NAME` (a path is fine)"},
			&cli.StringFlag{
				Name:    "python",
				EnvVars: []string{"NEXUS_PYTHON"},
				Usage:   "the Python interpreter of the program's Python functions, with grpcio and msgpack (`PATH`, default python3 on PATH)",
			},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError{errors.New("make needs exactly one .loc file (nexus make [-o NAME] main.loc)")}
			}
			self, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find the nexus binary: %w", err)
			}
			res, err := build.Make(build.Options{Source: c.Args().First(), Output: c.String("output"), Nexus: self, Python: c.String("python")})
			var list codegen.ErrorList
			if errors.As(err, &list) {
				for _, e := range list {
					fmt.Fprintln(c.App.ErrWriter, e)
				}
				return exitCode(1)
			}
			if err != nil {
				return err
			}
			for _, w := range res.Warnings {
				fmt.Fprintln(c.App.ErrWriter, w)
			}
			return nil
		},
	}
}
