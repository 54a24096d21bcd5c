package check

import (
	"strings"
	"unicode"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// actions builds the output actions of a command from the with: and
// render: directives of its docstring d. result is the command's result
// type, media says it is a media result (mime:). A command with actions or
// a media result takes -f/--format on the command line (`-f json`: the
// result itself as JSON), so those names are its own.
func (c *checker) actions(d doc.Doc, result *types.Type, reg *optionNames, media bool) []manifest.Action {
	var out []manifest.Action
	var first *doc.Directive       // the first @default, its value without the mark
	named := map[string]diag.Pos{} // the actions' names (Action.Name)
	for i := range d.Directives {
		dir := d.Directives[i]
		if dir.Key != "with" && dir.Key != "render" {
			continue
		}
		spec, isDefault, ok := c.actionMarks(dir)
		if !ok {
			continue
		}
		if isDefault && first != nil {
			c.sink.Errorf(dir.Pos, "%s: only one output action may be @default; %s (at %s) is already", dir.Key, first.Value, first.Pos)
			continue
		}
		dir.Value = spec
		a := c.action(dir, result, reg)
		if a == nil {
			continue
		}
		if a.Long == manifest.FormatJSON {
			c.sink.Errorf(dir.ValuePos, "%s: an output action cannot be called %s: `-f %s` asks for the result itself", dir.Key, manifest.FormatJSON, manifest.FormatJSON)
			continue
		}
		if a.Name() == "" {
			// -f raw, _render and ?render= would mean no action.
			c.sink.Errorf(dir.ValuePos, "%s: an output action called only %s has no name to be asked for by (`-f %s`, `_render` and `?render=%s` mean no action); give it a short name too, as in `-r/--%s=...`, or another name", dir.Spelled(), manifest.FormatRaw, manifest.FormatRaw, manifest.FormatRaw, manifest.FormatRaw)
			continue
		}
		if prev, dup := named[a.Name()]; dup {
			// -f NAME, _render and ?render= could not tell them apart.
			c.sink.Errorf(dir.ValuePos, "%s: two output actions are both called %s (the other at %s), by -f, _render and ?render=; rename one", dir.Spelled(), a.Name(), prev)
			continue
		}
		named[a.Name()] = dir.ValuePos
		if isDefault {
			first = &dir
			a.Default = true
		}
		out = append(out, *a)
	}
	if len(out) > 0 || media {
		for _, opt := range []string{"-f", "--format"} {
			if pos, taken := reg.used[opt]; taken {
				c.sink.Errorf(pos, "option %s is the output format of a command with output actions or a media result (`-f json`); give this one another name", opt)
			}
		}
	}
	return out
}

// actionMarks splits the marks after an action's function (`@default`)
// from its spec. ok is false after an error.
func (c *checker) actionMarks(dir doc.Directive) (spec string, isDefault, ok bool) {
	spec = strings.TrimSpace(dir.Value)
	for {
		i := strings.LastIndexAny(spec, " \t")
		if i < 0 {
			break
		}
		mark := spec[i+1:]
		switch mark {
		case "@default":
			isDefault = true
		case "@stream":
			// Morloc's handler applied per batch of a streamed result.
			pos := dir.ValuePos
			pos.Col += len([]rune(dir.Value[:strings.LastIndex(dir.Value, mark)]))
			c.sink.Errorf(pos, "@stream in %s is Morloc's, and not supported yet by nexus", dir.Spelled())
			return "", false, false
		default:
			if strings.HasPrefix(mark, "@") && !strings.Contains(mark, "(") {
				c.sink.Errorf(dir.ValuePos, "%s: unknown mark '%s' after the function; the one there may be is @default", dir.Key, mark)
				return "", false, false
			}
			return spec, isDefault, true
		}
		spec = strings.TrimSpace(spec[:i])
	}
	return spec, isDefault, true
}

// action builds an output action from a with: or render: directive.
func (c *checker) action(dir doc.Directive, result *types.Type, reg *optionNames) *manifest.Action {
	names, fnText, off, err := doc.ParseAction(dir.Value)
	if err != nil {
		c.valueError(dir, err)
		return nil
	}
	if atTarget(fnText) {
		// Morloc's phrase, for users who grep for it.
		pos := dir.ValuePos
		pos.Col += len([]rune(dir.Value[:off]))
		c.sink.Errorf(pos, "%s: '@' before a target is not allowed: the function after '=' is written bare, as in `%s=%s`", dir.Key, optionSpelling(names), strings.TrimLeft(fnText, "@"))
		return nil
	}
	reg.addNames(names, dir.ValuePos)
	fnPos := dir.ValuePos
	fnPos.Col += len([]rune(dir.Value[:off]))
	expr := syntax.ParseExpr(fnText, fnPos, c.sink)
	if expr == nil {
		return nil
	}
	c.startBudget(1) // the command's result
	fn := c.elab(expr, &scope{vars: map[string]arg{}}, nil)
	if fn == nil {
		return nil
	}
	if want := firstParam(fn); want != nil && !assignable(result, want, false) {
		c.sink.Errorf(fnPos, "%s: '%s' takes %s, but the command returns %s", dir.Key, fnText, want, result)
		return nil
	}
	var want *types.Type
	if dir.Key == "render" {
		want = types.StrType
	}
	res := arg{val: &manifest.Expr{Kind: manifest.Var, Type: result, Ref: 0}, pos: fnPos}
	v := c.applyValue(fn, []arg{res}, fnPos, nil)
	body, ok := v.(*manifest.Expr)
	if v != nil && !ok {
		c.sink.Errorf(fnPos, "%s: %s; the function must take the result as its only missing argument", dir.Key, v.(fnValue).missing())
		return nil
	}
	if body == nil {
		return nil
	}
	if want != nil && !types.Equal(body.Type, want) {
		c.sink.Errorf(fnPos, "render: '%s' returns %s, but a render function must return Str", fnText, body.Type)
		return nil
	}
	return &manifest.Action{Kind: dir.Key, Short: names.Short, Long: names.Long, Body: body, Return: body.Type}
}

// firstParam is the type of the next argument a function value takes,
// when it is known.
func firstParam(v value) *types.Type {
	switch f := v.(type) {
	case *sourcedFn:
		if len(f.given) < len(f.f.sig.params) {
			return f.f.sig.params[len(f.given)]
		}
	case *defFn:
		if f.d.sig != nil && len(f.given) < len(f.d.sig.params) {
			return f.d.sig.params[len(f.given)]
		}
	}
	return nil
}

// optionSpelling is an action's names as written before '='.
func optionSpelling(n doc.Names) string {
	switch {
	case n.Short != "" && n.Long != "":
		return "-" + n.Short + "/--" + n.Long
	case n.Long != "":
		return "--" + n.Long
	}
	return "-" + n.Short
}

// atTarget reports a function written with an '@' before its name
// (`--shout=@shout`), which Morloc rejects. An intrinsic (`--s=@show`) is
// written so and stays allowed.
func atTarget(fn string) bool {
	name, ok := strings.CutPrefix(fn, "@")
	if !ok {
		return false
	}
	if end := strings.IndexFunc(name, func(r rune) bool { return !isNameRune(r) }); end >= 0 {
		name = name[:end]
	}
	return intrinsicSpecs[name] == nil
}

func isNameRune(r rune) bool {
	return r == '_' || r == '\'' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
