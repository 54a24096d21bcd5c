package clientconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/nexus-run/nexus/internal/osproc"
)

// Installed says what Install did.
type Installed struct {
	// File is the file written: the path given, or the file it links to.
	File string
	// Backup holds the file as it was before; empty when there was none.
	Backup string
	// Replaced are the servers whose entries of the same name were
	// replaced.
	Replaced []string
}

// newFileMode is the mode of a configuration file Install creates: these
// files may hold other servers' secrets (API keys in their env), so they
// are the user's alone.
const newFileMode = 0o600

// maxBackups bounds the names tried for a backup within one second.
const maxBackups = 100

// Install merges servers into the configuration file at path (see Merge),
// creating it, and its folder, if missing. The old file is first copied
// beside it, to PATH.nexus-backup-TIME, never overwriting an earlier
// backup. The new file replaces the old in one rename, with the old
// file's permissions, so a reader never sees half a file; a symbolic link
// at path is followed, so the link stays. A read-only file is refused,
// since its owner made it so. On any error the file is left as it was.
//
// Two Installs into one file, in this process or another, run one after
// the other (where the system has file locks), so that neither loses the
// other's entries.
func Install(path string, servers []Server, typed bool) (*Installed, error) {
	unlock, err := lockFolder(path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	p, err := plan(path, servers, typed)
	if err != nil {
		return nil, err
	}
	if p.old != nil && p.mode&0o200 == 0 {
		return nil, fmt.Errorf("%s is read-only, so it was not changed: make it writable (chmod u+w) if nexus may add to it", p.file)
	}
	res := &Installed{File: p.file, Replaced: p.replaced}
	if p.old != nil {
		if res.Backup, err = backup(p.file, p.old, p.mode); err != nil {
			return nil, err
		}
	}
	if err := replace(p.file, p.merged, p.mode); err != nil {
		return nil, err
	}
	return res, nil
}

// lockFolder creates the folder of the configuration file at path, if
// missing, and locks it against other Installs; it returns the release.
// The folder is locked, not the file, because Install replaces the file,
// and a lock on the old file would not hold the new one. Where the system
// has no file locks, nothing is locked.
func lockFolder(path string) (unlock func(), err error) {
	dir := filepath.Dir(path)
	if target, err := filepath.EvalSymlinks(path); err == nil {
		dir = filepath.Dir(target)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the folder of %s: %w", path, err)
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("lock the folder of %s: %w", path, err)
	}
	release, err := osproc.LockFile(f)
	if errors.Is(err, errors.ErrUnsupported) {
		return func() { f.Close() }, nil
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the folder of %s: %w", path, err)
	}
	return func() {
		release()
		f.Close()
	}, nil
}

// Preview returns what Install would write, and the file it would write
// it to, writing nothing.
func Preview(path string, servers []Server, typed bool) (merged []byte, file string, err error) {
	p, err := plan(path, servers, typed)
	if err != nil {
		return nil, "", err
	}
	return p.merged, p.file, nil
}

// merge is a merge into a file, worked out before anything is written.
type merge struct {
	file     string      // the file to write, links followed
	old      []byte      // its contents, nil if it does not exist
	mode     fs.FileMode // its permissions, to keep
	merged   []byte      // its new contents
	replaced []string    // servers whose entries were replaced
}

// plan reads the file at path and merges servers into it.
func plan(path string, servers []Server, typed bool) (*merge, error) {
	p := &merge{file: path}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		p.file = target
	}
	var err error
	if p.old, p.mode, err = read(p.file); err != nil {
		return nil, err
	}
	if p.merged, p.replaced, err = Merge(p.old, servers, typed); err != nil {
		return nil, fmt.Errorf("%s was not changed: %w", p.file, err)
	}
	return p, nil
}

// read returns the file's contents and mode: nil and newFileMode when it
// does not exist.
func read(file string) ([]byte, fs.FileMode, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, newFileMode, nil
	}
	if st, serr := os.Stat(file); serr == nil && st.IsDir() {
		return nil, 0, fmt.Errorf("%s is a folder, not a configuration file", file)
	}
	if err != nil {
		return nil, 0, err
	}
	st, err := os.Stat(file)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", file, err)
	}
	return data, st.Mode().Perm(), nil
}

// backup copies data, the file's old contents, to a new file beside it.
func backup(file string, data []byte, mode fs.FileMode) (string, error) {
	stamp := file + ".nexus-backup-" + time.Now().Format("20060102-150405")
	for i := range maxBackups {
		name := stamp
		if i > 0 {
			name = fmt.Sprintf("%s-%d", stamp, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", file, err)
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", file, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("back up %s: %d backups already made this second", file, maxBackups)
}

// replace writes data to file through a temporary file beside it.
func replace(file string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), filepath.Base(file)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", file, err)
	}
	return nil
}
