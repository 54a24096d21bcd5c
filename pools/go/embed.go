package gopool

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/nexus-run/nexus/proto"
)

// The nexus builds Go pools from source wherever it runs, without its own
// source tree: it carries the runtime (this package and package proto) and
// the nexus module's go.mod and go.sum, and writes them into the build
// folder as a copy of module github.com/nexus-run/nexus that the generated
// pool's module requires. This file is the part of the package the nexus
// uses for that; it is not copied into pools.
//
// gomod.txt and gosum.txt are copies of the repository's go.mod and go.sum,
// so a pool builds against exactly the versions the nexus was built and
// tested with. TestModuleFilesMatchRepository fails when they drift;
// refresh them with
//
//	go generate ./pools/go
//
//go:generate cp ../../go.mod gomod.txt
//go:generate cp ../../go.sum gosum.txt

//go:embed *.go gomod.txt gosum.txt
var files embed.FS

// ModuleVersion is the version the generated pool's go.mod requires the
// nexus module at; a replace directive points it at the copy.
const ModuleVersion = "v0.0.0"

// GoMod returns the text of a go.mod for module path with the nexus
// module's go version and requirements.
func GoMod(path string) []byte {
	text := mustRead("gomod.txt")
	lines := strings.SplitAfter(string(text), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "module ") {
			lines[i] = "module " + path + "\n"
			break
		}
	}
	return []byte(strings.Join(lines, ""))
}

// GoSum returns the nexus module's go.sum, which covers every module a
// pool's build needs.
func GoSum() []byte {
	return mustRead("gosum.txt")
}

func mustRead(name string) []byte {
	data, err := files.ReadFile(name)
	if err != nil {
		panic(err) // embedded: cannot fail
	}
	return data
}

// WriteModule writes the copy of the nexus module into dir: go.mod and the
// Go files of the runtime (pools/go) and of package proto.
func WriteModule(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write Go pool runtime: %w", err)
	}
	if err := writeFile(filepath.Join(dir, "go.mod"), GoMod(ModulePath)); err != nil {
		return err
	}
	if err := copyGo(files, ".", filepath.Join(dir, "pools", "go"), "embed.go"); err != nil {
		return err
	}
	return copyGo(proto.Sources, ".", filepath.Join(dir, "proto"), "embed.go")
}

// copyGo copies the non-test Go files of folder from of fsys into dir,
// except skip.
func copyGo(fsys fs.FS, from, dir, skip string) error {
	entries, err := fs.ReadDir(fsys, from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write Go pool runtime: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == skip {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(from, name))
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(name string, data []byte) error {
	if err := os.WriteFile(name, data, 0o644); err != nil {
		return fmt.Errorf("write Go pool runtime: %w", err)
	}
	return nil
}
