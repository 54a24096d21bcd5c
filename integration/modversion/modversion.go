// Package modversion says which version of a module a benchmark binary was
// built with, for the reports of `make load` and `make peers`.
package modversion

import "runtime/debug"

// Of returns the version of module path in the running binary's build, or
// "(version unknown)".
func Of(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == path {
				return m.Version
			}
		}
	}
	return "(version unknown)"
}
