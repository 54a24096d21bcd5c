package pool

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nexus-run/nexus/internal/osproc"
)

// The pools' sockets live in a private folder the supervisor makes in the
// temporary folder: nexus-RANDOM/plugin-dirRANDOM/pool.sock, beside a file
// nexus-RANDOM/owner holding the nexus's process id. Close removes the
// folder; a nexus killed by SIGKILL cannot, so the next supervisor to make
// its folder removes those whose nexus is gone (sweepStale). The pid is in
// a file, not in the name, because a socket's path must stay under 108
// bytes.

const (
	// folderPrefix opens the name of every socket folder.
	folderPrefix = "nexus-"
	// ownerFile, in a socket folder, holds the pid of the nexus that made it.
	ownerFile = "owner"
)

// maxSocketPath is the longest Unix socket path: sun_path holds 108 bytes
// with the terminating NUL.
const maxSocketPath = 107

// socketTail is the longest path a pool's socket takes below the
// supervisor's folder: "/nexus-" + 10 digits, go-plugin's
// "/plugin-dir" + 10 digits, and the pool's "/pool.sock".
const socketTail = len("/nexus-1234567890/plugin-dir1234567890/pool.sock")

// socketParent returns where to make the private socket folder: dir, or
// the system's temporary folder when sockets would not fit below dir.
func socketParent(dir string) string {
	for _, d := range []string{dir, os.TempDir(), "/tmp"} {
		if d != "" && len(d)+socketTail <= maxSocketPath {
			return d
		}
	}
	return dir
}

// makeSocketFolder makes the supervisor's socket folder in parent, with
// its owner file. The stale ones there are left to sweepStale, which the
// supervisor runs in the background beside its first pool's start: the
// sweep reads the whole temporary folder, and a start need not wait for it.
func makeSocketFolder(parent string) (string, error) {
	dir, err := os.MkdirTemp(parent, folderPrefix)
	if err != nil {
		return "", fmt.Errorf("create the pools' socket folder: %w", err)
	}
	owner := filepath.Join(dir, ownerFile)
	if err := os.WriteFile(owner, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("create the pools' socket folder: %w", err)
	}
	return dir, nil
}

// sweepStale removes the socket folders in parent that nexus processes
// now gone left behind. It removes only real folders (never a symbolic
// link, and RemoveAll follows none inside) owned by this user, named as
// socket folders are, whose owner file, a regular file, names a process
// that no longer runs. A folder it cannot judge stays: one with no owner
// file yet (being made) or ever (made by an older nexus), one of another
// user, one it cannot read. Sweeping is a courtesy; a nexus starts
// without it.
func sweepStale(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !socketFolderName(e.Name()) {
			continue
		}
		path := filepath.Join(parent, e.Name())
		if pid, ok := staleOwner(path); ok && !osproc.Alive(pid) {
			_ = os.RemoveAll(path)
		}
	}
}

// staleOwner returns the pid in the owner file of folder dir, when dir
// and the file may be judged at all (see sweepStale).
func staleOwner(dir string) (int, bool) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || !osproc.OwnedByMe(fi) {
		return 0, false
	}
	owner := filepath.Join(dir, ownerFile)
	fi, err = os.Lstat(owner)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 32 {
		return 0, false
	}
	data, err := os.ReadFile(owner)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return 0, false
	}
	return pid, true
}

// socketFolderName reports whether name is a socket folder's:
// "nexus-" and os.MkdirTemp's decimal digits.
func socketFolderName(name string) bool {
	digits, found := strings.CutPrefix(name, folderPrefix)
	if !found || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
