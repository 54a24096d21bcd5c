package python

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// realInterpreter is the interpreter FindInterpreter finds on the test's
// PATH, which must have the pool's packages (the project's setup installs
// them).
func realInterpreter(t *testing.T) string {
	t.Helper()
	py, err := FindInterpreter("")
	if err != nil {
		t.Fatalf("FindInterpreter(\"\"): %v", err)
	}
	if !filepath.IsAbs(py) {
		t.Fatalf("FindInterpreter(\"\") = %q, not an absolute path", py)
	}
	return py
}

// writeScript writes an executable shell script name into dir.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// A shim on PATH (as pyenv and asdf install) is a script that needs the
// user's PATH to find Python: what is recorded is the interpreter behind
// it.
func TestFindInterpreterSeesThroughShims(t *testing.T) {
	real := realInterpreter(t)
	shims := t.TempDir()
	shim := writeScript(t, shims, Interpreter, `exec '`+real+`' "$@"`)
	t.Setenv("PATH", shims+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, requested := range []string{"", Interpreter, shim} {
		got, err := FindInterpreter(requested)
		if err != nil {
			t.Fatalf("FindInterpreter(%q) through a shim: %v", requested, err)
		}
		if got != real {
			t.Errorf("FindInterpreter(%q) through a shim = %q, want the interpreter behind it, %q", requested, got, real)
		}
	}
}

// An interpreter without the pool's packages is refused, naming the
// interpreter and the pip command that installs what is missing, and only
// that.
func TestFindInterpreterMissingPackage(t *testing.T) {
	real := realInterpreter(t)
	hide := t.TempDir()
	if err := os.WriteFile(filepath.Join(hide, "grpc.py"), []byte("raise ImportError('hidden by the test')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PYTHONPATH", hide)
	_, err := FindInterpreter(real)
	if err == nil {
		t.Fatalf("FindInterpreter(%q) with grpc hidden: no error", real)
	}
	msg := err.Error()
	for _, want := range []string{real + " cannot import grpc,", "`" + real + " -m pip install grpcio`", "--python"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "msgpack") {
		t.Errorf("error %q names msgpack, which imports", msg)
	}
}

func TestFindInterpreterErrors(t *testing.T) {
	dir := t.TempDir()
	silent := writeScript(t, dir, "silent", "exit 0")
	failing := writeScript(t, dir, "failing", "echo 'no such thing' >&2; exit 3")
	notExec := filepath.Join(dir, "python-not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	python2 := writeScript(t, dir, "python2", `echo /usr/bin/python2.7; echo 2.7.18`)
	chatty := writeScript(t, dir, "chatty", `for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "complaint $i" >&2; done; exit 1`)
	cases := []struct {
		requested, path string
		want            []string
		not             []string // what the message must not say
	}{
		{"", dir, []string{"no python3 on PATH", "pip install grpcio msgpack", "--python"}, nil},
		{filepath.Join(dir, "nonexistent"), dir, []string{filepath.Join(dir, "nonexistent"), "not found"}, nil},
		{"python-of-nowhere", dir, []string{"python-of-nowhere", "not found"}, nil},
		{silent, dir, []string{silent, "sys.executable", `printed ""`}, nil},
		{failing, dir, []string{failing, "does not run as Python", "exit status 3", "no such thing"}, nil},
		{dir, dir, []string{dir, "is a folder"}, nil},
		{notExec, dir, []string{notExec, "not an executable program"}, nil},
		// Python 2 is too old, whatever it has installed: no pip advice.
		{python2, dir, []string{"/usr/bin/python2.7 is Python 2.7.18", "3.7 or later", "--python"}, []string{"pip"}},
		// The end of a long complaint, where a traceback says what failed.
		{chatty, dir, []string{"exit status 1", "complaint 12", "complaint 5"}, []string{"complaint 4\n"}},
	}
	for _, c := range cases {
		t.Setenv("PATH", c.path)
		got, err := FindInterpreter(c.requested)
		if err == nil {
			t.Errorf("FindInterpreter(%q) = %q, want an error", c.requested, got)
			continue
		}
		for _, want := range c.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("FindInterpreter(%q): error %q does not contain %q", c.requested, err, want)
			}
		}
		for _, not := range c.not {
			if strings.Contains(err.Error(), not) {
				t.Errorf("FindInterpreter(%q): error %q contains %q", c.requested, err, not)
			}
		}
	}
}

// WriteFor compiles the runtime with the interpreter it is given, so the
// bytecode is that interpreter's.
func TestWriteForPrecompilesWithTheInterpreter(t *testing.T) {
	real := realInterpreter(t)
	out, err := exec.Command(real, "-c", "import sys; print(sys.implementation.cache_tag)").Output()
	if err != nil {
		t.Fatal(err)
	}
	tag := strings.TrimSpace(string(out))
	build := t.TempDir()
	// No python3 on PATH: only the named interpreter can compile.
	t.Setenv("PATH", t.TempDir())
	fn := &manifest.Function{ID: 0, Name: "f", Source: "f", Pool: manifest.Python,
		Args: []*types.Type{types.IntType}, Return: types.IntType}
	if _, err := WriteFor(real, filepath.Join(build, "pools", "py"), build, []Function{{Spec: fn, File: "/src/mod.py"}}); err != nil {
		t.Fatal(err)
	}
	compiled, _ := filepath.Glob(filepath.Join(build, "pools", "py", "*", "__pycache__", "*."+tag+".pyc"))
	if len(compiled) == 0 {
		t.Errorf("no %s bytecode in the runtime after WriteFor(%s)", tag, real)
	}
}

// The pip command in the message can be pasted into a shell, even when
// the interpreter's path has a space.
func TestFindInterpreterQuotesPip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my venv")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(dir, "python")
	writeScript(t, dir, "python", `echo '`+self+`'; echo 3.12.1; echo grpc; echo msgpack`)
	_, err := FindInterpreter(self)
	if want := "`'" + self + "' -m pip install grpcio msgpack`"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("FindInterpreter(%q): %v; want the pip command %s", self, err, want)
	}
}

// A program that never answers is stopped, with what it started, and the
// message says so. The script's child keeps the output open, so stopping
// the script alone would leave FindInterpreter waiting for the child.
func TestFindInterpreterStopsAHang(t *testing.T) {
	saved := probeTimeout
	probeTimeout = 200 * time.Millisecond
	t.Cleanup(func() { probeTimeout = saved })
	hang := writeScript(t, t.TempDir(), "hang", "sleep 60 & sleep 60")
	_, err := FindInterpreter(hang)
	if err == nil || !strings.Contains(err.Error(), "did not answer within 200ms") {
		t.Errorf("FindInterpreter(%q): %v; want an error saying it did not answer", hang, err)
	}
}
