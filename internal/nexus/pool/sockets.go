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
// temporary folder, named after the nexus's process id:
// nexus-PID-RANDOM/plugin-dirRANDOM/pool.sock. Close removes it; a nexus
// killed by SIGKILL cannot, so the next supervisor to make its folder
// removes those whose nexus is gone (sweepStale).

// folderPrefix opens the name of every socket folder.
const folderPrefix = "nexus-"

// maxSocketPath is the longest Unix socket path: sun_path holds 108 bytes
// with the terminating NUL.
const maxSocketPath = 107

// socketTail is the longest path a pool's socket takes below the
// supervisor's folder: "/nexus-" + a pid + "-" + 10 digits, go-plugin's
// "/plugin-dir" + 10 digits, and the pool's "/pool.sock".
const socketTail = len("/nexus-1234567890-1234567890/plugin-dir1234567890/pool.sock")

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

// makeSocketFolder makes the supervisor's socket folder in parent, after
// removing the stale ones there.
func makeSocketFolder(parent string) (string, error) {
	sweepStale(parent)
	dir, err := os.MkdirTemp(parent, fmt.Sprintf("%s%d-", folderPrefix, os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("create the pools' socket folder: %w", err)
	}
	return dir, nil
}

// sweepStale removes the socket folders in parent that nexus processes
// now gone left behind. It removes only real folders (never a symbolic
// link, and RemoveAll follows none inside), owned by this user, whose
// name is a socket folder's and whose pid is no running process's. A
// folder it cannot judge, or remove, stays: sweeping is a courtesy, and a
// nexus starts without it.
func sweepStale(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, ok := folderOwner(e.Name())
		if !ok || pid == self || !e.IsDir() {
			continue
		}
		path := filepath.Join(parent, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() || !osproc.OwnedByMe(fi) || osproc.Alive(pid) {
			continue
		}
		_ = os.RemoveAll(path)
	}
}

// folderOwner returns the pid in a socket folder's name,
// "nexus-PID-RANDOM" with both numbers in decimal; ok is false for any
// other name, those of older nexus versions ("nexus-RANDOM") included.
func folderOwner(name string) (pid int, ok bool) {
	rest, found := strings.CutPrefix(name, folderPrefix)
	if !found {
		return 0, false
	}
	digits, random, found := strings.Cut(rest, "-")
	if !found || !decimal(digits) || !decimal(random) {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}

func decimal(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
