package cpp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestLinkFlags(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"grpc++", "grpc", "absl_base", "ssl"} {
		if err := os.WriteFile(filepath.Join(dir, "lib"+name+".a"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib := &libraryFlags{
		Libs: "-lgrpc++ -lgrpc -lssl",
		StaticLibs: "-lgrpc++ -lgrpc -labsl_base -labsl_base -lssl -ldl -pthread -latomic " +
			"-Wl,--push-state,--as-needed -latomic -Wl,--pop-state -lrt",
	}

	got := linkFlags("linux", lib, []string{filepath.Join(dir, "missing"), dir})
	want := []string{"-static-libstdc++", "-static-libgcc", "-Wl,-Bstatic", "-Wl,--start-group",
		"-lgrpc++", "-lgrpc", "-labsl_base", "-lssl", "-Wl,--end-group", "-Wl,-Bdynamic",
		"-ldl", "-latomic", "-lrt"}
	if !slices.Equal(got, want) {
		t.Errorf("every archive there:\n got %q\nwant %q", got, want)
	}

	// macOS: shared libraries, archives or not; Apple's linker rejects
	// -Bstatic and --start-group.
	if got, want := linkFlags("darwin", lib, []string{dir}), []string{"-lgrpc++", "-lgrpc", "-lssl"}; !slices.Equal(got, want) {
		t.Errorf("darwin: got %q, want %q", got, want)
	}

	// An -L folder of pkg-config's counts as much as the compiler's.
	lib.StaticLibs = "-L" + dir + " -lgrpc"
	if got := linkFlags("linux", lib, nil); !slices.Contains(got, "-Wl,-Bstatic") || !slices.Contains(got, "-L"+dir) {
		t.Errorf("archive on pkg-config's -L: got %q, want a static link keeping the -L", got)
	}

	// One archive missing: gRPC's shared libraries, as pkg-config says.
	lib.StaticLibs = "-lgrpc++ -lgrpc -lre2 -lssl"
	if got, want := linkFlags("linux", lib, []string{dir}), []string{"-lgrpc++", "-lgrpc", "-lssl"}; !slices.Equal(got, want) {
		t.Errorf("libre2.a missing: got %q, want %q", got, want)
	}
}
