package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/codegen"
	"github.com/nexus-run/nexus/internal/codegen/build"
	"github.com/nexus-run/nexus/manifest"
)

func makeCommand() *cli.Command {
	return &cli.Command{
		Name:      "make",
		Usage:     "compile a .loc program into a command-line program",
		ArgsUsage: "main.loc",
		Description: "Writes NAME-build/ (the manifest and generated pools) and the launcher ./NAME,\n" +
			"which works from any folder. NAME defaults to the module name.\n" +
			"Python functions run under the interpreter found now (--python, else\n" +
			"NEXUS_PYTHON, else python3 on PATH), which must be Python 3.7 or later with\n" +
			"grpcio and msgpack installed. It is recorded by its absolute path, so the\n" +
			"program works whatever PATH it is started with (an MCP client's, say); if\n" +
			"that interpreter is removed later, build the program again.\n" +
			"\n" +
			"Examples:\n" +
			"   nexus make main.loc\n" +
			"   nexus make -o ~/bin/chem main.loc\n" +
			"   nexus make --python ~/venvs/chem/bin/python main.loc",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the program's `NAME` (a path is fine)"},
			&cli.StringFlag{
				Name:    "python",
				EnvVars: []string{"NEXUS_PYTHON"},
				Usage:   "run the program's Python functions with the Python at `PATH` (default: python3 found on $PATH)",
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
			// NEXUS_PYTHON may be set for every build; --python was meant
			// for this one.
			if py := c.String("python"); py != "" && py != os.Getenv("NEXUS_PYTHON") && res.Manifest.Pool(manifest.Python) == nil {
				fmt.Fprintf(c.App.ErrWriter, "nexus: warning: --python %s is not used: the program has no Python functions\n", py)
			}
			return nil
		},
	}
}
