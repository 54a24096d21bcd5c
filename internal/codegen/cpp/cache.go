package cpp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/nexus-run/nexus/internal/osproc"
)

// CacheDirEnv names the folder compiled C++ is cached in. Unset, it is
// the user's cache folder (os.UserCacheDir) + "/nexus".
const CacheDirEnv = "NEXUS_CACHE_DIR"

// cache is the folder where compiled C++ is kept between builds, shared by
// every build of the user's programs. Each entry is named by a key that
// hashes everything that went into it (sources, compiler, flags), so an
// entry is never stale, only unused. Entries appear by rename, whole or not
// at all, so concurrent builds may share the folder.
//
//	cpp/runtime/KEY/   the runtime (nexus_pool.o) for one toolchain
//	cpp/obj/KEY.o      an object file; KEY hashes the source and the
//	                   contents of every header it included
//	cpp/obj/KEY.deps   the headers an object's source included last time
//	cpp/bin/KEY        a linked pool
//	cpp/toolchain/     what pkg-config said about gRPC, by a fingerprint
//	                   of pkg-config's files (it takes seconds to ask)
//	cpp/tmp/           work folders of builds in progress
//	cpp/pruned         when unused entries were last removed
//	cpp/locks/         lock files, so one build makes the runtime while
//	                   others wait for it
type cache struct {
	dir string
}

// openCache returns the cache, creating its folders.
func openCache() (*cache, error) {
	root := os.Getenv(CacheDirEnv)
	if root == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			root = filepath.Join(os.TempDir(), "nexus-cache-"+strconv.Itoa(os.Getuid()))
		} else {
			root = filepath.Join(base, "nexus")
		}
	}
	c, err := newCache(root)
	if err != nil {
		return nil, fmt.Errorf("create the C++ build cache (set %s to put it elsewhere): %w", CacheDirEnv, err)
	}
	return c, nil
}

// newCache returns the cache inside root, creating its folders, and
// removes the leftovers of builds that were killed.
func newCache(root string) (*cache, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	c := &cache{dir: filepath.Join(abs, "cpp")}
	for _, sub := range []string{"runtime", "obj", "bin", "toolchain", "tmp", "locks"} {
		if err := os.MkdirAll(filepath.Join(c.dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	c.removeStale()
	c.prune()
	return c, nil
}

// unusedFor is how long an entry may go unused before a build removes it,
// so that the cache does not grow without end as programs change.
const unusedFor = 30 * 24 * time.Hour

// pruneEvery is how often a build looks for unused entries.
const pruneEvery = 24 * time.Hour

// use marks an entry as used now (its modification time), so that prune
// keeps it, and reports whether it exists.
func (c *cache) use(path string) bool {
	now := time.Now()
	return os.Chtimes(path, now, now) == nil
}

// prune removes the entries no build used for unusedFor, at most once per
// pruneEvery. It is best effort.
func (c *cache) prune() {
	marker := c.path("pruned")
	if info, err := os.Stat(marker); err == nil && time.Since(info.ModTime()) < pruneEvery {
		return
	}
	if err := writeFileAtomic(marker, nil, 0o644); err != nil {
		return
	}
	for _, sub := range []string{"runtime", "obj", "bin", "toolchain"} {
		entries, err := os.ReadDir(c.path(sub))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > unusedFor {
				os.RemoveAll(c.path(sub, e.Name()))
			}
		}
	}
}

// maxBins bounds the linked pools kept: each is 15 MB or so, and every
// change to a program links a new one, so a day of edits (or of tests)
// would otherwise fill gigabytes before prune's month is up. A linked
// pool is only kept to skip linking an unchanged program again; the
// program's build folder has its own copy.
const maxBins = 48

// capBins removes the least recently used linked pools beyond maxBins,
// keeping keep. It is best effort.
func (c *cache) capBins(keep string) {
	entries, err := os.ReadDir(c.path("bin"))
	if err != nil || len(entries) <= maxBins {
		return
	}
	type bin struct {
		name string
		used time.Time
	}
	bins := make([]bin, 0, len(entries))
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			bins = append(bins, bin{e.Name(), info.ModTime()})
		}
	}
	sort.Slice(bins, func(i, j int) bool { return bins[i].used.After(bins[j].used) })
	for _, b := range bins[min(maxBins, len(bins)):] {
		if p := c.path("bin", b.name); p != keep {
			os.RemoveAll(p)
		}
	}
}

// staleWork is how old a work folder must be to be a leftover: no build
// takes that long.
const staleWork = 24 * time.Hour

// removeStale removes work folders that builds which were killed left
// behind. It is best effort.
func (c *cache) removeStale() {
	entries, err := os.ReadDir(c.path("tmp"))
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleWork {
			os.RemoveAll(c.path("tmp", e.Name()))
		}
	}
}

// path returns the path of an entry, such as path("obj", key+".o").
func (c *cache) path(elem ...string) string {
	return filepath.Join(append([]string{c.dir}, elem...)...)
}

// workDir makes a fresh folder for a build step; the caller removes it.
func (c *cache) workDir() (string, error) {
	return os.MkdirTemp(c.path("tmp"), "work-")
}

// put moves file or folder src (inside the cache) to entry dst. If another
// build put the same entry first, src is dropped: the two are equivalent.
func (c *cache) put(src, dst string) error {
	err := os.Rename(src, dst)
	if err == nil {
		return nil
	}
	if exists(dst) {
		return os.RemoveAll(src)
	}
	return fmt.Errorf("store %s in the C++ build cache: %w", filepath.Base(dst), err)
}

// writeFile writes an entry atomically: a temporary file, then a rename.
func (c *cache) writeFile(dst string, data []byte) error {
	return writeFileAtomic(dst, data, 0o644)
}

// lock takes the lock called name, waiting for other builds that hold it,
// and returns its release.
func (c *cache) lock(name string) (func(), error) {
	f, err := os.OpenFile(c.path("locks", name), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock the C++ build cache: %w", err)
	}
	unlock, err := osproc.LockFile(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the C++ build cache: %w", err)
	}
	return func() {
		unlock()
		f.Close()
	}, nil
}

// key builds a cache key: a hash of the parts given, each length-prefixed
// so that no two different lists of parts hash alike.
type key struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
}

func newKey(kind string) *key {
	k := &key{h: sha256.New()}
	k.add(kind)
	return k
}

func (k *key) add(parts ...string) *key {
	for _, p := range parts {
		k.bytes([]byte(p))
	}
	return k
}

func (k *key) bytes(b []byte) *key {
	fmt.Fprintf(k.h, "%d:", len(b))
	k.h.Write(b)
	return k
}

// sum returns the key as 32 hex digits (128 bits: collisions are not a
// concern for a cache).
func (k *key) sum() string {
	return hex.EncodeToString(k.h.Sum(nil))[:32]
}

// fileHash returns the SHA-256 of a file's contents.
func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// writeFileAtomic writes data to path through a temporary file beside it,
// so readers see the old file or the new one, never a part.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp, perm)); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// copyFileAtomic copies src to dst (through a temporary file beside dst).
func copyFileAtomic(src, dst string, perm fs.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return writeFileAtomic(dst, data, perm)
}
