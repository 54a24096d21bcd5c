package codegen

import (
	"path/filepath"
	"strings"
	"testing"
)

// `(*)` exports what importers use too: an operator and a generic
// definition are left out of the commands, with or without a local
// module (the module loader turns `(*)` into a list of names).
func TestStarExportsLeaveOutOperatorsAndGenerics(t *testing.T) {
	body := `import root
infixr 5 <+>
(<+>) :: Str -> Str -> Str
(<+>) a b = a <> " " <> b
apply :: (a -> b) -> a -> b
apply f x = f x
g :: Str -> Str
g s = apply (<+> "!") s <+> s
`
	for name, mods := range map[string]map[string]string{
		"one module":   {"main.loc": "module main (*)\n" + body},
		"local import": {"main.loc": "module main (*)\nimport .sub\n" + body, "sub.loc": "module sub (*)\nimport root\ninc :: Int -> Int\ninc x = x + 1\n"},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := Compile(filepath.Join(writeModules(t, mods), "main.loc"))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range p.Manifest.Commands {
				names = append(names, c.Name)
			}
			want := "g"
			if len(mods) == 2 {
				want = "g inc"
			}
			if got := strings.Join(names, " "); got != want {
				t.Errorf("commands %q, want %q", got, want)
			}
		})
	}
}
