package cli

import (
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
)

// invocation is a parsed command line, ready to run.
type invocation struct {
	cmd *manifest.Command // nil with help: the program's or group's help
	// group is the command group named on the command line, or nil.
	group  *manifest.CommandGroup
	args   []any            // one canonical value per cmd.Args entry
	action *manifest.Action // the output action to apply, or nil
	// format is the value of -f/--format ("" when not given), given by
	// formatName; asJSON says the result itself is printed as JSON (-f
	// json), whatever the command's default output.
	format, formatName string
	asJSON             bool
	keepNull           bool
	help               bool
	// jsonHelp asks for the help as JSON (--json-help): the program's
	// whole surface, or the entry of cmd.
	jsonHelp bool
}

// usageError is a command line that cannot run (exit 2). cmd is the
// command it was meant for, so the hint can point at its help; group,
// when set without cmd, is the group it was meant for, whose help is shown
// when no command of it was named.
type usageError struct {
	msg       string
	cmd       *manifest.Command
	group     *manifest.CommandGroup
	groupHelp bool
}

func (e *usageError) Error() string { return e.msg }

// The options every program accepts beside its commands' own. A command
// may define an option of the same name; its own meaning then wins.
const (
	helpLong     = "--help"
	helpShort    = "-h"
	keepNullLong = "--keep-null"
	jsonHelpLong = "--json-help"
)

// general takes the general options at the start of toks into inv and
// returns the rest.
func general(toks []string, inv *invocation) []string {
	for i, tok := range toks {
		switch tok {
		case keepNullLong:
			inv.keepNull = true
		case helpLong, helpShort:
			inv.help = true
		case jsonHelpLong:
			inv.help, inv.jsonHelp = true, true
		default:
			return toks[i:]
		}
	}
	return nil
}

// parse turns argv (without the program name) into an invocation.
func (r *Runner) parse(argv []string) (*invocation, error) {
	inv := &invocation{}
	rest := general(argv, inv)
	if len(rest) > 0 {
		if g := r.M.Group(rest[0]); g != nil {
			return r.parseGroup(g, rest[1:], inv)
		}
	}
	switch {
	case len(rest) > 0 && r.M.Command(rest[0]) != nil:
		inv.cmd, rest = r.M.Command(rest[0]), rest[1:]
		if inv.cmd.Group != "" {
			c := inv.cmd
			return nil, &usageError{msg: fmt.Sprintf("command '%s' is in group %s: %s %s %s ...", c.Name, c.Group, r.prog(), c.Group, c.Name), group: r.M.Group(c.Group)}
		}
	case len(r.M.Commands) == 1 && r.M.Commands[0].Group == "" && !(inv.jsonHelp && len(rest) == 0):
		// The only command needs no name: `prog 3 4` runs it. But
		// `prog --json-help` is the whole program's, in Morloc's shape
		// (groups, commands), whatever its number of commands: a tool
		// reading it must not find a command's entry instead.
		inv.cmd = &r.M.Commands[0]
	case inv.help || len(rest) == 0:
		inv.help = true
		return inv, nil
	case isOption(rest[0]):
		return nil, r.unknownProgramOption(rest[0])
	default:
		return nil, r.unknownCommand(rest[0])
	}
	return r.parseCommand(rest, inv)
}

// parseGroup parses what follows the name of group g: general options,
// then one of its commands and the command's arguments.
func (r *Runner) parseGroup(g *manifest.CommandGroup, toks []string, inv *invocation) (*invocation, error) {
	inv.group = g
	rest := general(toks, inv)
	if len(rest) == 0 {
		if inv.help {
			return inv, nil
		}
		return nil, &usageError{msg: fmt.Sprintf("group %s needs a command: %s %s <command> [arguments]", g.Name, r.prog(), g.Name), group: g, groupHelp: true}
	}
	c := r.M.Command(rest[0])
	if c == nil || c.Group != g.Name {
		if inv.help && isOption(rest[0]) {
			return inv, nil
		}
		return nil, r.unknownInGroup(g, rest[0])
	}
	inv.cmd = c
	return r.parseCommand(rest[1:], inv)
}

// parseCommand parses the arguments of inv.cmd.
func (r *Runner) parseCommand(rest []string, inv *invocation) (*invocation, error) {
	if inv.help {
		return inv, nil
	}
	p := newCommandParser(r, inv.cmd)
	if err := p.parse(rest, inv); err != nil {
		return nil, err
	}
	return inv, nil
}

// unknownCommand explains a first word that names no command or group
// of the program.
func (r *Runner) unknownCommand(name string) error {
	var groups, commands []string
	for _, g := range r.M.Groups {
		groups = append(groups, g.Name)
	}
	for _, c := range r.M.Commands {
		if c.Group == "" {
			commands = append(commands, c.Name)
		}
	}
	msg := fmt.Sprintf("unknown command '%s'", name)
	if c := r.M.Command(name); c != nil && c.Group != "" {
		msg += fmt.Sprintf(" (it is in group %s: %s %s %s)", c.Group, r.prog(), c.Group, c.Name)
	} else if s := suggest.Closest(name, append(groups, commands...)); s != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", s)
	} else {
		// Groups and commands named apart: a group is no command.
		if len(commands) > 0 {
			msg += "; the commands are " + strings.Join(commands, ", ")
		}
		if len(groups) > 0 {
			msg += "; the groups are " + strings.Join(groups, ", ")
		}
	}
	return &usageError{msg: msg}
}

// unknownInGroup explains a word after group g's name that names none of
// its commands.
func (r *Runner) unknownInGroup(g *manifest.CommandGroup, name string) error {
	var names []string
	for _, c := range r.M.Commands {
		if c.Group == g.Name {
			names = append(names, c.Name)
		}
	}
	msg := fmt.Sprintf("unknown command '%s' in group %s", name, g.Name)
	if s := suggest.Closest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", s)
	} else {
		msg += "; its commands are " + strings.Join(names, ", ")
	}
	return &usageError{msg: msg, group: g}
}

// unknownProgramOption explains an option given before any command name.
func (r *Runner) unknownProgramOption(tok string) error {
	name, _, _ := strings.Cut(tok, "=")
	for i := range r.M.Commands {
		c := &r.M.Commands[i]
		if _, ok := newCommandParser(r, c).names[name]; ok {
			return &usageError{msg: fmt.Sprintf("option '%s' belongs to command %s and goes after its name: %s %s ...", name, c.Name, r.commandPath(c), name)}
		}
	}
	return &usageError{msg: "unknown option '" + name + "'" + didYouMean(name, []string{helpLong, keepNullLong, jsonHelpLong})}
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
