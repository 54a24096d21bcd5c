package pool_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/codegen/python"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest/types"
)

// doubleProgram writes a Python program of one function, double, and
// returns a function that calls double(21) with the program's pool under
// interpreter, leaving no pool running.
func doubleProgram(t *testing.T) func(interpreter string) (any, error) {
	t.Helper()
	prog := program(t, "def double(x):\n    return 2 * x\n",
		fn{Source: "double", Args: []*types.Type{types.IntType}, Return: types.IntType})
	return func(interpreter string) (any, error) {
		prog.Pools[0].Interpreter = interpreter
		s, _ := pooltest.Supervise(t, prog, pool.Options{})
		defer s.Close()
		return pooltest.Call(t, s, prog, 0, int64(21))
	}
}

// A Python pool runs under the interpreter recorded at build time, with
// no python3 on PATH, as in an MCP client that passes no PATH; without
// one recorded (a manifest from before), it needs python3 on PATH.
func TestPythonPoolRunsUnderRecordedInterpreter(t *testing.T) {
	interpreter, err := python.FindInterpreter("")
	if err != nil {
		t.Fatal(err)
	}
	call := doubleProgram(t)
	t.Setenv("PATH", t.TempDir())
	if got, err := call(interpreter); err != nil || got != int64(42) {
		t.Errorf("double(21) under %s with an empty PATH = %v, %v; want 42", interpreter, got, err)
	}
	if got, err := call(""); err == nil || !strings.Contains(err.Error(), "python3") {
		t.Errorf("double(21) under python3 from an empty PATH = %v, %v; want an error naming python3", got, err)
	}
}

// When the recorded interpreter is gone, a call says which one and how to
// rebuild, every time it is tried.
func TestPythonPoolInterpreterGone(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "venv", "bin", "python3")
	call := doubleProgram(t)
	for range 3 {
		_, err := call(gone)
		if err == nil {
			t.Fatalf("double(21) under the missing %s: no error", gone)
		}
		for _, want := range []string{gone, "is gone", "nexus make --python"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
		}
	}
}
