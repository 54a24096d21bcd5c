package module

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/syntax"
)

// standardQualified reads `m.lookup`, where m qualifies a standard module
// (`import map as m`), as the standard module's `lookup`: the standard
// modules are built into the checker, which knows their names unqualified.
// A name the module binds itself hides the standard one there, so `m.x`
// beside a definition of x is an error rather than a call of the wrong x.
func (r *renamer) standardQualified(v *syntax.Var) {
	q, name, ok := strings.Cut(v.Name, ".")
	if !ok || !r.standard[q] {
		return
	}
	if _, own := r.names[name]; own {
		r.sink.Errorf(v.Pos, "'%s' names the standard module's '%s' (imported as %s), but this module has a '%s' of its own, which hides it; rename the module's own", v.Name, name, q, name)
		return
	}
	v.Name = name
}
