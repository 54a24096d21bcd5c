package cli

import (
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// values builds the command's argument values from the positional tokens
// and the options given, filling in defaults and reporting what is missing.
func (p *commandParser) values(positional []string) ([]any, error) {
	args := make([]any, len(p.c.Args))
	missing, err := p.positionals(args, positional)
	if err != nil {
		return nil, err
	}
	for i := range p.c.Args {
		a := &p.c.Args[i]
		switch a.Kind {
		case manifest.Positional:
		case manifest.Option, manifest.Flag:
			if o := p.options[i]; o.given != "" {
				args[i] = o.value
				continue
			}
			v, ok, err := omitted(a)
			if err != nil {
				return nil, err
			}
			if !ok {
				missing = append(missing, "option "+optionLabel(a))
			}
			if s, isStr := v.(string); isStr && a.Source == manifest.SourceFile {
				// The default of `@source file` names a file too.
				if v, err = p.fileText(a, "option "+optionLabel(a), s); err != nil {
					return nil, err
				}
			}
			args[i] = v
		case manifest.Group:
			v, lacking, err := p.record(p.groups[i])
			if err != nil {
				return nil, err
			}
			args[i] = v
			missing = append(missing, lacking...)
		default:
			return nil, fmt.Errorf("argument %d of %s has unknown kind %q", i+1, p.c.Name, a.Kind)
		}
	}
	if len(missing) > 0 {
		return nil, p.usage("missing %s", strings.Join(missing, ", "))
	}
	if err := p.checkPaths(args); err != nil {
		return nil, err
	}
	return args, nil
}

// positionals sets the positional arguments in args from toks, in order.
// It returns the positionals that are missing.
func (p *commandParser) positionals(args []any, toks []string) ([]string, error) {
	var idx []int // the positionals' indexes in c.Args
	for i := range p.c.Args {
		if p.c.Args[i].Kind == manifest.Positional {
			idx = append(idx, i)
		}
	}
	var missing []string
	next := 0 // the first token not yet taken
	for n, i := range idx {
		a := &p.c.Args[i]
		label := positionalLabel(a, n+1)
		var v any
		var ok bool
		var err error
		switch {
		case a.ManyElem() != nil:
			// A variadic positional leaves one token to each
			// positional after it.
			take := max(0, len(toks)-next-(len(idx)-n-1))
			v, ok, err = p.variadic(a, label, toks[next:next+take])
			next += take
		case next < len(toks):
			v, err = p.positional(a, label, toks[next])
			ok = true
			next++
		default:
			v, ok, err = p.omittedPositional(a, label)
		}
		if err != nil {
			return nil, err
		}
		if !ok {
			if !strings.HasPrefix(label, "argument ") {
				label = "argument " + label
			}
			missing = append(missing, label)
		}
		args[i] = v
	}
	if next < len(toks) {
		takes := "no positional arguments"
		if len(idx) == 1 {
			takes = "1 positional argument"
		} else if len(idx) > 1 {
			takes = fmt.Sprintf("%d positional arguments", len(idx))
		}
		return nil, p.usage("too many arguments: %s takes %s, got %d (unexpected %s)", p.c.Name, takes, len(toks), showToken(toks[next]))
	}
	return missing, nil
}

func (p *commandParser) positional(a *manifest.Arg, label, tok string) (any, error) {
	if a.Stdin && tok == "-" {
		return p.stdin(a, label)
	}
	return p.token(a, label, tok)
}

// variadic is the value of a variadic positional given toks.
func (p *commandParser) variadic(a *manifest.Arg, label string, toks []string) (any, bool, error) {
	if len(toks) == 0 && len(a.Default) > 0 {
		return omitted(a)
	}
	var out any = []any{}
	for _, tok := range toks {
		vs, err := readMany(a.ManyElem(), a.Type, tok)
		if err != nil {
			return nil, false, p.usage("invalid value for %s: %v", label, err)
		}
		out = types.Concat(out, vs)
	}
	return out, true, nil
}

// omittedPositional is the value of a positional with no token: read from
// standard input, its default, or null when optional. ok is false when it
// has none of these and is missing.
func (p *commandParser) omittedPositional(a *manifest.Arg, label string) (any, bool, error) {
	if a.Stdin {
		v, err := p.stdin(a, label)
		return v, err == nil, err
	}
	return omitted(a)
}

func (p *commandParser) stdin(a *manifest.Arg, label string) (any, error) {
	v, err := readStdin(a.Type, p.r.stdin())
	if err != nil {
		return nil, p.usage("invalid value for %s: %v", label, err)
	}
	return v, nil
}

// omitted is a.Omitted, with the argument named in an error.
func omitted(a *manifest.Arg) (any, bool, error) {
	v, ok, err := a.Omitted()
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", optionLabel(a), err)
	}
	return v, ok, nil
}

// record builds an unrolled record's value by tool.Record: each field from
// its own option when given, else from the whole-record option, else from
// its default. lacking names the fields that have none of these.
func (p *commandParser) record(g *group) (any, []string, error) {
	var whole map[string]any
	if g.whole != nil {
		var err error
		if whole, err = tool.WholeRecord(g.arg.Type, g.whole); err != nil {
			return nil, nil, p.usage("invalid value for %s: %v", g.given, err)
		}
	}
	fields := map[string]any{}
	for name, o := range g.fields {
		if o.given != "" {
			fields[name] = o.value
		}
	}
	rec, lacking, err := tool.Record(g.arg, fields, whole)
	if err != nil {
		return nil, nil, err
	}
	labels := make([]string, len(lacking))
	for i, fa := range lacking {
		if fa.Short != "" || fa.Long != "" {
			labels[i] = "option " + optionLabel(fa)
		} else {
			labels[i] = fmt.Sprintf("field %s of %s", fa.Field, g.arg.Type.Name)
		}
	}
	return rec, labels, nil
}
