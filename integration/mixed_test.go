package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exampleFiles reads the files of examples/NAME, so the tests build the
// very program the README shows.
func exampleFiles(t *testing.T, name string) files {
	t.Helper()
	return dirFiles(t, filepath.Join("..", "examples", name))
}

// dirFiles reads the program in dir: its .loc file and sources.
func dirFiles(t *testing.T, dir string) files {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fs := files{}
	for _, e := range entries {
		if e.IsDir() || !strings.Contains(".loc.py.hpp.cpp.go", filepath.Ext(e.Name())) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fs[e.Name()] = string(data)
	}
	return fs
}

// TestThreeLanguages runs the chem example: Python results fed to Go, a C++
// record, and one body chaining Python, C++ and Go.
func TestThreeLanguages(t *testing.T) {
	p := build(t, exampleFiles(t, "chem"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"weight", "H2O"}, "18.015"},
		{[]string{"capped", "C6H12O6"}, "180.156"},
		{[]string{"capped", "C6H12O6", "--max", "100"}, "100"},
		{[]string{"stats", "1", "2", "3", "4"}, `{"mean":2.5,"sd":1.2909944487358056}`},
		{[]string{"scaled", "-f", "2", "1", "2.5"}, "[2,5]"},
		{[]string{"describe", "-p", "5", "--hydrogens"}, `"5 digits, with hydrogens"`},
		{[]string{"describe"}, `"3 digits, without hydrogens"`},
		{[]string{"chain", "C6H12O6", "--factor", "2", "--max", "300"}, "300"},
		{[]string{"chain", "H2O", "-f", "0.5"}, "9.0075"},
		{[]string{"label", "H2O", "CO2"}, `"H2O=18.02, CO2=44.01"`},
		{[]string{"answer"}, "42"},
	} {
		if got := p.ok(c.args...); got != c.want+"\n" {
			t.Errorf("%v = %q, want %q", c.args, got, c.want)
		}
	}

	stderr := p.fails(1, "stats")
	if !strings.Contains(stderr, "summarize needs at least one number") {
		t.Errorf("a C++ exception should reach the user: %q", stderr)
	}
	stderr = p.fails(1, "chain", "Xx2")
	if !strings.Contains(stderr, "unknown element") || !strings.Contains(stderr, "Traceback") {
		t.Errorf("a Python exception inside a chain should reach the user: %q", stderr)
	}
}

// TestOnlyNeededPoolsStart: with no Python (the interpreter the program
// was built with removed, and no python3 on PATH), commands that need only
// the compiled C++ and Go pools still run; one that needs Python says so.
// So a command starts only the pools its body calls.
func TestOnlyNeededPoolsStart(t *testing.T) {
	p, _ := buildThenRemovePython(t, exampleFiles(t, "chem"))
	noPython := func(args ...string) result {
		cmd := append([]string{"PATH=/nonexistent", "TMPDIR=" + p.tmp, p.launcher}, args...)
		res := runIn(t, t.TempDir(), nil, "/usr/bin/env", cmd...)
		p.checkClean()
		return res
	}
	if res := noPython("stats", "1", "3"); res.code != 0 || res.stdout != `{"mean":2,"sd":1.4142135623730951}`+"\n" {
		t.Errorf("stats (C++ only) without python: exit %d, %q, %q", res.code, res.stdout, res.stderr)
	}
	if res := noPython("scaled", "-f", "3", "1"); res.code != 0 || res.stdout != "[3]\n" {
		t.Errorf("scaled (C++ only) without python: exit %d, %q, %q", res.code, res.stdout, res.stderr)
	}
	if res := noPython("weight", "H2O"); res.code != 1 || !strings.Contains(res.stderr, "python") {
		t.Errorf("weight (Python) without python: exit %d, %q; want 1 and a message naming python", res.code, res.stderr)
	}
}
