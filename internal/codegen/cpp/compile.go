package cpp

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"
	"sync/atomic"

	runtime "github.com/nexus-run/nexus/pools/cpp"
)

// builder compiles one C++ pool, reusing what the cache holds.
type builder struct {
	tc    *toolchain
	cache *cache
	// jobs bounds how many compilers run at once.
	jobs chan struct{}
	// runs counts the compiler runs, which the cache is there to avoid.
	runs atomic.Int64
}

func newBuilder(tc *toolchain, c *cache) *builder {
	return &builder{tc: tc, cache: c, jobs: make(chan struct{}, max(1, goruntime.NumCPU()))}
}

// compileError is a compiler or linker run that failed.
type compileError struct {
	step   string // what was being done: "compile main.cpp"
	output string // what the compiler printed
}

func (e *compileError) Error() string {
	return e.step + ":\n" + e.output
}

// object is a compiled object file in the cache.
type object struct {
	path string
	key  string
}

// run runs the compiler (or another tool) in dir, one of b.jobs at a time.
// A failure is a *compileError with the tool's output.
func (b *builder) run(step, dir, name string, args ...string) error {
	b.jobs <- struct{}{}
	defer func() { <-b.jobs }()
	b.runs.Add(1)
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		text := strings.TrimRight(out.String(), "\n")
		if text == "" {
			text = err.Error()
		}
		return &compileError{step: step, output: text}
	}
	return nil
}

// runtimeFiles are the runtime's sources.
type runtimeFiles struct {
	header, prelude, source []byte
}

func readRuntime() (*runtimeFiles, error) {
	var rf runtimeFiles
	var err error
	if rf.header, err = runtime.ReadFile(runtime.Header); err != nil {
		return nil, err
	}
	if rf.prelude, err = runtime.ReadFile(runtime.Prelude); err != nil {
		return nil, err
	}
	if rf.source, err = runtime.ReadFile(runtime.Source); err != nil {
		return nil, err
	}
	return &rf, nil
}

// runtimeObject is the compiled runtime inside its cache entry.
const runtimeObject = "nexus_pool.o"

// compileRuntime returns the runtime (the gRPC server) compiled for this
// toolchain. It is built once and then found in the cache; builds that
// need it at the same time wait for one of them to build it.
func (b *builder) compileRuntime(rf *runtimeFiles) (object, error) {
	k := newKey("runtime/2").add(b.tc.id).add(commonFlags...).bytes(rf.header).bytes(rf.source).sum()
	entry := b.cache.path("runtime", k)
	obj := object{path: filepath.Join(entry, runtimeObject), key: k}
	if b.cache.use(entry) && exists(obj.path) {
		return obj, nil
	}
	unlock, err := b.cache.lock("runtime-" + k)
	if err != nil {
		return object{}, err
	}
	defer unlock()
	if exists(obj.path) {
		return obj, nil
	}
	work, err := b.cache.workDir()
	if err != nil {
		return object{}, err
	}
	defer os.RemoveAll(work)
	for name, data := range map[string][]byte{runtime.Header: rf.header, runtime.Source: rf.source} {
		if err := os.WriteFile(filepath.Join(work, name), data, 0o644); err != nil {
			return object{}, err
		}
	}
	flags := append(append(append([]string{}, commonFlags...), b.tc.cflags...), "-c", runtime.Source, "-o", runtimeObject)
	if err := b.run("compile the C++ pool runtime", work, b.tc.cxx, flags...); err != nil {
		return object{}, err
	}
	if err := os.Chmod(work, 0o755); err != nil {
		return object{}, err
	}
	if err := b.cache.put(work, entry); err != nil {
		return object{}, err
	}
	return obj, nil
}

// compile compiles one C++ source to an object file, or finds it in the
// cache. An object's key covers the source, the flags, the compiler, and
// the contents of every header the source included (as the compiler
// reported them, -MMD, the last time it compiled it), so changing any of
// the user's headers recompiles exactly what includes it.
func (b *builder) compile(src string, flags []string) (object, error) {
	content, err := os.ReadFile(src)
	if err != nil {
		return object{}, err
	}
	base := newKey("object/1").add(b.tc.id, src).add(flags...).bytes(content).sum()
	depsFile := b.cache.path("obj", base+".deps")
	if data, err := os.ReadFile(depsFile); err == nil {
		if k, err := depsKey(base, strings.Split(strings.TrimSpace(string(data)), "\n")); err == nil {
			if o := b.cache.path("obj", k+".o"); b.cache.use(o) {
				b.cache.use(depsFile)
				return object{path: o, key: k}, nil
			}
		}
	}

	work, err := b.cache.workDir()
	if err != nil {
		return object{}, err
	}
	defer os.RemoveAll(work)
	out, deps := filepath.Join(work, "out.o"), filepath.Join(work, "out.d")
	args := append(append([]string{}, flags...), "-MMD", "-MF", deps, "-c", src, "-o", out)
	if err := b.run("compile "+filepath.Base(src), filepath.Dir(src), b.tc.cxx, args...); err != nil {
		return object{}, err
	}
	data, err := os.ReadFile(deps)
	if err != nil {
		return object{}, fmt.Errorf("read the compiler's dependency list: %w", err)
	}
	headers := parseDeps(string(data))
	k, err := depsKey(base, headers)
	if err != nil {
		return object{}, err
	}
	dst := b.cache.path("obj", k+".o")
	if err := b.cache.put(out, dst); err != nil {
		return object{}, err
	}
	if err := b.cache.writeFile(depsFile, []byte(strings.Join(headers, "\n")+"\n")); err != nil {
		return object{}, err
	}
	return object{path: dst, key: k}, nil
}

// depsKey extends an object's base key with the contents of the files it
// depends on. A file that is gone is an error: the cached object (if any)
// is not for the sources as they are.
func depsKey(base string, files []string) (string, error) {
	k := newKey("deps/1").add(base)
	for _, f := range files {
		if f == "" {
			continue
		}
		h, err := fileHash(f)
		if err != nil {
			return "", err
		}
		k.add(f, h)
	}
	return k.sum(), nil
}

// parseDeps reads the file list of a make rule written by -MMD -MF:
// "target: dep dep \<newline> dep", with spaces in names escaped.
func parseDeps(rule string) []string {
	rule = strings.ReplaceAll(rule, "\\\n", " ")
	// The target ends at the first colon followed by a space or the end.
	for i := 0; i < len(rule); i++ {
		if rule[i] == ':' && (i+1 == len(rule) || strings.ContainsRune(" \t\r\n", rune(rule[i+1]))) {
			rule = rule[i+1:]
			break
		}
	}
	var files []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			files = append(files, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(rule); i++ {
		c := rule[i]
		switch {
		case c == '\\' && i+1 < len(rule) && (rule[i+1] == ' ' || rule[i+1] == '#'):
			cur.WriteByte(rule[i+1])
			i++
		case c == '$' && i+1 < len(rule) && rule[i+1] == '$':
			cur.WriteByte('$')
			i++
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	sort.Strings(files)
	return files
}

// link links the objects and the runtime into a pool executable, or finds
// it in the cache.
func (b *builder) link(objects []object, rt object) (string, error) {
	k := newKey("link/1").add(b.tc.id, rt.key)
	for _, o := range objects {
		k.add(o.key)
	}
	exe := b.cache.path("bin", k.sum())
	if b.cache.use(exe) {
		return exe, nil
	}
	work, err := b.cache.workDir()
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	out := filepath.Join(work, "pool")
	args := []string{"-pthread", "-o", out}
	for _, o := range objects {
		args = append(args, o.path)
	}
	args = append(append(args, rt.path), b.tc.libs...)
	if err := b.run("link the C++ pool", work, b.tc.cxx, args...); err != nil {
		return "", err
	}
	if err := b.cache.put(out, exe); err != nil {
		return "", err
	}
	b.cache.capBins(exe)
	return exe, nil
}
