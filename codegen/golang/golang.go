// Package golang generates the Go pool of a program.
package golang

import (
	"errors"

	"github.com/nexus-run/nexus/manifest"
)

// Function is one sourced Go function to serve.
type Function struct {
	Spec *manifest.Function
	File string // absolute path of the user's .go file
}

// Write writes and builds the Go pool into dir, inside buildDir, and returns
// its launch command for the manifest.
func Write(dir, buildDir string, fns []Function) ([]string, error) {
	return nil, errors.New("Go pools are not supported yet")
}
