package syntax

import (
	"strings"
	"unicode/utf8"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

// exportGroups reads the `--*` lines of an export list (Morloc's command
// groups): `--* group: NAME` starts a group, the `--*` lines after it are
// its description (a leading `\` makes a line text even when it reads like
// a header), and `--* group:` without a name ends grouping. Each exported
// name belongs to the nearest header before it.
type exportGroups struct {
	p        *parser
	m        *Module
	cur      int // index in m.Groups of the open group, -1 for none
	declared map[string]diag.Pos
}

// lines takes the group lines at the parser's position.
func (g *exportGroups) lines() {
	p := g.p
	for !p.failed {
		p.skipDocs()
		t := p.toks[p.i]
		if t.kind != tokGroupLine {
			return
		}
		p.i++
		g.line(t)
	}
}

// line handles one `--*` line.
func (g *exportGroups) line(t token) {
	text := strings.TrimPrefix(t.Text, " ")
	trim := strings.TrimLeft(text, " \t")
	lead := utf8.RuneCountInString(text[:len(text)-len(trim)]) + len(t.Text) - len(text)
	if strings.HasPrefix(trim, `\`) {
		g.describe(t, strings.TrimPrefix(trim, `\`))
		return
	}
	rest, isHeader := strings.CutPrefix(trim, "group")
	if !isHeader || (rest != "" && rest[0] != ':' && rest[0] != ' ' && rest[0] != '\t') {
		g.describe(t, text)
		return
	}
	at := func(off int) diag.Pos {
		pos := t.TextPos
		pos.Col += lead + utf8.RuneCountInString(trim[:off])
		return pos
	}
	if !strings.HasPrefix(rest, ":") {
		g.p.sink.Errorf(at(0), "malformed group line: expected `--* group: NAME`; to write a description line that starts with 'group', escape it: `--* \\group ...`")
		return
	}
	name := strings.TrimSpace(rest[1:])
	g.end()
	if name == "" {
		g.cur = -1
		return
	}
	pos := at(len(trim) - len(strings.TrimLeft(rest[1:], " \t")))
	if !isGroupName(name) {
		g.p.sink.Errorf(pos, "malformed group line: the group name '%s' must be one word of letters, digits, '_' and '-', not starting with '-', at most 64 characters, as in `--* group: manage`", name)
		g.cur = -1
		return
	}
	if prev, dup := g.declared[name]; dup {
		g.p.sink.Errorf(pos, "group '%s' is declared twice (the first at %s); put its commands after one header", name, prev)
		g.cur = -1
		return
	}
	g.declared[name] = pos
	g.m.Groups = append(g.m.Groups, ExportGroup{Pos: pos, Name: name})
	g.cur = len(g.m.Groups) - 1
}

// describe adds a description line to the open group.
func (g *exportGroups) describe(t token, text string) {
	if g.cur < 0 {
		g.p.sink.Warnf(t.Pos, "a '--*' line that is not after a `--* group: NAME` header describes nothing; ignored")
		return
	}
	// Lines among a group's names describe it too.
	g.m.Groups[g.cur].Doc = append(g.m.Groups[g.cur].Doc, text)
}

// member adds the exported name at pos to the open group.
func (g *exportGroups) member(pos diag.Pos) {
	if g.cur >= 0 {
		g.m.Groups[g.cur].Members = append(g.m.Groups[g.cur].Members, pos)
	}
}

// end closes the open group; a group with no exported names is harmless
// but surely a mistake, so it is a warning.
func (g *exportGroups) end() {
	if g.cur >= 0 && len(g.m.Groups[g.cur].Members) == 0 {
		grp := g.m.Groups[g.cur]
		g.p.sink.Warnf(grp.Pos, "group '%s' has no exported names after it; it is left out", grp.Name)
		g.m.Groups = g.m.Groups[:g.cur]
	}
	g.cur = -1
}

// isGroupName reports whether name can be a group's name: a word a
// command line can take (not an option) and a tool name's prefix.
func isGroupName(name string) bool {
	if len(name) == 0 || len(name) > 64 || name[0] == '-' {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
