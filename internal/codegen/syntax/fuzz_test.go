package syntax

import (
	"testing"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

// FuzzParse checks that no input makes the parser panic or report an
// error without a position.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"module m (*)\nf x = g x (h [1, 2.5]) . .x\n",
		"--' doc\nmodule m (a)\nrecord R where\n  --' f\n  a :: Map Str ?[Int]\n",
		"module m (a)\nsource Py from \"a.py\" (\"a\" as b)\nb :: <IO> (Int, Str) -> ()\n",
		"{- {- -} -}\nmodule m (a)\nf = {a = \"\\u00e9\", b = (1, -2e3)}\n",
		"module m (a)\nf _ = @throw \"x\"\n",
		"module m (a)\nclass Semigroup a => Monoid a where\n  (<>) :: a -> a -> a\ninstance Monoid Str, Monoid [a] where\n  source Py from \"a.py\" (\"j\" as (<>))\n  mempty = \"\"\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		sink := &diag.Sink{File: "f.loc"}
		Parse(src, sink)
		for _, e := range sink.Errors() {
			if e.Line < 1 || e.Col < 1 {
				t.Fatalf("error without a position: %v", e)
			}
		}
		ParseExpr(src, diag.Pos{Line: 1, Col: 1}, sink)
	})
}
