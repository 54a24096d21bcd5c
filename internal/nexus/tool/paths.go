package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nexus-run/nexus/manifest"
)

// CheckPath checks the precondition `@check.path mode` on path, before any
// pool is called: "r" readable, "w" writable (an existing file, or a new
// one in a folder that can be written), "x" must not exist, "rw" an
// existing file both readable and writable. The error says what is wrong
// in words fit for a usage error.
func CheckPath(mode, path string) error {
	switch mode {
	case "r":
		return readable(path)
	case "w":
		return writable(path)
	case "rw":
		if err := readable(path); err != nil {
			return err
		}
		return writable(path)
	case "x":
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("'%s' exists already, and must not", path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("'%s' cannot be checked: %v", path, unwrapPath(err))
		}
		return nil
	}
	return fmt.Errorf("unknown path check %q", mode)
}

func readable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("'%s' cannot be read: %v", path, unwrapPath(err))
	}
	return f.Close()
}

// writable opens an existing file for writing without truncating it, or,
// for a new one, makes and removes a file in its folder: a portable
// check, where access(2) is not.
func writable(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("'%s' cannot be written: %v", path, unwrapPath(err))
	}
	probe, err := os.CreateTemp(filepath.Dir(path), ".nexus-check-*")
	if err != nil {
		return fmt.Errorf("'%s' cannot be written: %v", path, unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// unwrapPath is the reason of a *fs.PathError, whose path the message
// names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkPaths applies the `@check.path` of each argument to its value. An
// argument read from a file (`@source file`) is given over MCP as the
// text itself, so it has no path to check here.
func (t *Tool) checkPaths(args []any) error {
	for i := range t.cmd.Args {
		a := &t.cmd.Args[i]
		s, ok := args[i].(string)
		if a.CheckPath == "" || a.Source == manifest.SourceFile || !ok {
			continue
		}
		if err := CheckPath(a.CheckPath, s); err != nil {
			key := t.keyOf(i, "")
			return argErrorf(t.Name, []string{key}, "invalid value for argument '%s': %v", key, err)
		}
	}
	return nil
}
