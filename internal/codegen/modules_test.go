package codegen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeModules writes a program of several files (paths relative to a new
// folder, which holds main.loc) and returns the folder.
func writeModules(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// compileIn compiles main.loc in dir from inside dir, so errors show the
// paths as a user running `nexus make main.loc` there sees them.
func compileIn(t *testing.T, dir string) (*Program, error) {
	t.Helper()
	t.Chdir(dir)
	return Compile("main.loc")
}

// helpersLoc is helpers/main.loc of the module tests: a Python function
// sourced beside it, a definition using an operator, a name it keeps to
// itself and one it re-exports.
const helpersLoc = `module helpers (double, twice)
import .lib.math (square)
source Py from "helpers.py" ("py_double" as pyDouble, "add")
pyDouble :: Int -> Int
add :: Int -> Int -> Int
double :: Int -> Int
double x = pyDouble x + secret
secret :: Int
secret = 0
twice :: Int -> Int
twice x = square x * 2
`

const mathLoc = `module math (square, cube, Length)
type Length = Int
square :: Int -> Int
square x = x * x
cube :: Int -> Int
cube x = x * square x
`

func moduleFiles(main string) map[string]string {
	return map[string]string{
		"main.loc":           main,
		"helpers/main.loc":   helpersLoc,
		"helpers/helpers.py": "def py_double(x):\n    return 2 * x\n\ndef add(a, b):\n    return a + b\n",
		"lib/math.loc":       mathLoc,
	}
}

// TestModules: what each import form makes visible, and under which name,
// seen in the commands the program compiles to.
func TestModules(t *testing.T) {
	tests := []struct {
		name, main string
		want       map[string]string // command -> body
	}{
		{"plain import", "module m (f)\nimport .helpers\nf :: Int -> Int\nf x = double x\n",
			map[string]string{"f": "(helpers.pyDouble($0) + 0)"}},
		{"re-export of an import", "module m (double, twice)\nimport .helpers\n",
			map[string]string{"double": "(helpers.pyDouble($0) + 0)", "twice": "(($0 * $0) * 2)"}},
		{"qualified", "module m (f)\nimport .lib.math as mm\nf :: Int -> Int\nf x = mm.cube x\n",
			map[string]string{"f": "($0 * ($0 * $0))"}},
		{"plain and qualified", "module m (f)\nimport .lib.math (square)\nimport .lib.math as mm\nf :: Int -> Int\nf x = mm.square (square x)\n",
			map[string]string{"f": "(($0 * $0) * ($0 * $0))"}},
		{"renamed", "module m (f)\nimport .lib.math (square as sq)\nf :: Int -> Int\nf x = sq x\n",
			map[string]string{"f": "($0 * $0)"}},
		{"a local name beside a hidden one", "module m (f)\nimport .helpers\nsecret :: Int -> Int\nsecret x = x - 1\nf :: Int -> Int\nf x = secret (double x)\n",
			map[string]string{"f": "((helpers.pyDouble($0) + 0) - 1)"}},
		{"star exports what it imported", "module m (*)\nimport .lib.math (cube)\ninc :: Int -> Int\ninc x = x + 1\n",
			map[string]string{"inc": "($0 + 1)", "cube": "($0 * ($0 * $0))"}},
		{"several modules in one file", "module util (inc)\ninc :: Int -> Int\ninc x = x + 1\n\nmodule m (f)\nimport util (inc)\nf :: Int -> Int\nf x = inc (inc x)\n",
			map[string]string{"f": "(($0 + 1) + 1)"}},
		{"no capture by a parameter", "module util (g)\nimport .lib.math (square as sq)\ng :: Int -> Int\ng square = sq square + 1\n\nmodule m (f)\nimport .lib.math (square)\nimport util (g)\nf :: Int -> Int\nf x = g (square x)\n",
			map[string]string{"f": "((($0 * $0) * ($0 * $0)) + 1)"}},
		{"a type renamed", "module m (f)\nimport .lib.math (Length as Len, square)\nf :: Len -> Int\nf x = square x\n",
			map[string]string{"f": "($0 * $0)"}},
		{"module without a name", "module (*)\nimport .lib.math (square)\nf :: Int -> Int\nf x = square x\n",
			map[string]string{"f": "($0 * $0)", "square": "($0 * $0)"}},
		{"bare import of a local file", "module m (f)\nimport helpers (double)\nf :: Int -> Int\nf x = double x\n",
			map[string]string{"f": "(helpers.pyDouble($0) + 0)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := compileIn(t, writeModules(t, moduleFiles(tt.main)))
			if err != nil {
				t.Fatalf("errors:\n%v", err)
			}
			validate(t, p.Manifest)
			got := map[string]string{}
			for _, c := range p.Manifest.Commands {
				got[c.Name] = exprString(p.Manifest, c.Body)
			}
			for name, body := range tt.want {
				if got[name] != body {
					t.Errorf("command %s: %q, want %q (commands %v)", name, got[name], body, got)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("commands %v, want %v", got, tt.want)
			}
		})
	}
}

// TestModuleSourcePath: a source path in a module is relative to the
// module's own file, and the manifest's function runs it from there.
func TestModuleSourcePath(t *testing.T) {
	dir := writeModules(t, moduleFiles("module m (f)\nimport .helpers\nf :: Int -> Int\nf x = double x\n"))
	p, err := compileIn(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sources) != 1 || p.Sources[0] != filepath.Join(dir, "helpers", "helpers.py") {
		t.Errorf("sources %v, want helpers/helpers.py", p.Sources)
	}
}

// TestModuleWarnings: a bare import found only in the program's folder
// works and suggests the local form.
func TestModuleWarnings(t *testing.T) {
	p, err := compileIn(t, writeModules(t, moduleFiles("module m (f)\nimport helpers (double)\nf :: Int -> Int\nf x = double x\n")))
	if err != nil {
		t.Fatal(err)
	}
	want := "main.loc:2:8: warning: 'helpers' is not a standard module; found helpers/main.loc in the program's folder: write `import .helpers` for a local module"
	if len(p.Warnings) != 1 || p.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", p.Warnings, want)
	}
}

// TestModuleErrors: each error names the file it is in, the line and the
// column, and what was expected.
func TestModuleErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // over moduleFiles' with main.loc set
		want  string
	}{
		{"missing local module", map[string]string{"main.loc": "module m (f)\nimport .nothere\nf :: Int -> Int\nf x = x\n"},
			"main.loc:2:8: module '.nothere' not found (looked for nothere.loc and nothere/main.loc in "},
		{"not exported", map[string]string{"main.loc": "module m (f)\nimport .helpers (secret)\nf :: Int -> Int\nf x = secret\n"},
			"main.loc:2:18: module 'helpers' does not export 'secret'"},
		{"not exported, a suggestion", map[string]string{"main.loc": "module m (f)\nimport .helpers (dubble)\nf :: Int -> Int\nf x = dubble x\n"},
			"main.loc:2:18: module 'helpers' does not export 'dubble' (did you mean 'double'?)"},
		{"hidden name", map[string]string{"main.loc": "module m (f)\nimport .helpers\nf :: Int -> Int\nf x = secret\n"},
			"main.loc:4:7: unknown name 'secret'"},
		{"qualified only", map[string]string{"main.loc": "module m (f)\nimport .lib.math as mm\nf :: Int -> Int\nf x = square x\n"},
			"main.loc:4:7: unknown name 'square'"},
		{"qualified name not exported", map[string]string{"main.loc": "module m (f)\nimport .lib.math as mm\nf :: Int -> Int\nf x = mm.cub x\n"},
			"main.loc:4:7: module 'math' (imported as mm) does not export 'cub' (did you mean 'cube'?)"},
		{"instances only", map[string]string{"main.loc": "module m (f)\nimport .lib.math ()\nf :: Int -> Int\nf x = square x\n"},
			"main.loc:4:7: unknown name 'square'"},
		{"unknown type", map[string]string{"main.loc": "module m (f)\nimport .lib.math (Lenght)\nf :: Int -> Int\nf x = x\n"},
			"main.loc:2:19: module 'math' has no type 'Lenght' (did you mean 'Length'?)"},
		{"unknown export in a module", map[string]string{"main.loc": "module m (f)\nimport .lib.math\nf :: Int -> Int\nf x = square x\n", "lib/math.loc": "module math (square, cub)\nsquare :: Int -> Int\nsquare x = x * x\ncube :: Int -> Int\ncube x = x\n"},
			"lib/math.loc:1:22: module 'math' does not export 'cub': it is neither defined nor imported there (did you mean 'cube'?)"},
		{"error inside a module", map[string]string{"main.loc": "module m (f)\nimport .lib.math\nf :: Int -> Int\nf x = square x\n", "lib/math.loc": "module math (square)\nsquare :: Int -> Int\nsquare x = x * \"no\"\n"},
			"lib/math.loc:3:"},
		{"syntax error inside a module", map[string]string{"main.loc": "module m (f)\nimport .lib.math\nf :: Int -> Int\nf x = square x\n", "lib/math.loc": "module math (square)\nsquare :: Int ->\n"},
			"lib/math.loc:2:17: expected a type"},
		{"cycle", map[string]string{"main.loc": "module m (f)\nimport .a\nf :: Int -> Int\nf x = x\n", "a.loc": "module a (*)\nimport .b\n", "b.loc": "module b (*)\nimport .a\n"},
			"b.loc:2:8: import cycle: a -> b -> a"},
		{"self import", map[string]string{"main.loc": "module m (f)\nimport .a\nf :: Int -> Int\nf x = x\n", "a.loc": "module a (*)\nimport .a\n"},
			"a.loc:2:8: module 'a' imports itself"},
		{"in-file cycle", map[string]string{"main.loc": "module a (*)\nimport b\n\nmodule b (*)\nimport a\n\nmodule m (f)\nimport a\nf :: Int -> Int\nf x = x\n"},
			"main.loc:5:8: import cycle: a -> b -> a"},
		{"two imports of one name", map[string]string{"main.loc": "module m (f)\nimport .lib.math (square)\nimport .helpers (double as square)\nf :: Int -> Int\nf x = square x\n"},
			"main.loc:3:28: 'square' is imported from 'helpers' but is also imported from 'math' (at 2:19)"},
		{"a definition and an import", map[string]string{"main.loc": "module m (f)\nimport .lib.math (square)\nsquare :: Int -> Int\nsquare x = x\nf :: Int -> Int\nf x = square x\n"},
			"main.loc:2:19: 'square' is imported from 'math' but is also defined in module 'm' (at 4:1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := moduleFiles("")
			for k, v := range tt.files {
				fs[k] = v
			}
			_, err := compileIn(t, writeModules(t, fs))
			if err == nil {
				t.Fatalf("compiled, want %q", tt.want)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if strings.HasPrefix(line, tt.want) {
					return
				}
			}
			t.Errorf("errors:\n%v\nwant one starting %q", err, tt.want)
		})
	}
}
