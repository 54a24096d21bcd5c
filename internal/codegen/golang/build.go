package golang

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/lazyre"
)

// CompileError is Go code of the user's that does not compile (or parse):
// the compiler's messages, those about the user's files first, each naming
// the user's file and line.
type CompileError struct {
	Output string
}

func (e *CompileError) Error() string {
	return "the Go code does not compile:\n" + e.Output
}

// buildFlags make the build reproducible, so that Go's build cache serves
// a rebuild of unchanged sources: -buildvcs=false keeps the state of a
// surrounding repository out, and -mod=readonly builds from the
// requirements as written, never editing go.mod. -s -w leave out the
// symbol table and DWARF, which pools do not need (panics still print file
// and line), and make the link faster.
//
// The flags are otherwise Go's defaults on purpose (no -trimpath): then
// the compiled dependencies (gRPC, protobuf, go-plugin) are the very ones
// `make build` of the nexus left in the build cache, and a first pool
// build compiles only the runtime and the user's code. The folder a pool
// is built in is part of the cache key of its own packages; a program is
// always built in the same place (NAME-build.tmp), so its rebuilds hit.
var buildFlags = []string{"build", "-buildvcs=false", "-mod=readonly", "-ldflags=-s -w", "-o", BinaryName, "."}

// buildPool runs `go build` in dir: without cgo first, as `make build`
// builds the nexus, since a static pool starts without the dynamic loader
// (its handshake came 0.6 ms sooner here, 2.8 ms against 3.4 ms); and
// when that fails (the user's code or a module it uses needs C), with cgo
// as the environment has it. A CGO_ENABLED the user set is obeyed as it
// is.
func buildPool(dir string, m *module) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("building the Go pool needs the go command on PATH: %w", err)
	}
	env := buildEnv(os.Environ())
	if _, set := os.LookupEnv("CGO_ENABLED"); !set {
		cmd := exec.Command(goBin, buildFlags...)
		cmd.Dir = dir
		cmd.Env = append(env, "CGO_ENABLED=0")
		if cmd.Run() == nil {
			return nil
		}
	}
	cmd := exec.Command(goBin, buildFlags...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return fmt.Errorf("run go build: %w", err)
	}
	return &CompileError{Output: compilerOutput(string(out), dir, m.copies)}
}

// reusePrevious copies the pool binary of the build folder being replaced
// into dir, when there is one. Go's build cache holds compiled packages but
// not linked programs, so every build would link again (a second or more);
// with the previous binary in place, `go build` finds it up to date (its
// build ID records its inputs) and skips the link, or links afresh when
// something changed. codegen/build writes a build folder NAME-build as
// NAME-build.tmp and renames it into place, so the previous one is found
// without the suffix; elsewhere this does nothing.
func reusePrevious(dir, buildDir, rel string) {
	final, ok := strings.CutSuffix(buildDir, ".tmp")
	if !ok {
		return
	}
	old, err := os.ReadFile(filepath.Join(final, rel, BinaryName))
	if err != nil {
		return
	}
	_ = os.WriteFile(filepath.Join(dir, BinaryName), old, 0o755)
}

// buildEnv is the environment of `go build`: the user's, with a
// surrounding go.work ignored.
func buildEnv(env []string) []string {
	return append(env, "GOWORK=off", "GO111MODULE=on")
}

// compilerOutput makes go build's output about the user's code read as if
// the user had compiled their own files: positions in the copies (which the
// //line directives mostly take care of) and in the user's files, which
// the go command writes relative to the pool's folder, become the user's
// paths as `nexus make` was given them; package headers and download
// chatter go; and the messages about the user's files come first.
func compilerOutput(out, dir string, copies map[string]string) string {
	users := map[string]bool{}
	for _, u := range copies {
		users[u] = true
	}
	type block struct {
		lines []string
		user  bool
	}
	var blocks []*block
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.HasPrefix(line, "# ") || strings.HasPrefix(line, "go: downloading ") || line == "" {
			continue
		}
		if strings.HasPrefix(line, "\t") && len(blocks) > 0 {
			if strings.HasPrefix(line, "\tgo get ") || strings.HasPrefix(line, "\tgo mod ") {
				continue // advice for the generated module, not the user's
			}
			b := blocks[len(blocks)-1]
			b.lines = append(b.lines, line)
			continue
		}
		if strings.Contains(line, "no required module provides package") || strings.Contains(line, "missing go.sum entry for module providing package") {
			line, _, _ = strings.Cut(line, "; to add")
			line, _, _ = strings.Cut(line, " (imported by ")
			line += " (a Go pool builds with the standard library and the modules nexus itself uses; other modules cannot be imported)"
		}
		b := &block{}
		if m := filePosition().FindStringSubmatchIndex(line); m != nil {
			path := line[m[2]:m[3]]
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			if rel, err := filepath.Rel(dir, path); err == nil {
				if user, ok := copies[filepath.ToSlash(rel)]; ok {
					path = user
				}
			}
			b.user = users[path]
			line = diag.DisplayPath(path) + line[m[3]:]
		}
		b.lines = append(b.lines, line)
		blocks = append(blocks, b)
	}
	sort.SliceStable(blocks, func(i, j int) bool { return blocks[i].user && !blocks[j].user })
	var buf bytes.Buffer
	for _, b := range blocks {
		for _, l := range b.lines {
			buf.WriteString(l + "\n")
		}
	}
	if buf.Len() == 0 {
		return strings.TrimRight(out, "\n")
	}
	return strings.TrimRight(buf.String(), "\n")
}

// filePosition matches the file of a message that opens with a position:
// path/file.go:12:3: ...
var filePosition = lazyre.New(`^([^\s:][^:]*\.go):\d+`)
