package integration

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

const okPy = `
def f(x):
    return x
`

// TestBuildErrors: each mistake is one clear line naming file:line:col, a
// non-zero exit, no launcher, no panic.
func TestBuildErrors(t *testing.T) {
	cases := []struct {
		name string
		loc  string
		line int      // the line the error must point at
		want []string // what the message must say
	}{
		{"unknown type", `
module m (g)
import root-py
source Py from "f.py" ("f")
f :: Strng -> Str
g :: Str -> Str
g x = f x
`, 5, []string{"unknown type", "Strng", "did you mean", "Str"}},
		{"unknown name", `
module m (g)
import root-py
source Py from "f.py" ("f")
f :: Str -> Str
g :: Str -> Str
g x = ff x
`, 7, []string{"ff", "did you mean", "f"}},
		{"missing source file", `
module m (f)
import root-py
source Py from "nothere.py" ("f")
f :: Str -> Str
`, 4, []string{"nothere.py"}},
		{"sourced name not in source", `
module m (h)
import root-py
source Py from "f.py" ("h")
h :: Str -> Str
`, 4, []string{"h", "f.py"}},
		{"duplicate option", `
module m (g)
import root-py
source Py from "f.py" ("f" as f2)
f2 :: Str -> Str -> Str
g ::
  --' arg: -n/--name
  Str ->
  --' arg: --name
  Str ->
  Str
g a b = f2 a b
`, 9, []string{"--name"}},
		{"default that does not type-check", `
module m (g)
import root-py
source Py from "f.py" ("f")
f :: Int -> Int
g ::
  --' arg: --n
  --' default: "three"
  Int ->
  Int
g x = f x
`, 8, []string{"default", "Int"}},
		{"short option not a letter", `
module m (g)
import root-py
source Py from "f.py" ("f")
f :: Int -> Int
g ::
  --' arg: -1/--one
  Int ->
  Int
g x = f x
`, 7, []string{"-1", "letter"}},
		{"underscore name", `
module m (g)
import root-py
source Py from "f.py" ("f")
f :: Int -> Int
g ::
  --' @name _hidden
  Int ->
  Int
g x = f x
`, 7, []string{"_hidden"}},
		{"tool name Claude rejects", `
module m (g)
import root-py
source Py from "f.py" ("f")
f :: Int -> Int
--' name: bad.name
g :: Int -> Int
g x = f x
`, 6, []string{"bad.name"}},
		{"export with no definition", `
module m (g, nope)
import root-py
source Py from "f.py" ("f")
f :: Int -> Int
g :: Int -> Int
g x = f x
`, 2, []string{"nope"}},
		{"unknown import", `
module m (g)
import root-pyy
source Py from "f.py" ("f")
f :: Int -> Int
g :: Int -> Int
g x = f x
`, 3, []string{"root-pyy"}},
		{"syntax error", `
module m (g)
import root-py
source Py from "f.py" ("f")
f :: Int -> -> Int
`, 5, []string{"expected"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stderr := makeFails(t, files{"main.loc": strings.TrimPrefix(c.loc, "\n"), "f.py": okPy})
			first := strings.SplitN(strings.TrimSpace(stderr), "\n", 2)[0]
			pos := regexp.MustCompile(fmt.Sprintf(`main\.loc:%d:\d+: `, c.line-1))
			if !pos.MatchString(first) {
				t.Errorf("error should point at main.loc:%d:COL, got:\n%s", c.line-1, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(first, w) {
					t.Errorf("error lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}
