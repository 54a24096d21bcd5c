package syntax

import "testing"

// Foreign operators in source lists: a bare operator, one with `as`, and
// backtick names, which need an `as`; `%inline` before the source.
func TestForeignOperatorItems(t *testing.T) {
	f := parseOK(t, "module m (f)\n"+
		"source Py ((+) as (<>))\n"+
		"%inline source Py from \"core.py\" ((+), (-), (*), \"add\" as (|+|))\n"+
		"source Py from \"lib.py\" (`and` as (&&), ` not in ` as (</>), `or` as orElse)\n"+
		"source Cpp from \"ops.hpp\" where\n  (%) as (%.)\n")
	type item struct {
		name, alias string
		infix       bool
		line, col   int // of the name
	}
	want := [][]item{
		{{"+", "<>", true, 2, 13}},
		{{"+", "+", true, 3, 36}, {"-", "-", true, 3, 41}, {"*", "*", true, 3, 46}, {"add", "|+|", false, 3, 50}},
		{{"and", "&&", true, 4, 26}, {" not in ", "</>", true, 4, 41}, {"or", "orElse", true, 4, 62}},
		{{"%", "%.", true, 6, 4}},
	}
	if len(f.Sources) != len(want) {
		t.Fatalf("%d sources, want %d", len(f.Sources), len(want))
	}
	for i, s := range f.Sources {
		if len(s.Items) != len(want[i]) {
			t.Fatalf("source %d: %d items, want %d: %+v", i, len(s.Items), len(want[i]), s.Items)
		}
		for j, it := range s.Items {
			w := want[i][j]
			if it.Name.Value != w.name || it.Alias.Name != w.alias || it.Infix != w.infix || it.Name.Pos.Line != w.line || it.Name.Pos.Col != w.col {
				t.Errorf("source %d item %d: %q as %q infix %v at %d:%d, want %q as %q infix %v at %d:%d",
					i, j, it.Name.Value, it.Alias.Name, it.Infix, it.Name.Pos.Line, it.Name.Pos.Col, w.name, w.alias, w.infix, w.line, w.col)
			}
		}
	}
	if !f.Sources[0].Builtin {
		t.Errorf("a source without 'from' is not marked Builtin")
	}
}

// Mistakes in foreign operator items, at their line and column.
func TestForeignOperatorItemErrors(t *testing.T) {
	checkFirstErrors(t, map[string]string{
		"source Py from \"lib.py\" (`and`)":        "2:26: the backtick name `and` needs 'as' and the program's operator: `and` as (&&)",
		"source Py from \"lib.py\" (`xor`)":        "2:26: the backtick name `xor` needs 'as' and the program's operator: `xor` as (<op>)",
		"source Py from \"lib.py\" (`and as (&&))": "2:26: unterminated backtick name",
		"source Py from \"lib.py\" (`` as (&&))":   "2:26: an empty backtick name",
		"source Py from \"lib.py\" ((f))":          "2:26: expected an operator in parentheses, like (+)",
		"source Py from \"lib.py\" ((+) as +.)":    "2:33: expected a name or an operator in parentheses after 'as', got operator",
		"f = `and`":                                "2:5: expected an expression",
	})
}
