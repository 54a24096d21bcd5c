package cli

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// option is the state of one named thing on a command line: an Option or
// Flag argument, or a field of an unrolled record.
type option struct {
	arg   *manifest.Arg
	given string // the name it was last given by, "" when not given
	value any    // its value when given; a Many option's list so far
}

// group is the state of an unrolled record argument.
type group struct {
	arg    *manifest.Arg
	fields map[string]*option // by field name
	whole  map[string]any     // the whole-record option's object, or nil
	given  string             // the name the whole-record option was given by
}

// binding is what an option name on the command line stands for: exactly
// one of opt (set, for a flag name, is the value it gives), grp (the
// whole-record option), action, or format (-f/--format).
type binding struct {
	opt    *option
	set    bool
	grp    *group
	action *manifest.Action
	format bool
}

// commandParser parses the arguments of one command.
type commandParser struct {
	r       *Runner
	c       *manifest.Command
	names   map[string]binding // "--long" and "-s" names
	longs   []string           // every long name, for suggestions
	options []*option          // by c.Args index; nil where not an option or flag
	groups  []*group           // by c.Args index; nil where not a group
}

func newCommandParser(r *Runner, c *manifest.Command) *commandParser {
	p := &commandParser{
		r:       r,
		c:       c,
		names:   map[string]binding{},
		options: make([]*option, len(c.Args)),
		groups:  make([]*group, len(c.Args)),
	}
	for i := range c.Args {
		a := &c.Args[i]
		switch a.Kind {
		case manifest.Option, manifest.Flag:
			p.options[i] = p.bindOption(a)
		case manifest.Group:
			g := &group{arg: a, fields: map[string]*option{}}
			for j := range a.Fields {
				g.fields[a.Fields[j].Field] = p.bindOption(&a.Fields[j])
			}
			p.bind(a.Short, a.Long, binding{grp: g})
			p.groups[i] = g
		}
	}
	for i := range c.Actions {
		p.bind(c.Actions[i].Short, c.Actions[i].Long, binding{action: &c.Actions[i]})
	}
	if hasFormat(c) {
		p.bind(strings.TrimPrefix(formatShort, "-"), strings.TrimPrefix(formatLong, "--"), binding{format: true})
	}
	return p
}

func (p *commandParser) bindOption(a *manifest.Arg) *option {
	o := &option{arg: a}
	p.bind(a.Short, a.Long, binding{opt: o, set: true})
	if a.Kind == manifest.Flag {
		p.bind(a.FalseShort, a.FalseLong, binding{opt: o, set: false})
	}
	return o
}

func (p *commandParser) bind(short, long string, b binding) {
	if short != "" {
		p.names["-"+short] = b
	}
	if long != "" {
		p.names["--"+long] = b
		p.longs = append(p.longs, "--"+long)
	}
}

// parse reads the command's tokens into inv.
func (p *commandParser) parse(toks []string, inv *invocation) error {
	var positional []string
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		if tok == "--" {
			positional = append(positional, toks[i+1:]...)
			break
		}
		if !isOption(tok) {
			positional = append(positional, tok)
			continue
		}
		var used int
		var err error
		if strings.HasPrefix(tok, "--") {
			used, err = p.long(tok, toks[i+1:], inv)
		} else {
			used, err = p.short(tok, toks[i+1:], inv)
		}
		if err != nil {
			// `prog cmd --bad --help` wants help, not a complaint.
			if p.helpAhead(toks[i+1:]) {
				inv.help = true
				return nil
			}
			return err
		}
		if inv.help {
			return nil
		}
		i += used
	}
	if err := p.output(inv); err != nil {
		return err
	}
	args, err := p.values(positional)
	if err != nil {
		return err
	}
	inv.args = args
	return nil
}

// helpAhead reports whether toks ask for help before any `--`.
func (p *commandParser) helpAhead(toks []string) bool {
	for _, t := range toks {
		if t == "--" {
			return false
		}
		if _, mine := p.names[t]; !mine && (t == helpLong || t == helpShort || t == jsonHelpLong) {
			return true
		}
	}
	return false
}

// long handles `--name` or `--name=value`; it returns how many of the
// following tokens it used.
func (p *commandParser) long(tok string, next []string, inv *invocation) (int, error) {
	name, val, hasVal := strings.Cut(tok, "=")
	b, ok := p.names[name]
	if !ok {
		switch {
		case name == helpLong && !hasVal:
			inv.help = true
			return 0, nil
		case name == keepNullLong && !hasVal:
			inv.keepNull = true
			return 0, nil
		case name == jsonHelpLong && !hasVal:
			inv.help, inv.jsonHelp = true, true
			return 0, nil
		}
		return 0, p.usage("unknown option '%s'%s%s", name, didYouMean(name, slices.Concat(p.longs, []string{helpLong, keepNullLong, jsonHelpLong})), p.noFormat(name))
	}
	return p.apply(b, name, val, hasVal, next, inv)
}

// noFormat explains -f/--format (name) on a command that has no other
// output than its JSON result, where it is no option.
func (p *commandParser) noFormat(name string) string {
	if (name == formatShort || name == formatLong) && !hasFormat(p.c) {
		return fmt.Sprintf(" (%s is an option of a command with output actions or a media result; %s prints its result as JSON already)", name, p.c.Name)
	}
	return ""
}

// short handles `-s`, `-s VALUE`, `-sVALUE`, `-s=VALUE` and bundled flags
// like `-vq`.
func (p *commandParser) short(tok string, next []string, inv *invocation) (int, error) {
	for j := 1; j < len(tok); {
		r, size := utf8.DecodeRuneInString(tok[j:])
		name := "-" + string(r)
		rest := tok[j+size:]
		b, ok := p.names[name]
		if !ok {
			if name == helpShort {
				inv.help = true
				return 0, nil
			}
			if j == 1 {
				return 0, p.usage("unknown option '%s'%s", tok, p.noFormat(name))
			}
			return 0, p.usage("unknown option '%s' in '%s'", name, tok)
		}
		if b.takesValue() {
			if rest != "" {
				return p.apply(b, name, strings.TrimPrefix(rest, "="), true, next, inv)
			}
			return p.apply(b, name, "", false, next, inv)
		}
		if strings.HasPrefix(rest, "=") {
			return 0, p.usage("option '%s' takes no value", name)
		}
		if _, err := p.apply(b, name, "", false, nil, inv); err != nil {
			return 0, err
		}
		j += size
	}
	return 0, nil
}

func (b binding) takesValue() bool {
	return b.format || b.grp != nil || (b.opt != nil && b.opt.arg.Kind != manifest.Flag)
}

// apply gives the option b, named name on the command line, its value:
// val when hasVal, else the next token. It returns how many of next it used.
func (p *commandParser) apply(b binding, name, val string, hasVal bool, next []string, inv *invocation) (int, error) {
	if !b.takesValue() {
		if hasVal {
			return 0, p.usage("option '%s' takes no value", name)
		}
		if b.action != nil {
			if inv.action != nil && inv.action != b.action {
				return 0, p.usage("only one output action at a time: '%s' and '%s'", actionName(inv.action), name)
			}
			inv.action = b.action
			return 0, nil
		}
		b.opt.given, b.opt.value = name, b.set
		return 0, nil
	}
	used := 0
	if !hasVal {
		if len(next) == 0 {
			return 0, p.usage("option '%s' needs a value (%s)", name, p.placeholder(b))
		}
		val, used = next[0], 1
	}
	if b.format {
		inv.format, inv.formatName = val, name
		return used, nil
	}
	if b.opt != nil && b.opt.arg.ManyElem() != nil && !hasVal {
		// As in Morloc, a variadic option takes every following token
		// up to the next option or `--` (`--xs 1 2 3`); `--xs=1` takes
		// one, and repeated uses add up.
		used = 0
		for used < len(next) && !isOption(next[used]) && next[used] != "--" {
			used++
		}
		if used == 0 {
			return 0, p.usage("option '%s' needs a value (%s)", name, p.placeholder(b))
		}
		for i, tok := range next[:used] {
			vs, err := readMany(b.opt.arg.ManyElem(), b.opt.arg.Type, tok)
			if err != nil {
				msg := fmt.Sprintf("invalid value for %s: %v", name, err)
				if i > 0 {
					// Likely a positional the option took.
					msg += fmt.Sprintf("; %s takes every token up to the next option, so a positional after it needs -- before it (%s %s -- %s)", name, name, strings.Join(next[:i], " "), tok)
				}
				return 0, p.usage("%s", msg)
			}
			b.opt.value = types.Concat(b.opt.value, vs)
		}
		b.opt.given = name
		return used, nil
	}
	if b.grp != nil {
		obj, err := readObject(b.grp.arg.Type, val)
		if err != nil {
			return 0, p.usage("invalid value for %s: %v", name, err)
		}
		b.grp.whole, b.grp.given = obj, name
		return used, nil
	}
	o := b.opt
	if o.arg.ManyElem() != nil {
		if err := p.addMany(o, name, val); err != nil {
			return 0, err
		}
	} else {
		v, err := p.token(o.arg, name, val)
		if err != nil {
			return 0, err
		}
		o.value = v
	}
	o.given = name
	return used, nil
}

// addMany adds the token tok to variadic option o, named name.
func (p *commandParser) addMany(o *option, name, tok string) error {
	vs, err := readMany(o.arg.ManyElem(), o.arg.Type, tok)
	if err != nil {
		return p.usage("invalid value for %s: %v", name, err)
	}
	o.value = types.Concat(o.value, vs)
	return nil
}

func (p *commandParser) placeholder(b binding) string {
	if b.format {
		return "<FORMAT>: " + strings.Join(formatValues(p.c), ", ")
	}
	if b.grp != nil {
		return placeholder(b.grp.arg, b.grp.arg.Type)
	}
	return placeholder(b.opt.arg, valueType(b.opt.arg))
}

// valueType is the type one token of a is read as.
func valueType(a *manifest.Arg) *types.Type {
	if elem := a.ManyElem(); elem != nil {
		return elem
	}
	return a.Type
}

// readMany reads one token of a variadic argument as a list value: one
// element, or, when it is not one, a whole list (as JSON or a file) whose
// elements are added, in the form its reader gave (see types.Concat).
func readMany(elem, list *types.Type, tok string) (any, error) {
	v, err := readToken(elem, tok)
	if err == nil {
		return []any{v}, nil
	}
	if lv, ok := readJSONOrFile(list, tok); ok {
		return lv, nil
	}
	return nil, err
}

func (p *commandParser) usage(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), cmd: p.c}
}

// positionalLabel names the n-th positional (from 1) in messages.
func positionalLabel(a *manifest.Arg, n int) string {
	if name := displayName(a); name != "" {
		return name
	}
	return fmt.Sprintf("argument %d", n)
}

// displayName is the name a positional is shown by: its metavar, else its
// name, else "".
func displayName(a *manifest.Arg) string {
	if a.Metavar != "" {
		return a.Metavar
	}
	return a.Name
}

// optionLabel names an option or flag in messages: its long name, else its
// short one, else its negation.
func optionLabel(a *manifest.Arg) string {
	switch {
	case a.Long != "":
		return "--" + a.Long
	case a.Short != "":
		return "-" + a.Short
	case a.FalseLong != "":
		return "--" + a.FalseLong
	case a.FalseShort != "":
		return "-" + a.FalseShort
	}
	if a.Name != "" {
		return a.Name
	}
	return a.Field
}

func actionName(a *manifest.Action) string {
	if a.Long != "" {
		return "--" + a.Long
	}
	return "-" + a.Short
}
