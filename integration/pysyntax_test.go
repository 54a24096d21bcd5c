package integration

import (
	"regexp"
	"strings"
	"testing"
)

// TestPythonSyntaxError: `nexus make` compiles the Python sources with the
// pool's interpreter, and a syntax error fails the build with
// file:line:col: message for the first error of each file, as the C++
// and Go compilers' errors do, rather than the pool's first start.
func TestPythonSyntaxError(t *testing.T) {
	stderr := makeFails(t, files{
		"good.py": "def ok(x):\n    return x\n",
		"a.py":    "def f(x):\n    return x +* 1\n\ndef g(:\n    pass\n",
		"b.py":    "def h(x):\nreturn x\n",
		"main.loc": `module m (f, h, ok)
import root-py
source Py from "a.py" ("f", "g")
source Py from "b.py" ("h")
source Py from "good.py" ("ok")
f :: Int -> Int
g :: Int -> Int
h :: Int -> Int
ok :: Int -> Int
`,
	})
	t.Log(stderr)
	for _, want := range []string{`(?m)^a\.py:2:\d+: \S`, `(?m)^b\.py:2:1: \S`} {
		if !regexp.MustCompile(want).MatchString(stderr) {
			t.Errorf("stderr does not match %s:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stderr, "the Python code does not compile") {
		t.Errorf("stderr does not say what failed:\n%s", stderr)
	}
	// Python stops at a file's first error; the file that compiles is
	// not mentioned.
	if strings.Contains(stderr, "a.py:4:") || strings.Contains(stderr, "good.py") {
		t.Errorf("stderr names more than each file's first error:\n%s", stderr)
	}
}
