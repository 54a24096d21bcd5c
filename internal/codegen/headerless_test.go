package codegen

import (
	"path/filepath"
	"strings"
	"testing"
)

// A file without a module header is `module main (*)`, as Morloc reads
// it: the program's own file, and a local module it imports.
func TestHeaderlessFiles(t *testing.T) {
	dir := writeModules(t, map[string]string{
		"main.loc": "import root\nimport .lib\n\ntwice :: Int -> Int\ntwice x = inc (inc x)\n",
		"lib.loc":  "import root\ninc :: Int -> Int\ninc x = x + 1\n",
	})
	p, err := Compile(filepath.Join(dir, "main.loc"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range p.Manifest.Commands {
		names = append(names, c.Name)
	}
	if p.Manifest.Name != "main" || strings.Join(names, " ") != "twice inc" {
		t.Errorf("program %q with commands %v, want main with twice inc", p.Manifest.Name, names)
	}
}
