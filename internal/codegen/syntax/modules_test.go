package syntax

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

// importString prints an import back in a canonical form.
func importString(im *Import) string {
	var b strings.Builder
	if im.Local {
		b.WriteString(".")
	}
	b.WriteString(im.Module.Name)
	if im.As != nil {
		b.WriteString(" as " + im.As.Name)
	}
	if im.List {
		var items []string
		for _, it := range im.Items {
			s := it.Name.Name
			if it.Alias.Name != it.Name.Name {
				s += " as " + it.Alias.Name
			}
			items = append(items, s)
		}
		b.WriteString(" (" + strings.Join(items, ", ") + ")")
	}
	return b.String()
}

// TestImportForms: every import form of Morloc's section 6.2.
func TestImportForms(t *testing.T) {
	for src, want := range map[string]string{
		"import root-py":                                     "root-py",
		"import root-py (map, (<>))":                         "root-py (map, <>)",
		"import ops ((+.) as (++.), mean as avg, Path as P)": "ops (+. as ++., mean as avg, Path as P)",
		"import m ()":                                        "m ()",
		"import .helpers":                                    ".helpers",
		"import .lib.math (square)":                          ".lib.math (square)",
		"import .helpers as h":                               ".helpers as h",
		"import maybe-py as m (require)":                     "maybe-py as m (require)",
		"import math.stats":                                  "math.stats",
		"import .a.b.c":                                      ".a.b.c",
	} {
		f := parseOK(t, "module m (*)\n"+src+"\n")
		if len(f.Imports) != 1 {
			t.Fatalf("%q: %d imports", src, len(f.Imports))
		}
		if got := importString(f.Imports[0]); got != want {
			t.Errorf("%q: %q, want %q", src, got, want)
		}
	}
}

// TestExportForms: export lists with operators and types, an empty one,
// and a module without a name.
func TestExportForms(t *testing.T) {
	for src, want := range map[string]string{
		"module m (f, (+.), T)": "m [f +. T]",
		"module m ()":           "m []",
		"module (*)":            " * []",
	} {
		m := parseOK(t, src+"\n").Module
		star := ""
		if m.All {
			star = " *"
		}
		var ex []string
		for _, e := range m.Exports {
			ex = append(ex, e.Name)
		}
		if got := fmt.Sprintf("%s%s %v", m.Name.Name, star, "["+strings.Join(ex, " ")+"]"); got != want {
			t.Errorf("%q: %q, want %q", src, got, want)
		}
	}
}

// TestQualifiedNames: `h.double` is one name, composition needs spaces,
// and `.x` after a space is a getter.
func TestQualifiedNames(t *testing.T) {
	checkBodies(t, map[string]string{
		"f x = h.double x":              "(h.double x)",
		"f x = (h.double . h.triple) x": "((h.double . h.triple) x)",
		"f x = h.double .x":             "(h.double .x)",
		"f x = g.h.k":                   "(g.h . k)",
	})
}

// TestImportErrors: what a broken import or export list reports.
func TestImportErrors(t *testing.T) {
	checkFirstErrors(t, map[string]string{
		"import .":        "2:8: expected a module name after 'import', got '.'",
		"import m (a b)":  "2:13: expected ',' or ')' in the import list, got 'b'",
		"import m ((a))":  "2:12: expected an operator and ')' after '(' in an imported name, got 'a'",
		"import m (())":   "2:12: expected an operator between '(' and ')' in an imported name",
		"import m as":     "2:12: expected a qualifier after 'as', got end of input",
		"import m (a as)": "2:15: expected a name after 'as', got ')'",
	})
}

// TestParseModules: each header starts a module; positions carry the
// file they are in.
func TestParseModules(t *testing.T) {
	sink := &diag.Sink{File: "main.loc"}
	files := ParseModules("module a (f)\nf = 1\n\nmodule b (g)\nimport a\ng = f\n", "lib/x.loc", sink)
	if errs := sink.Errors(); errs != nil {
		t.Fatal(errs)
	}
	if len(files) != 2 || files[0].Module.Name.Name != "a" || files[1].Module.Name.Name != "b" || len(files[1].Imports) != 1 || len(files[0].Defs) != 1 {
		t.Fatalf("modules: %+v", files)
	}
	if p := files[1].Defs[0].Name.Pos; p != (diag.Pos{Line: 6, Col: 1, File: "lib/x.loc"}) {
		t.Errorf("position %v", p)
	}
	ParseModules("module a (f)\nf = (\n", "lib/x.loc", sink)
	if errs := sink.Errors(); len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "lib/x.loc:2:6: ") {
		t.Errorf("errors %v, want one in lib/x.loc", errs)
	}
}
