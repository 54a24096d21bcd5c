// Package cpp generates and compiles a program's C++ pool inside its build
// folder: a main.cpp that includes the user's headers and serves the
// sourced functions by manifest id, compiled with the runtime in
// pools/cpp into one executable, pools/cpp/pool.
//
// Compiling gRPC code is slow, so everything compiled is cached outside the
// build folder (see cache): the runtime once per toolchain, each object by
// the contents of its source and of every header it includes, and each
// linked pool by its objects. Rebuilding a program whose sources did not
// change compiles nothing; changing a header recompiles only the objects
// that include it.
//
// When the user's code does not compile, the error shows the compiler's
// diagnostics in the user's files first (see explainer).
package cpp

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/manifest"
	runtime "github.com/nexus-run/nexus/pools/cpp"
)

// Function is one sourced C++ function to serve.
type Function = sourced.Function

// ExecutableName is the compiled pool's name inside its folder.
const ExecutableName = "pool"

// Write writes and compiles the C++ pool into dir (creating it): main.cpp,
// the runtime's header beside it, and the executable. It returns the
// pool's launch command for the manifest (manifest.Pool.Command), using
// manifest.BuildDirVar paths.
//
// dir must be inside buildDir, the folder the manifest is written to, so
// the command stays valid when the build folder moves.
func Write(dir, buildDir string, fns []Function) ([]string, error) {
	rel, err := filepath.Rel(buildDir, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("C++ pool folder %s is not inside the build folder %s", dir, buildDir)
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	src, err := generate(fns)
	if err != nil {
		return nil, err
	}
	rf, err := readRuntime()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create C++ pool folder: %w", err)
	}
	for name, data := range map[string][]byte{runtime.Header: rf.header, runtime.Prelude: rf.prelude, MainName: src.text} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return nil, fmt.Errorf("write C++ pool: %w", err)
		}
	}
	c, err := openCache()
	if err != nil {
		return nil, err
	}
	tc, err := findToolchain(c)
	if err != nil {
		return nil, err
	}
	exe, err := newBuilder(tc, c).pool(dir, src, rf, fns)
	if err != nil {
		return nil, err
	}
	if err := copyFileAtomic(exe, filepath.Join(dir, ExecutableName), 0o755); err != nil {
		return nil, fmt.Errorf("write C++ pool: %w", err)
	}
	return []string{manifest.BuildDirVar + "/" + filepath.ToSlash(filepath.Join(rel, ExecutableName))}, nil
}

// pool compiles the runtime (once), main.cpp and the .cpp files beside the
// user's headers, all at the same time, and links them. It returns the
// executable's path in the cache.
func (b *builder) pool(dir string, src *source, rf *runtimeFiles, fns []Function) (string, error) {
	headers, besides := sourceFiles(fns)
	var includes []string
	for _, d := range folders(headers) {
		includes = append(includes, "-I"+d)
	}
	mainFlags := append(append(append(append([]string{}, commonFlags...), b.tc.msgpack...), "-I"+dir), includes...)
	// The user's .cpp files may include nexus_pool.hpp (for
	// nexus::progress), written into dir; their own folders come first.
	userFlags := append(append(append(append([]string{}, commonFlags...), b.tc.msgpack...), includes...), "-I"+dir)

	x := &explainer{poolDir: dir, main: src, roots: folders(append(headers, besides...))}
	if wd, err := os.Getwd(); err == nil {
		x.cwd = wd
	}

	var rt object
	var rtErr error
	objects := make([]object, 1+len(besides))
	errs := make([]error, len(objects))
	var wg sync.WaitGroup
	wg.Add(2 + len(besides))
	go func() {
		defer wg.Done()
		rt, rtErr = b.compileRuntime(rf)
	}()
	go func() {
		defer wg.Done()
		objects[0], errs[0] = b.compile(filepath.Join(dir, MainName), mainFlags)
	}()
	for i, f := range besides {
		go func() {
			defer wg.Done()
			objects[i+1], errs[i+1] = b.compile(f, userFlags)
		}()
	}
	wg.Wait()
	if rtErr != nil {
		return "", x.explain(rtErr)
	}
	// The user's .cpp files first: their errors are the user's own.
	for _, err := range append(errs[1:], errs[0]) {
		if err != nil {
			return "", x.explain(err)
		}
	}
	exe, err := b.link(objects, rt)
	if err != nil {
		return "", x.explain(err)
	}
	return exe, nil
}

// sourceFiles returns the user's headers and the .cpp files beside them
// (a header's stem + ".cpp"), sorted.
func sourceFiles(fns []Function) (headers, besides []string) {
	seen := map[string]bool{}
	for _, f := range fns {
		h := filepath.Clean(f.File)
		if seen[h] || h == sourced.PreludeFile {
			continue
		}
		seen[h] = true
		headers = append(headers, h)
		if filepath.Ext(h) == ".cpp" {
			// The source is itself a .cpp: main.cpp includes it, and
			// compiling it again would define everything twice.
			continue
		}
		if cpp := strings.TrimSuffix(h, filepath.Ext(h)) + ".cpp"; exists(cpp) && !seen[cpp] {
			seen[cpp] = true
			besides = append(besides, cpp)
		}
	}
	sort.Strings(headers)
	sort.Strings(besides)
	return headers, besides
}

// folders returns the distinct folders of files, sorted.
func folders(files []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		d := filepath.Dir(f)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}
