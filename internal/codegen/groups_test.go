package codegen

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
)

const groupLib = `source Py from "chem.py" ("upper", "shout", "count")
upper :: Str -> Str
shout :: Str -> Int -> Str
count :: [Int] -> Int
`

// TestExportGroups checks `--* group:` lines in a multi-line export list
// with comments between its entries: membership by position, descriptions
// with an escaped line, and `--* group:` ending grouping.
func TestExportGroups(t *testing.T) {
	p := compileOK(t, `-- a program with groups
module m (
  -- text tools first
  --* group: text
  --* Text utilities
  --* \group: not a header
  upper,   -- loud
  shout
  ,
  --* group: lists
  --* Lists of numbers
  count,

  --* group:
  version
)
--* this line outside the export list is a comment
`+groupLib+`
version :: Str
version = "1"
`)
	m := p.Manifest
	wantGroups := []manifest.CommandGroup{
		{Name: "text", Doc: []string{"Text utilities", "group: not a header"}},
		{Name: "lists", Doc: []string{"Lists of numbers"}},
	}
	if !reflect.DeepEqual(m.Groups, wantGroups) {
		t.Errorf("groups %+v, want %+v", m.Groups, wantGroups)
	}
	got := map[string]string{}
	for _, c := range m.Commands {
		got[c.Name] = c.Group
	}
	want := map[string]string{"upper": "text", "shout": "text", "count": "lists", "version": ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("command groups %v, want %v", got, want)
	}
	if n := m.Command("count").ToolName(); n != "lists_count" {
		t.Errorf("tool name %s, want lists_count", n)
	}
	if n := m.Command("version").ToolName(); n != "version" {
		t.Errorf("tool name %s, want version", n)
	}
}

// TestExportGroupErrors checks the build errors of groups, with their
// positions.
func TestExportGroupErrors(t *testing.T) {
	tests := []struct{ name, header, want string }{
		{"group without a colon", "module m (\n  --* group text\n  upper\n)\n", "2:7: malformed group line: expected `--* group: NAME`"},
		{"group name of two words", "module m (\n  --* group: two words\n  upper\n)\n", "2:14: malformed group line: the group name 'two words' must be one word"},
		{"group name starting with a dash", "module m (\n  --* group: -x\n  upper\n)\n", "2:14: malformed group line: the group name '-x'"},
		{"group declared twice", "module m (\n  --* group: a\n  upper,\n  --* group: a\n  shout\n)\n", "4:14: group 'a' is declared twice (the first at 2:14)"},
		{"group named like a command", "module m (\n  --* group: count\n  upper,\n  --* group:\n  count\n)\n", "2:14: group 'count' has the name of a command (at 5:3)"},
		{"tool name too long", "module m (\n  --* group: " + strings.Repeat("g", 60) + "\n  upper\n)\n", "3:3: the MCP tool name '" + strings.Repeat("g", 60) + "_upper' of command upper in group"},
		{"tool name clash", "module m (\n  --* group: a\n  b_c,\n  --* group:\n  a_b_c\n)\n" + "b_c :: Str -> Str\nb_c = upper\na_b_c :: Str -> Str\na_b_c = upper\n", "5:3: command a_b_c has the MCP tool name 'a_b_c', which command b_c (at 3:3) has too"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The library follows the header; positions are the header's.
			src := tt.header + groupLib
			if strings.Contains(tt.header, "::") {
				i := strings.Index(tt.header, ")\n") + 2
				src = tt.header[:i] + groupLib + tt.header[i:]
			}
			wantError(t, src, tt.want)
		})
	}
}

// TestExportGroupWarnings checks what is only a warning: a group without
// exported names (left out of the manifest) and a description line that
// follows no header.
func TestExportGroupWarnings(t *testing.T) {
	src := "module m (\n  --* stray\n  upper,\n  --* group: empty\n  --* group: text\n  shout\n)\n" + groupLib
	p := compileOK(t, src)
	all := strings.Join(p.Warnings, "\n")
	for _, want := range []string{"2:3: warning: a '--*' line that is not after a `--* group: NAME` header describes nothing", "4:14: warning: group 'empty' has no exported names after it"} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning %q among:\n%s", want, all)
		}
	}
	if len(p.Manifest.Groups) != 1 || p.Manifest.Groups[0].Name != "text" {
		t.Errorf("groups %+v, want only text", p.Manifest.Groups)
	}
}

// TestExportGroupDocBlank: a group's description drops blank lines first
// and last and trailing space, as a docstring does (help showed an empty
// first line after the name); a blank line inside stays.
func TestExportGroupDocBlank(t *testing.T) {
	p := compileOK(t, "module m (\n  --* group: text\n  --*\n  --* First   \n  --*\n  --* Second\n  --*\n  upper\n)\n"+groupLib)
	want := []manifest.CommandGroup{{Name: "text", Doc: []string{"First", "", "Second"}}}
	if !reflect.DeepEqual(p.Manifest.Groups, want) {
		t.Errorf("groups %q, want %q", p.Manifest.Groups, want)
	}
}
