package python

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Packages maps each module the pool runtime imports beyond the standard
// library to the pip package that provides it.
var Packages = []struct{ Module, Pip string }{
	{"grpc", "grpcio"},
	{"msgpack", "msgpack"},
}

// probeTimeout bounds the run of the interpreter that FindInterpreter asks
// about itself. Importing grpc takes a tenth of a second; a minute only
// stops a program that is not a Python and never ends.
const probeTimeout = time.Minute

// probe prints the interpreter's own path (sys.executable), then the
// modules of Packages it cannot import, one a line.
const probe = `import sys
print(sys.executable)
for m in sys.argv[1:]:
    try:
        __import__(m)
    except Exception:
        print(m)
`

// FindInterpreter returns the absolute path of the Python interpreter that
// requested names (a path, or a program looked up on PATH; empty means
// Interpreter), after checking it can import Packages.
//
// The path is the interpreter's own (its sys.executable), not what PATH
// gave: that may be a pyenv or asdf shim, a script that finds the real
// interpreter through PATH and the user's shell setup, which an MCP client
// started from a desktop does not have. It is not resolved through
// symbolic links either: a virtual environment's python is a link whose
// own location picks the environment's packages.
func FindInterpreter(requested string) (string, error) {
	name := requested
	if name == "" {
		name = Interpreter
	}
	found, err := exec.LookPath(name)
	if err != nil {
		if requested == "" {
			return "", fmt.Errorf("the program has Python functions, but there is no %s on PATH: install Python 3 and then `python3 -m pip install %s`, or name an interpreter with --python PATH (or NEXUS_PYTHON)", Interpreter, pipNames())
		}
		return "", fmt.Errorf("python interpreter %s (named by --python or NEXUS_PYTHON) not found", requested)
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	args := []string{"-c", probe}
	for _, p := range Packages {
		args = append(args, p.Module)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, found, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("python interpreter %s does not run as Python: %w%s", found, err, indentOutput(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	self := strings.TrimSpace(lines[0])
	if !filepath.IsAbs(self) {
		return "", fmt.Errorf("python interpreter %s is not a Python that knows its own path (asked for sys.executable, it printed %q); name another with --python PATH", found, self)
	}
	if missing := lines[1:]; len(missing) > 0 {
		for i := range missing {
			missing[i] = strings.TrimSpace(missing[i])
		}
		return "", fmt.Errorf("python interpreter %s cannot import %s, which Python pools need: install with `%s -m pip install %s`, or name another interpreter with --python PATH (or NEXUS_PYTHON)",
			self, strings.Join(missing, ", "), self, pipNames(missing...))
	}
	return self, nil
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

// indentOutput formats a program's error output to follow a message.
func indentOutput(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return "\n\t" + strings.ReplaceAll(s, "\n", "\n\t")
}
