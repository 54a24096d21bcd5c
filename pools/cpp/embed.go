// Package cpp holds the runtime of nexus's C++ pools, embedded so the nexus
// binary can build a C++ pool for any program:
//
//   - nexus_pool.hpp, which generated code includes: msgpack conversion
//     into the parameter types the user's functions declare, and the
//     function table;
//   - nexus_prelude.hpp, which main.cpp includes when the program runs a
//     prelude loop (map, filter, fold, ...) over a C++ function in the pool;
//   - nexus_pool.cpp, the gRPC server that speaks go-plugin's protocol and
//     serves nexus.pool.Pool (proto/pool.proto), its few messages encoded
//     by hand as the Python pool does.
//
// internal/codegen/cpp compiles the runtime once per toolchain and caches it.
package cpp

import (
	"embed"
	"fmt"
	"path"
)

// Dir is the runtime's folder in FS. (Go refuses C++ files beside Go files
// unless the package uses cgo, so they sit in a folder of their own.)
const Dir = "nexus_pool"

// The runtime's files, by name inside Dir.
const (
	Header = "nexus_pool.hpp"
	// Prelude is the header of the prelude's loops (sourced.PreludeFile).
	Prelude = "nexus_prelude.hpp"
	Source  = "nexus_pool.cpp"
)

// FS holds the runtime's files, as Dir/Header, Dir/Prelude and Dir/Source.
//
//go:embed nexus_pool/nexus_pool.hpp nexus_pool/nexus_prelude.hpp nexus_pool/nexus_pool.cpp
var FS embed.FS

// ReadFile returns the runtime's file name (Header, Prelude or Source).
func ReadFile(name string) ([]byte, error) {
	data, err := FS.ReadFile(path.Join(Dir, name))
	if err != nil {
		return nil, fmt.Errorf("C++ pool runtime: %w", err)
	}
	return data, nil
}
