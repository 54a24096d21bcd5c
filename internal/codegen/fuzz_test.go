package codegen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCompile checks that no program, however broken, makes Compile panic,
// and that every failure is a list of one-line errors.
func FuzzCompile(f *testing.F) {
	f.Add(languageExample(f))
	f.Add(program("f", "f :: Str -> Str\nf = upper . upper"))
	f.Add(program("f", "--' with: -m/--mean=.mean\nf :: [Real] -> Summary\nf = summarize"))
	f.Add(errHeader + "f :: Int\nf = .a [1, \"x\"]")
	f.Add("module m (*)\nf x = {a = (1, [2]), b = @throw \"x\"}\n")
	f.Add(person + "class Greet a where\n  greet :: a -> Str\ninstance Greet Person where\n  greet p = show p\ninstance Eq a where\n  (==) a b = true\ntwice :: Greet a => a -> Str\ntwice x = greet x <> greet x\nf :: Person -> Bool\nf p = twice p == twice p")
	dir := f.TempDir()
	for name, text := range map[string]string{"chem.py": chemPy, "stats.hpp": statsHpp, "mathx.go": mathxGo} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := os.CreateTemp(dir, "*.loc")
		if err != nil {
			t.Fatal(err)
		}
		path := file.Name()
		defer os.Remove(path)
		_, err = file.WriteString(src)
		if cerr := file.Close(); err != nil || cerr != nil {
			t.Fatal(err, cerr)
		}
		p, err := Compile(path)
		if err != nil {
			list, ok := err.(ErrorList)
			if !ok || len(list) == 0 {
				t.Fatalf("error %T %v", err, err)
			}
			for _, e := range list {
				if strings.Contains(e.Msg, "\n") || e.Line < 1 || e.Col < 1 {
					t.Fatalf("bad error %q", e.Error())
				}
			}
			return
		}
		validate(t, p.Manifest)
	})
}
