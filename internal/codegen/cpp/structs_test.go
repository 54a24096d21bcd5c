package cpp_test

import (
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/codegen/cpp"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Records whose C++ struct is generated (record Cpp => X = "struct").
var (
	genAddress = &types.Type{Kind: types.Record, Name: "Address", Langs: map[string]string{"cpp": "struct", "py": "dict"},
		Fields: []types.Field{
			{Name: "city", Type: types.StrType},
			{Name: "zip", Type: &types.Type{Kind: types.Int, Width: "U16"}},
		}}
	genPerson = &types.Type{Kind: types.Record, Name: "Person", Langs: map[string]string{"cpp": "struct"},
		Fields: []types.Field{
			{Name: "name", Type: types.StrType},
			{Name: "age", Type: types.IntType},
			{Name: "home", Type: genAddress},
			{Name: "past", Type: types.ListOf(genAddress)},
			{Name: "scores", Type: types.MapOf(types.StrType, types.OptionalOf(types.RealType))},
			{Name: "small", Type: &types.Type{Kind: types.Real, Width: "F32"}},
		}}
)

func TestSourceGeneratedStructs(t *testing.T) {
	text, err := cpp.Source([]cpp.Function{
		{Spec: spec(0, "birthday", "birthday", genPerson, genPerson), File: "/src/people.hpp"},
		{Spec: spec(1, "moved", "move", point, point), File: "/src/geo.hpp"},
	})
	if err != nil {
		t.Fatal(err)
	}
	src := string(text)
	want := []string{
		`#include "nexus_pool.hpp"`,
		"namespace nexus::records {",
		// Address first: Person holds it.
		"struct Address {\n  ::std::string city{};\n  ::std::uint16_t zip{};\n};\n" +
			"struct Person {\n  ::std::string name{};\n  ::std::int64_t age{};\n  ::nexus::records::Address home{};\n" +
			"  ::std::vector<::nexus::records::Address> past{};\n" +
			"  ::std::map<::std::string, ::std::optional<double>> scores{};\n  float small{};\n};\n",
		"}  // namespace nexus::records\nusing ::nexus::records::Address;\nusing ::nexus::records::Person;\n",
		`#include "/src/people.hpp"`,
		// A record mapped to the user's struct is unchanged.
		"struct Record<::geo::point> {",
		// The conversion is the one of any struct: its field list.
		"struct Record<::nexus::records::Address> {",
		"struct Record<::nexus::records::Person> {",
		`field("home", &::nexus::records::Person::home),`,
		"::nexus::function<::nexus::Result<::nexus::records::Person>, ::nexus::Param<0, ::nexus::records::Person>>(",
	}
	last := -1
	for _, w := range want {
		i := strings.Index(src, w)
		if i < 0 {
			t.Fatalf("main.cpp lacks %q:\n%s", w, src)
		}
		if i < last {
			t.Errorf("%q is out of order in:\n%s", w, src)
		}
		last = i
	}
	if strings.Count(src, "struct Address {") != 1 || strings.Contains(src, "struct point {") {
		t.Errorf("a struct is generated twice, or one the user declares is generated:\n%s", src)
	}
}

// TestSourceWithoutGeneratedStructs: without a record mapped to "struct",
// main.cpp has no such section.
func TestSourceWithoutGeneratedStructs(t *testing.T) {
	text, err := cpp.Source([]cpp.Function{{Spec: spec(0, "moved", "move", point, point), File: "/src/geo.hpp"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), "nexus::records") {
		t.Errorf("main.cpp has a section of generated structs:\n%s", text)
	}
}

func TestSourceGeneratedStructErrors(t *testing.T) {
	holdsUsers := &types.Type{Kind: types.Record, Name: "Trip", Langs: map[string]string{"cpp": "struct"},
		Fields: []types.Field{{Name: "stops", Type: types.ListOf(point)}}}
	instance := &types.Type{Kind: types.Record, Name: "Pair Int Str", Langs: map[string]string{"cpp": "struct"},
		Fields: []types.Field{{Name: "fst", Type: types.IntType}, {Name: "snd", Type: types.StrType}}}
	unmappedInner := &types.Type{Kind: types.Record, Name: "Inner", Fields: []types.Field{{Name: "n", Type: types.IntType}}}
	holdsUnmapped := &types.Type{Kind: types.Record, Name: "Outer", Langs: map[string]string{"cpp": "struct"},
		Fields: []types.Field{{Name: "inner", Type: unmappedInner}}}
	cases := []struct {
		name string
		typ  *types.Type
		want string
	}{
		{"field of a user's struct", holdsUsers,
			`record Trip: its C++ struct is generated ("struct"), so its field stops cannot be record Point, whose C++ type geo::point comes from your header; map Point to "struct" too, or declare Trip in your header`},
		{"instance of a parameterized record", instance,
			"record Pair Int Str: a C++ struct cannot be generated for an instance of a record with type parameters"},
		{"field of a record without a C++ type", holdsUnmapped,
			`record Inner has no C++ type`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := cpp.Source([]cpp.Function{{Spec: spec(0, "f", "f", types.IntType, c.typ), File: "/a.hpp"}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// people uses the generated structs by the records' names, as a user's
// header does: it declares neither.
const people = `#pragma once
#include <utility>

inline Person birthday(Person p) {
  p.age += 1;
  p.past.push_back(p.home);
  p.home.city = "Oslo";
  p.home.zip = 150;
  return p;
}

inline Person blank() {
  Person p;
  return p;
}
`

// TestGeneratedStructPool builds a real pool whose functions take and
// return generated structs: the conversion is that of any struct.
func TestGeneratedStructPool(t *testing.T) {
	m := program(t, people, "",
		fn{Source: "birthday", Args: []*types.Type{genPerson}, Return: genPerson},
		fn{Source: "blank", Args: []*types.Type{types.UnitType}, Return: genPerson})
	s, _ := pooltest.Supervise(t, m, pool.Options{})

	in := map[string]any{
		"name": "Ada", "age": int64(36),
		"home":   map[string]any{"city": "London", "zip": int64(7)},
		"past":   []any{map[string]any{"city": "Paris", "zip": int64(75)}},
		"scores": []types.Pair{{Key: "a", Value: 1.5}, {Key: "b", Value: nil}},
		"small":  0.25,
	}
	got, err := pooltest.Call(t, s, m, 0, in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"Ada","age":37,"home":{"city":"Oslo","zip":150},"past":[{"city":"Paris","zip":75},{"city":"London","zip":7}],"scores":{"a":1.5,"b":null},"small":0.25}`
	if s := jsonOf(t, genPerson, got); s != want {
		t.Errorf("birthday returned %s, want %s", s, want)
	}

	got, err = pooltest.Call(t, s, m, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = `{"name":"","age":0,"home":{"city":"","zip":0},"past":[],"scores":{},"small":0}`
	if s := jsonOf(t, genPerson, got); s != want {
		t.Errorf("blank returned %s, want %s (a generated struct is value-initialized)", s, want)
	}
}

func jsonOf(t *testing.T, typ *types.Type, v any) string {
	t.Helper()
	data, err := types.ToJSON(typ, v)
	if err != nil {
		t.Fatalf("%#v is no %s: %v", v, typ, err)
	}
	return string(data)
}
