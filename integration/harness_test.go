// Package integration holds the end-to-end tests: they build the nexus
// binary, compile real programs with `nexus make`, and drive the launchers
// as a user would, with real pools behind them.
package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/integration/procstat"
)

// nexusBin is the nexus binary built once for the whole test run.
var nexusBin string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "nexus-integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// A test re-run inside a network namespace of its own (inLoopbackOnly)
	// is given the nexus its parent built.
	if bin := os.Getenv(builtNexusEnv); bin != "" {
		nexusBin = bin
		return m.Run()
	}
	nexusBin = filepath.Join(dir, "nexus")
	// The tags and cgo setting of `make build`, so the tests run what
	// ships.
	build := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", nexusBin, "github.com/nexus-run/nexus/cmd/nexus")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build nexus:", err)
		return 1
	}
	return m.Run()
}

// program is a built program under test.
type program struct {
	t        *testing.T
	dir      string // the folder holding main.loc and sources
	launcher string // absolute path of ./NAME
	tmp      string // TMPDIR of every run, to check nothing is left in it
}

// files maps a file name to its contents.
type files map[string]string

// writeFiles writes fs into a new temporary folder and returns it.
func writeFiles(t *testing.T, fs files) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range fs {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// build writes fs (which must hold main.loc) and runs `nexus make -o prog
// [makeFlags...] main.loc` there; the build must succeed.
func build(t *testing.T, fs files, makeFlags ...string) *program {
	t.Helper()
	dir := writeFiles(t, fs)
	args := append(append([]string{"make", "-o", "prog"}, makeFlags...), "main.loc")
	res := runIn(t, dir, nil, nexusBin, args...)
	if res.code != 0 {
		t.Fatalf("nexus make failed (exit %d):\n%s%s", res.code, res.stdout, res.stderr)
	}
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	return &program{t: t, dir: dir, launcher: filepath.Join(dir, "prog"), tmp: tmp}
}

// makeFails runs `nexus make` on fs and returns its stderr; the build must fail.
func makeFails(t *testing.T, fs files) string {
	t.Helper()
	dir := writeFiles(t, fs)
	res := runIn(t, dir, nil, nexusBin, "make", "-o", "prog", "main.loc")
	if res.code == 0 {
		t.Fatalf("nexus make succeeded, want a build error")
	}
	if nexusCrashed(res.stderr) {
		t.Fatalf("nexus make crashed:\n%s", res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "prog")); err == nil {
		t.Errorf("a failed build left a launcher behind")
	}
	return res.stderr
}

// editFails is makeFails of fs with its main.loc edited by edits, pairs
// of text and its replacement.
func editFails(t *testing.T, fs files, edits []string) string {
	t.Helper()
	broken := files{}
	for k, v := range fs {
		broken[k] = v
	}
	broken["main.loc"] = strings.NewReplacer(edits...).Replace(fs["main.loc"])
	return makeFails(t, broken)
}

type result struct {
	stdout, stderr string
	code           int
}

func runIn(t *testing.T, dir string, stdin []byte, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v", name, err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// run runs the launcher with args from another folder than the program's,
// as a user would, with TMPDIR pointed at the program's private temp folder.
func (p *program) run(args ...string) result {
	p.t.Helper()
	return p.runStdin(nil, args...)
}

func (p *program) runStdin(stdin []byte, args ...string) result {
	p.t.Helper()
	cmd := append([]string{"env", "TMPDIR=" + p.tmp, p.launcher}, args...)
	res := runIn(p.t, p.t.TempDir(), stdin, cmd[0], cmd[1:]...)
	if nexusCrashed(res.stderr) {
		p.t.Fatalf("%v crashed:\n%s", args, res.stderr)
	}
	p.checkClean()
	return res
}

// ok runs args, requires exit 0, and returns stdout.
func (p *program) ok(args ...string) string {
	p.t.Helper()
	res := p.run(args...)
	if res.code != 0 {
		p.t.Fatalf("%v: exit %d, want 0\nstdout: %s\nstderr: %s", args, res.code, res.stdout, res.stderr)
	}
	return res.stdout
}

// fails runs args, requires the given exit code, and returns stderr.
func (p *program) fails(code int, args ...string) string {
	p.t.Helper()
	res := p.run(args...)
	if res.code != code {
		p.t.Fatalf("%v: exit %d, want %d\nstdout: %s\nstderr: %s", args, res.code, code, res.stdout, res.stderr)
	}
	if res.stdout != "" {
		p.t.Errorf("%v: failed but printed on stdout: %q", args, res.stdout)
	}
	return res.stderr
}

// checkClean fails the test when a pool process of this run is still
// running or something is left in its temp folder. The processes of a run
// are those of the program that carry its TMPDIR, so that runs of one
// program side by side, each with its own temp folder, are told apart.
func (p *program) checkClean() {
	p.t.Helper()
	build := p.launcher + "-build"
	// A pool is told to stop before the nexus exits, but the process may
	// take a moment to be reaped; give it a short while.
	deadline := time.Now().Add(3 * time.Second)
	for {
		procs := processesMentioning(build, "TMPDIR="+p.tmp)
		if len(procs) == 0 {
			break
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("pool processes left behind: %v", procs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	entries, err := os.ReadDir(p.tmp)
	if err != nil {
		p.t.Fatal(err)
	}
	if len(entries) > 0 {
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		p.t.Fatalf("left in TMPDIR: %v", names)
	}
}

// nexusCrash is what a Go crash of nexus itself prints: a panic, or a
// traceback through nexus's own code. A Go pool that dies of a fatal
// error (a stack overflow, say) prints a traceback too, but through the
// pool runtime's code and the user's, which is the user's failure, not a
// crash of nexus.
var nexusCrash = regexp.MustCompile(`(?m)^panic: |^github\.com/nexus-run/nexus/(internal|cmd)/`)

// nexusCrashed reports whether stderr shows nexus crashing.
func nexusCrashed(stderr string) bool { return nexusCrash.MatchString(stderr) }

// processesMentioning lists the live processes whose command line
// contains s and, if env is given, whose environment holds each of env's
// NAME=value entries.
func processesMentioning(s string, env ...string) []string {
	var found []string
	for _, pid := range procstat.PIDs() {
		if !procstat.Alive(pid) {
			continue
		}
		line := strings.Join(procstat.Cmdline(pid), " ")
		if !strings.Contains(line, s) {
			continue
		}
		all := true
		for _, kv := range env {
			all = all && procstat.Environ(pid, kv)
		}
		if all {
			found = append(found, fmt.Sprintf("%d: %s", pid, line))
		}
	}
	return found
}
