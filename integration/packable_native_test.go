package integration

import (
	"strings"
	"testing"
)

// nativePackableProgram gives the newtype Path a native form in C++ and
// in Go: a struct of its parts, which pack builds from the wire form (a
// Str) dropping empty and "." parts, and unpack joins back. A function
// that was not given a packed value could not compile (the structs are
// not strings), and one that was shows it by counting the parts. Temp
// has a C++ instance without a type map: its C++ type is what pack
// returns.
var nativePackableProgram = files{
	"main.loc": `module main (cstem, cstems, cmapped, cbelow, ctwice, cshown, centry, cwarm, gstem, gstems, gbelow, gentry, cross)
import root

newtype Path = Str
type Cpp => Path = "paths::Path"
type Go => Path = "Path"
instance Packable Str Path where
  source Cpp from "paths.hpp" ("to_path" as pack, "from_path" as unpack)
  source Go from "paths.go" ("ToPath" as pack, "FromPath" as unpack)

newtype Temp = Real
instance Packable Real Temp where
  source Cpp from "paths.hpp" ("to_temp" as pack, "from_temp" as unpack)

record Entry where
  name :: Str
  path :: Path
record Cpp => Entry = "paths::Entry"
record Go => Entry = "Entry"

source Cpp from "paths.hpp" ("stem" as cppStem, "stems" as cppStems, "below" as cppBelow, "entry" as cppEntry, "warmer" as cppWarmer)
source Go from "paths.go" ("Stem" as goStem, "Stems" as goStems, "Below" as goBelow, "MakeEntry" as goEntry)

cppStem :: Path -> Str
cppStems :: [(Int, ?Path)] -> [Str]
cppBelow :: Path -> Str -> Path
cppEntry :: Str -> Path -> Entry
cppWarmer :: Temp -> Temp
goStem :: Path -> Str
goStems :: [(Int, ?Path)] -> [Str]
goBelow :: Path -> Str -> Path
goEntry :: Str -> Path -> Entry

cstem :: Path -> Str
cstem p = cppStem p

cstems :: [(Int, ?Path)] -> [Str]
cstems ps = cppStems ps

cmapped :: [Path] -> [Str]
cmapped ps = map cppStem ps

cbelow :: Path -> Str -> Path
cbelow p s = cppBelow p s

ctwice :: Path -> Str -> Str -> Path
ctwice p a b = cppBelow (cppBelow p a) b

cshown :: Path -> Str
cshown p = @show (cppBelow p "x")

centry :: Str -> Path -> Entry
centry n p = cppEntry n p

cwarm :: Temp -> Temp
cwarm t = cppWarmer t

gstem :: Path -> Str
gstem p = goStem p

gstems :: [(Int, ?Path)] -> [Str]
gstems ps = goStems ps

gbelow :: Path -> Str -> Path
gbelow p s = goBelow p s

gentry :: Str -> Path -> Entry
gentry n p = goEntry n p

cross :: Path -> Str
cross p = goStem (cppBelow (goBelow p "go") "cpp")
`,
	"paths.hpp": `#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace paths {
struct Path {
  bool absolute = false;
  std::vector<std::string> parts;
};
struct Entry {
  std::string name;
  Path path;
};
}

inline paths::Path to_path(const std::string& s) {
  if (s.empty()) throw std::invalid_argument("an empty path");
  paths::Path p;
  p.absolute = s[0] == '/';
  std::string part;
  for (char c : s + "/") {
    if (c != '/') {
      part += c;
      continue;
    }
    if (!part.empty() && part != ".") p.parts.push_back(part);
    part.clear();
  }
  return p;
}

inline std::string from_path(const paths::Path& p) {
  std::string s = p.absolute ? "/" : "";
  for (std::size_t i = 0; i < p.parts.size(); ++i) s += (i ? "/" : "") + p.parts[i];
  return s;
}

inline std::string stem(const paths::Path& p) {
  return "cpp" + std::to_string(p.parts.size()) + ":" + (p.parts.empty() ? "" : p.parts.back());
}

inline std::vector<std::string> stems(const std::vector<std::tuple<std::int64_t, std::optional<paths::Path>>>& ps) {
  std::vector<std::string> out;
  for (const auto& [i, p] : ps) out.push_back(std::to_string(i) + ":" + (p ? stem(*p) : "-"));
  return out;
}

inline paths::Path below(paths::Path p, const std::string& s) {
  p.parts.push_back(s);
  return p;
}

inline paths::Entry entry(const std::string& name, const paths::Path& p) { return {name + std::to_string(p.parts.size()), p}; }

struct Kelvin {
  double k;
};
inline Kelvin to_temp(double c) { return {c + 273.0}; }
inline double from_temp(const Kelvin& t) { return t.k - 273.0; }
inline Kelvin warmer(Kelvin t) { return {t.k * 2}; }
`,
	"paths.go": `package paths

import (
	"errors"
	"fmt"
	"strings"
)

type Path struct {
	Absolute bool
	Parts    []string
}

type Entry struct {
	Name string
	Path Path
}

type Item struct {
	I int
	P *Path
}

func ToPath(s string) (Path, error) {
	if s == "" {
		return Path{}, errors.New("an empty path")
	}
	p := Path{Absolute: strings.HasPrefix(s, "/")}
	for _, part := range strings.Split(s, "/") {
		if part != "" && part != "." {
			p.Parts = append(p.Parts, part)
		}
	}
	return p, nil
}

func FromPath(p Path) string {
	s := strings.Join(p.Parts, "/")
	if p.Absolute {
		return "/" + s
	}
	return s
}

func Stem(p Path) string {
	last := ""
	if len(p.Parts) > 0 {
		last = p.Parts[len(p.Parts)-1]
	}
	return fmt.Sprintf("go%d:%s", len(p.Parts), last)
}

func Stems(ps []Item) []string {
	var out []string
	for _, it := range ps {
		s := "-"
		if it.P != nil {
			s = Stem(*it.P)
		}
		out = append(out, fmt.Sprintf("%d:%s", it.I, s))
	}
	return out
}

func Below(p Path, s string) Path {
	p.Parts = append(append([]string{}, p.Parts...), s)
	return p
}

func MakeEntry(name string, p Path) Entry {
	return Entry{Name: fmt.Sprintf("%s%d", name, len(p.Parts)), Path: p}
}
`,
}

// TestPackableNative: through the CLI and MCP, C++ and Go functions are
// given the native form of a Packable newtype (their own struct), inside
// lists, optionals, tuples and record fields too, and their native
// results go back in the wire form, which the nexus keeps (chained
// calls across the two pools, @show, the prelude's map run in the C++
// pool); a pack that fails is the call's error; a C++ instance without a
// type map converts to what pack returns.
func TestPackableNative(t *testing.T) {
	p := build(t, nativePackableProgram)
	p.okAll([]cliCase{
		{[]string{"cstem", "/a//b/./c.txt"}, "\"cpp3:c.txt\"\n"},
		{[]string{"cstems", `[[1, "a/b"], [2, null]]`}, "[\"1:cpp2:b\",\"2:-\"]\n"},
		{[]string{"cmapped", `["/x/./y", "z"]`}, "[\"cpp2:y\",\"cpp1:z\"]\n"},
		{[]string{"cbelow", "/tmp//", "a"}, "\"/tmp/a\"\n"},
		{[]string{"ctwice", "/tmp/./", "a", "b.txt"}, "\"/tmp/a/b.txt\"\n"},
		{[]string{"cshown", "/tmp/"}, "\"\\\"/tmp/x\\\"\"\n"},
		{[]string{"centry", "e", "a//b"}, "{\"name\":\"e2\",\"path\":\"a/b\"}\n"},
		{[]string{"cwarm", "10"}, "293\n"},
		{[]string{"gstem", "/a//b/./c.txt"}, "\"go3:c.txt\"\n"},
		{[]string{"gstems", `[[1, "a/b"], [2, null]]`}, "[\"1:go2:b\",\"2:-\"]\n"},
		{[]string{"gbelow", "/tmp//", "a"}, "\"/tmp/a\"\n"},
		{[]string{"gentry", "e", "a//b"}, "{\"name\":\"e2\",\"path\":\"a/b\"}\n"},
		{[]string{"cross", "/r/./s"}, "\"go4:cpp\"\n"},
	})
	for _, cmd := range []string{"cstem", "gstem"} {
		if msg := p.fails(1, cmd, ""); !strings.Contains(msg, "an empty path") {
			t.Errorf("%s \"\": %q, want the pack function's error", cmd, msg)
		}
	}

	p.toolsOK([]toolCall{
		{"ctwice", map[string]any{"_1": "/", "_2": "x", "_3": "y"}, `"/x/y"`},
		{"cstems", map[string]any{"_1": []any{[]any{3, "./q"}}}, `["3:cpp1:q"]`},
		{"gbelow", map[string]any{"_1": "a/./b", "_2": "c"}, `"a/b/c"`},
		{"cross", map[string]any{"_1": "r"}, `"go3:cpp"`},
	})
	p.checkClean()

	for _, c := range []struct {
		edits []string // pairs: from, to
		want  string
	}{
		{[]string{`type Go => Path = "Path"`, `type Go => Path = "Other"`},
			`paths.go:9:6: newtype Path is the Go type Other (type Go => Path = "Other"), but its pack function ToPath returns Path`},
		{[]string{`type Cpp => Path = "paths::Path"`, `type Cpp => Path = "std::string"`},
			"newtype Path: its C++ type std::string is one nexus converts itself, so its Packable instance cannot convert it"},
		{[]string{`("to_path" as pack, "from_path" as unpack)`, `("to_path" as pack)`},
			"main.loc:7:10: instance Packable of Path sources pack from Cpp but not unpack; a pool needs both"},
	} {
		if msg := editFails(t, nativePackableProgram, c.edits); !strings.Contains(msg, c.want) {
			t.Errorf("%v: %q, want %q", c.edits, msg, c.want)
		}
	}
}
