package python

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nexus-run/nexus/internal/osproc"
)

// Packages maps each module the pool runtime imports beyond the standard
// library to the pip package that provides it.
var Packages = []struct{ Module, Pip string }{
	{"grpc", "grpcio"},
	{"msgpack", "msgpack"},
}

// probeTimeout bounds each run of the interpreter at build time: the probe
// FindInterpreter makes and the syntax check. Importing grpc takes a tenth of a second, a first run on
// macOS, which scans new binaries, a few seconds; a minute only stops a
// program that is not a Python and never ends. A variable so that a test
// need not wait a minute.
var probeTimeout = time.Minute

// minVersion is the oldest Python the pool runtime runs on: it uses
// postponed evaluation of annotations (from __future__ import annotations).
var minVersion = [2]int{3, 7}

// probe prints the interpreter's own path (sys.executable), its version,
// then the modules of Packages it cannot import, one a line. Python 2
// must be able to run it, to be told it is too old.
const probe = `import sys
print(sys.executable)
print("%d.%d.%d" % tuple(sys.version_info[:3]))
for m in sys.argv[1:]:
    try:
        __import__(m)
    except Exception:
        print(m)
`

// FindInterpreter returns the absolute path of the Python interpreter that
// requested names (a path, or a program looked up on PATH; empty means
// Interpreter), after checking it is recent enough (minVersion) and can
// import Packages.
//
// The path is the interpreter's own (its sys.executable), not what PATH
// gave: that may be a pyenv or asdf shim, a script that finds the real
// interpreter through PATH and the user's shell setup, which an MCP client
// started from a desktop does not have. It is not resolved through
// symbolic links either: a virtual environment's python is a link whose
// own location picks the environment's packages.
func FindInterpreter(requested string) (string, error) {
	found, err := lookInterpreter(requested)
	if err != nil {
		return "", err
	}
	out, err := runProbe(found)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	self := lines[0]
	if !filepath.IsAbs(self) || len(lines) < 2 {
		return "", fmt.Errorf("python interpreter %s is not a Python that knows its own path (asked for sys.executable, it printed %q); name another with --python PATH", found, self)
	}
	if version := lines[1]; !atLeast(version, minVersion) {
		return "", fmt.Errorf("python interpreter %s is Python %s, and Python pools need Python %d.%d or later: name another with --python PATH (or NEXUS_PYTHON)", self, version, minVersion[0], minVersion[1])
	}
	if missing := lines[2:]; len(missing) > 0 {
		return "", fmt.Errorf("python interpreter %s cannot import %s, which Python pools need: install with `%s -m pip install %s`, or name another interpreter with --python PATH (or NEXUS_PYTHON)",
			self, strings.Join(missing, ", "), commandWord(self), pipNames(missing...))
	}
	return self, nil
}

// lookInterpreter finds the program requested names (empty: Interpreter
// on PATH).
func lookInterpreter(requested string) (string, error) {
	if requested == "" {
		found, err := exec.LookPath(Interpreter)
		if err != nil {
			return "", fmt.Errorf("the program has Python functions, but there is no %s on PATH: install Python 3 and then `python3 -m pip install %s`, or name an interpreter with --python PATH (or NEXUS_PYTHON)", Interpreter, pipNames())
		}
		return found, nil
	}
	found, err := exec.LookPath(requested)
	if err == nil {
		return found, nil
	}
	what := "not found"
	if st, serr := os.Stat(requested); serr == nil {
		what = "not an executable program"
		if st.IsDir() {
			what = "a folder, not a program"
		}
	}
	return "", fmt.Errorf("python interpreter %s (named by --python or NEXUS_PYTHON) is %s", requested, what)
}

// runProbe runs the probe with interpreter and returns what it printed.
func runProbe(interpreter string) (string, error) {
	args := []string{"-c", probe}
	for _, p := range Packages {
		args = append(args, p.Module)
	}
	r, err := runBounded(interpreter, args)
	switch {
	case err != nil:
		return "", fmt.Errorf("python interpreter %s does not run: %w", interpreter, err)
	case r.timedOut:
		return "", fmt.Errorf("python interpreter %s did not answer within %v (asked for its path, version and packages), so it was stopped: is it a Python? Name another with --python PATH", interpreter, probeTimeout)
	case !r.state.Success():
		return "", fmt.Errorf("python interpreter %s does not run as Python: %s%s", interpreter, osproc.Describe(r.state), indentOutput(r.stderr))
	}
	return r.stdout, nil
}

// bounded is how a run of runBounded ended.
type bounded struct {
	stdout, stderr string
	state          *os.ProcessState
	timedOut       bool // killed after probeTimeout
}

// runBounded runs interpreter with args and waits for it at most
// probeTimeout. The interpreter runs in a process group of its own,
// killed whole on timeout: a script that started a child would otherwise
// keep the output open, and the wait going, after the script itself was
// killed. err is set only when it could not start.
func runBounded(interpreter string, args []string) (bounded, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(interpreter, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	g, err := osproc.Start(cmd)
	if err != nil {
		return bounded{}, err
	}
	var timedOut atomic.Bool
	timer := time.AfterFunc(probeTimeout, func() {
		timedOut.Store(true)
		g.Kill()
	})
	_ = g.Wait() // how it ended is in cmd.ProcessState
	timer.Stop()
	return bounded{stdout: stdout.String(), stderr: stderr.String(), state: cmd.ProcessState, timedOut: timedOut.Load()}, nil
}

// atLeast reports whether version ("3.11.7") is min or later.
func atLeast(version string, min [2]int) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return major > min[0] || (major == min[0] && minor >= min[1])
}

// commandWord is path as one word of a shell command, to copy and paste:
// quoted when it holds anything but letters, digits and /._+-.
func commandWord(path string) string {
	if strings.Trim(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-") == "" {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}

// pipNames are the pip packages that provide modules (all of Packages if
// none are named), for a command line.
func pipNames(modules ...string) string {
	var names []string
	for _, p := range Packages {
		if len(modules) == 0 || slices.Contains(modules, p.Module) {
			names = append(names, p.Pip)
		}
	}
	return strings.Join(names, " ")
}

// maxOutputLines bounds the lines of a program's error output that follow
// a message: the end of a Python traceback says what went wrong; a program
// that is not Python may complain at length.
const maxOutputLines = 8

// indentOutput formats the end of a program's error output to follow a
// message.
func indentOutput(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > maxOutputLines {
		lines = append([]string{"..."}, lines[len(lines)-maxOutputLines:]...)
	}
	return "\n\t" + strings.Join(lines, "\n\t")
}
