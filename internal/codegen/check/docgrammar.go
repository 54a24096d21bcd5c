package check

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// The meaning of Morloc's docstring directives by position (section 7 of
// the Morloc digest) that the older checks in args.go, commands.go and
// records.go do not already give: what may stand where, the input form
// and path checks of an argument, the module's epilogue, and a source
// item's directives.

// argOnly are the directives that describe one argument (Morloc's list of
// command-level misuse): above `f ::` they are a build error, since they
// must sit next to the argument they describe.
var argOnly = map[string]bool{
	"arg": true, "default": true, "many": true, "metavar": true, "true": true, "false": true,
	"unroll": true, "source": true, "check.path": true, "literal": true, "stdin": true,
	"form": true, "list.source": true, "list.form": true, "list.check.path": true,
}

// onCommand checks a directive above a signature (or a definition)
// against what a command may have: an argument's directive there is an
// error, a directive of another place a warning.
func (c *checker) onCommand(dir doc.Directive) {
	switch {
	case dir.Key == "name", dir.Key == "return", dir.Key == "with", dir.Key == "render", dir.Key == "title", dir.Key == "icon":
	case dir.Key == "mime":
		c.misplacedMime(doc.Doc{Directives: []doc.Directive{dir}}, "a command")
	case doc.Unsupported[dir.Key]:
		// Refused by warnUnknown already.
	case argOnly[dir.Key]:
		c.sink.Errorf(dir.Pos, "%s describes one argument, so it must sit next to that argument: put it above the argument's type in a multi-line signature, not above the signature", dir.Spelled())
	default:
		c.sink.Warnf(dir.Pos, "directive '%s' has no effect on a command; put it above the argument's type in a multi-line signature", dir.Key)
	}
}

// definitionDoc merges the docstring of a definition `f x = ...` into its
// signature's d: its description, when it has one, replaces the
// signature's (Morloc's declaration-level description), and its
// directives come after the signature's, so they win. An output action
// there is an error, as in Morloc: it belongs to the signature.
func (c *checker) definitionDoc(d doc.Doc, def *definition, sig *signature) doc.Doc {
	if def == nil || len(def.decl.Doc) == 0 || sameDoc(def.decl.Doc, sig.decl.Doc) {
		return d
	}
	dd := doc.Parse(def.decl.Doc)
	c.warnUnknown(dd)
	if len(dd.Lines) > 0 {
		d.Lines = dd.Lines
	}
	d.Unknown = append(d.Unknown, dd.Unknown...)
	for _, dir := range dd.Directives {
		if dir.Key == "with" || dir.Key == "render" {
			c.sink.Errorf(dir.Pos, "%s above a definition is an error: an output action belongs above the signature %s ::", dir.Spelled(), def.decl.Name.Name)
			continue
		}
		d.Directives = append(d.Directives, dir)
	}
	return d
}

// sameDoc says a and b are one docstring: an exported definition without
// a signature has one made from it, with its docstring.
func sameDoc(a, b syntax.Doc) bool {
	return len(a) > 0 && len(b) > 0 && a[0].Pos == b[0].Pos
}

// inputForm applies an argument's `@source`, `@check.path` and the
// deprecated `@literal`.
func (c *checker) inputForm(a *manifest.Arg, d doc.Doc) {
	if dir := d.Get("literal"); dir != nil {
		if _, err := doc.ParseBool(dir.Value); err != nil {
			c.valueError(*dir, err)
		}
		c.sink.Warnf(dir.Pos, "%s is deprecated: a string argument is taken literally already; write @source inline (or @source file to read the text of a file it names)", dir.Spelled())
	}
	if dir := d.Get("source"); dir != nil {
		switch dir.Value {
		case "inline":
		case "file":
			switch {
			case !strShaped(a.Type):
				c.sink.Errorf(dir.Pos, "%s file reads the text of the file an argument names, which needs a Str argument; this one is %s", dir.Spelled(), a.Type)
			case a.Stdin:
				c.sink.Errorf(dir.Pos, "%s file and stdin: both say where the text comes from; keep one", dir.Spelled())
			case a.Kind != manifest.Positional && a.Kind != manifest.Option:
				c.sink.Errorf(dir.Pos, "%s file applies to a positional argument or an option, not to a %s", dir.Spelled(), a.Kind)
			default:
				a.Source = manifest.SourceFile
			}
		default:
			c.sink.Errorf(dir.ValuePos, "%s expects inline or file, got %s%s", dir.Spelled(), quoteValue(dir.Value), suggest.Hint(dir.Value, []string{"inline", "file"}))
		}
	}
	if dir := d.Get("check.path"); dir != nil {
		switch dir.Value {
		case "r", "w", "x", "rw":
			if !strShaped(a.Type) {
				c.sink.Errorf(dir.Pos, "%s checks a path, which is a Str argument; this one is %s", dir.Spelled(), a.Type)
				return
			}
			a.CheckPath = dir.Value
		default:
			c.sink.Errorf(dir.ValuePos, "%s expects r (readable), w (writable), x (must not exist) or rw (readable and writable), got %s", dir.Spelled(), quoteValue(dir.Value))
		}
	}
}

// strShaped says t is a Str or an optional Str, what a path or a file's
// text can be.
func strShaped(t *types.Type) bool {
	if t.Kind == types.Optional {
		t = t.Elem
	}
	return t.Kind == types.Str
}

// moduleDoc reads the module docstring: the program's description and
// its epilogue, the lines after each `@epilogue` (blocks separated by a
// blank line).
func (c *checker) moduleDoc(ds syntax.Doc) (description, epilogue []string) {
	d := doc.Parse(ds)
	c.warnUnknown(d)
	cut := len(d.Lines)
	for _, dir := range d.Directives {
		if dir.Key != "epilogue" {
			c.sink.Warnf(dir.Pos, "directive '%s' has no effect on the module; ignored", dir.Key)
			continue
		}
		cut = min(cut, dir.Line)
	}
	description = trimBlankLines(d.Lines[:cut])
	var blocks [][]string
	eps := d.All("epilogue")
	for i, dir := range eps {
		end := len(d.Lines)
		if i+1 < len(eps) {
			end = eps[i+1].Line
		}
		var block []string
		if dir.Value != "" {
			block = append(block, dir.Value)
		}
		block = trimBlankLines(append(block, d.Lines[dir.Line:end]...))
		if len(block) > 0 {
			blocks = append(blocks, block)
		}
	}
	for i, b := range blocks {
		if i > 0 {
			epilogue = append(epilogue, "")
		}
		epilogue = append(epilogue, b...)
	}
	return description, epilogue
}

func trimBlankLines(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil
	}
	return lines
}

// sourceItemDoc checks the docstring above an item of a `source L from
// "f" where` block: only `@name` (read by foreignName) and `@rsize`
// (refused as not supported yet) may stand there.
func (c *checker) sourceItemDoc(it syntax.SourceItem) {
	d := doc.Parse(it.Doc)
	c.warnUnknown(d)
	for _, dir := range d.Directives {
		if dir.Key != "name" && !doc.Unsupported[dir.Key] {
			c.sink.Errorf(dir.Pos, "%s cannot stand above a sourced item; only @name (its name in the source file) and @rsize may", dir.Spelled())
		}
	}
}

// typeDoc checks the docstring of a type declaration (alias, newtype or
// record), which every use inherits: an output action there is an error,
// as in Morloc, and a command's directive has no effect.
func (c *checker) typeDoc(d doc.Doc, what string) {
	c.warnUnknown(d)
	for _, dir := range d.Directives {
		switch dir.Key {
		case "with", "render":
			c.sink.Errorf(dir.Pos, "%s on %s is an error: an output action belongs above a command's signature", dir.Spelled(), what)
		case "return", "title", "icon", "epilogue", "env", "cwd", "timeout", "bearer", "header":
			c.sink.Warnf(dir.Pos, "directive '%s' has no effect on %s; ignored", dir.Key, what)
		}
	}
}
