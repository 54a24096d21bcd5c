package golang

import (
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// recordGoName is the Go type a record is mapped to (`record Go => R =
// "T"`), or "" when any struct with its fields will do: without a map, or
// with types.GenerateStruct, which in Go means the struct the function
// declares (a Go pool compiles the user's package as written, so nothing
// is generated into it).
func recordGoName(t *types.Type) string {
	name := t.Langs[manifest.Go]
	if name == types.GenerateStruct {
		return ""
	}
	return name
}
