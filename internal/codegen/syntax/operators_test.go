package syntax

import "testing"

// TestUserOperatorSyntax: any maximal run of operator characters is an
// operator, except the punctuation runs; a run stops before a negative
// number after punctuation and before an intrinsic.
func TestUserOperatorSyntax(t *testing.T) {
	checkBodies(t, map[string]string{
		"f = x +. y":          "(x +. y)",
		"f = x+.y":            "(x +. y)",
		"f = a <&> b |> c":    "(a <&> b |> c)",
		"f = a ?= b":          "(a ?= b)",
		"f = a ~~> b ^ c":     "(a ~~> b ^ c)",
		"f = a ## b":          "(a ## b)",
		"f = (+.)":            "(+.)",
		"f = (+. 1.0)":        "(+. 1r)",
		"f = (2 <+>)":         "(2 <+>)",
		"f = .[1:-1] xs":      "(<.[1:-1:_]> xs)",
		"f = .[::-1] xs":      "(<.[_:_:-1]> xs)",
		"f = {a=-1}":          "{a = -1}",
		"f = ? x>=0 = 1 : -1": "(? (x >= 0) = 1 : -1)",
	})
	f := parseOK(t, "module m (f)\n(+.) :: Real -> Real -> Real\n(+.) x y = x\ninfixl 6 +., <&>\nsource Py from \"ops.py\" (\"add\" as (<&>))\n")
	if len(f.Signatures) != 1 || f.Signatures[0].Name.Name != "+." || f.Signatures[0].Name.Pos.Col != 2 {
		t.Errorf("signature of (+.): %+v", f.Signatures)
	}
	if len(f.Defs) != 1 || f.Defs[0].Name.Name != "+." || len(f.Defs[0].Params) != 2 {
		t.Errorf("definition of (+.): %+v", f.Defs)
	}
	if len(f.Fixities) != 1 || len(f.Fixities[0].Ops) != 2 || f.Fixities[0].Ops[1].Name != "<&>" {
		t.Errorf("fixities: %+v", f.Fixities)
	}
	if it := f.Sources[0].Items[0]; it.Name.Value != "add" || it.Alias.Name != "<&>" {
		t.Errorf("source item: %+v", it)
	}
	checkFirstErrors(t, map[string]string{
		"x +. y = x":                             "2:3: an operator is defined in prefix form: write (+.) x y = ..., not x +. y = ...",
		"f = x | y":                              "2:7: unexpected '|': it is reserved, and no operator on its own",
		"source Py from \"ops.py\" (\"a\" as +)": "2:33: expected a name or an operator in parentheses after 'as', got operator",
	})
}
