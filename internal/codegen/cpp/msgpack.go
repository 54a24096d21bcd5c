package cpp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// msgpackHeader is the msgpack-cxx header the runtime includes. msgpack-cxx
// is header-only, and Debian's package ships no pkg-config file, so its
// folder is looked for in turn: pkg-config (under either name it has had),
// the compiler's own include path (where Debian puts it), then Homebrew's
// prefixes (not on Apple clang's default path on Apple silicon).
const msgpackHeader = "msgpack/pack.hpp"

// msgpackPackages are the names msgpack-cxx's pkg-config file has had.
var msgpackPackages = []string{"msgpack-cxx", "msgpack"}

// msgpackFlags returns the compile flags that let cxx find msgpack-cxx:
// none when its include path already has it.
func msgpackFlags(cxx string) ([]string, error) {
	for _, pkg := range msgpackPackages {
		if cflags, err := output("pkg-config", "--cflags", pkg); err == nil {
			return strings.Fields(cflags), nil
		}
	}
	var dirs []string
	// -v lists the include path on stderr; -E stops before compiling.
	cmd := exec.Command(cxx, "-x", "c++", "-E", "-v", "-")
	cmd.Stdin = strings.NewReader("")
	if out, err := cmd.CombinedOutput(); err == nil {
		dirs = includeDirs(string(out))
	}
	if headerDir(msgpackHeader, dirs) != "" {
		return nil, nil
	}
	if d := headerDir(msgpackHeader, homebrewIncludeDirs()); d != "" {
		return []string{"-I" + d}, nil
	}
	return nil, fmt.Errorf("msgpack-cxx is not installed: no %s on %s's include path, nor in Homebrew's prefix; %s",
		msgpackHeader, cxx, setupHint)
}

// includeDirs reads the folders of the include path out of what a GCC or
// clang compiler prints with -v.
func includeDirs(verbose string) []string {
	var dirs []string
	in := false
	for _, line := range strings.Split(verbose, "\n") {
		switch {
		case strings.HasPrefix(line, "#include <...> search starts here:"):
			in = true
		case strings.HasPrefix(line, "End of search list."):
			return dirs
		case in && strings.HasPrefix(line, " "):
			// clang marks macOS framework folders so.
			dir := strings.TrimSuffix(strings.TrimSpace(line), " (framework directory)")
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// headerDir returns the first of dirs that holds header, or "".
func headerDir(header string, dirs []string) string {
	for _, d := range dirs {
		if info, err := os.Stat(filepath.Join(d, header)); err == nil && info.Mode().IsRegular() {
			return d
		}
	}
	return ""
}

// homebrewIncludeDirs are the include folders of Homebrew's prefix: the
// one $HOMEBREW_PREFIX or `brew --prefix` names, else its defaults on
// Apple silicon and on Intel.
func homebrewIncludeDirs() []string {
	var prefixes []string
	if p := os.Getenv("HOMEBREW_PREFIX"); p != "" {
		prefixes = append(prefixes, p)
	} else if _, err := exec.LookPath("brew"); err == nil {
		if p, err := output("brew", "--prefix"); err == nil && p != "" {
			prefixes = append(prefixes, p)
		}
	}
	prefixes = append(prefixes, "/opt/homebrew", "/usr/local")
	dirs := make([]string, len(prefixes))
	for i, p := range prefixes {
		dirs[i] = filepath.Join(p, "include")
	}
	return dirs
}
