package cli

import (
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
)

// invocation is a parsed command line, ready to run.
type invocation struct {
	cmd    *manifest.Command // nil with help: the program's help
	args   []any             // one canonical value per cmd.Args entry
	action *manifest.Action  // the output action to apply, or nil
	// format is the value of -f/--format ("" when not given), given by
	// formatName; asJSON says the result itself is printed as JSON (-f
	// json), whatever the command's default output.
	format, formatName string
	asJSON             bool
	keepNull           bool
	help               bool
}

// usageError is a command line that cannot run (exit 2). cmd is the
// command it was meant for, so the hint can point at its help.
type usageError struct {
	msg string
	cmd *manifest.Command
}

func (e *usageError) Error() string { return e.msg }

// The options every program accepts beside its commands' own. A command
// may define an option of the same name; its own meaning then wins.
const (
	helpLong     = "--help"
	helpShort    = "-h"
	keepNullLong = "--keep-null"
)

// parse turns argv (without the program name) into an invocation.
func (r *Runner) parse(argv []string) (*invocation, error) {
	inv := &invocation{}
	i := 0
	for ; i < len(argv); i++ {
		if argv[i] == keepNullLong {
			inv.keepNull = true
		} else if argv[i] == helpLong || argv[i] == helpShort {
			inv.help = true
		} else {
			break
		}
	}
	rest := argv[i:]
	switch {
	case len(rest) > 0 && r.M.Command(rest[0]) != nil:
		inv.cmd, rest = r.M.Command(rest[0]), rest[1:]
	case len(r.M.Commands) == 1:
		// The only command needs no name: `prog 3 4` runs it.
		inv.cmd = &r.M.Commands[0]
	case inv.help || len(rest) == 0:
		inv.help = true
		return inv, nil
	case isOption(rest[0]):
		return nil, r.unknownProgramOption(rest[0])
	default:
		return nil, r.unknownCommand(rest[0])
	}
	if inv.help {
		return inv, nil
	}
	p := newCommandParser(r, inv.cmd)
	if err := p.parse(rest, inv); err != nil {
		return nil, err
	}
	return inv, nil
}

func (r *Runner) unknownCommand(name string) error {
	names := make([]string, len(r.M.Commands))
	for i, c := range r.M.Commands {
		names[i] = c.Name
	}
	msg := fmt.Sprintf("unknown command '%s'", name)
	if s := suggest.Closest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", s)
	} else if len(names) > 0 {
		msg += "; the commands are " + strings.Join(names, ", ")
	}
	return &usageError{msg: msg}
}

// unknownProgramOption explains an option given before any command name.
func (r *Runner) unknownProgramOption(tok string) error {
	name, _, _ := strings.Cut(tok, "=")
	for i := range r.M.Commands {
		c := &r.M.Commands[i]
		if _, ok := newCommandParser(r, c).names[name]; ok {
			return &usageError{msg: fmt.Sprintf("option '%s' belongs to command %s and goes after its name: %s %s %s ...", name, c.Name, r.prog(), c.Name, name)}
		}
	}
	return &usageError{msg: "unknown option '" + name + "'" + didYouMean(name, []string{helpLong, keepNullLong})}
}

// didYouMean is the " (did you mean '--x'?)" hint for an unknown long
// option, compared without the dashes so they do not count as likeness.
func didYouMean(name string, longs []string) string {
	if !strings.HasPrefix(name, "--") {
		return ""
	}
	bare := make([]string, len(longs))
	for i, l := range longs {
		bare[i] = strings.TrimPrefix(l, "--")
	}
	if s := suggest.Closest(strings.TrimPrefix(name, "--"), bare); s != "" {
		return " (did you mean '--" + s + "'?)"
	}
	return ""
}

// isOption reports whether tok is an option name rather than a value. A
// dash followed by a digit or a dot is a negative number: no short option
// is a digit.
func isOption(tok string) bool {
	if len(tok) < 2 || tok[0] != '-' {
		return false
	}
	c := tok[1]
	return !(c >= '0' && c <= '9') && c != '.'
}
