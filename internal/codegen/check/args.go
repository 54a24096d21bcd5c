package check

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// argInfo keeps where an argument's many: and stdin: directives are, to
// check them once every argument is known.
type argInfo struct {
	many, stdin *doc.Directive
}

// commandArgs builds the arguments of a command from its signature.
func (c *checker) commandArgs(sig *signature, reg *optionNames) []manifest.Arg {
	args := make([]manifest.Arg, len(sig.params))
	infos := make([]argInfo, len(sig.params))
	lastPositional := -1
	for i, p := range sig.decl.Params {
		args[i], infos[i] = c.argument(sig.params[i], p, reg, sig.tool)
		if args[i].Kind == manifest.Positional {
			lastPositional = i
		}
	}
	wholeRecordNames(args)
	for i := range args {
		a, info := &args[i], infos[i]
		if info.many != nil && a.Kind == manifest.Positional && i != lastPositional {
			c.sink.Errorf(info.many.Pos, "many: applies only to the last positional argument (or to an option)")
			a.Many = false
		}
		if info.stdin != nil && i != lastPositional {
			c.sink.Errorf(info.stdin.Pos, "stdin: applies only to the last positional argument")
			a.Stdin = false
		}
	}
	return args
}

// wholeRecordNames renames the records given whole (a record argument
// with arg:, or an unrolled one with a record-level arg:) whose name is
// another argument's too: known over MCP by the type's name (Morloc's
// rule), two such (`--src` and `--dst` of one Config), or one and an
// option --config, would be one property, and the command no tool. Each
// is then known by its option's name instead.
func wholeRecordNames(args []manifest.Arg) {
	count := map[string]int{}
	for _, a := range args {
		count[a.Name]++
	}
	for i := range args {
		a := &args[i]
		whole := a.Kind == manifest.Option && a.Type.Kind == types.Record ||
			a.Kind == manifest.Group && (a.Long != "" || a.Short != "")
		if whole && count[a.Name] > 1 {
			a.Name = firstOf(a.Long, a.Short)
		}
	}
}

// argument builds one argument from its type and docstring. tool says
// the signature is an MCP tool's, whose @name names the tool's argument
// whatever its kind on the command line.
func (c *checker) argument(t *types.Type, p *syntax.SigType, reg *optionNames, tool bool) (manifest.Arg, argInfo) {
	own := doc.Parse(p.Doc)
	c.misplacedMime(own, "an argument")
	d := c.inherit(own, p.Type)
	c.warnUnknown(d)
	a := manifest.Arg{Type: t, Doc: d.Lines}
	var info argInfo
	argDir, trueDir, falseDir := d.Get("arg"), d.Get("true"), d.Get("false")
	for _, dir := range d.Directives {
		switch dir.Key {
		case "return", "with", "render", "env", "cwd", "timeout", "bearer", "header", "title", "icon", "epilogue":
			c.sink.Warnf(dir.Pos, "directive '%s' has no effect on an argument; ignored", dir.Key)
		}
	}
	var rec *record
	if t.Kind == types.Record {
		rec = c.records[t.Name]
	}
	unroll := rec != nil && rec.unroll
	if dir := d.Get("unroll"); dir != nil {
		// On the argument (or an alias it is written with), unroll:
		// overrides the record's.
		if v, err := doc.ParseBool(dir.Value); err != nil {
			c.valueError(*dir, err)
		} else if rec == nil {
			c.sink.Warnf(dir.Pos, "unroll: applies to a record argument, and this one is %s; ignored", t)
		} else {
			unroll = v
		}
	}
	switch {
	case unroll:
		c.group(&a, rec, argDir, reg)
	case trueDir != nil || falseDir != nil:
		c.flag(&a, trueDir, falseDir, argDir, reg)
	case argDir != nil:
		a.Kind = manifest.Option
		if t.Kind == types.Bool {
			c.boolOption(argDir, "this argument")
		}
		if n, err := doc.ParseNames(argDir.Value); err != nil {
			c.valueError(*argDir, err)
		} else {
			a.Short, a.Long = n.Short, n.Long
			reg.addNames(n, argDir.ValuePos)
		}
		a.Name = firstOf(a.Long, a.Short)
		if t.Kind == types.Record {
			// A record given whole is known over MCP by its type's name,
			// lowercased (Morloc's rule), as an unrolled one is.
			a.Name = strings.ToLower(t.Name)
		}
	default:
		a.Kind = manifest.Positional
	}
	if dir := d.Get("metavar"); dir != nil && a.Kind == manifest.Flag {
		// Morloc refuses it; a flag takes no value to show a placeholder for.
		c.sink.Warnf(dir.Pos, "metavar: has no effect on a flag, which takes no value; ignored")
	} else if dir != nil {
		a.Metavar = dir.Value
	} else if rec != nil {
		a.Metavar = rec.metavar
	}
	if dir := d.Get("name"); dir != nil {
		if a.Kind == manifest.Positional {
			c.positionalName(&a, dir)
		} else if strings.HasPrefix(dir.Value, "_") {
			c.positionalName(&manifest.Arg{}, dir)
		} else if !tool {
			c.sink.Warnf(dir.Pos, "name: has no effect on an %s; it is known by its option name", a.Kind)
		}
	}
	if dir := d.Get("default"); dir != nil {
		switch a.Kind {
		case manifest.Option, manifest.Flag:
			if v, ok := c.parseDefault(dir, t); ok {
				a.Default = v
				if a.Kind == manifest.Flag {
					c.uselessFlag(dir, v, trueDir, falseDir)
				}
			}
		case manifest.Positional:
			c.sink.Errorf(dir.Pos, "default: applies to an option or a flag; make this argument an option with arg: --NAME")
		case manifest.Group:
			c.sink.Errorf(dir.Pos, "default: has no effect on an unrolled record; give its fields defaults instead")
		}
	}
	if dir := d.Get("many"); dir != nil {
		info.many = c.many(&a, dir)
	}
	if dir := d.Get("stdin"); dir != nil {
		v, err := doc.ParseBool(dir.Value)
		switch {
		case err != nil:
			c.valueError(*dir, err)
		case v && a.Kind != manifest.Positional:
			c.sink.Errorf(dir.Pos, "stdin: applies only to the last positional argument, not to an %s", a.Kind)
		case v && t.Kind == types.Bool:
			c.sink.Errorf(dir.Pos, "stdin: cannot read a Bool from standard input (as in Morloc); give it on the command line, or make it a flag with true: --NAME")
		case v && a.Many:
			c.sink.Errorf(dir.Pos, "stdin: and many: exclude each other (as in Morloc): standard input gives one value, many: takes the remaining tokens; keep one")
		case v:
			a.Stdin = true
			info.stdin = dir
		}
	}
	c.inputForm(&a, d)
	return a, info
}

// boolOption refuses arg: on a Bool (Morloc's rule): a Bool is given by a
// flag, or as a positional true/false.
func (c *checker) boolOption(dir *doc.Directive, what string) {
	c.sink.Errorf(dir.Pos, "arg: cannot make a Bool an option, and %s is Bool (as in Morloc); make it a flag with true: %s (false: for a flag that sets false), or leave it positional", what, optionSpellingOf(dir.Value))
}

// uselessFlag refuses a flag's default: that equals what its only flag
// sets (Morloc's rule): the flag would then do nothing.
func (c *checker) uselessFlag(dir *doc.Directive, v []byte, trueDir, falseDir *doc.Directive) {
	var only *doc.Directive
	switch {
	case trueDir != nil && falseDir == nil && string(v) == "true":
		only = trueDir
	case falseDir != nil && trueDir == nil && string(v) == "false":
		only = falseDir
	default:
		return
	}
	c.sink.Errorf(dir.ValuePos, "default: %s is what %s %s sets, so the flag would do nothing (as Morloc refuses); leave default: out, or use %s for a flag that sets %s", v, only.Key, only.Value, map[string]string{"true": "false:", "false": "true:"}[only.Key], map[string]string{"true": "false", "false": "true"}[only.Key])
}

// optionSpellingOf is the option names of an arg: value, for a message.
func optionSpellingOf(value string) string {
	if v := strings.TrimSpace(value); v != "" {
		return v
	}
	return "--NAME"
}

// many applies a many: directive; it returns the directive when it made a
// positional variadic, which must then be the last positional.
func (c *checker) many(a *manifest.Arg, dir *doc.Directive) *doc.Directive {
	v, err := doc.ParseBool(dir.Value)
	if err != nil {
		c.valueError(*dir, err)
		return nil
	}
	if !v {
		return nil
	}
	switch {
	case a.Kind != manifest.Positional && a.Kind != manifest.Option:
		c.sink.Errorf(dir.Pos, "many: applies to the last positional argument or to an option, not to a %s", a.Kind)
	case a.Type.Kind != types.List:
		c.sink.Errorf(dir.Pos, "many: needs a list type, and this argument is %s", a.Type)
	default:
		a.Many = true
		if a.Kind == manifest.Positional {
			return dir
		}
	}
	return nil
}

func (c *checker) positionalName(a *manifest.Arg, dir *doc.Directive) {
	switch {
	case dir.Value == "" || strings.ContainsAny(dir.Value, " \t"):
		c.sink.Errorf(dir.ValuePos, "name: expected one word, got %s", quoteValue(dir.Value))
	case strings.HasPrefix(dir.Value, "_"):
		c.sink.Errorf(dir.ValuePos, "name: '%s' must not start with '_' (names starting with '_' are reserved)", dir.Value)
	default:
		a.Name = dir.Value
	}
}

// flag makes a Bool argument a flag from its true: and false: directives.
func (c *checker) flag(a *manifest.Arg, trueDir, falseDir, argDir *doc.Directive, reg *optionNames) {
	a.Kind = manifest.Flag
	first := trueDir
	if first == nil {
		first = falseDir
	}
	if a.Type.Kind != types.Bool {
		c.sink.Errorf(first.Pos, "%s: makes a flag, which needs a Bool argument; this one is %s", first.Key, a.Type)
	}
	if argDir != nil {
		c.sink.Errorf(argDir.Pos, "an argument is either an option (arg:) or a flag (true:/false:), not both")
	}
	if trueDir != nil {
		if n, err := doc.ParseNames(trueDir.Value); err != nil {
			c.valueError(*trueDir, err)
		} else {
			a.Short, a.Long = n.Short, n.Long
			reg.addNames(n, trueDir.ValuePos)
		}
	}
	if falseDir != nil {
		if n, err := doc.ParseNames(falseDir.Value); err != nil {
			c.valueError(*falseDir, err)
		} else {
			a.FalseShort, a.FalseLong = n.Short, n.Long
			reg.addNames(n, falseDir.ValuePos)
		}
	}
	a.Name = firstOf(a.Long, a.Short, a.FalseLong, a.FalseShort)
	if trueDir == nil {
		a.Default = []byte("true")
	} else {
		a.Default = []byte("false")
	}
}

// group makes a record argument a group of options, one per field.
func (c *checker) group(a *manifest.Arg, rec *record, argDir *doc.Directive, reg *optionNames) {
	a.Kind = manifest.Group
	a.Name = strings.ToLower(rec.typ.Name)
	if len(a.Doc) == 0 {
		a.Doc = rec.typ.Doc
	}
	whole, wholePos := rec.whole, rec.wholePos
	if argDir != nil {
		n, err := doc.ParseNames(argDir.Value)
		if err != nil {
			c.valueError(*argDir, err)
		} else {
			whole, wholePos = n, argDir.ValuePos
		}
	}
	a.Short, a.Long = whole.Short, whole.Long
	reg.addNames(whole, wholePos)
	for j, fi := range rec.fields {
		tf := rec.typ.Fields[j]
		fa := manifest.Arg{
			Kind: manifest.Option, Type: tf.Type, Name: tf.Name, Field: tf.Name,
			Doc: tf.Doc, Metavar: fi.metavar, Default: tf.Default,
		}
		if fi.trueDir != nil || fi.falseDir != nil {
			fa.Kind = manifest.Flag
			fa.Short, fa.Long = fi.trueNames.Short, fi.trueNames.Long
			fa.FalseShort, fa.FalseLong = fi.falseName.Short, fi.falseName.Long
			if fi.trueDir != nil {
				reg.addNames(fi.trueNames, fi.trueDir.ValuePos)
			}
			if fi.falseDir != nil {
				reg.addNames(fi.falseName, fi.falseDir.ValuePos)
			}
		} else {
			fa.Short, fa.Long = fi.names.Short, fi.names.Long
			pos := fi.namesPos
			if fa.Long == "" {
				fa.Long = strings.ReplaceAll(tf.Name, "_", "-")
				if !pos.IsValid() {
					pos = fi.decl.Name.Pos
				}
				if _, err := doc.ParseNames("--" + fa.Long); err != nil {
					c.sink.Errorf(fi.decl.Name.Pos, "field %s cannot be an option named --%s; give it one with arg: --NAME", tf.Name, fa.Long)
				}
			}
			n := fi.names
			n.Long = fa.Long
			reg.addNames(n, pos)
		}
		a.Fields = append(a.Fields, fa)
	}
}

func firstOf(names ...string) string {
	for _, n := range names {
		if n != "" {
			return n
		}
	}
	return ""
}

// optionNames are the option names taken within one command, so that no
// two arguments (or an argument and -h/--help) share one.
type optionNames struct {
	c    *checker
	cmd  string
	used map[string]diag.Pos
}

// addNames takes the names of n, written in a directive value that starts
// at pos.
func (r *optionNames) addNames(n doc.Names, pos diag.Pos) {
	if n.Short != "" {
		r.add("-"+n.Short, shifted(pos, n.ShortAt))
	}
	if n.Long != "" {
		r.add("--"+n.Long, shifted(pos, n.LongAt))
	}
}

// shifted is pos moved n characters right, in the same file.
func shifted(pos diag.Pos, n int) diag.Pos {
	pos.Col += n
	return pos
}

func (r *optionNames) add(opt string, pos diag.Pos) {
	if opt == "-h" || opt == "--help" {
		r.c.sink.Errorf(pos, "option %s is reserved for help", opt)
		return
	}
	if prev, dup := r.used[opt]; dup {
		if prev == pos {
			// One directive on a type (or alias) that two arguments
			// have: "first at" its own place would say nothing.
			r.c.sink.Errorf(pos, "option %s is used twice in command %s: two of its arguments have the type this directive is on, and take the option from it; give one of them its own arg:", opt, r.cmd)
			return
		}
		r.c.sink.Errorf(pos, "option %s is used twice in command %s (first at %s)", opt, r.cmd, prev)
		return
	}
	r.used[opt] = pos
}
