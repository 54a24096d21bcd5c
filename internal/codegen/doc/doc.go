// Package doc reads `.loc` docstrings: it separates the description text
// from the directives (`--' key: value` or `--' @key value`) and parses the
// directive values that name command-line options (`-s/--long`).
//
// The meaning of each directive (where it is allowed, what it does) belongs
// to the checker; this package only knows their spelling.
package doc

import (
	"strings"
	"unicode/utf8"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/lazyre"
)

// Known is every directive key of language.md.
var Known = map[string]bool{
	"name": true, "return": true, "metavar": true, "arg": true, "default": true,
	"true": true, "false": true, "many": true, "stdin": true, "unroll": true,
	"with": true, "render": true, "title": true, "icon": true, "mime": true,
	// The connection options of a `source MCP from` line.
	"env": true, "cwd": true, "timeout": true, "bearer": true, "header": true,
}

// Directive is one directive line.
type Directive struct {
	Key   string
	Value string
	// Pos is where the directive starts, ValuePos where its value starts
	// (or would start, for a bare `@many`).
	Pos, ValuePos diag.Pos
}

// Doc is a parsed docstring.
type Doc struct {
	// Lines is the description: every line that is not a known directive,
	// trimmed, with leading and trailing blank lines dropped. Unknown
	// directives stay here as text.
	Lines []string
	// Directives are the known directives, in order.
	Directives []Directive
	// Unknown are the lines that look like directives with a key outside
	// Known; the checker warns about them.
	Unknown []Directive
}

// Get returns the last directive with key, or nil.
func (d *Doc) Get(key string) *Directive {
	for i := len(d.Directives) - 1; i >= 0; i-- {
		if d.Directives[i].Key == key {
			return &d.Directives[i]
		}
	}
	return nil
}

// All returns every directive with key, in order.
func (d *Doc) All(key string) []Directive {
	var out []Directive
	for _, dir := range d.Directives {
		if dir.Key == key {
			out = append(out, dir)
		}
	}
	return out
}

// colonForm is `key: value`. Only lowercase keys count, and the colon must
// be followed by a space or the end, so that prose such as "Note: ..." or
// a URL stays description.
var colonForm = lazyre.New(`^([a-z][a-z0-9_-]*):(\s+|$)`)

// atForm is `@key value` or a bare `@key`.
var atForm = lazyre.New(`^@([A-Za-z_][A-Za-z0-9_-]*)(\s+|$)`)

// Parse splits a docstring into description and directives.
func Parse(lines syntax.Doc) Doc {
	var d Doc
	for _, line := range lines {
		lead := len(line.Text) - len(strings.TrimLeft(line.Text, " \t"))
		text := strings.TrimSpace(line.Text)
		m := colonForm().FindStringSubmatch(text)
		if m == nil {
			m = atForm().FindStringSubmatch(text)
		}
		if m == nil {
			d.Lines = append(d.Lines, text)
			continue
		}
		dir := Directive{
			Key:      m[1],
			Value:    strings.TrimSpace(text[len(m[0]):]),
			Pos:      shift(line.Pos, line.Text[:lead]),
			ValuePos: shift(line.Pos, line.Text[:lead+len(m[0])]),
		}
		if Known[dir.Key] {
			d.Directives = append(d.Directives, dir)
			continue
		}
		d.Unknown = append(d.Unknown, dir)
		d.Lines = append(d.Lines, text)
	}
	d.Lines = trimBlank(d.Lines)
	return d
}

// shift moves pos right past prefix, counted in characters.
func shift(pos diag.Pos, prefix string) diag.Pos {
	pos.Col += utf8.RuneCountInString(prefix)
	return pos
}

func trimBlank(lines []string) []string {
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil
	}
	return lines
}
