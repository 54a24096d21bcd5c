// Package python holds the runtime of nexus's Python pools: the Python
// package nexus_pool (standard library, grpcio and msgpack only), embedded
// so the nexus binary can write it into every build folder that has a
// Python pool. internal/codegen/python writes it beside the generated pool.py.
package python

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Package is the runtime's Python package name, and its folder in FS.
const Package = "nexus_pool"

// FS holds the runtime's source files as nexus_pool/*.py.
//
//go:embed nexus_pool/*.py
var FS embed.FS

// Write copies the runtime into dir, as dir/nexus_pool/*.py, creating the
// folders it needs.
func Write(dir string) error {
	target := filepath.Join(dir, Package)
	if err := os.MkdirAll(target, 0o755); err != nil {
		return fmt.Errorf("write Python pool runtime: %w", err)
	}
	files, err := fs.Glob(FS, Package+"/*.py")
	if err != nil {
		return err
	}
	for _, name := range files {
		data, err := FS.ReadFile(name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), data, 0o644); err != nil {
			return fmt.Errorf("write Python pool runtime: %w", err)
		}
	}
	return nil
}
