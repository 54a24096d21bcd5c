package module

import (
	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
)

// headerless is the header of a file written without one. Morloc parses
// such a file again with `module main (*)` in front, so it is module main
// exporting everything; an import of the file names it after the import,
// as for any module.
func headerless(show string) *syntax.Module {
	pos := diag.Pos{Line: 1, Col: 1, File: show}
	return &syntax.Module{Pos: pos, Name: syntax.Name{Pos: pos, Name: "main"}, All: true}
}
