package cpp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseDeps(t *testing.T) {
	cases := []struct {
		rule string
		want []string
	}{
		{"out.o: /a/main.cpp /a/x.hpp\n", []string{"/a/main.cpp", "/a/x.hpp"}},
		{"out.o: /a/main.cpp \\\n /a/y.hpp \\\n /a/x.hpp\n", []string{"/a/main.cpp", "/a/x.hpp", "/a/y.hpp"}},
		{"out.o: /my\\ dir/main.cpp /cost$$/x.hpp\n", []string{"/cost$/x.hpp", "/my dir/main.cpp"}},
		{"out.o:\n", nil},
	}
	for _, c := range cases {
		if got := parseDeps(c.rule); !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseDeps(%q) = %q, want %q", c.rule, got, c.want)
		}
	}
}

// TestCompileCache: an object is compiled once, found again while its
// source and headers are unchanged, and compiled again when a header it
// includes changes.
func TestCompileCache(t *testing.T) {
	c, err := newCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tc, err := findToolchain(c)
	if err != nil {
		t.Skip(err)
	}
	b := newBuilder(tc, c)
	dir := t.TempDir()
	src, hdr := filepath.Join(dir, "a.cpp"), filepath.Join(dir, "a.hpp")
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	compile := func(wantRuns int64) object {
		t.Helper()
		o, err := b.compile(src, commonFlags)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.runs.Load(); got != wantRuns {
			t.Fatalf("the compiler ran %d times, want %d", got, wantRuns)
		}
		if !exists(o.path) {
			t.Fatalf("object %s is not there", o.path)
		}
		return o
	}
	write(hdr, "inline int one() { return 1; }\n")
	write(src, "#include \"a.hpp\"\nint f() { return one(); }\n")
	first := compile(1)
	if again := compile(1); again != first {
		t.Errorf("unchanged sources: got %v, want the cached %v", again, first)
	}
	write(hdr, "inline int one() { return 2; }\n")
	if changed := compile(2); changed.key == first.key {
		t.Errorf("a changed header did not change the object's key")
	}
	write(hdr, "inline int one() { return 1; }\n")
	if back := compile(2); back != first {
		t.Errorf("the header as it was: got %v, want the first object %v", back, first)
	}
	write(src, "#include \"a.hpp\"\nint f() { return one() + 1; }\n")
	compile(3)

	// A failed compile is a compileError with the compiler's message.
	write(src, "int f() { return nope; }\n")
	_, err = b.compile(src, commonFlags)
	var ce *compileError
	if !errors.As(err, &ce) || !strings.Contains(ce.output, "nope") {
		t.Errorf("got %v, want a compileError about nope", err)
	}
}

func TestKeysDiffer(t *testing.T) {
	// Length prefixes keep ("ab", "c") and ("a", "bc") apart.
	if newKey("k").add("ab", "c").sum() == newKey("k").add("a", "bc").sum() {
		t.Error("keys of different parts collide")
	}
	if newKey("k").add("a").sum() != newKey("k").add("a").sum() {
		t.Error("keys of the same parts differ")
	}
}

func TestPrune(t *testing.T) {
	c, err := newCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	old, fresh := c.path("obj", "old.o"), c.path("obj", "fresh.o")
	for _, f := range []string{old, fresh} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-unusedFor - time.Hour)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}
	os.Remove(c.path("pruned"))
	c.prune()
	if exists(old) || !exists(fresh) {
		t.Errorf("after pruning: old exists %v, fresh exists %v; want only the fresh one", exists(old), exists(fresh))
	}
	// use keeps an entry, whatever its age.
	if err := os.Chtimes(fresh, long, long); err != nil {
		t.Fatal(err)
	}
	if !c.use(fresh) || c.use(old) {
		t.Error("use reports entries wrongly")
	}
	os.Remove(c.path("pruned"))
	c.prune()
	if !exists(fresh) {
		t.Error("an entry just used was pruned")
	}
}

// The linked pools are kept to maxBins, the least recently used removed
// first, the one just made never.
func TestCapBins(t *testing.T) {
	c, err := newCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour)
	var names []string
	for i := 0; i < maxBins+5; i++ {
		name := c.path("bin", fmt.Sprintf("pool%02d", i))
		if err := os.WriteFile(name, nil, 0o755); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(name, at, at); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	c.capBins(names[0]) // the oldest, just made, stays
	for i, n := range names {
		want := i == 0 || i >= 5
		if exists(n) != want {
			t.Errorf("pool%02d exists %v, want %v", i, exists(n), want)
		}
	}
}
