package check

import "github.com/nexus-run/nexus/manifest/types"

// IsBuiltinType reports whether name is a built-in type (Int, Str, Map,
// ...), which a record or an alias may not be called; also for code that
// writes programs (internal/codegen/mcpimport).
func IsBuiltinType(name string) bool {
	_, ok := builtinTypes[name]
	return ok || types.Sized(name) != nil
}
