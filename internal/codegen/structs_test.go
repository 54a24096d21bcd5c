package codegen

import (
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// TestGeneratedStructMaps: a record mapped to "struct" keeps that map in
// the manifest, in every language and by either spelling of the map; the
// C++ pool generates the struct.
func TestGeneratedStructMaps(t *testing.T) {
	p := compileOK(t, `module m (older)
record Address where
  city :: Str
record Person where
  name :: Str
  home :: Address
record Cpp => Person = "struct"
type Cpp => Address = "struct"
record Py => Person = "struct"
older :: Person -> Person
older p = p
`)
	var person *types.Type
	for _, c := range p.Manifest.Commands {
		if c.Name == "older" {
			person = c.Return
		}
	}
	if person == nil || person.Kind != types.Record {
		t.Fatalf("no command older returning a record: %+v", p.Manifest.Commands)
	}
	if person.Langs[manifest.Cpp] != types.GenerateStruct || person.Langs[manifest.Python] != types.GenerateStruct {
		t.Errorf("Person's maps are %v, want struct in C++ and Python", person.Langs)
	}
	if home := person.Fields[1].Type; home.Langs[manifest.Cpp] != types.GenerateStruct {
		t.Errorf("Address's maps are %v, want struct in C++", home.Langs)
	}
}

func TestGeneratedStructErrors(t *testing.T) {
	const pair = "module m (f)\nrecord Pair a b where\n  fst :: a\n  snd :: b\nf :: Int\nf = 1\n"
	wantError(t, pair+`record Cpp => Pair = "struct"`,
		"7:22: record Pair has type parameters, and generating a C++ struct (a template) for it is not supported yet; declare the struct in your header and map Pair to it")
	wantError(t, pair+`type cpp => (Pair a b) = "struct" a b`,
		"7:26: record Pair has type parameters, and generating a C++ struct")
}
