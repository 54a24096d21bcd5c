package cpp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// The flags every C++ compile uses. -O2 because pools run real work;
// MSGPACK_NO_BOOST because msgpack-cxx otherwise pulls in Boost, which the
// pool never uses; no colours because the output is read, not shown.
var commonFlags = []string{"-std=c++17", "-O2", "-pthread", "-pipe", "-DMSGPACK_NO_BOOST", "-fdiagnostics-color=never"}

// packages are the pkg-config packages the runtime compiles and links
// against.
var packages = []string{"grpc++"}

// setupHint says how to get what a C++ pool needs.
var setupHint = setupHintFor(runtime.GOOS)

func setupHintFor(goos string) string {
	if goos == "darwin" {
		return "install Xcode's command line tools (xcode-select --install) and, with Homebrew, brew install grpc msgpack-cxx pkg-config (see docs/platforms.md)"
	}
	return "install g++, pkg-config, libgrpc++-dev and libmsgpack-cxx-dev (scripts/setup.sh does it on Debian)"
}

// toolchain is the C++ compiler and libraries a pool is built with.
type toolchain struct {
	cxx    string   // the compiler's path: $CXX, or g++ on PATH
	id     string   // what identifies the compiler and libraries in cache keys
	cflags []string // pkg-config --cflags of packages, and msgpack
	// msgpack are the flags that find msgpack-cxx, which every file that
	// includes the runtime's header needs.
	msgpack []string
	libs    []string // pkg-config --libs of packages
}

var (
	toolchainMu    sync.Mutex
	toolchainCache = map[string]*toolchain{}
)

// findToolchain probes the compiler and libraries, once per process (and
// per $CXX).
func findToolchain(c *cache) (*toolchain, error) {
	name := os.Getenv("CXX")
	if name == "" {
		name = "g++"
	}
	toolchainMu.Lock()
	defer toolchainMu.Unlock()
	if tc := toolchainCache[name]; tc != nil {
		return tc, nil
	}
	tc, err := probe(name, c)
	if err != nil {
		return nil, err
	}
	toolchainCache[name] = tc
	return tc, nil
}

// libraryFlags is what pkg-config says about packages.
type libraryFlags struct {
	Versions string `json:"versions"`
	Cflags   string `json:"cflags"`
	Libs     string `json:"libs"`
	// StaticLibs is --static --libs: every library, down to the ones the
	// packages' own libraries need.
	StaticLibs string `json:"static_libs"`
}

func probe(name string, c *cache) (*toolchain, error) {
	cxx, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("no C++ compiler: %s is not on PATH (set CXX to use another); %s", name, setupHint)
	}
	version, err := output(cxx, "--version")
	if err != nil {
		return nil, fmt.Errorf("C++ compiler %s does not run: %w", cxx, err)
	}
	if _, err := exec.LookPath("pkg-config"); err != nil {
		return nil, fmt.Errorf("pkg-config is not on PATH; the C++ pool finds gRPC with it: %s", setupHint)
	}
	lib, err := libraries(c)
	if err != nil {
		return nil, err
	}
	msgpack, err := msgpackFlags(cxx)
	if err != nil {
		return nil, err
	}
	var dirs []string
	if runtime.GOOS != "darwin" { // linkFlags links dynamically there
		if dirs, err = librarySearchDirs(cxx); err != nil {
			return nil, err
		}
	}
	libs := linkFlags(runtime.GOOS, lib, dirs)
	return &toolchain{
		cxx: cxx,
		id: strings.Join([]string{cxx, version, strings.Join(packages, " ") + " " + lib.Versions,
			lib.Cflags, strings.Join(msgpack, " "), strings.Join(libs, " ")}, "\n"),
		cflags:  append(strings.Fields(lib.Cflags), msgpack...),
		msgpack: msgpack,
		libs:    libs,
	}, nil
}

// systemLibraries are the C library's parts (and GCC's libatomic), which
// stay shared: a static C library is discouraged, and they cost a pool's
// start next to nothing.
var systemLibraries = map[string]bool{
	"c": true, "m": true, "dl": true, "rt": true, "pthread": true,
	"resolv": true, "util": true, "atomic": true,
}

// linkFlags links gRPC and everything under it (Abseil, upb, re2, c-ares,
// OpenSSL, zlib) and the C++ runtime statically when every one of those
// libraries has its archive in dirs, as Debian's -dev packages ship them,
// and falls back to pkg-config's shared libraries otherwise. On macOS
// (goos "darwin") it always takes the shared libraries: Apple's linker
// has no -Bstatic nor --start-group, and Homebrew ships few archives.
//
// Linked against shared libraries, a pool spends most of its start in the
// dynamic loader: gRPC pulls in some 50 of them and 13,000 symbol
// relocations, 19 ms on a 2-core machine before main runs, against 4 ms
// linked statically (which also links faster).
func linkFlags(goos string, lib *libraryFlags, dirs []string) []string {
	if goos == "darwin" {
		return strings.Fields(lib.Libs)
	}
	fields := strings.Fields(lib.StaticLibs)
	// pkg-config's -L folders come first, as they do on the link line.
	var searchFlags, search []string
	for _, f := range fields {
		if d, ok := strings.CutPrefix(f, "-L"); ok {
			searchFlags, search = append(searchFlags, f), append(search, d)
		}
	}
	search = append(search, dirs...)
	var static, system []string
	seen := map[string]bool{}
	for _, f := range fields {
		name, ok := strings.CutPrefix(f, "-l")
		if !ok || seen[name] {
			continue // -pthread, -L and -Wl,--push-state/--pop-state around -latomic
		}
		seen[name] = true
		if systemLibraries[name] {
			system = append(system, f)
			continue
		}
		if !hasArchive(name, search) {
			return strings.Fields(lib.Libs)
		}
		static = append(static, f)
	}
	if len(static) == 0 {
		return strings.Fields(lib.Libs)
	}
	flags := append([]string{"-static-libstdc++", "-static-libgcc"}, searchFlags...)
	// The group lets the linker go back and forth between the archives,
	// whatever the order pkg-config gave them in.
	flags = append(flags, "-Wl,-Bstatic", "-Wl,--start-group")
	flags = append(flags, static...)
	flags = append(flags, "-Wl,--end-group", "-Wl,-Bdynamic")
	return append(flags, system...)
}

// hasArchive reports whether lib<name>.a is in one of the folders dirs.
func hasArchive(name string, dirs []string) bool {
	for _, d := range dirs {
		if info, err := os.Stat(filepath.Join(d, "lib"+name+".a")); err == nil && info.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// librarySearchDirs are the folders the compiler's linker looks for
// libraries in.
func librarySearchDirs(cxx string) ([]string, error) {
	out, err := output(cxx, "-print-search-dirs")
	if err != nil {
		return nil, fmt.Errorf("C++ compiler %s does not run: %w", cxx, err)
	}
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "libraries: ="); ok {
			return filepath.SplitList(rest), nil
		}
	}
	return nil, nil
}

// libraries asks pkg-config for the packages' versions and flags. That
// takes seconds (gRPC depends on dozens of Abseil packages), so the answer
// is cached under a fingerprint of every .pc file pkg-config could read:
// installing or upgrading a package changes it.
func libraries(c *cache) (*libraryFlags, error) {
	fp, err := pkgConfigFingerprint()
	if err != nil {
		return nil, err
	}
	entry := c.path("toolchain", fp+".json")
	var lib libraryFlags
	if data, err := os.ReadFile(entry); err == nil && json.Unmarshal(data, &lib) == nil {
		c.use(entry)
		return &lib, nil
	}
	queries := []struct {
		flag string
		out  *string
	}{{"--modversion", &lib.Versions}, {"--cflags", &lib.Cflags}, {"--libs", &lib.Libs}, {"--static --libs", &lib.StaticLibs}}
	errs := make([]error, len(queries))
	var wg sync.WaitGroup
	for i, q := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			*q.out, errs[i] = output("pkg-config", append(strings.Fields(q.flag), packages...)...)
		}()
	}
	wg.Wait()
	if errs[0] != nil {
		return nil, fmt.Errorf("gRPC for C++ is not installed (pkg-config %s: %w); %s", strings.Join(packages, " "), errs[0], setupHint)
	}
	for i, err := range errs {
		// Without --static's answer the pool links dynamically.
		if err != nil && queries[i].out != &lib.StaticLibs {
			return nil, fmt.Errorf("pkg-config %s %s: %w", queries[i].flag, strings.Join(packages, " "), err)
		}
	}
	lib.Versions = strings.Join(strings.Fields(lib.Versions), " ")
	if data, err := json.Marshal(&lib); err == nil {
		_ = c.writeFile(entry, data) // best effort: without it, the next build asks again
	}
	return &lib, nil
}

// pkgConfigFingerprint hashes what pkg-config's answers depend on: its
// environment and the name, size and time of every .pc file on its path.
func pkgConfigFingerprint() (string, error) {
	k := newKey("pkg-config/2")
	env := []string{"PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR"}
	for _, v := range env {
		k.add(v + "=" + os.Getenv(v))
	}
	dirs := filepath.SplitList(os.Getenv("PKG_CONFIG_PATH"))
	if libdir, ok := os.LookupEnv("PKG_CONFIG_LIBDIR"); ok {
		dirs = append(dirs, filepath.SplitList(libdir)...)
	} else {
		path, err := output("pkg-config", "--variable", "pc_path", "pkg-config")
		if err != nil {
			return "", fmt.Errorf("pkg-config does not run: %w; %s", err, setupHint)
		}
		dirs = append(dirs, filepath.SplitList(path)...)
	}
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		k.add("dir", d)
		for _, e := range entries {
			if filepath.Ext(e.Name()) != ".pc" {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue
			}
			k.add(e.Name(), strconv.FormatInt(info.Size(), 10), strconv.FormatInt(info.ModTime().UnixNano(), 10))
		}
	}
	return k.sum(), nil
}

// output runs a program and returns its trimmed standard output, or an
// error with what it printed on standard error.
func output(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", errors.New(firstLine(msg))
		}
		return "", err
	}
	return strings.TrimSpace(stdout.String()), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
