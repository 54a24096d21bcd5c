package codegen

import (
	"path/filepath"
	"strings"
	"testing"
)

// `import map as mp` makes the standard module's names reachable as
// `mp.name`; a module's own name of the same spelling is an error there,
// not a silent call of the module's own.
func TestQualifiedStandardModules(t *testing.T) {
	ok := `module main (f)
import root
import map as mp
import maybe as m
f :: [(Str, Int)] -> Int
f xs = m.fromMaybeWith 0 (mp.lookup "a" (mp.fromList xs)) + m.default 0 (mp.lookup "b" (mp.fromList xs))
`
	if _, err := Compile(filepath.Join(writeModules(t, map[string]string{"main.loc": ok}), "main.loc")); err != nil {
		t.Fatal(err)
	}
	hidden := `module main (f)
import root
import map as mp
keys :: Int -> Int
keys x = x
f :: [(Str, Int)] -> [Str]
f xs = mp.keys (mp.fromList xs)
`
	_, err := Compile(filepath.Join(writeModules(t, map[string]string{"main.loc": hidden}), "main.loc"))
	if err == nil || !strings.Contains(err.Error(), "main.loc:7:8: 'mp.keys' names the standard module's 'keys' (imported as mp), but this module has a 'keys' of its own") {
		t.Errorf("own name hiding a qualified standard one: %v", err)
	}
}
