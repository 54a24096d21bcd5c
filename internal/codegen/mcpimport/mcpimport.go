// Package mcpimport writes the `.loc` declarations that import the tools
// of an MCP server (`nexus mcp-import`): a `source MCP` line with an alias
// for each tool whose name is not a program name, a signature per tool
// whose arguments come from its input schema, records for the object
// schemas, and docstrings from the descriptions.
//
// The mapping from JSON Schema: integer is Int, number Real, string Str,
// boolean Bool, an array of X [X], an object with properties a record
// (its fields typed, the ones not required ?T), an object that only says
// what its values are Map Str T, a local $ref the record of what it names,
// T-or-null ?T; anything else (an object without properties, oneOf/anyOf
// of several types, an enum of mixed types, properties that cannot be
// field names) Json. An argument not in "required" is ?T, left out of the
// call when null. The result is the record (or type) of the tool's output
// schema when it has one, else Str: the text content, which is what every
// tool returns and what a caller can read without knowing more.
//
// Generate is pure: the caller lists the tools (internal/nexus/mcpsrc).
package mcpimport

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/mcpaddr"
)

// Options say what to write besides the tools.
type Options struct {
	// Server is the server as the source line names it: a command line
	// or an http(s) URL.
	Server string
	// Module names the program; derived from Server when empty.
	Module string
	// Prefix, when set, starts every tool's program name: with "ev",
	// echo is evEcho and get-sum evGetSum.
	Prefix string
	// Fragment leaves out the module line: the output is the source line,
	// the records and the signatures, to paste into a program.
	Fragment bool

	// The connection directives written above the source line
	// (docs/language.md): Env entries are NAME or NAME=VALUE, Cwd a
	// directory, Timeout milliseconds (none written when 0), Bearer the
	// name of the variable holding the token, Headers "Name: value".
	Env     []string
	Cwd     string
	Timeout int
	Bearer  string
	Headers []string
}

// Skipped is a tool Generate could not import, and why.
type Skipped struct {
	Tool, Reason string
}

// ModuleName is the module name Generate gives a program of server when
// Options.Module is empty.
func ModuleName(server string) string { return moduleName(server) }

// Generate returns the `.loc` text importing tools, in their order, and
// the tools it left out (their names are noted in the text too).
func Generate(opts Options, tools []*mcp.Tool) (string, []Skipped) {
	g := &generator{opts: opts, types: newSchemaTypes()}
	g.name(tools)
	var sigs []string
	var imported []int
	var skipped []Skipped
	for i, t := range tools {
		sig, err := g.signature(t, g.aliases[i])
		if err != nil {
			skipped = append(skipped, Skipped{Tool: t.Name, Reason: err.Error()})
			continue
		}
		sigs = append(sigs, sig)
		imported = append(imported, i)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "-- The tools of the MCP server %s, written by nexus mcp-import.\n", oneLine(mcpaddr.Redact(opts.Server)))
	b.WriteString("-- A tool returns the record of its output schema when it has one, else Str (its text).\n")
	for _, s := range skipped {
		fmt.Fprintf(&b, "-- Not imported: %s (%s)\n", oneLine(s.Tool), oneLine(s.Reason))
	}
	b.WriteString("\n")
	if !opts.Fragment {
		g.moduleLine(&b, tools, imported)
	}
	g.sourceLine(&b, tools, imported)
	for _, r := range g.types.records {
		b.WriteString("\n")
		writeRecord(&b, r)
	}
	for _, s := range sigs {
		b.WriteString("\n")
		b.WriteString(s)
	}
	return b.String(), skipped
}

// generator holds what Generate works out before writing.
type generator struct {
	opts    Options
	types   *schemaTypes
	aliases []string // per tool, its name in the program
}

// name gives every tool its program name. Without a prefix, a tool whose
// name is already a program name keeps it, and the others take the first
// free alias in the server's order, so the result is the same every time.
func (g *generator) name(tools []*mcp.Tool) {
	taken := map[string]bool{}
	g.aliases = make([]string, len(tools))
	if g.opts.Prefix == "" {
		for i, t := range tools {
			if keepsName(t.Name) && !taken[t.Name] {
				g.aliases[i] = t.Name
				taken[t.Name] = true
			}
		}
	}
	for i, t := range tools {
		if g.aliases[i] == "" {
			g.aliases[i] = unique(aliasFor(t.Name, g.opts.Prefix), taken)
		}
	}
}

func (g *generator) moduleLine(b *strings.Builder, tools []*mcp.Tool, imported []int) {
	module := g.opts.Module
	if module == "" {
		module = moduleName(g.opts.Server)
	}
	names := make([]string, len(imported))
	for i, ti := range imported {
		names[i] = g.aliases[ti]
	}
	writeDoc(b, "", "The tools of the MCP server "+oneLine(mcpaddr.Redact(g.opts.Server))+".")
	fmt.Fprintf(b, "module %s (%s)\n\n", module, strings.Join(names, ", "))
}

func (g *generator) sourceLine(b *strings.Builder, tools []*mcp.Tool, imported []int) {
	o := g.opts
	for _, e := range o.Env {
		fmt.Fprintf(b, "--' @env %s\n", e)
	}
	if o.Cwd != "" {
		fmt.Fprintf(b, "--' @cwd %s\n", o.Cwd)
	}
	if o.Timeout > 0 {
		fmt.Fprintf(b, "--' @timeout %d\n", o.Timeout)
	}
	if o.Bearer != "" {
		fmt.Fprintf(b, "--' @bearer %s\n", o.Bearer)
	}
	for _, h := range o.Headers {
		fmt.Fprintf(b, "--' @header %s\n", h)
	}
	fmt.Fprintf(b, "source MCP from %s (", strconv.Quote(o.Server))
	for i, ti := range imported {
		if i > 0 {
			b.WriteString(",")
		}
		name := tools[ti].Name
		fmt.Fprintf(b, "\n  %s", strconv.Quote(name))
		if g.aliases[ti] != name {
			fmt.Fprintf(b, " as %s", g.aliases[ti])
		}
	}
	b.WriteString(")\n")
}

// signature is the signature of tool t, named alias, with its docstrings;
// an error when its arguments cannot be named.
func (g *generator) signature(t *mcp.Tool, alias string) (string, error) {
	if t.Name == "" {
		return "", errors.New("it has no name to call it by")
	}
	in, _ := t.InputSchema.(map[string]any)
	sc := scope{root: in}
	base := typeName(alias)
	var args []field
	props, _ := in["properties"].(map[string]any)
	req := required(in)
	for _, n := range propertyOrder(in) {
		if n == "" || strings.ContainsAny(n, " \t\r\n") || strings.HasPrefix(n, "_") {
			return "", fmt.Errorf("its argument %q cannot be named in a program (one word, not starting with '_')", n)
		}
		typ := g.types.typeOf(props[n], base+typeName(n), sc)
		if !req[n] {
			typ = optional(typ)
		}
		args = append(args, field{name: n, typ: typ, doc: description(props[n])})
	}
	ret := "Str"
	if t.OutputSchema != nil {
		out, _ := t.OutputSchema.(map[string]any)
		ret = g.types.typeOf(out, base+"Result", scope{root: out})
	}

	var b strings.Builder
	desc := t.Description
	if strings.TrimSpace(desc) == "" {
		desc = t.Title
	}
	writeDoc(&b, "", desc)
	if len(args) == 0 {
		fmt.Fprintf(&b, "%s :: %s\n", alias, ret)
		return b.String(), nil
	}
	fmt.Fprintf(&b, "%s ::\n", alias)
	for _, a := range args {
		writeDoc(&b, "  ", a.doc)
		fmt.Fprintf(&b, "  --' @name %s\n", a.name)
		fmt.Fprintf(&b, "  %s ->\n", a.typ)
	}
	fmt.Fprintf(&b, "  %s\n", ret)
	return b.String(), nil
}

func writeRecord(b *strings.Builder, r *record) {
	writeDoc(b, "", r.doc)
	fmt.Fprintf(b, "record %s where\n", r.name)
	for _, f := range r.fields {
		writeDoc(b, "  ", f.doc)
		fmt.Fprintf(b, "  %s :: %s\n", f.name, f.typ)
	}
}

// writeDoc writes text as docstring lines, indented by indent. A line that
// would read as a directive (`key: value`, `@key`) is escaped to stay
// text: a description must not rename a command or set a default.
func writeDoc(b *strings.Builder, indent, text string) {
	text = strings.TrimSpace(printable(strings.ReplaceAll(text, "\r\n", "\n")))
	if text == "" {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.ReplaceAll(line, "\r", " "))
		if line == "" {
			b.WriteString(indent + "--'\n")
			continue
		}
		fmt.Fprintf(b, "%s--' %s\n", indent, asText(line))
	}
}

// asText keeps a description line from reading as a directive: it is
// escaped with a leading `\` (doc.Escape), which Morloc's grammar reads as
// literal text.
func asText(line string) string { return doc.Escape(line) }

// oneLine is s on one line, for a `--` comment.
func oneLine(s string) string {
	return strings.Join(strings.Fields(printable(s)), " ")
}

// printable is s with every control character but newline and tab made a
// space. A server's descriptions and names reach the program's text, its
// --help and its tools' descriptions; a terminal escape or a NUL in them
// would act on the terminal that shows them or end the text early.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
