package cpp

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestReadFile(t *testing.T) {
	for _, name := range []string{Header, Prelude, Source} {
		got, err := ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not embedded as it is", name)
		}
	}
	if _, err := ReadFile("missing.hpp"); err == nil {
		t.Error("ReadFile of a file that is not there succeeded")
	}
}

// TestHeader compiles and runs the C++ unit tests of nexus_pool.hpp.
func TestHeader(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ is not installed")
	}
	exe := filepath.Join(t.TempDir(), "nexus_pool_test")
	build := exec.Command(cxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-DMSGPACK_NO_BOOST",
		"-o", exe, filepath.Join(Dir, "nexus_pool_test.cpp"))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("compile nexus_pool_test.cpp: %v\n%s", err, out)
	}
	if out, err := exec.Command(exe).CombinedOutput(); err != nil {
		t.Fatalf("nexus_pool_test: %v\n%s", err, out)
	}
}
