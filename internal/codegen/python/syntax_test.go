package python

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// CheckSyntax compiles the user's files with the pool's interpreter and
// reports each file's first syntax error as file:line:col, the file
// relative to the working folder; files that compile say nothing.
func TestCheckSyntax(t *testing.T) {
	real := realInterpreter(t)
	dir := t.TempDir()
	t.Chdir(dir)
	srcs := []struct{ name, src string }{
		{"ok.py", "def f(x):\n    return x\n"},
		{"colon.py", "def f(x)\n    return x\n\ndef g(:\n"},
		{"indent.py", "def f(x):\nreturn x\n"},
		{"sub/open.py", "x = (1,\n"},
	}
	var fns []Function
	for _, s := range srcs {
		name, src := s.name, s.src
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		// Two functions from one file: the file is checked, and
		// reported, once.
		for range 2 {
			fns = append(fns, Function{Spec: &manifest.Function{ID: len(fns), Name: "f", Source: "f", Pool: manifest.Python,
				Args: []*types.Type{types.IntType}, Return: types.IntType}, File: path})
		}
	}
	err := CheckSyntax(real, fns)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("CheckSyntax: %v, want a *SyntaxError", err)
	}
	got := map[string]string{}
	for _, e := range se.Errors {
		if _, dup := got[e.File]; dup {
			t.Errorf("%s reported twice", e.File)
		}
		got[e.File] = e.Error()
	}
	// The messages are the interpreter's, which words them by version;
	// the places are the same.
	want := map[string]string{
		"colon.py":                      `^colon\.py:1:9: \S`,
		"indent.py":                     `^indent\.py:2:1: \S`,
		filepath.Join("sub", "open.py"): `^sub/open\.py:1:\d+: \S`,
	}
	if len(got) != len(want) {
		t.Errorf("errors %v, want %v", got, want)
	}
	for file, w := range want {
		if !regexp.MustCompile(w).MatchString(got[file]) {
			t.Errorf("%s: got %q, want it to match %s", file, got[file], w)
		}
	}

	if err := CheckSyntax(real, fns[:2]); err != nil { // ok.py
		t.Errorf("CheckSyntax of a file that compiles: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "__pycache__")); err == nil {
		t.Errorf("the check wrote bytecode beside the user's files")
	}
}
