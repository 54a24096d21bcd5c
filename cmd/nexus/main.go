// Command nexus builds and runs multi-language programs: `nexus make`
// compiles a `.loc` program into a build folder and a launcher; `nexus run`
// (which the launcher calls) serves its commands on the command line,
// calling functions in Python, C++ and Go pools; `nexus mcp` serves them as
// MCP tools over stdio or Streamable HTTP, and `nexus serve` serves several
// programs behind one HTTP endpoint (docs/architecture.md).
package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/steptrace"
	"github.com/nexus-run/nexus/internal/suggest"

	"github.com/nexus-run/nexus/manifest"
)

func main() {
	os.Exit(run(os.Args))
}

func run(args []string) int {
	steptrace.Mark("main")
	startDebug()
	app := &cli.App{
		Name:    "nexus",
		Usage:   "build and run multi-language programs",
		Version: manifest.NexusVersion,
		Description: "Write functions in Python, C++ and Go, declare their types and command-line\n" +
			"surface in a main.loc, and `nexus make main.loc` gives you a real command-line\n" +
			"program, ./main cmd args, whose commands are also MCP tools (nexus mcp ./main).\n" +
			"\n" +
			"Example:\n" +
			"   nexus make -o chem main.loc               build ./chem from main.loc\n" +
			"   ./chem --help                             its commands\n" +
			"   nexus install-client claude-desktop ./chem\n" +
			"                                             add it to Claude Desktop as an MCP server\n" +
			"\n" +
			"`nexus COMMAND --help` says more of each command.",
		HideHelpCommand: true,
		Commands: []*cli.Command{
			makeCommand(),
			runCommand(),
			mcpCommand(),
			mcpConfigCommand(),
			mcpImportCommand(),
			installClientCommand(),
			serveCommand(),
			versionCommand(),
		},
		// Errors are printed once, here, as one line; no usage dump.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
	}
	// urfave/cli asks each command, not the app, about its own flags.
	for _, c := range app.Commands {
		if c.OnUsageError == nil {
			c.OnUsageError = onUsageError
		}
	}
	cli.FlagStringer = requiredHelp(cli.FlagStringer)
	args, err := interspersed(args, app.Commands)
	if err == nil {
		err = app.Run(args)
	}
	if err != nil {
		return report(err)
	}
	return 0
}

// onUsageError turns a flag mistake into a usageError: one line and exit
// code 2, instead of urfave/cli's "Incorrect Usage" and the whole help.
func onUsageError(_ *cli.Context, err error, _ bool) error {
	// A command's unknown flags are named by interspersed before urfave/cli
	// parses; what reaches here unnamed is one of nexus's own (nexus
	// --bogus), said in the same words.
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
		name = strings.TrimPrefix(name, "-")
		dashes := "--"
		if len(name) == 1 {
			dashes = "-"
		}
		return usageError{fmt.Errorf("unknown flag %s%s; nexus --help lists its flags and commands", dashes, name)}
	}
	return usageError{err}
}

// exitCode is an error that carries the process exit code, for commands whose
// code is decided below (the program run by `nexus run`).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// usageError marks a mistake in how nexus was called: exit code 2.
type usageError struct{ error }

func report(err error) int {
	// A required flag left out is a usage error too; urfave/cli's error
	// for it has no exported type to match.
	if strings.HasPrefix(err.Error(), "Required flag") {
		err = usageError{err}
	}
	switch e := err.(type) {
	case exitCode:
		return int(e)
	case usageError:
		fmt.Fprintf(os.Stderr, "nexus: %v\n", e.error)
		return 2
	}
	fmt.Fprintf(os.Stderr, "nexus: %v\n", err)
	return 1
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the nexus version",
		Action: func(c *cli.Context) error {
			fmt.Fprintln(c.App.Writer, "nexus", manifest.NexusVersion)
			return nil
		},
	}
}

// interspersed lets flags follow the arguments of a command
// (`nexus mcp ./prog --http-port 8080`): urfave/cli stops reading flags
// at the first argument, so the flags a command knows are moved before
// its arguments. Commands that take their own flags verbatim (run) are
// left alone, and so is everything after "--". A flag the command does
// not know, wherever it is, is an error naming it (not a program called
// --port), with a guess at the flag meant.
func interspersed(args []string, cmds []*cli.Command) ([]string, error) {
	if len(args) < 3 {
		return args, nil
	}
	var cmd *cli.Command
	for _, c := range cmds {
		if c.Name == args[1] {
			cmd = c
		}
	}
	if cmd == nil || cmd.SkipFlagParsing {
		return args, nil
	}
	// urfave/cli adds --help and -h to every command.
	takesValue := map[string]bool{"help": false, "h": false}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	flags, positional := []string{}, []string{}
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		tok := rest[i]
		if tok == "--" {
			positional = append(positional, rest[i:]...)
			break
		}
		if !strings.HasPrefix(tok, "-") || tok == "-" {
			positional = append(positional, tok)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(tok, "-"), "=")
		value, known := takesValue[name]
		if !known {
			return nil, usageError{unknownFlag(cmd, tok, name, takesValue)}
		}
		if name == "help" || name == "h" {
			// Help for the command, whatever else was asked: left among
			// arguments, urfave/cli would look for a command named by
			// the first of them.
			return []string{args[0], args[1], "--help"}, nil
		}
		flags = append(flags, tok)
		if value && !hasValue && i+1 < len(rest) {
			flags = append(flags, rest[i+1])
			i++
		}
	}
	return append(append(append([]string{}, args[:2]...), flags...), positional...), nil
}

// unknownFlag is the error for tok, a flag called name that cmd does not
// have, with the flag most likely meant: a typo's (--http-prot), or the
// one that name ends (--port for --http-port).
func unknownFlag(cmd *cli.Command, tok, name string, known map[string]bool) error {
	var names []string
	for n := range known {
		if len(n) > 1 {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	guess := suggest.Closest(name, names)
	if guess == "" {
		for _, n := range names {
			if strings.HasSuffix(n, "-"+name) {
				if guess != "" {
					guess = ""
					break
				}
				guess = n
			}
		}
	}
	hint := ""
	if guess != "" {
		hint = " (did you mean --" + guess + "?)"
	}
	if strings.Contains(tok, "=") {
		tok, _, _ = strings.Cut(tok, "=")
	}
	return fmt.Errorf("unknown flag %s for nexus %s%s; nexus %s --help lists its flags", tok, cmd.Name, hint, cmd.Name)
}

// requiredHelp is the help line of a flag (cli.FlagStringer) that says
// "(required)" for a required flag instead of a default it does not
// have: `--http-port PORT ... (default: 0)` would say it may be left out.
func requiredHelp(base cli.FlagStringFunc) cli.FlagStringFunc {
	return func(f cli.Flag) string {
		line := base(f)
		r, ok := f.(cli.RequiredFlag)
		if !ok || !r.IsRequired() {
			return line
		}
		if d, ok := f.(cli.DocGenerationFlag); ok && d.GetDefaultText() != "" {
			line = strings.Replace(line, " (default: "+d.GetDefaultText()+")", "", 1)
		}
		return line + " (required)"
	}
}
