package syntax

import (
	"strings"
	"testing"
)

// A closing bracket or a leading comma in column 1, and any token of a
// module header's export list, continue their item (digest 0.3: no layout
// inside brackets); a missing ')' is still reported at its own item.
func TestColumnOneInsideBrackets(t *testing.T) {
	f := parseOK(t, `module main (
double,
  triple
)
double x = [ 1
, 2
]
triple x = {a = 1
}
`)
	var exports []string
	for _, e := range f.Module.Exports {
		exports = append(exports, e.Name)
	}
	if strings.Join(exports, " ") != "double triple" || len(f.Defs) != 2 {
		t.Fatalf("exports %v, %d definitions", exports, len(f.Defs))
	}
	if got := exprString(f.Defs[0].Body); got != "[1, 2]" {
		t.Errorf("list across lines: %s", got)
	}
	_, sink := parse(t, "module m (f, g)\nf x = (x\ng = 1\nh = (\n")
	errs := sink.Errors()
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "2:") || !strings.Contains(errs[1].Error(), "4:") {
		t.Errorf("unclosed brackets: %v", errs)
	}
}
