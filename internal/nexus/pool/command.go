package pool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/nexus-run/nexus/manifest"
)

// launchCommand returns the argv that starts pool p of m. A Python pool
// runs under the interpreter `nexus make` recorded (p.Interpreter), not
// the python3 its command names, which PATH would resolve: an MCP client
// started from a desktop passes a PATH without the user's Python, or none.
// A manifest written before interpreters were recorded has none, and its
// pool starts python3 from PATH as it always did.
func launchCommand(m *manifest.Manifest, p *manifest.Pool) ([]string, error) {
	argv := m.PoolCommand(p)
	if p.Lang != manifest.Python || p.Interpreter == "" {
		return argv, nil
	}
	if _, err := os.Stat(p.Interpreter); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("start %s pool: the Python interpreter %s, recorded when the program was built, is gone: rebuild the program with `nexus make --python PATH main.loc`, PATH being a Python with grpcio and msgpack", Name(p.Lang), p.Interpreter)
		}
		return nil, fmt.Errorf("start %s pool: the Python interpreter recorded when the program was built: %w", Name(p.Lang), err)
	}
	argv[0] = p.Interpreter
	return argv, nil
}
