package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cppProgram has C++ identity functions for every type, functions that take
// their numbers as int, long or int64_t, by value or by const reference,
// and functions that misbehave. The first build of a machine compiles the
// C++ pool runtime; later builds find it in the cache.
var cppProgram = files{
	"ids.hpp": `#pragma once
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

struct pair_t {
  std::string name;
  double score;
  std::vector<std::string> tags;
  std::optional<std::string> note;
};

namespace geo {
struct point {
  double x;
  double y;
  std::string label;
};
}  // namespace geo

// A template: the pool passes the signature's natural C++ types.
template <class T>
T ident(T x) { return x; }

inline std::int64_t id_int(std::int64_t x) { return x; }
inline double id_real(double x) { return x; }
inline std::string id_str(const std::string& s) { return s; }
inline bool id_bool(bool b) { return b; }
inline std::vector<std::int64_t> id_list(std::vector<std::int64_t> xs) { return xs; }
inline std::optional<int> id_opt(std::optional<int> x) { return x; }
inline std::map<std::string, std::int64_t> id_map_str(const std::map<std::string, std::int64_t>& m) { return m; }
inline std::map<long, std::string> id_map_int(std::map<long, std::string> m) { return m; }
inline std::tuple<std::int64_t, std::string, bool> id_tuple(const std::tuple<std::int64_t, std::string, bool>& t) {
  return t;
}
inline pair_t id_rec(pair_t p) { return p; }
inline std::vector<geo::point> shift(const std::vector<geo::point>& ps) {
  std::vector<geo::point> out;
  for (const auto& p : ps) out.push_back({p.x + 1, p.y + 1, p.label + "'"});
  return out;
}

inline int add_int(int a, int b) { return a + b; }
inline long add_long(long a, const long& b) { return a + b; }
inline std::int64_t add_i64(const std::int64_t& a, std::int64_t b) { return a + b; }

inline void nothing(int x) { std::cout << "side effect " << x << std::endl; }

inline double fail(double x) {
  if (x < 0) throw std::invalid_argument("negative input " + std::to_string(x));
  return x;
}

inline std::int64_t crash(std::int64_t x) {
  if (x == 1) {
    volatile int* volatile p = nullptr;
    *p = 1;
  }
  return x;
}

inline std::string chatty(const std::string& s) {
  std::cout << "chatty on cout" << std::endl;
  std::printf("chatty on printf\n");
  return s;
}
`,
	// A function defined in the .cpp beside its header.
	"lib/extra.hpp": `#pragma once
double triple(double x);
`,
	"lib/extra.cpp": `#include "extra.hpp"
double triple(double x) { return 3 * x; }
`,
	"main.loc": `
module cpptypes (*)
import root-cpp
source Cpp from "ids.hpp"
  ( "id_int" as idInt, "id_real" as idReal, "id_str" as idStr, "id_bool" as idBool
  , "id_list" as idList, "id_opt" as idOpt, "id_map_str" as idMapStr, "id_map_int" as idMapInt
  , "id_tuple" as idTuple, "id_rec" as idRec, "shift"
  , "ident" as tmplInt, "ident" as tmplNested, "ident" as tmplRec
  , "add_int" as addInt, "add_long" as addLong, "add_i64" as addI64
  , "nothing", "fail", "crash", "chatty"
  )
source Cpp from "lib/extra.hpp" ("triple")

record Pair where
  name :: Str
  score :: Real
  tags :: [Str]
  note :: ?Str
record Cpp => Pair = "pair_t"

record Point where
  x :: Real
  y :: Real
  label :: Str
record Cpp => Point = "geo::point"

idInt :: Int -> Int
idReal :: Real -> Real
idStr :: Str -> Str
idBool :: Bool -> Bool
idList :: [Int] -> [Int]
idOpt :: ?Int -> ?Int
idMapStr :: Map Str Int -> Map Str Int
idMapInt :: Map Int Str -> Map Int Str
idTuple :: (Int, Str, Bool) -> (Int, Str, Bool)
idRec :: Pair -> Pair
shift :: [Point] -> [Point]
tmplInt :: Int -> Int
tmplNested :: [(Str, ?[Map Str Real])] -> [(Str, ?[Map Str Real])]
tmplRec :: Pair -> Pair
addInt :: Int -> Int -> Int
addLong :: Int -> Int -> Int
addI64 :: Int -> Int -> Int
nothing :: Int -> ()
fail :: Real -> Real
crash :: Int -> Int
chatty :: Str -> Str
triple :: Real -> Real
`,
}

func TestCpp(t *testing.T) {
	start := time.Now()
	p := build(t, cppProgram)
	t.Logf("nexus make with a C++ pool: %s", time.Since(start).Round(time.Millisecond))

	t.Run("types", func(t *testing.T) {
		for _, c := range []struct {
			cmd, in, out string
		}{
			{"idInt", "42", "42"},
			{"idInt", "-9223372036854775808", "-9223372036854775808"},
			{"idInt", "9223372036854775807", "9223372036854775807"},
			{"idReal", "1.5", "1.5"},
			{"idReal", "-0.25", "-0.25"},
			{"idReal", "3", "3"},
			{"idReal", "1e300", "1e+300"},
			{"idStr", "hello", `"hello"`},
			{"idStr", "héllo wörld ✓ 日本", `"héllo wörld ✓ 日本"`},
			{"idStr", `"a \"q\" \\ b\nc"`, `"a \"q\" \\ b\nc"`},
			{"idStr", "", `""`},
			{"idBool", "true", "true"},
			{"idBool", "false", "false"},
			{"idList", "[1,-2,3]", "[1,-2,3]"},
			{"idList", "[]", "[]"},
			{"idOpt", "7", "7"},
			{"idMapStr", `{"b":2,"a":1}`, `{"a":1,"b":2}`},
			{"idMapStr", `{}`, `{}`},
			{"idMapInt", `[[2,"two"],[1,"one"]]`, `[[1,"one"],[2,"two"]]`},
			{"idTuple", `[1,"x",true]`, `[1,"x",true]`},
			{"idRec", `{"name":"n","score":2.5,"tags":["a"],"note":null}`, `{"name":"n","score":2.5,"tags":["a"],"note":null}`},
			{"idRec", `{"tags":[],"score":1,"name":"z","note":"hi"}`, `{"name":"z","score":1,"tags":[],"note":"hi"}`},
			{"shift", `[{"x":1,"y":2.5,"label":"p"},{"x":0,"y":0,"label":""}]`, `[{"x":2,"y":3.5,"label":"p'"},{"x":1,"y":1,"label":"'"}]`},
			{"shift", `[]`, `[]`},
			{"tmplInt", "-7", "-7"},
			{"tmplNested", `[["a",null],["b",[{"x":1.5},{}]]]`, `[["a",null],["b",[{"x":1.5},{}]]]`},
			{"tmplRec", `{"name":"n","score":2.5,"tags":[]}`, `{"name":"n","score":2.5,"tags":[],"note":null}`},
			{"triple", "2.5", "7.5"},
		} {
			if got := p.ok(c.cmd, c.in); got != c.out+"\n" {
				t.Errorf("%s %s = %q, want %q", c.cmd, c.in, got, c.out+"\n")
			}
		}
		if got := p.ok("--keep-null", "idOpt", "null"); got != "null\n" {
			t.Errorf("idOpt null = %q, want null", got)
		}
	})

	t.Run("integer parameters", func(t *testing.T) {
		for _, c := range []struct {
			cmd, a, b, out string
		}{
			{"addInt", "2", "3", "5"},
			{"addInt", "-2147483648", "0", "-2147483648"},
			{"addLong", "4000000000", "1", "4000000001"},
			{"addLong", "-5", "-6", "-11"},
			{"addI64", "9223372036854775806", "1", "9223372036854775807"},
		} {
			if got := p.ok(c.cmd, c.a, c.b); got != c.out+"\n" {
				t.Errorf("%s %s %s = %q, want %q", c.cmd, c.a, c.b, got, c.out+"\n")
			}
		}
		// An Int that does not fit the int the function takes is an error,
		// not a wrapped-around number.
		stderr := p.fails(1, "addInt", "3000000000", "1")
		if !strings.Contains(stderr, "3000000000 does not fit") || !strings.Contains(stderr, "argument 1") {
			t.Errorf("addInt 3000000000: stderr %q", stderr)
		}
	})

	t.Run("void result", func(t *testing.T) {
		res := p.run("nothing", "3")
		if res.code != 0 || res.stdout != "" {
			t.Errorf("nothing 3: exit %d stdout %q, want 0 and nothing", res.code, res.stdout)
		}
		if !strings.Contains(res.stderr, "side effect 3") {
			t.Errorf("the function's std::cout did not reach stderr: %q", res.stderr)
		}
	})

	t.Run("exception", func(t *testing.T) {
		stderr := p.fails(1, "fail", "-1")
		for _, want := range []string{"std::invalid_argument", "negative input -1", "fail (ids.hpp)"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		if got := p.ok("fail", "2"); got != "2\n" {
			t.Errorf("fail 2 = %q", got)
		}
	})

	t.Run("segfault", func(t *testing.T) {
		stderr := p.fails(1, "crash", "1")
		if !strings.Contains(stderr, "c++ pool died while running crash") || !strings.Contains(stderr, "SIGSEGV") {
			t.Errorf("stderr should name the pool and the signal:\n%s", stderr)
		}
		if got := p.ok("crash", "2"); got != "2\n" {
			t.Errorf("crash 2 after the segfault = %q", got)
		}
	})

	t.Run("stdout holds only the result", func(t *testing.T) {
		res := p.run("chatty", "hi")
		if res.code != 0 || res.stdout != `"hi"`+"\n" {
			t.Fatalf("chatty: exit %d stdout %q, want only the result", res.code, res.stdout)
		}
		for _, want := range []string{"chatty on cout", "chatty on printf"} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr lacks %q: %q", want, res.stderr)
			}
		}
	})

	t.Run("rebuild", func(t *testing.T) {
		start := time.Now()
		res := runIn(t, p.dir, nil, nexusBin, "make", "-o", "prog", "main.loc")
		if res.code != 0 {
			t.Fatalf("nexus make again failed (exit %d):\n%s", res.code, res.stderr)
		}
		t.Logf("nexus make again, nothing changed: %s", time.Since(start).Round(time.Millisecond))
		if got := p.ok("triple", "1"); got != "3\n" {
			t.Errorf("triple 1 after the rebuild = %q", got)
		}

		// A changed .cpp is compiled again (and only it: main.cpp's object
		// is still in the cache).
		extra := filepath.Join(p.dir, "lib", "extra.cpp")
		if err := os.WriteFile(extra, []byte("#include \"extra.hpp\"\ndouble triple(double x) { return 4 * x; }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		if res := runIn(t, p.dir, nil, nexusBin, "make", "-o", "prog", "main.loc"); res.code != 0 {
			t.Fatalf("nexus make after changing extra.cpp failed (exit %d):\n%s", res.code, res.stderr)
		}
		t.Logf("nexus make again, extra.cpp changed: %s", time.Since(start).Round(time.Millisecond))
		if got := p.ok("triple", "1"); got != "4\n" {
			t.Errorf("triple 1 after changing extra.cpp = %q, want 4", got)
		}
	})
}

// TestCppBuildErrors: a C++ pool that does not compile fails `nexus make`
// with the compiler's message about the user's own file first.
func TestCppBuildErrors(t *testing.T) {
	cases := []struct {
		name  string
		files files
		first []string // what the first line of the message must say
		want  []string // what the message must say somewhere
	}{
		{"error in the header", files{
			"broken.hpp": `#pragma once
#include <vector>

inline double total(const std::vector<double>& xs) {
  return xs.size() + undefined_thing;
}
`,
			"main.loc": `
module m (total)
import root-cpp
source Cpp from "broken.hpp" ("total")
total :: [Real] -> Real
`}, []string{"broken.hpp:5:", "error", "undefined_thing"}, nil},
		{"error in the .cpp beside the header", files{
			"lib.hpp": "#pragma once\ndouble half(double x);\n",
			"lib.cpp": "#include \"lib.hpp\"\n\ndouble half(double x) {\n  return x / two;\n}\n",
			"main.loc": `
module m (half)
import root-cpp
source Cpp from "lib.hpp" ("half")
half :: Real -> Real
`}, []string{"lib.cpp:4:", "error", "two"}, nil},
		{"parameters that do not fit the signature", files{
			"wrong.hpp": "#pragma once\n#include <string>\ninline std::string shout(const std::string& s) { return s + \"!\"; }\n",
			"main.loc": `
module m (shout)
import root-cpp
source Cpp from "wrong.hpp" ("shout")
shout :: Int -> Int
`}, []string{"wrong.hpp", "shout :: Int -> Int"}, []string{"cannot be called with the argument types of its .loc signature"}},
		{"a declared function that is never defined", files{
			"decl.hpp": "#pragma once\ndouble nowhere(double x);\n",
			"main.loc": `
module m (nowhere)
import root-cpp
source Cpp from "decl.hpp" ("nowhere")
nowhere :: Real -> Real
`}, []string{"undefined reference", "nowhere"}, []string{"beside the header"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stderr := makeFails(t, c.files)
			first, _, _ := strings.Cut(stderr, "\n")
			for _, want := range c.first {
				if !strings.Contains(first, want) {
					t.Errorf("the first line does not say %q:\n%s", want, stderr)
				}
			}
			for _, want := range c.want {
				if !strings.Contains(stderr, want) {
					t.Errorf("the message does not say %q:\n%s", want, stderr)
				}
			}
			if lines := strings.Count(stderr, "\n"); lines > 60 {
				t.Errorf("the message has %d lines; the compiler's output should be trimmed:\n%s", lines, stderr)
			}
		})
	}
}
