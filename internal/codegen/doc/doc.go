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

// Known is every directive key of language.md: Morloc 0.98's table
// (section 7.3 of the Morloc digest) and nexus's own.
var Known = map[string]bool{
	"name": true, "return": true, "metavar": true, "arg": true, "default": true,
	"true": true, "false": true, "many": true, "stdin": true, "unroll": true,
	"with": true, "render": true, "title": true, "icon": true, "mime": true,
	"source": true, "check.path": true, "literal": true, "epilogue": true,
	// The connection options of a `source MCP from` line.
	"env": true, "cwd": true, "timeout": true, "bearer": true, "header": true,
	// Morloc's, refused by the checker as not supported yet (Unsupported).
	"form": true, "list.source": true, "list.form": true, "list.check.path": true, "rsize": true,
}

// Unsupported are the keys of Morloc's table nexus knows but does not
// implement yet: a build error says so, rather than the unknown-key
// warning, so a program that needs one does not silently do less.
var Unsupported = map[string]bool{
	"form": true, "list.source": true, "list.form": true, "list.check.path": true, "rsize": true,
}

// KnownKeys is Known as a list, for suggestions.
func KnownKeys() []string {
	keys := make([]string, 0, len(Known))
	for k := range Known {
		keys = append(keys, k)
	}
	return keys
}

// Directive is one directive line.
type Directive struct {
	Key   string
	Value string
	// Pos is where the directive starts, ValuePos where its value starts
	// (or would start, for a bare `@many`).
	Pos, ValuePos diag.Pos
	// At says the directive is written `@key`, not `key:`, so messages
	// can name it as written.
	At bool
	// Line is how many description lines come before the directive: the
	// module's `@epilogue` splits the description there.
	Line int
}

// Spelled is the directive's key as written: `@key` or `key:`.
func (d Directive) Spelled() string {
	if d.At {
		return "@" + d.Key
	}
	return d.Key + ":"
}

// Doc is a parsed docstring.
type Doc struct {
	// Lines is the description: every line that is not a known directive,
	// with one leading space dropped (the rest of its indentation kept),
	// trailing space trimmed, and leading and trailing blank lines
	// dropped. Unknown directives stay here as text.
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

// Line classification is Morloc's (Desugar.parseDocKV), on the line
// trimmed:
//   - `\` first: the rest is description, taken literally (`\@x`,
//     `\Note: x`);
//   - `@word rest`: a directive, key word and value rest (a lone `@` is
//     prose);
//   - `word: rest`: a directive in the older spelling;
//   - anything else: description.
//
// A key may be dotted in both spellings (`@check.path r`, `check.path:
// r`). Morloc takes any space-free word before the line's first colon as
// a key; nexus asks also for a space or the end after the colon, so that
// a URL (`https://...`) stays prose without a warning, while `Note: x`
// is read as a directive of an unknown key (a warning, the line kept as
// text), as Morloc reads it.
var (
	colonForm = lazyre.New(`^([A-Za-z_][A-Za-z0-9_.-]*):(\s+|$)`)
	atForm    = lazyre.New(`^@([A-Za-z_][A-Za-z0-9_.-]*)(\s+|$)`)
)

// Parse splits a docstring into description and directives.
func Parse(lines syntax.Doc) Doc {
	var d Doc
	for _, line := range lines {
		// One space after `--'` is the separator; more is indentation
		// the description keeps.
		body := strings.TrimRight(strings.TrimPrefix(line.Text, " "), " \t\r")
		lead := len(line.Text) - len(strings.TrimLeft(line.Text, " \t"))
		text := strings.TrimSpace(line.Text)
		if strings.HasPrefix(text, `\`) {
			d.Lines = append(d.Lines, strings.Replace(body, `\`, "", 1))
			continue
		}
		m := atForm().FindStringSubmatch(text)
		if m == nil {
			m = colonForm().FindStringSubmatch(text)
		}
		if m == nil {
			d.Lines = append(d.Lines, body)
			continue
		}
		dir := Directive{
			Key:      m[1],
			Value:    strings.TrimSpace(text[len(m[0]):]),
			Pos:      shift(line.Pos, line.Text[:lead]),
			ValuePos: shift(line.Pos, line.Text[:lead+len(m[0])]),
			Line:     len(d.Lines),
			At:       text[0] == '@',
		}
		if Known[dir.Key] {
			d.Directives = append(d.Directives, dir)
			continue
		}
		d.Unknown = append(d.Unknown, dir)
		d.Lines = append(d.Lines, body)
	}
	d.Lines, d.Directives = trimBlank(d.Lines, d.Directives)
	return d
}

// Escape is line written so that Parse reads it as description, whatever
// it holds: a line that would read as a directive, or that starts with the
// escape itself, gets a leading `\`.
func Escape(line string) string {
	text := strings.TrimSpace(line)
	if strings.HasPrefix(text, `\`) || atForm().MatchString(text) || colonForm().MatchString(text) {
		return `\` + line
	}
	return line
}

// shift moves pos right past prefix, counted in characters.
func shift(pos diag.Pos, prefix string) diag.Pos {
	pos.Col += utf8.RuneCountInString(prefix)
	return pos
}

// trimBlank drops the leading and trailing blank lines, keeping each
// directive's Line the place it splits the description at.
func trimBlank(lines []string, dirs []Directive) ([]string, []Directive) {
	lead := 0
	for lead < len(lines) && strings.TrimSpace(lines[lead]) == "" {
		lead++
	}
	lines = lines[lead:]
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for i := range dirs {
		dirs[i].Line = min(max(dirs[i].Line-lead, 0), len(lines))
	}
	if len(lines) == 0 {
		return nil, dirs
	}
	return lines, dirs
}
