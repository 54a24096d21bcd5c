package cpp

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestIncludeDirs(t *testing.T) {
	tests := []struct {
		name, verbose string
		want          []string
	}{
		{"gcc", `ignoring nonexistent directory "/usr/local/include/x86_64-linux-gnu"
#include "..." search starts here:
#include <...> search starts here:
 /usr/include/c++/12
 /usr/lib/gcc/x86_64-linux-gnu/12/include
 /usr/local/include
 /usr/include
End of search list.
 /usr/lib/gcc/x86_64-linux-gnu/12/cc1plus -quiet
`, []string{"/usr/include/c++/12", "/usr/lib/gcc/x86_64-linux-gnu/12/include", "/usr/local/include", "/usr/include"}},
		{"apple clang", `clang -cc1 version 15.0.0 (clang-1500.3.9.4) default target arm64-apple-darwin23.4.0
#include "..." search starts here:
#include <...> search starts here:
 /Library/Developer/CommandLineTools/SDKs/MacOSX.sdk/usr/include/c++/v1
 /Library/Developer/CommandLineTools/usr/lib/clang/15.0.0/include
 /Library/Developer/CommandLineTools/SDKs/MacOSX.sdk/usr/include
 /Library/Developer/CommandLineTools/SDKs/MacOSX.sdk/System/Library/Frameworks (framework directory)
End of search list.
`, []string{"/Library/Developer/CommandLineTools/SDKs/MacOSX.sdk/usr/include/c++/v1",
			"/Library/Developer/CommandLineTools/usr/lib/clang/15.0.0/include",
			"/Library/Developer/CommandLineTools/SDKs/MacOSX.sdk/usr/include",
			"/Library/Developer/CommandLineTools/SDKs/MacOSX.sdk/System/Library/Frameworks"}},
		{"no list", "g++: error: unrecognized option\n", nil},
	}
	for _, tt := range tests {
		if got := includeDirs(tt.verbose); !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestHeaderDir(t *testing.T) {
	dir := t.TempDir()
	with, without := filepath.Join(dir, "with"), filepath.Join(dir, "without")
	if err := os.MkdirAll(filepath.Join(with, "msgpack"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(without, msgpackHeader), 0o755); err != nil { // a folder, not a file
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(with, msgpackHeader), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := headerDir(msgpackHeader, []string{filepath.Join(dir, "missing"), without, with}); got != with {
		t.Errorf("headerDir = %q, want %q", got, with)
	}
	if got := headerDir(msgpackHeader, []string{without}); got != "" {
		t.Errorf("headerDir = %q, want none", got)
	}
}

// On this machine the compiler's own include path has msgpack-cxx (Debian
// puts it in /usr/include), or pkg-config knows it: either way the probe
// finds it.
func TestMsgpackFlagsFindsTheInstalledHeader(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++")
	}
	flags, err := msgpackFlags(cxx)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cxx, append(append([]string{"-std=c++17", "-DMSGPACK_NO_BOOST", "-fsyntax-only", "-x", "c++"}, flags...), "-")...)
	cmd.Stdin = strings.NewReader("#include <" + msgpackHeader + ">\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("flags %q do not find %s: %v\n%s", flags, msgpackHeader, err, out)
	}
}
