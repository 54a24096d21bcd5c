// Package codegen is the `.loc` front end of `nexus make`: Compile reads a
// program, parses it (codegen/syntax), checks it (codegen/check) and returns
// its manifest. The pool generators (codegen/python and its siblings) and
// the build (codegen/build) take it from there.
package codegen

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nexus-run/nexus/internal/codegen/check"
	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/module"
	"github.com/nexus-run/nexus/manifest"
)

// Program is a compiled program.
type Program struct {
	// Manifest has Nexus, Name, Doc, Functions and Commands filled in, and
	// one Pool per language the commands call, with Lang only: the pool
	// generators fill in each Command.
	Manifest *manifest.Manifest
	// Sources maps a function id to the absolute path of its source file.
	Sources map[int]string
	// Warnings are "file:line:col: warning: ..." lines, such as unknown
	// directives.
	Warnings []string
}

// Error is one build error; Error() is "file:line:col: message".
type Error = diag.Error

// ErrorList is every error of a failed build, one a line.
type ErrorList = diag.ErrorList

// Compile parses and checks the program at path (a .loc file) and returns
// it. On failure err is an ErrorList: every error one line
// "file:line:col: message".
func Compile(path string) (*Program, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, ErrorList{{File: path, Line: 1, Col: 1, Msg: fmt.Sprintf("cannot read the program: %v", unwrapPathError(err))}}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, ErrorList{{File: path, Line: 1, Col: 1, Msg: err.Error()}}
	}
	sink := &diag.Sink{File: path}
	file := module.Load(path, string(data), sink)
	if errs := sink.Errors(); errs != nil || file == nil {
		return nil, errs
	}
	res := check.Check(file, filepath.Dir(abs), sink)
	if errs := sink.Errors(); errs != nil || res == nil {
		if errs == nil {
			errs = ErrorList{{File: path, Line: 1, Col: 1, Msg: "internal error: the program was rejected without a reason"}}
		}
		return nil, errs
	}
	return &Program{Manifest: res.Manifest, Sources: res.Sources, Warnings: sink.Warnings()}, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
