package python

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/internal/osproc"
)

// SyntaxError is Python code of the user's that does not compile: the
// first error of each file that has one, as file:line:col: message, like
// the C++ and Go compilers' errors.
type SyntaxError struct {
	Errors diag.ErrorList
}

func (e *SyntaxError) Error() string {
	return "the Python code does not compile:\n" + e.Errors.Error()
}

// compileCheck compiles each file named on its command line, as Python
// would on import, without writing bytecode beside the user's files (the
// runtime's own precompile is a separate, best-effort step). For each that
// does not compile it prints one JSON line: [path, line, column, message].
// Python reports only the first syntax error of a file.
const compileCheck = `import json, sys
for path in sys.argv[1:]:
    try:
        with open(path, "rb") as f:
            source = f.read()
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as e:
        print(json.dumps([path, e.lineno or 1, e.offset or 1, e.msg]))
    except (ValueError, OSError) as e:
        print(json.dumps([path, 1, 1, str(e)]))
`

// CheckSyntax compiles the source files of fns with interpreter, the one
// the pool will run under (its version decides what is valid syntax), so
// that a syntax error fails the build rather than the pool's first start.
// The error is a *SyntaxError when a file does not compile.
func CheckSyntax(interpreter string, fns []Function) error {
	var files []string
	for _, f := range fns {
		if f.File != sourced.PreludeFile && f.File != sourced.BuiltinsFile && !slices.Contains(files, f.File) {
			files = append(files, f.File)
		}
	}
	if len(files) == 0 {
		return nil
	}
	r, err := runBounded(interpreter, append([]string{"-c", compileCheck}, files...))
	switch {
	case err != nil:
		return fmt.Errorf("check the Python sources with %s: %w", interpreter, err)
	case r.timedOut:
		return fmt.Errorf("check the Python sources with %s: no answer within %v, so it was stopped", interpreter, probeTimeout)
	case !r.state.Success():
		return fmt.Errorf("check the Python sources with %s: %s%s", interpreter, osproc.Describe(r.state), indentOutput(r.stderr))
	}
	var errs diag.ErrorList
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if line == "" {
			continue
		}
		var e diag.Error
		if err := json.Unmarshal([]byte(line), &[]any{&e.File, &e.Line, &e.Col, &e.Msg}); err != nil {
			return fmt.Errorf("check the Python sources with %s: unexpected output %q", interpreter, line)
		}
		e.File = diag.DisplayPath(e.File)
		errs = append(errs, &e)
	}
	if len(errs) > 0 {
		return &SyntaxError{Errors: errs}
	}
	return nil
}
