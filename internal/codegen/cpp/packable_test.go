package cpp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/codegen/cpp"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// packedStr is a newtype of Str whose C++ packing is functions 7 (pack)
// and 8 (unpack), with native, from its type map, maybe "".
func packedStr(name, native string) *types.Type {
	return &types.Type{Kind: types.Str, Name: name, Packs: map[string]*types.Packing{
		manifest.Cpp: {Native: native, Pack: 7, Unpack: 8},
		// Another pool's packing is not C++'s business.
		manifest.Python: {Native: "pathlib.Path", Pack: 70, Unpack: 80},
	}}
}

// packers are the pack and unpack functions of packedStr.
func packers(t *types.Type) []cpp.Function {
	return []cpp.Function{
		{Spec: spec(7, "pack", "paths::to_path", t, types.StrType), File: "/src/paths.hpp"},
		{Spec: spec(8, "unpack", "from_path", types.StrType, t), File: "/src/paths.hpp"},
	}
}

// TestSourcePackable: a packable newtype is its C++ type wherever it
// appears, and main.cpp gives that type a Codec that packs what it reads
// and unpacks what it writes, once; without a type map the type is what
// pack returns.
func TestSourcePackable(t *testing.T) {
	path := packedStr("Path", "std::filesystem::path")
	fns := append(packers(path),
		cpp.Function{Spec: spec(1, "stems", "stems", types.ListOf(types.StrType), types.ListOf(types.OptionalOf(path))), File: "/src/paths.hpp"},
		cpp.Function{Spec: spec(2, "below", "below", path, path, types.StrType), File: "/src/paths.hpp"})
	text, err := cpp.Source(fns)
	if err != nil {
		t.Fatal(err)
	}
	src := string(text)
	for _, want := range []string{
		"::nexus::Param<0, ::std::vector<::std::optional<::std::filesystem::path>>>",
		"::nexus::function<::nexus::Result<::std::filesystem::path>, ::nexus::Param<0, ::std::filesystem::path>, ::nexus::Param<1, ::std::string>>(",
		"struct Codec<::std::filesystem::path> {",
		"static ::std::filesystem::path read(Reader& r) { return static_cast<::std::filesystem::path>((::paths::to_path)(Codec<::std::string>::read(r))); }",
		"static void write(Writer& w, const ::std::filesystem::path& v) { write_unpacked<::std::string>(w, (::from_path)(v)); }",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("main.cpp lacks %q:\n%s", want, src)
		}
	}
	if strings.Count(src, "struct Codec<") != 1 || strings.Index(src, "struct Codec<") < strings.Index(src, `#include "/src/paths.hpp"`) {
		t.Errorf("the Codec is not written once, after the user's header:\n%s", src)
	}

	unmapped := packedStr("Path", "")
	text, err = cpp.Source(append(packers(unmapped), cpp.Function{Spec: spec(1, "stem", "stem", types.StrType, unmapped), File: "/src/paths.hpp"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := "::nexus::Param<0, ::std::decay_t<decltype((::paths::to_path)(::std::declval<::std::string>()))>>"; !strings.Contains(string(text), want) {
		t.Errorf("main.cpp lacks %q:\n%s", want, text)
	}
}

// TestSourcePackableErrors: what a packable newtype's C++ type cannot be.
func TestSourcePackableErrors(t *testing.T) {
	generatedRecord := func(f *types.Type) *types.Type {
		return &types.Type{Kind: types.Record, Name: "Entry", Langs: map[string]string{manifest.Cpp: types.GenerateStruct},
			Fields: []types.Field{{Name: "path", Type: f}}}
	}
	path, dir := packedStr("Path", "geo::path"), packedStr("Dir", "geo::path")
	cases := []struct {
		name string
		fns  []cpp.Function
		want string
	}{
		{"a type the runtime converts", append(packers(packedStr("Path", "std::string")),
			cpp.Function{Spec: spec(1, "f", "f", types.IntType, packedStr("Path", "std::string")), File: "/a.hpp"}),
			"newtype Path: its C++ type std::string is one nexus converts itself, so its Packable instance cannot convert it"},
		{"not a type name", append(packers(packedStr("Path", "path; int")),
			cpp.Function{Spec: spec(1, "f", "f", types.IntType, packedStr("Path", "path; int")), File: "/a.hpp"}),
			`newtype Path: "path; int" is not a C++ type name`},
		{"two newtypes, one type", append(packers(path),
			cpp.Function{Spec: spec(1, "f", "f", types.IntType, path, dir), File: "/a.hpp"}),
			"newtypes Path and Dir both have the C++ type ::geo::path and a Packable instance each"},
		{"pack not in the pool", []cpp.Function{{Spec: spec(1, "f", "f", types.IntType, path), File: "/a.hpp"}},
			"newtype Path: its pack (function 7) is not a function of the C++ pool"},
		{"a field of a generated struct", append(packers(path),
			cpp.Function{Spec: spec(1, "f", "f", types.IntType, generatedRecord(path)), File: "/a.hpp"}),
			`record Entry: its C++ struct is generated ("struct"), so its field path cannot hold newtype Path`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := cpp.Source(c.fns)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// bagHeader packs a list of strings into a struct of its own (Bag), and
// a table into a std::map, which the runtime converts itself.
const bagHeader = `#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

struct Bag {
  std::vector<std::string> items;
  int packed = 0;
};
inline Bag to_bag(std::vector<std::string> xs) { return {std::move(xs), 1}; }
inline std::vector<std::string> from_bag(const Bag& b) { return b.items; }
inline std::int64_t packed(const std::vector<Bag>& bs) {
  std::int64_t n = 0;
  for (const auto& b : bs) n += b.packed;
  return n;
}
inline Bag doubled(Bag b) {
  auto items = b.items;
  b.items.insert(b.items.end(), items.begin(), items.end());
  return b;
}

template <class K, class V>
std::map<K, V> to_table(const std::vector<std::tuple<K, V>>& kv) {
  std::map<K, V> m;
  for (const auto& [k, v] : kv) m[k] = v;
  return m;
}
template <class K, class V>
std::vector<std::tuple<K, V>> from_table(const std::map<K, V>& m) {
  return {m.begin(), m.end()};
}
inline std::int64_t size(const std::map<std::string, std::int64_t>& m) { return m.size(); }
`

// TestPackablePool: a pool whose functions take and return a packable
// newtype without a type map (its C++ type is what pack returns) gets
// packed values, in lists too, and sends unpacked ones; a newtype that
// pack turns into a type the runtime converts itself fails to compile
// with a message saying so.
func TestPackablePool(t *testing.T) {
	bag := &types.Type{Kind: types.List, Elem: types.StrType, Name: "Bag",
		Packs: map[string]*types.Packing{manifest.Cpp: {Pack: 0, Unpack: 1}}}
	m := program(t, bagHeader, "",
		fn{Source: "to_bag", Args: []*types.Type{types.ListOf(types.StrType)}, Return: bag},
		fn{Source: "from_bag", Args: []*types.Type{bag}, Return: types.ListOf(types.StrType)},
		fn{Source: "packed", Args: []*types.Type{types.ListOf(bag)}, Return: types.IntType},
		fn{Source: "doubled", Args: []*types.Type{bag}, Return: bag})
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	for _, c := range []struct {
		id       int
		in, want any
	}{
		{2, []any{[]string{"a"}, []string{}}, int64(2)},
		{3, []string{"a", "b"}, []any{"a", "b", "a", "b"}},
	} {
		got, err := pooltest.Call(t, s, m, c.id, c.in)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%v", got) != fmt.Sprintf("%v", c.want) {
			t.Errorf("function %d: got %#v, want %#v", c.id, got, c.want)
		}
	}

	table := &types.Type{Kind: types.List, Elem: types.TupleOf(types.StrType, types.IntType), Name: "Table Str Int",
		Packs: map[string]*types.Packing{manifest.Cpp: {Native: "std::map", Pack: 0, Unpack: 1}}}
	_, err := tryProgram(t, bagHeader, "",
		fn{Source: "to_table", Args: []*types.Type{table.Elem}, Return: table},
		fn{Source: "from_table", Args: []*types.Type{table}, Return: table.Elem},
		fn{Source: "size", Args: []*types.Type{table}, Return: types.IntType})
	if err == nil || !strings.Contains(err.Error(), "the C++ type of newtype Table Str Int is one nexus converts itself") {
		t.Errorf("got %v, want the runtime's own type refused", err)
	}
}
