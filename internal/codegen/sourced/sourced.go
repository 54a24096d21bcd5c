// Package sourced is what every pool generator is given: the sourced
// functions of one language, each with the file it comes from, and the
// checks every generator relies on before it writes code for them.
package sourced

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Function is one sourced function a pool serves.
type Function struct {
	Spec *manifest.Function // id, source name, arg and return types
	File string             // absolute path of the user's source file
}

// Sorted returns a copy of fns in id order, with their files cleaned, once
// it has checked that each has a specification, a source name and an
// absolute file, and that no id is given twice. lang names the language in
// errors ("python", "C++", "go").
func Sorted(lang string, fns []Function) ([]Function, error) {
	if len(fns) == 0 {
		return nil, fmt.Errorf("%s pool without functions", lang)
	}
	sorted := append([]Function(nil), fns...)
	for i, f := range sorted {
		if f.Spec == nil {
			return nil, errors.New(lang + " function without a specification")
		}
		if f.Spec.Source == "" {
			return nil, fmt.Errorf("%s function %s has no source name", lang, f.Spec.Name)
		}
		if !filepath.IsAbs(f.File) {
			return nil, fmt.Errorf("%s function %s: source file %q is not an absolute path", lang, f.Spec.Name, f.File)
		}
		sorted[i].File = filepath.Clean(f.File)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Spec.ID < sorted[j].Spec.ID })
	for i := 1; i < len(sorted); i++ {
		if sorted[i-1].Spec.ID == sorted[i].Spec.ID {
			return nil, fmt.Errorf("%s function id %d given twice", lang, sorted[i].Spec.ID)
		}
	}
	return sorted, nil
}

// PreludeFile is the source file of a function of the prelude a pool runs
// itself (the loop of `map` over a function of that pool): not a file of
// the program's, but part of the pool's runtime, which each generator
// names in its own way.
const PreludeFile = "/nexus-prelude/prelude"

// OperatorsFile is the source file of a C++ foreign operator sourced
// without a file (`source Cpp ((+) as (|+|))`): the language itself, so
// nothing is included for it.
const OperatorsFile = "/nexus-operators/language"

// BuiltinsFile is the source file of a Python builtin sourced without a
// file (`source Py ("len" as size)`): Python's builtins module.
const BuiltinsFile = "/nexus-builtins/python"

// Signature writes spec's .loc type for messages, "Int -> [Int] -> Int",
// with parentheses around an argument that is a function.
func Signature(spec *manifest.Function) string {
	return types.FuncOf(spec.Return, spec.Args...).String()
}
