//go:build unix

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shortDir is a fresh folder with a short path, so that socket paths in
// it fit in a socket address (t.TempDir's may not).
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ns")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// wantUsage checks that err is a usage error (exit 2) saying want.
func wantUsage(t *testing.T, err error, want string) {
	t.Helper()
	var ue usageError
	if !errors.As(err, &ue) {
		t.Fatalf("error %v (%T), want a usage error", err, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to say %q", err, want)
	}
}

// TestListenUnixTooLong: a path longer than a socket address holds was
// bound (through the short private folder) though no client could reach
// it, and a second server on it took it over, since its dial failed too.
func TestListenUnixTooLong(t *testing.T) {
	path := filepath.Join(shortDir(t), strings.Repeat("a", maxSocketPath)+".sock")
	ln, err := listenUnix(path)
	if err == nil {
		ln.Close()
		t.Fatal("listened on a path too long for a socket address")
	}
	wantUsage(t, err, "a unix socket's may have at most")
	if _, err := os.Lstat(path); err == nil {
		t.Error("a socket was left at the long path")
	}
}

// TestListenUnixPrivateFolderTooLong: a path that fits, but whose
// private folder's socket would not, is refused saying why.
func TestListenUnixPrivateFolderTooLong(t *testing.T) {
	base := shortDir(t)
	// A folder so long that s.sock in it just fits, and the private
	// folder's socket (.nexus-sock-NNN/s) does not.
	dir := filepath.Join(base, strings.Repeat("d", maxSocketPath-len(base)-len("/s.sock")-1))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.sock")
	ln, err := listenUnix(path)
	if err == nil {
		ln.Close()
		t.Fatalf("listened on %s", path)
	}
	wantUsage(t, err, "private folder")
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v behind", entries)
	}
}

func TestListenUnixNoFolder(t *testing.T) {
	_, err := listenUnix(filepath.Join(shortDir(t), "missing", "s.sock"))
	wantUsage(t, err, "there is no folder")
}

// TestListenUnixTwice: a second server on a live socket is refused; once
// the first is gone, its stale socket is replaced.
func TestListenUnixTwice(t *testing.T) {
	path := filepath.Join(shortDir(t), "s.sock")
	first, err := listenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	if ln, err := listenUnix(path); err == nil {
		ln.Close()
		t.Fatal("a second listener took the socket of a live one")
	} else {
		wantUsage(t, err, "a server is listening on it already")
	}
	first.Close() // the file stays: SetUnlinkOnClose(false)
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("the stale socket is not there: %v", err)
	}
	second, err := listenUnix(path)
	if err != nil {
		t.Fatalf("a stale socket was not replaced: %v", err)
	}
	removeSocket(path, second)
}
