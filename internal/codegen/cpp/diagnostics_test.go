package cpp

import (
	"fmt"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	x := &explainer{
		poolDir: "/work/prog-build.tmp/pools/cpp",
		roots:   []string{"/work/src"},
		cwd:     "/work",
		main: &source{parts: []part{
			{first: 20, last: 26, file: "/work/src/stats.hpp", what: "mean :: [Real] -> Real"},
		}},
	}
	noise := make([]string, 100)
	for i := range noise {
		noise[i] = fmt.Sprintf("/usr/include/c++/12/bits/stl_vector.h:%d:7: note: candidate %d", i+1, i)
	}
	cases := []struct {
		name   string
		output string
		first  []string // the message's first lines, in order
		absent []string
	}{
		{"error in the user's header", strings.Join([]string{
			"In file included from /work/prog-build.tmp/pools/cpp/main.cpp:5:",
			"/work/src/stats.hpp: In function 'double mean(const std::vector<double>&)':",
			"/work/src/stats.hpp:12:5: error: 'foo' was not declared in this scope",
			"   12 |     foo();",
			"      |     ^~~",
		}, "\n"), []string{
			"src/stats.hpp:12:5: error: 'foo' was not declared in this scope",
			"   12 |     foo();",
			"      |     ^~~",
			"(compile main.cpp; the compiler's output:)",
			"In file included from main.cpp:5:",
		}, []string{"/work/"}},
		{"error in generated code, told as the user's function", strings.Join([]string{
			"In file included from /work/prog-build.tmp/pools/cpp/main.cpp:3:",
			"/work/prog-build.tmp/pools/cpp/nexus_pool.hpp: In instantiation of 'nexus::Function nexus::function(...)':",
			"/work/prog-build.tmp/pools/cpp/main.cpp:22:6:   required from here",
			"/work/prog-build.tmp/pools/cpp/nexus_pool.hpp:1010:19: error: static assertion failed: nexus: no",
		}, "\n"), []string{
			"src/stats.hpp: mean :: [Real] -> Real: error: static assertion failed: nexus: no",
			"(compile main.cpp; the compiler's output:)",
		}, nil},
		{"trimmed", strings.Join(append([]string{"/work/src/stats.hpp:3:1: error: bad"}, noise...), "\n"), []string{
			"src/stats.hpp:3:1: error: bad",
		}, []string{"candidate 99"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := x.explain(&compileError{step: "compile main.cpp", output: c.output}).Error()
			lines := strings.Split(msg, "\n")
			for i, want := range c.first {
				if i >= len(lines) || lines[i] != want {
					t.Fatalf("line %d is not %q:\n%s", i+1, want, msg)
				}
			}
			for _, no := range c.absent {
				if strings.Contains(msg, no) {
					t.Errorf("the message has %q:\n%s", no, msg)
				}
			}
			if n := len(lines); n > len(c.first)+maxRemainder+2 {
				t.Errorf("the message has %d lines:\n%s", n, msg)
			}
		})
	}
}

func TestExplainLinkError(t *testing.T) {
	x := &explainer{poolDir: "/p", cwd: "/w"}
	msg := x.explain(&compileError{step: "link the C++ pool", output: strings.Join([]string{
		"/usr/bin/ld: /cache/obj/1.o: in function `main':",
		"main.cpp:(.text+0xdb): undefined reference to `nowhere(double)'",
		"main.cpp:(.text+0xf0): undefined reference to `nowhere(double)'",
		"collect2: error: ld returned 1 exit status",
	}, "\n")}).Error()
	first, _, _ := strings.Cut(msg, "\n")
	if first != "link the C++ pool: undefined reference to `nowhere(double)'" {
		t.Errorf("first line %q:\n%s", first, msg)
	}
	if strings.Count(msg, "undefined reference") != 1 || !strings.Contains(msg, "beside the header") {
		t.Errorf("message:\n%s", msg)
	}
}
