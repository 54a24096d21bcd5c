// Package cli is the command-line front end of a program: it turns
// `prog command args...` into typed argument values by the command's
// argument table in the manifest (positionals, options, flags, unrolled
// records, defaults, standard input), runs the command through dispatch,
// and prints the result as one line of JSON.
//
// Every token is read by the argument's type from manifest/types: as JSON
// when it is JSON of that type, else as the JSON in the file it names,
// else, for a Str, as the text it is (see token.go). Help and usage errors
// are answered from the manifest alone, without starting any pool.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Exit codes of Run.
const (
	// ExitOK: the command ran (or help was shown).
	ExitOK = 0
	// ExitFailure: the command failed: an exception in a function, an
	// @throw, a pool that could not start or died.
	ExitFailure = 1
	// ExitUsage: the command line was wrong; nothing ran.
	ExitUsage = 2
)

// Runner runs one command line of program M.
type Runner struct {
	M *manifest.Manifest
	// Prog is the program name shown in usage (e.g. "chem"); M.Name when
	// empty.
	Prog string
	// Pools runs calls of sourced functions. When nil, NewPools (if set)
	// is called to make it, once the command line has been parsed and only
	// if the command calls a pool; Run then stores the result here. The
	// Runner never stops pools: whoever supplies them does.
	Pools    dispatch.Caller
	NewPools func() (dispatch.Caller, error)
	// Stdin, Stdout and Stderr default to the process's own.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Run parses argv (without the program name), runs the command and prints
// the result on Stdout, or help on Stdout, or an error on Stderr. It
// returns the exit code: ExitOK, ExitFailure or ExitUsage. Run is not safe
// for concurrent use (it may set Pools).
func (r *Runner) Run(ctx context.Context, argv []string) (code int) {
	defer func() {
		// A bug must still end as a message and an exit code, never as a
		// stack trace in front of the user.
		if p := recover(); p != nil {
			fmt.Fprintf(r.stderr(), "error: internal error: %v\n", p)
			code = ExitFailure
		}
	}()
	inv, err := r.parse(argv)
	if err != nil {
		return r.usageFailure(err)
	}
	if inv.help {
		var help string
		switch {
		case inv.jsonHelp:
			help = r.jsonHelp(inv)
		case inv.cmd != nil:
			help = r.commandHelp(inv.cmd)
		case inv.group != nil:
			help = r.groupHelp(inv.group)
		default:
			help = r.programHelp()
		}
		return r.write(r.stdout(), help)
	}
	return r.execute(ctx, inv)
}

// execute runs a parsed command line and prints its result.
func (r *Runner) execute(ctx context.Context, inv *invocation) int {
	d := &dispatch.Dispatcher{M: r.M}
	needs := &manifest.Command{Body: inv.cmd.Body}
	if inv.action != nil {
		needs.Actions = []manifest.Action{*inv.action}
	}
	if len(r.M.PoolsFor(needs)) > 0 {
		if r.Pools == nil && r.NewPools != nil {
			pools, err := r.NewPools()
			if err != nil {
				return r.failure(ctx, fmt.Errorf("start pools: %w", err))
			}
			r.Pools = pools
		}
		d.Pools = r.Pools
	}
	ctx = dispatch.WithStdio(ctx, dispatch.Stdio{In: r.stdin(), Out: r.stdout(), Err: r.stderr()})
	result, err := d.Run(ctx, inv.cmd, inv.args)
	if err != nil {
		return r.failure(ctx, err)
	}
	t := inv.cmd.Return
	if a := inv.action; a != nil {
		if result, err = d.RunAction(ctx, a, result); err != nil {
			return r.failure(ctx, err)
		}
		t = a.Return
		if s, ok := result.(string); ok && a.Kind == "render" {
			if !strings.HasSuffix(s, "\n") {
				s += "\n"
			}
			return r.write(r.stdout(), s)
		}
	} else if s, ok := result.(string); ok && inv.cmd.Mime != "" && !inv.asJSON {
		return r.write(r.stdout(), media(inv.cmd.Mime, s))
	}
	if result == nil && !inv.keepNull {
		return ExitOK
	}
	out, err := types.ToJSON(t, result)
	if err != nil {
		return r.failure(ctx, fmt.Errorf("%s: %w", inv.cmd.Name, err))
	}
	return r.write(r.stdout(), string(out)+"\n")
}

// failure reports err, the failure of a command, and returns ExitFailure.
func (r *Runner) failure(ctx context.Context, err error) int {
	msg := err.Error()
	if ctx.Err() != nil {
		msg = "interrupted"
	}
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	fmt.Fprint(r.stderr(), "error: "+shown(msg))
	return ExitFailure
}

// shown is msg with its control characters, other than line breaks and
// tabs, written as escapes: a failure's message comes from a function or
// another MCP server, and a terminal escape in it must be seen, not obeyed
// by the user's terminal.
func shown(msg string) string {
	if !strings.ContainsFunc(msg, isHidden) {
		return msg
	}
	var b strings.Builder
	for _, r := range msg {
		switch {
		case !isHidden(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}

func isHidden(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\t'
}

// usageFailure reports a usage error, with a hint on where to read the
// usage, and returns ExitUsage. Other errors are failures.
func (r *Runner) usageFailure(err error) int {
	var ue *usageError
	if !errors.As(err, &ue) {
		return r.failure(context.Background(), err)
	}
	hint := r.prog() + " --help"
	switch {
	case ue.cmd != nil && (len(r.M.Commands) > 1 || ue.cmd.Group != ""):
		hint = r.commandPath(ue.cmd) + " --help"
	case ue.group != nil:
		hint = r.prog() + " " + ue.group.Name + " --help"
	}
	if ue.groupHelp {
		// `prog GROUP` alone: what the group offers is the answer, but
		// nothing ran, so it is a usage error.
		fmt.Fprint(r.stderr(), r.groupHelp(ue.group)+"\n")
	}
	fmt.Fprintf(r.stderr(), "error: %s\nrun '%s' for usage\n", ue.msg, hint)
	return ExitUsage
}

// write writes s to w; a failure to write the result is a failure of the
// command.
func (r *Runner) write(w io.Writer, s string) int {
	if _, err := io.WriteString(w, s); err != nil {
		fmt.Fprintf(r.stderr(), "error: write output: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// commandPath is how command c is called: the program, its group if it
// has one, its name.
func (r *Runner) commandPath(c *manifest.Command) string {
	if c.Group != "" {
		return r.prog() + " " + c.Group + " " + c.Name
	}
	return r.prog() + " " + c.Name
}

func (r *Runner) prog() string {
	if r.Prog != "" {
		return r.Prog
	}
	return r.M.Name
}

func (r *Runner) stdin() io.Reader {
	if r.Stdin != nil {
		return r.Stdin
	}
	return os.Stdin
}

func (r *Runner) stdout() io.Writer {
	if r.Stdout != nil {
		return r.Stdout
	}
	return os.Stdout
}

func (r *Runner) stderr() io.Writer {
	if r.Stderr != nil {
		return r.Stderr
	}
	return os.Stderr
}
