// Package lazyre holds regular expressions compiled on first use. The
// codegen packages are linked into every nexus, and most runs of it (a
// program's command, an MCP server) never build a program: compiled at
// package initialization, their expressions cost every start of the
// nexus a third of a millisecond.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// and returns the same *regexp.Regexp every time. expr must compile, as
// with regexp.MustCompile.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
