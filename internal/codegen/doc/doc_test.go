package doc

import (
	"reflect"
	"testing"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
)

func lines(texts ...string) syntax.Doc {
	d := make(syntax.Doc, len(texts))
	for i, t := range texts {
		d[i] = syntax.DocLine{Pos: diag.Pos{Line: i + 1, Col: 4}, Text: t}
	}
	return d
}

func TestParseSeparatesDirectives(t *testing.T) {
	d := Parse(lines(
		" Molecular weight",
		"",
		" of a molecule.",
		" return: weight in daltons",
		" @name smiles",
		" @many",
		" many: true",
		" true:  --hydrogens",
		" Note: prose with a colon stays text",
		" see http://example.com",
		" frobnicate: 3",
		" @bogus",
		"",
	))
	wantLines := []string{"Molecular weight", "", "of a molecule.", "Note: prose with a colon stays text", "see http://example.com", "frobnicate: 3", "@bogus"}
	if !reflect.DeepEqual(d.Lines, wantLines) {
		t.Errorf("lines %q", d.Lines)
	}
	want := []Directive{
		{Key: "return", Value: "weight in daltons", Pos: diag.Pos{Line: 4, Col: 5}, ValuePos: diag.Pos{Line: 4, Col: 13}, Line: 3},
		{Key: "name", Value: "smiles", Pos: diag.Pos{Line: 5, Col: 5}, ValuePos: diag.Pos{Line: 5, Col: 11}, At: true, Line: 3},
		{Key: "many", Value: "", Pos: diag.Pos{Line: 6, Col: 5}, ValuePos: diag.Pos{Line: 6, Col: 10}, At: true, Line: 3},
		{Key: "many", Value: "true", Pos: diag.Pos{Line: 7, Col: 5}, ValuePos: diag.Pos{Line: 7, Col: 11}, Line: 3},
		{Key: "true", Value: "--hydrogens", Pos: diag.Pos{Line: 8, Col: 5}, ValuePos: diag.Pos{Line: 8, Col: 12}, Line: 3},
	}
	if !reflect.DeepEqual(d.Directives, want) {
		t.Errorf("directives\n got %+v\nwant %+v", d.Directives, want)
	}
	// "Note: ..." reads as a directive of an unknown key, as in Morloc
	// (a warning; `\Note:` keeps it quiet); a URL stays prose.
	if len(d.Unknown) != 3 || d.Unknown[0].Key != "Note" || d.Unknown[1].Key != "frobnicate" || d.Unknown[2].Key != "bogus" {
		t.Errorf("unknown %+v", d.Unknown)
	}
	if got := d.Get("many"); got == nil || got.Value != "true" {
		t.Errorf("Get returns the last: %+v", got)
	}
	if got := d.All("many"); len(got) != 2 {
		t.Errorf("All: %+v", got)
	}
}

// TestLineClassification is Morloc's parseDocKV: one leading space
// dropped and the rest of the indentation kept, `\` for a literal line,
// a lone `@` as prose, dotted keys in both spellings.
func TestLineClassification(t *testing.T) {
	d := Parse(lines(
		" Usage:",
		"   indented example",
		` \@x is literal`,
		` \Note: also literal`,
		" @",
		" @check.path r",
		" check.path: rw",
		" @list.form list",
		"trailing spaces   ",
	))
	wantLines := []string{"Usage:", "  indented example", "@x is literal", "Note: also literal", "@", "trailing spaces"}
	if !reflect.DeepEqual(d.Lines, wantLines) {
		t.Errorf("lines %q", d.Lines)
	}
	var keys []string
	for _, dir := range d.Directives {
		keys = append(keys, dir.Spelled()+"="+dir.Value)
	}
	if want := []string{"@check.path=r", "check.path:=rw", "@list.form=list"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("directives %q", keys)
	}
	// "Usage:" is a directive of an unknown key to Morloc too: a
	// warning, and the line kept as text.
	if len(d.Unknown) != 1 || d.Unknown[0].Key != "Usage" {
		t.Errorf("unknown %+v", d.Unknown)
	}
}

// TestEscape: an escaped line reads back as itself, as description.
func TestEscape(t *testing.T) {
	for _, line := range []string{"name: x", "@many", `\x`, "Note: y", "plain", "https://example.com", "@"} {
		d := Parse(lines(" " + Escape(line)))
		if len(d.Directives) != 0 || len(d.Unknown) != 0 || !reflect.DeepEqual(d.Lines, []string{line}) {
			t.Errorf("%q: lines %q, directives %v, unknown %v", line, d.Lines, d.Directives, d.Unknown)
		}
	}
}

func TestBothSpellingsAgree(t *testing.T) {
	for _, key := range []string{"name", "return", "metavar", "arg", "default", "true", "false", "many", "stdin", "unroll", "with", "render",
		"title", "icon", "source", "check.path", "literal", "epilogue", "form", "list.source", "list.form", "list.check.path", "rsize"} {
		colon := Parse(lines(" " + key + ": v w"))
		at := Parse(lines(" @" + key + " v w"))
		if len(colon.Directives) != 1 || len(at.Directives) != 1 ||
			colon.Directives[0].Key != key || at.Directives[0].Key != key ||
			colon.Directives[0].Value != "v w" || at.Directives[0].Value != "v w" {
			t.Errorf("%s: colon %+v, at %+v", key, colon.Directives, at.Directives)
		}
	}
}

func TestParseNames(t *testing.T) {
	tests := []struct {
		in   string
		want Names
		err  string
	}{
		{"-s/--long", Names{Short: "s", Long: "long", ShortAt: 0, LongAt: 3}, ""},
		{"--long", Names{Long: "long"}, ""},
		{"-s", Names{Short: "s"}, ""},
		{"--tmp-dir/-t", Names{Short: "t", Long: "tmp-dir", ShortAt: 10}, ""},
		{"-f, --factor", Names{Short: "f", Long: "factor", LongAt: 4}, ""},
		{"--no_color", Names{Long: "no_color"}, ""},
		{"-1", Names{}, "short option '-1' is not a letter"},
		{"-s/-1", Names{}, "short option '-1' is not a letter"},
		{"-ab", Names{}, "short option '-ab' must be one letter; write --ab for a long option"},
		{"long", Names{}, "expected an option name such as -s or --long, got 'long'"},
		{"--", Names{}, "long option '--' must start with a letter or a digit after '--', then letters, digits, '-' and '_'"},
		{"--a b", Names{}, "expected an option name such as -s or --long, got 'b'"},
		{"-a/-b", Names{}, "two short names: -a and -b"},
		{"", Names{}, "expected an option name: -s, --long or -s/--long"},
	}
	for _, tt := range tests {
		got, err := ParseNames(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: got %+v, %v", tt.in, got, err)
		}
	}
	// The error offset points at the bad part.
	_, err := ParseNames("-s/-1")
	if ve, ok := err.(*ValueError); !ok || ve.Offset != 3 {
		t.Errorf("offset: %#v", err)
	}
}

func TestParseAction(t *testing.T) {
	n, fn, off, err := ParseAction("-l/--lines=toLines 2")
	if err != nil || n != (Names{Short: "l", Long: "lines", LongAt: 3}) || fn != "toLines 2" || off != 11 {
		t.Errorf("got %+v %q %d %v", n, fn, off, err)
	}
	for _, bad := range []string{"--lines", "--lines=", "-1=f"} {
		if _, _, _, err := ParseAction(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseBool(t *testing.T) {
	for in, want := range map[string]bool{"": true, "true": true, "yes": true, "false": false, "no": false} {
		if got, err := ParseBool(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParseBool("maybe"); err == nil {
		t.Error("maybe accepted")
	}
}
