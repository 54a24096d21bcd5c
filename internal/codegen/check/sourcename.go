package check

import (
	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
)

// foreignName is the name a sourced item has in its file, and where it is
// written: the item's own, or the `@name` directive above an item of a
// `source ... where` block, Morloc's way of sourcing a foreign name under
// another (`--' @name twice_it` above `tw`).
//
// The checker's sourceItemDoc checks what else stands there.
func foreignName(it syntax.SourceItem) (string, diag.Pos) {
	d := doc.Parse(it.Doc)
	if n := d.Get("name"); n != nil && n.Value != "" {
		return n.Value, n.ValuePos
	}
	return it.Name.Value, it.Name.Pos
}
