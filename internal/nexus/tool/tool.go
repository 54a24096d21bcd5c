// Package tool is the tool model: a command of a program seen as named
// arguments, the way MCP's tools/call and the JSON API of nexus serve
// call it. A Tool knows its properties (names, types, descriptions), the
// JSON Schema of its arguments, the value each argument takes when left
// out, how an unrolled record is built from its fields' properties, and
// how named JSON values bind to the command's positional arguments.
//
// A bad call fails with an *ArgError before anything runs; the front ends
// map it to their own form (MCP to JSON-RPC -32602, or from protocol
// 2025-11-25 on to a tool result with isError; the JSON API to HTTP 400).
// The command-line front end (nexus/cli) reads tokens, not JSON, but
// builds unrolled records by the same rule (Record).
package tool

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// RenderKey is the property that chooses a command's output action.
const RenderKey = "_render"

// RenderRaw is the _render value that applies no output action.
const RenderRaw = manifest.FormatRaw

// Tool is one command of a program seen as named arguments: its schema,
// how the named arguments of a call bind to the command's arguments, and
// the dispatcher that runs it.
type Tool struct {
	Name        string
	Description string
	// Title is the display name (the command's `title:`), Icons the URLs
	// of its icons (`icon:`); both may be empty.
	Title       string
	Icons       []string
	InputSchema *Schema
	// OutputSchema is the schema of the command's result, of whatever
	// type; nil when it returns nothing (a unit result has no content to
	// structure). Which clients see it is the ListForm's business.
	OutputSchema *Schema

	cmd    *manifest.Command
	d      *dispatch.Dispatcher
	params []param // the properties of InputSchema but _render, in order
	// actions maps each _render value but RenderRaw to its action.
	actions map[string]*manifest.Action
	// defaultAction is the action applied when _render is left out (the
	// command's @default), or nil.
	defaultAction *manifest.Action
}

// param says which argument (or record field) one property stands for.
type param struct {
	key  string
	arg  int         // index in cmd.Args
	typ  *types.Type // what a value given for it must be
	kind paramKind
	// field is the record field of a fieldParam.
	field string
	// negated marks a flag known by its negation: true means the flag's
	// argument is false.
	negated bool
}

type paramKind int

const (
	argParam   paramKind = iota // a positional, option or flag
	fieldParam                  // one field of an unrolled record
	wholeParam                  // an unrolled record given whole
)

// Skipped is a command that is not served as a tool, and why.
type Skipped struct {
	Command string
	Reason  string
}

func (s Skipped) String() string {
	return fmt.Sprintf("command %s is not served as an MCP tool: %s", s.Command, s.Reason)
}

// FromProgram makes the tools of program m, one per command in manifest
// order, run by d. prefix is put before every tool name (nexus serve names
// tools <module>__<command>). Commands that cannot be tools are left out
// and returned as skipped.
func FromProgram(m *manifest.Manifest, d *dispatch.Dispatcher, prefix string) ([]*Tool, []Skipped) {
	var tools []*Tool
	var skipped []Skipped
	for i := range m.Commands {
		c := &m.Commands[i]
		t, err := New(c, d, prefix+c.ToolName())
		if err != nil {
			skipped = append(skipped, Skipped{Command: c.Name, Reason: err.Error()})
			continue
		}
		tools = append(tools, t)
	}
	return tools, skipped
}

// New makes the tool called name of command c, run by d, or says why c
// cannot be a tool.
func New(c *manifest.Command, d *dispatch.Dispatcher, name string) (*Tool, error) {
	if !manifest.IsToolName(name) {
		return nil, fmt.Errorf("the tool name %q does not match %s", name, manifest.ToolNamePattern)
	}
	t := &Tool{
		Name:        name,
		Description: mediaNote(docText(c.Doc), c.Mime),
		Title:       c.Title,
		Icons:       c.Icons,
		InputSchema: &Schema{Types: []string{"object"}, Properties: []Property{}, Additional: AdditionalFalse},
		cmd:         c,
		d:           d,
	}
	seen := map[string]string{} // property key → the argument that took it
	add := func(p param, s *Schema, required bool, owner string) error {
		if prev, ok := seen[p.key]; ok {
			return fmt.Errorf("%s and %s would both be the property %q", prev, owner, p.key)
		}
		seen[p.key] = owner
		t.InputSchema.Properties = append(t.InputSchema.Properties, Property{Name: p.key, Schema: s})
		if required {
			t.InputSchema.Required = append(t.InputSchema.Required, p.key)
		}
		if p.key != RenderKey {
			t.params = append(t.params, p)
		}
		return nil
	}
	if manifest.UsesIntrinsic(c.Body, "stdin") {
		return nil, fmt.Errorf("it reads standard input")
	}
	if manifest.UsesIntrinsic(c.Body, "stdout") {
		return nil, fmt.Errorf("it writes standard output")
	}
	positional := 0
	for i := range c.Args {
		a := &c.Args[i]
		if a.Stdin {
			return nil, fmt.Errorf("it reads standard input")
		}
		switch a.Kind {
		case manifest.Positional:
			positional++
			if a.Type.Kind == types.Unit {
				// `()` has one value: nothing for a client to give.
				continue
			}
			key := a.Name
			if key == "" {
				key = fmt.Sprintf("_%d", positional)
			}
			s, required, err := argSchema(a, false)
			if err != nil {
				return nil, err
			}
			if err := add(param{key: key, arg: i, typ: a.Type}, s, required, "argument "+key); err != nil {
				return nil, err
			}
		case manifest.Option, manifest.Flag:
			p, s, required, err := optionParam(a, i)
			if err != nil {
				return nil, err
			}
			if err := add(p, s, required, "option "+p.key); err != nil {
				return nil, err
			}
		case manifest.Group:
			if a.Short != "" || a.Long != "" {
				// A record that can be given whole (a record-level
				// `arg:`) is one object property, as in Morloc: its
				// fields nested inside, not one property each.
				s, required, err := wholeSchema(a)
				if err != nil {
					return nil, err
				}
				if err := add(param{key: a.Name, arg: i, typ: a.Type, kind: wholeParam}, s, required, "record "+a.Type.Name); err != nil {
					return nil, err
				}
				continue
			}
			for j := range a.Fields {
				fa := fieldArg(a, &a.Fields[j])
				p, s, required, err := optionParam(fa, i)
				if err != nil {
					return nil, err
				}
				p.kind, p.field = fieldParam, fa.Field
				if err := add(p, s, required, "field "+fa.Field); err != nil {
					return nil, err
				}
			}
		default:
			return nil, fmt.Errorf("argument %d has unknown kind %q", i+1, a.Kind)
		}
	}
	if len(c.Actions) > 0 {
		t.actions = map[string]*manifest.Action{}
		enum := []string{RenderRaw}
		def := RenderRaw
		for i := range c.Actions {
			act := &c.Actions[i]
			// Known by the name the command line's -f knows it by (the
			// build refuses an action without one, or two alike).
			v := act.Name()
			if v == "" || t.actions[v] != nil {
				return nil, fmt.Errorf("output action %s has no name left for %s", firstOf(act.Long, act.Short), RenderKey)
			}
			t.actions[v] = act
			enum = append(enum, v)
			if act.Default {
				t.defaultAction, def = act, v
			}
		}
		s := &Schema{
			Types:       []string{"string"},
			Description: "How to present the result: raw, or through one of the command's output actions.",
			Enum:        enum,
			Default:     AppendString(nil, def),
		}
		if def != RenderRaw {
			s.Description = "How to present the result: raw (the result itself), or through one of the command's output actions; " + def + " when left out."
		}
		if err := add(param{key: RenderKey}, s, false, "the output actions"); err != nil {
			return nil, err
		}
	}
	// A media result is content, not structured data: no output schema,
	// and so no structured content.
	if c.Return.Kind != types.Unit && c.Mime == "" {
		t.OutputSchema = typeSchema(c.Return)
	}
	return t, nil
}

// wholeSchema is the object property of a record argument a given whole:
// each field's schema with its description and default (the field's own,
// else the record type's), required when it has no value if left out; the
// property itself is required when a field is.
func wholeSchema(a *manifest.Arg) (*Schema, bool, error) {
	desc := docText(a.Doc)
	if desc == "" {
		desc = docText(a.Type.Doc)
	}
	s := &Schema{Types: []string{"object"}, Description: desc, Properties: []Property{}, Additional: AdditionalFalse}
	for j := range a.Fields {
		fa := fieldArg(a, &a.Fields[j])
		// The property is the field's value, a flag's too, even one
		// known on the command line only by its negation.
		fs, required, err := argSchema(fa, false)
		if err != nil {
			return nil, false, err
		}
		s.Properties = append(s.Properties, Property{Name: fa.Field, Schema: fs})
		if required {
			s.Required = append(s.Required, fa.Field)
		}
	}
	return s, len(s.Required) > 0, nil
}

// mediaNote is the description of a command whose result is media of
// type mime: the model reading it learns what the call gives.
func mediaNote(desc, mime string) string {
	if mime == "" {
		return desc
	}
	note := "Returns " + mime + " content."
	if desc == "" {
		return note
	}
	return desc + "\n\n" + note
}

// optionParam is the property of an option or flag (or a field of an
// unrolled record, which is one).
func optionParam(a *manifest.Arg, i int) (param, *Schema, bool, error) {
	p := param{key: a.Name, arg: i, typ: a.Type}
	if p.key == "" {
		p.key = a.Field
	}
	// A flag known only by its negation is published under that name
	// (true means the negation is given), but a field of an unrolled record
	// is published under the field's own name, so there the property is
	// the field's value itself.
	p.negated = a.OnlyNegation() && a.Field == ""
	s, required, err := argSchema(a, p.negated)
	return p, s, required, err
}

// argSchema is the schema of an argument's property, and whether the
// property is required: when the argument has no value of its own if left
// out (manifest.Arg.Omitted). negated says the property is a flag's
// negation (see optionParam).
func argSchema(a *manifest.Arg, negated bool) (*Schema, bool, error) {
	_, ok, err := a.Omitted()
	if err != nil {
		return nil, false, fmt.Errorf("argument %s: %w", firstOf(a.Name, a.Field), err)
	}
	s := typeSchema(a.Type)
	desc, def := docText(a.Doc), a.Default
	if negated {
		// The property is the negation: its default is the opposite.
		desc = joinText(desc, "(true means "+flagLabel(a.FalseLong, a.FalseShort)+")")
		if v, ok, err := a.Omitted(); ok && err == nil {
			def = []byte(strconv.FormatBool(!v.(bool)))
		}
	}
	s.Description = withDefault(desc, def)
	s.Default = compactDefault(def)
	if len(def) == 0 && a.Kind == manifest.Flag {
		s.Default = []byte(strconv.FormatBool(negated != a.OnlyNegation()))
	}
	return s, !ok, nil
}

// flagLabel is a flag as typed on the command line.
func flagLabel(long, short string) string {
	if long != "" {
		return "--" + long
	}
	return "-" + short
}

// docText joins docstring lines into a description.
func docText(lines []string) string {
	return strings.Join(lines, "\n")
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// ListForm says how a tool is listed: which of the parts that MCP's
// revisions differ on a client knows. The zero value is the form of the
// oldest revision.
type ListForm struct {
	// OutputSchema lists the output schema of a command that returns a
	// record, the only kind of result an object schema describes, and
	// Title the title (MCP 2025-06-18 on).
	OutputSchema bool
	Title        bool
	// AnyOutput lists the output schema of a command of any return type
	// but unit, lists, maps and scalars too (MCP 2026-07-28, where an
	// output schema may be any schema and structured content any JSON
	// value). It implies OutputSchema.
	AnyOutput bool
	// Icons lists the icons (MCP 2025-11-25 on).
	Icons bool
	// BareEmptyInput lists the input schema of a tool without arguments
	// as {"type":"object","additionalProperties":false}, the form MCP
	// 2025-11-25 asks for, rather than with an empty properties and
	// required, which mean the same.
	BareEmptyInput bool
}

// MarshalJSON writes the tool as MCP's tools/list shows it to a client of
// 2025-06-18 (the JSON API's /discover shows it so).
func (t *Tool) MarshalJSON() ([]byte, error) {
	return t.AppendJSON(nil, ListForm{OutputSchema: true, Title: true}), nil
}

// Structured reports whether a client that lists tools in form sees the
// tool's output schema, and so gets its results' structured content.
func (t *Tool) Structured(form ListForm) bool {
	if t.OutputSchema == nil {
		return false
	}
	return form.AnyOutput || form.OutputSchema && t.cmd.Return.Kind == types.Record
}

// AppendJSON appends the tool as tools/list shows it in form.
func (t *Tool) AppendJSON(b []byte, form ListForm) []byte {
	b = append(b, `{"name":`...)
	b = AppendString(b, t.Name)
	if form.Title && t.Title != "" {
		b = append(b, `,"title":`...)
		b = AppendString(b, t.Title)
	}
	if t.Description != "" {
		b = append(b, `,"description":`...)
		b = AppendString(b, t.Description)
	}
	if form.Icons && len(t.Icons) > 0 {
		b = append(b, `,"icons":[`...)
		for i, src := range t.Icons {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"src":`...)
			b = AppendString(b, src)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"inputSchema":`...)
	if form.BareEmptyInput && len(t.InputSchema.Properties) == 0 {
		b = append(b, `{"type":"object","additionalProperties":false}`...)
	} else {
		b = t.InputSchema.appendJSON(b)
	}
	if t.Structured(form) {
		b = append(b, `,"outputSchema":`...)
		b = t.OutputSchema.appendJSON(b)
	}
	return append(b, '}')
}
