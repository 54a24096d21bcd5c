package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// programHelp is the help of a program: usage, description, commands,
// then each group with its description and its commands.
func (r *Runner) programHelp() string {
	var b strings.Builder
	prog := r.prog()
	fmt.Fprintf(&b, "usage: %s [--keep-null] <command> [arguments]\n", prog)
	if len(r.M.Groups) > 0 {
		fmt.Fprintf(&b, "       %s [--keep-null] <group> <command> [arguments]\n", prog)
	}
	writeDoc(&b, r.M.Doc)
	cmds := r.commandsSection("commands:", "")
	if len(cmds.rows) == 0 && len(r.M.Groups) == 0 {
		cmds.rows = append(cmds.rows, row{"(none)", ""})
	}
	secs := []section{cmds}
	if len(r.M.Groups) > 0 {
		groups := section{title: "groups:"}
		for _, g := range r.M.Groups {
			groups.rows = append(groups.rows, row{g.Name, strings.Join(g.Doc, "\n")})
			for _, c := range r.commandsSection("", g.Name).rows {
				groups.rows = append(groups.rows, row{"  " + c.left, c.right})
			}
		}
		secs = append(secs, groups)
	}
	general := generalSection()
	// Handled by the nexus before the command line is parsed (they need
	// the MCP server, not a command), and program-wide: listed here only.
	general.rows = append(general.rows,
		row{"    --mcp-tools", "print the commands as MCP tools (the tools/list result)"},
		row{"    --mcp-config", "print the entry that adds this program to an MCP client"})
	writeSections(&b, append(secs, general))
	fmt.Fprintf(&b, "\nRun '%s <command> --help' for the arguments of a command", prog)
	if len(r.M.Groups) > 0 {
		fmt.Fprintf(&b, ",\n'%s <group> --help' for the commands of a group", prog)
	}
	b.WriteString(".\n")
	writeDoc(&b, r.M.Epilogue)
	return b.String()
}

// commandsSection lists the commands of group (ungrouped ones for "")
// with their summaries.
func (r *Runner) commandsSection(title, group string) section {
	s := section{title: title}
	for _, c := range r.M.Commands {
		if c.Group == group {
			s.rows = append(s.rows, row{c.Name, firstLine(c.Doc)})
		}
	}
	return s
}

// groupHelp is the help of command group g: usage, its description, its
// commands.
func (r *Runner) groupHelp(g *manifest.CommandGroup) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s %s <command> [arguments]\n", r.prog(), g.Name)
	writeDoc(&b, g.Doc)
	writeSections(&b, []section{r.commandsSection("commands:", g.Name), generalSection()})
	fmt.Fprintf(&b, "\nRun '%s %s <command> --help' for the arguments of a command.\n", r.prog(), g.Name)
	return b.String()
}

// commandHelp is the help of command c.
func (r *Runner) commandHelp(c *manifest.Command) string {
	var b strings.Builder
	single := len(r.M.Commands) == 1 && &r.M.Commands[0] == c && c.Group == ""
	usage := []string{"usage:", r.prog()}
	if !single {
		usage = []string{"usage:", r.commandPath(c)}
	}
	hasOptions := hasFormat(c)
	for i := range c.Args {
		if c.Args[i].Kind != manifest.Positional {
			hasOptions = true
		}
	}
	if hasOptions {
		usage = append(usage, "[options]")
	}
	for i := range c.Args {
		if c.Args[i].Kind == manifest.Positional {
			usage = append(usage, usageToken(&c.Args[i]))
		}
	}
	b.WriteString(strings.Join(usage, " ") + "\n")
	if single {
		writeDoc(&b, r.M.Doc)
		if strings.Join(c.Doc, "\n") != strings.Join(r.M.Doc, "\n") {
			writeDoc(&b, c.Doc)
		}
	} else {
		writeDoc(&b, c.Doc)
	}

	args := section{title: "arguments:"}
	opts := section{title: "options:"}
	var groups []section
	for i := range c.Args {
		a := &c.Args[i]
		switch a.Kind {
		case manifest.Positional:
			args.rows = append(args.rows, positionalRow(a))
		case manifest.Option, manifest.Flag:
			opts.rows = append(opts.rows, optionRow(a, a.Type))
		case manifest.Group:
			groups = append(groups, groupSection(a))
		}
	}
	secs := append([]section{args, opts}, groups...)
	out := section{title: "output:"}
	for i := range c.Actions {
		out.rows = append(out.rows, r.actionRow(&c.Actions[i]))
	}
	if hasFormat(c) {
		out.rows = append(out.rows, formatRow(c))
	}
	ret := section{title: "returns:", rows: []row{{returnType(c), c.ReturnDoc}}}
	secs = append(secs, out, ret, generalSection())
	writeSections(&b, secs)
	if single {
		// The program's help is this command's: its epilogue ends it.
		writeDoc(&b, r.M.Epilogue)
	}
	return b.String()
}

func generalSection() section {
	return section{title: "general options:", rows: []row{
		{"-h, --help", "show this help"},
		{"    --keep-null", "print a null result as null instead of nothing"},
		{"    --json-help", "print this help as JSON"},
	}}
}

// usageToken is how positional a appears in the usage line: brackets
// around what may be left out, dots after what may repeat.
func usageToken(a *manifest.Arg) string {
	d := displayName(a)
	if d == "" {
		d = typeToken(valueType(a))
	}
	switch {
	case a.ManyElem() != nil:
		return "[" + d + "...]"
	case a.Stdin || len(a.Default) > 0 || a.Type.Nullable():
		return "[" + d + "]"
	}
	return d
}

func positionalRow(a *manifest.Arg) row {
	left := typeToken(valueType(a))
	if d := displayName(a); d != "" {
		left = d + " " + left
	}
	notes := jsonNote(valueType(a))
	switch {
	case a.ManyElem() != nil:
		left += "..."
		notes = append(notes, "zero or more")
	case a.Type.Nullable() && len(a.Default) == 0:
		notes = append(notes, "optional")
	}
	if a.Stdin {
		notes = append(notes, "read from standard input when omitted")
	}
	notes = append(notes, inputNotes(a)...)
	if len(a.Default) > 0 {
		notes = append(notes, "default: "+compactJSON(a.Default))
	}
	return row{left, describe(a.Doc, notes)}
}

// inputNotes say where an argument's text comes from (`@source file`) and
// what its path must be (`@check.path`).
func inputNotes(a *manifest.Arg) []string {
	var notes []string
	if a.Source == manifest.SourceFile {
		notes = append(notes, "the text of the file it names")
	}
	switch a.CheckPath {
	case "r":
		notes = append(notes, "a readable path")
	case "w":
		notes = append(notes, "a writable path")
	case "x":
		notes = append(notes, "a path that must not exist")
	case "rw":
		notes = append(notes, "a readable and writable path")
	}
	return notes
}

// optionRow describes an option or flag; t is its type (a record field's
// defaults live on the record type, so the caller passes what applies).
func optionRow(a *manifest.Arg, t *types.Type) row {
	var notes []string
	var left string
	if a.Kind == manifest.Flag {
		switch {
		case a.Short == "" && a.Long == "":
			left = optionNames(a.FalseShort, a.FalseLong)
		case a.FalseShort == "" && a.FalseLong == "":
			left = optionNames(a.Short, a.Long)
		default:
			left = optionNames(a.Short, a.Long) + " / " + strings.TrimLeft(optionNames(a.FalseShort, a.FalseLong), " ")
		}
		if v, ok, err := omitted(a); ok && err == nil {
			notes = append(notes, fmt.Sprintf("default: %v", v))
		}
		return row{left, describe(a.Doc, notes)}
	}
	left = optionNames(a.Short, a.Long) + " " + placeholder(a, valueType(a))
	notes = jsonNote(valueType(a))
	switch {
	case len(a.Default) > 0:
		notes = append(notes, "default: "+compactJSON(a.Default))
	case a.ManyElem() != nil:
	case t.Nullable():
		notes = append(notes, "optional")
	default:
		notes = append(notes, "required")
	}
	if a.ManyElem() != nil {
		notes = append(notes, "takes one or more values, repeatable")
	}
	notes = append(notes, inputNotes(a)...)
	return row{left, describe(a.Doc, notes)}
}

// groupSection lists the options of an unrolled record, then its
// whole-record option.
func groupSection(a *manifest.Arg) section {
	t := a.Type
	title := t.Name + " options:"
	if doc := firstLine(a.Doc); doc != "" {
		title += " " + doc
	} else if doc := firstLine(t.Doc); doc != "" {
		title += " " + doc
	}
	s := section{title: title}
	for _, f := range t.Fields {
		var fa *manifest.Arg
		for i := range a.Fields {
			if a.Fields[i].Field == f.Name {
				fa = &a.Fields[i]
			}
		}
		if fa == nil || (fa.Short == "" && fa.Long == "" && fa.FalseShort == "" && fa.FalseLong == "") {
			continue
		}
		shown := *fa
		if len(shown.Default) == 0 {
			shown.Default = f.Default
		}
		if len(shown.Doc) == 0 {
			shown.Doc = f.Doc
		}
		s.rows = append(s.rows, optionRow(&shown, f.Type))
	}
	if a.Short != "" || a.Long != "" {
		meta := a.Metavar
		if meta == "" {
			meta = "<" + t.Name + ">"
		}
		text := fmt.Sprintf("the whole %s record as JSON, or a file holding it", t.Name)
		if len(s.rows) > 0 {
			text += ";\nthe options above override its fields"
		}
		s.rows = append(s.rows, row{optionNames(a.Short, a.Long) + " " + meta, text})
	}
	return s
}

func (r *Runner) actionRow(a *manifest.Action) row {
	fn := "a function"
	if a.Body != nil && a.Body.Kind == manifest.Call && a.Body.Ref >= 0 && a.Body.Ref < len(r.M.Functions) {
		fn = r.M.Functions[a.Body.Ref].Name
	}
	text := fmt.Sprintf("print %s of the result, as JSON", fn)
	if a.Kind == "render" {
		text = fmt.Sprintf("print %s of the result, as text", fn)
	}
	if a.Default {
		text += " (the default)"
	}
	return row{optionNames(a.Short, a.Long), text}
}

// optionNames writes "-s, --long", "-s" or "    --long", so long names
// line up whether or not they have a short one.
func optionNames(short, long string) string {
	switch {
	case short != "" && long != "":
		return "-" + short + ", --" + long
	case short != "":
		return "-" + short
	}
	return "    --" + long
}

// placeholder is what stands for an option's value in help: its metavar,
// else its type.
func placeholder(a *manifest.Arg, t *types.Type) string {
	if a.Metavar != "" {
		return a.Metavar
	}
	return typeToken(t)
}

// typeToken stands for a value of type t in help: <JSON> for a Json,
// whose token is JSON text of any shape, else the type, like <[Int]>.
func typeToken(t *types.Type) string {
	if isJSON(t) {
		return "<JSON>"
	}
	return "<" + t.String() + ">"
}

// jsonNote is the note on an argument of type t that says how to write a
// Json: JSON text, a string with its quotes (see readToken).
func jsonNote(t *types.Type) []string {
	if isJSON(t) {
		return []string{`JSON text, like '{"a":1}', '[1,2]' or '"a string"'`}
	}
	return nil
}

// describe joins doc lines and appends the notes in parentheses.
func describe(doc []string, notes []string) string {
	text := strings.Join(doc, "\n")
	if len(notes) > 0 {
		if text != "" {
			text += " "
		}
		text += "(" + strings.Join(notes, ", ") + ")"
	}
	return text
}

func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func firstLine(doc []string) string {
	if len(doc) == 0 {
		return ""
	}
	return doc[0]
}

func writeDoc(b *strings.Builder, doc []string) {
	if len(doc) > 0 {
		b.WriteString("\n" + strings.Join(doc, "\n") + "\n")
	}
}

// row is one entry of a help section: names on the left, text on the right.
type row struct{ left, right string }

type section struct {
	title string
	rows  []row
}

// maxLeft is the widest left column that keeps its text on the same line;
// a wider entry puts its text on the next line, so one long option name
// does not push every description to the right edge.
const maxLeft = 30

// writeSections writes the non-empty sections with their text aligned in
// one column across all of them.
func writeSections(b *strings.Builder, secs []section) {
	width := 0
	for _, s := range secs {
		for _, r := range s.rows {
			if w := utf8.RuneCountInString(r.left); w <= maxLeft && w > width {
				width = w
			}
		}
	}
	indent := strings.Repeat(" ", width+4)
	for _, s := range secs {
		if len(s.rows) == 0 {
			continue
		}
		b.WriteString("\n" + s.title + "\n")
		for _, r := range s.rows {
			left := "  " + r.left
			if r.right == "" {
				b.WriteString(left + "\n")
				continue
			}
			if w := utf8.RuneCountInString(r.left); w > width {
				b.WriteString(left + "\n" + indent)
			} else {
				b.WriteString(left + strings.Repeat(" ", width-w+2))
			}
			b.WriteString(strings.ReplaceAll(r.right, "\n", "\n"+indent) + "\n")
		}
	}
}

// returnType is the result's type in help, with its media type if any.
func returnType(c *manifest.Command) string {
	if c.Mime != "" {
		return c.Return.String() + " (" + c.Mime + ")"
	}
	return c.Return.String()
}
