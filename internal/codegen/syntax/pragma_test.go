package syntax

import "testing"

// `%inline` before a source declaration, at the top level or in an
// instance, is read and ignored; elsewhere it is still an error.
func TestInlinePragma(t *testing.T) {
	f := parseOK(t, `module m (*)
%inline source Py from "core.py" ("add", "neg")
class Zero a where
  zero :: a
instance Zero Int where
  %inline source Py from "core.py" ("zero_int" as zero)
`)
	if len(f.Sources) != 1 || len(f.Sources[0].Items) != 2 || f.Sources[0].Items[1].Name.Value != "neg" {
		t.Fatalf("top-level sources %+v", f.Sources)
	}
	if len(f.Instances) != 1 || len(f.Instances[0].Sources) != 1 {
		t.Fatalf("instance sources %+v", f.Instances)
	}
	checkFirstErrors(t, map[string]string{"f = %inline 1": "expected"})
}
