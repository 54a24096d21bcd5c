package cli

import (
	"bytes"
	"encoding/json"

	"github.com/nexus-run/nexus/manifest"
)

// The --json-help document: a program's whole command-line surface, in the
// shape of Morloc's manifest (docs/language.md, "--json-help"). Every key
// is always present (null or empty when it does not apply), so a reader
// need not guess; only fields (of a group argument) and the negation of a
// flag appear where they apply.

type jsonProgram struct {
	Name        string        `json:"name"`
	Description []string      `json:"description"`
	Groups      []jsonGroup   `json:"groups"`
	Commands    []jsonCommand `json:"commands"`
}

type jsonGroup struct {
	Name        string        `json:"name"`
	Description []string      `json:"description"`
	Commands    []jsonCommand `json:"commands,omitempty"`
}

type jsonCommand struct {
	Name        string       `json:"name"`
	Group       *string      `json:"group"`
	Description []string     `json:"description"`
	Return      jsonReturn   `json:"return"`
	Args        []jsonArg    `json:"args"`
	Actions     []jsonAction `json:"actions"`
}

type jsonReturn struct {
	Type        string  `json:"type"`
	Description *string `json:"description"`
}

type jsonArg struct {
	Kind string `json:"kind"`
	// Name is the argument's property name (a positional's may be null).
	Name *string `json:"name"`
	// Field is the record field of a group's option.
	Field      string          `json:"field,omitempty"`
	Type       string          `json:"type"`
	Metavar    *string         `json:"metavar"`
	Short      *string         `json:"short"`
	Long       *string         `json:"long"`
	FalseShort *string         `json:"false_short,omitempty"`
	FalseLong  *string         `json:"false_long,omitempty"`
	Default    json.RawMessage `json:"default"`
	Many       bool            `json:"many"`
	Stdin      bool            `json:"stdin"`
	// Description is the argument's docstring; a field's falls back on
	// the record field's own.
	Description []string  `json:"description"`
	Fields      []jsonArg `json:"fields,omitempty"`
}

type jsonAction struct {
	Kind  string  `json:"kind"`
	Short *string `json:"short"`
	Long  *string `json:"long"`
	Type  string  `json:"type"`
}

// jsonHelp is the --json-help document asked for by inv: the entry of its
// command, or of its group, else the whole program's.
func (r *Runner) jsonHelp(inv *invocation) string {
	var doc any
	switch {
	case inv.cmd != nil:
		doc = jsonCommandOf(inv.cmd)
	case inv.group != nil:
		g := jsonGroup{Name: inv.group.Name, Description: lines(inv.group.Doc), Commands: []jsonCommand{}}
		for i := range r.M.Commands {
			if r.M.Commands[i].Group == inv.group.Name {
				g.Commands = append(g.Commands, jsonCommandOf(&r.M.Commands[i]))
			}
		}
		doc = g
	default:
		p := jsonProgram{Name: r.prog(), Description: lines(r.M.Doc), Groups: []jsonGroup{}, Commands: []jsonCommand{}}
		for _, g := range r.M.Groups {
			p.Groups = append(p.Groups, jsonGroup{Name: g.Name, Description: lines(g.Doc)})
		}
		for i := range r.M.Commands {
			p.Commands = append(p.Commands, jsonCommandOf(&r.M.Commands[i]))
		}
		doc = p
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		// Every value above is plain data; this cannot fail.
		panic(err)
	}
	return b.String()
}

func jsonCommandOf(c *manifest.Command) jsonCommand {
	jc := jsonCommand{
		Name:        c.Name,
		Group:       orNull(c.Group),
		Description: lines(c.Doc),
		Return:      jsonReturn{Type: c.Return.String(), Description: orNull(c.ReturnDoc)},
		Args:        []jsonArg{},
		Actions:     []jsonAction{},
	}
	for i := range c.Args {
		jc.Args = append(jc.Args, jsonArgOf(&c.Args[i]))
	}
	for _, a := range c.Actions {
		jc.Actions = append(jc.Actions, jsonAction{Kind: a.Kind, Short: orNull(a.Short), Long: orNull(a.Long), Type: a.Return.String()})
	}
	return jc
}

func jsonArgOf(a *manifest.Arg) jsonArg {
	ja := jsonArg{
		Kind:        string(a.Kind),
		Name:        orNull(a.Name),
		Field:       a.Field,
		Type:        a.Type.String(),
		Metavar:     orNull(a.Metavar),
		Short:       orNull(a.Short),
		Long:        orNull(a.Long),
		Default:     compactRaw(a.Default),
		Many:        a.Many,
		Stdin:       a.Stdin,
		Description: lines(a.Doc),
	}
	if a.Kind == manifest.Flag {
		ja.FalseShort, ja.FalseLong = orNull(a.FalseShort), orNull(a.FalseLong)
	}
	if a.Kind == manifest.Group {
		ja.Fields = []jsonArg{}
		for _, f := range a.Type.Fields {
			for i := range a.Fields {
				if a.Fields[i].Field != f.Name {
					continue
				}
				// A field's default and description may live on the
				// record type, as in help (groupSection).
				fa := a.Fields[i]
				if len(fa.Default) == 0 {
					fa.Default = f.Default
				}
				if len(fa.Doc) == 0 {
					fa.Doc = f.Doc
				}
				ja.Fields = append(ja.Fields, jsonArgOf(&fa))
			}
		}
	}
	return ja
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func lines(doc []string) []string {
	if doc == nil {
		return []string{}
	}
	return doc
}

// compactRaw is raw JSON without its spacing, or nil (null) when empty.
func compactRaw(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
