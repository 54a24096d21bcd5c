// Package cpp generates the C++ pool of a program.
package cpp

import (
	"errors"

	"github.com/nexus-run/nexus/manifest"
)

// Function is one sourced C++ function to serve.
type Function struct {
	Spec *manifest.Function
	File string // absolute path of the user's header
}

// Write writes and compiles the C++ pool into dir, inside buildDir, and
// returns its launch command for the manifest.
func Write(dir, buildDir string, fns []Function) ([]string, error) {
	return nil, errors.New("C++ pools are not supported yet")
}
