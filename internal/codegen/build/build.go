// Package build turns a checked program into a build folder and a launcher:
// what `nexus make` does after the front end has accepted the program.
//
// A build of NAME writes NAME-build/ (the manifest and one generated pool
// per language) and NAME, a small shell script that runs
// `nexus run <absolute manifest path> "$@"`, so the program works from any
// folder. The folder is written beside its final place and renamed into it,
// so a failed build never leaves half a program behind.
package build

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen"
	"github.com/nexus-run/nexus/internal/codegen/cpp"
	"github.com/nexus-run/nexus/internal/codegen/golang"
	"github.com/nexus-run/nexus/internal/codegen/python"
	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/manifest"
)

// Options says what to build and where.
type Options struct {
	// Source is the program's .loc file.
	Source string
	// Output is the launcher's path; the build folder is Output + "-build".
	// Empty means the module name, in the current folder.
	Output string
	// Nexus is the absolute path of the nexus binary the launcher runs.
	Nexus string
	// Python names the interpreter of a Python pool (a path, or a program
	// on PATH); empty means python3 on PATH. Make records the absolute
	// path of the interpreter itself in the manifest; see
	// python.FindInterpreter.
	Python string
}

// Result describes a finished build.
type Result struct {
	Launcher string // absolute path of the launcher
	Dir      string // absolute path of the build folder
	Manifest *manifest.Manifest
	Warnings []string
}

// Make compiles opts.Source and writes the build folder and launcher.
func Make(opts Options) (*Result, error) {
	prog, err := codegen.Compile(opts.Source)
	if err != nil {
		return nil, err
	}
	m := prog.Manifest
	out := opts.Output
	if out == "" {
		out = m.Name
	}
	launcher, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(launcher); err == nil && st.IsDir() {
		return nil, fmt.Errorf("output %s is a folder; give the program's file name with -o", out)
	}
	dir := launcher + "-build"
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("create build folder: %w", err)
	}
	defer os.RemoveAll(tmp)

	if err := writePools(m, prog.Sources, tmp, opts.Python); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("internal error: the compiled manifest is not valid: %w", err)
	}
	if err := m.Write(tmp); err != nil {
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("replace old build folder: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("move build folder into place: %w", err)
	}
	if err := writeLauncher(launcher, opts.Nexus, filepath.Join(dir, manifest.FileName)); err != nil {
		return nil, err
	}
	m.Dir = dir
	return &Result{Launcher: launcher, Dir: dir, Manifest: m, Warnings: prog.Warnings}, nil
}

// writePools generates each pool into tmp (the build folder to be) and
// fills in the pools' launch commands. interpreter names the one of
// the Python pool, as Options.Python does.
func writePools(m *manifest.Manifest, sources map[int]string, tmp, interpreter string) error {
	byLang := map[string][]sourced.Function{}
	for i := range m.Functions {
		f := &m.Functions[i]
		byLang[f.Pool] = append(byLang[f.Pool], sourced.Function{Spec: f, File: sources[f.ID]})
	}
	for i := range m.Pools {
		p := &m.Pools[i]
		dir := filepath.Join(tmp, "pools", p.Lang)
		var err error
		switch p.Lang {
		case manifest.Python:
			p.Interpreter, err = python.FindInterpreter(interpreter)
			if err == nil {
				err = python.CheckSyntax(p.Interpreter, byLang[p.Lang])
			}
			if err == nil {
				p.Command, err = python.WriteFor(p.Interpreter, dir, tmp, byLang[p.Lang])
			}
			p.PackedLists = true
		case manifest.Cpp:
			p.Command, err = cpp.Write(dir, tmp, byLang[p.Lang])
		case manifest.Go:
			p.Command, err = golang.Write(dir, tmp, byLang[p.Lang])
		default:
			err = fmt.Errorf("unknown pool language %q", p.Lang)
		}
		if err != nil {
			return fmt.Errorf("generate %s pool: %w", p.Lang, err)
		}
	}
	return nil
}

func writeLauncher(path, nexus, manifestPath string) error {
	if nexus == "" {
		return errors.New("internal error: no nexus binary path for the launcher")
	}
	script := "#!/bin/sh\n" +
		"# Written by `nexus make`; rebuild instead of editing.\n" +
		"exec " + shellQuote(nexus) + " run " + shellQuote(manifestPath) + ` "$@"` + "\n"
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
		return fmt.Errorf("write launcher: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write launcher: %w", err)
	}
	return nil
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
