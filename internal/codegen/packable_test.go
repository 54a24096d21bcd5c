package codegen

import (
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// packableDecls declare a newtype with a Packable instance in Python
// (chem.py's upper and lines stand for pack and unpack) and a primitive
// newtype whose wire form is its instance's.
const packableDecls = `import root
newtype Path = Str
type Py => Path = "pathlib.Path"
instance Packable Str Path where
  source Py from "chem.py" ("upper" as pack, "lines" as unpack)
newtype Table k v
instance Packable [(k, v)] (Table k v) where
  source Py from "chem.py" ("count" as pack, "describe_config" as unpack)
newtype Name = Str
`

// TestPackableManifest: a Python function taking or returning a packable
// newtype links its instance's pack and unpack, at the newtype's concrete
// types, and its type's Packs name them by manifest id; a newtype
// without an instance, or one only a C++ function takes, has none.
func TestPackableManifest(t *testing.T) {
	tests := []struct {
		name, text string
		// want is, per function by name, the Packs its first argument
		// carries: pack and unpack by source name, "" for none.
		want map[string][2]string
		// wire is the pack function's argument type.
		wire string
		// lang is the pool whose packing is looked at; "" is Python.
		lang string
	}{
		{"a newtype of Str", "source Py from \"chem.py\" (\"shout\" as pyShout)\npyShout :: Path -> Int -> Path\nf :: Path -> Path\nf p = pyShout p 2",
			map[string][2]string{"pyShout": {"upper", "lines"}}, "Str", ""},
		{"a primitive newtype", "source Py from \"chem.py\" (\"molecular_weight\" as pyWeight)\npyWeight :: Table Str Int -> Real\nf :: Table Str Int -> Real\nf t = pyWeight t",
			map[string][2]string{"pyWeight": {"count", "describe_config"}}, "[(Str, Int)]", ""},
		{"a newtype without an instance", "source Py from \"chem.py\" (\"molecular_weight\" as pyWeight)\npyWeight :: Name -> Real\nf :: Name -> Real\nf n = pyWeight n",
			map[string][2]string{"pyWeight": {"", ""}}, "", ""},
		{"only C++ takes it", "source Cpp from \"stats.hpp\" (\"show\" as cppShow)\ncppShow :: Path -> Str\nf :: Path -> Str\nf p = cppShow p",
			map[string][2]string{"cppShow": {"", ""}}, "", ""},
		{"an instance in C++", "newtype Dir = Str\ninstance Packable Str Dir where\n  source Cpp from \"stats.hpp\" (\"summarize\" as pack, \"show\" as unpack)\n" +
			"source Cpp from \"stats.hpp\" (\"scale\" as cppScale)\ncppScale :: [Dir] -> Str\nf :: [Dir] -> Str\nf p = cppScale p",
			map[string][2]string{"cppScale": {"summarize", "show"}}, "Str", manifest.Cpp},
		{"an instance in Go", "newtype Dir = Str\ninstance Packable Str Dir where\n  source Go from \"mathx.go\" (\"Clamp\" as pack, \"Double\" as unpack)\n" +
			"source Go from \"mathx.go\" (\"Double\" as goShow)\ngoShow :: ?Dir -> Str\nf :: ?Dir -> Str\nf p = goShow p",
			map[string][2]string{"goShow": {"Clamp", "Double"}}, "Str", manifest.Go},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := compileOK(t, "module m (f)\n"+packableDecls+tt.text).Manifest
			byName := map[string]*manifest.Function{}
			for i := range m.Functions {
				byName[m.Functions[i].Name] = &m.Functions[i]
			}
			for name, want := range tt.want {
				f := byName[name]
				if f == nil {
					t.Fatalf("no function %s in %v", name, byName)
				}
				lang := tt.lang
				if lang == "" {
					lang = manifest.Python
				}
				arg := f.Args[0]
				for arg.Packs[lang] == nil && arg.Elem != nil {
					arg = arg.Elem
				}
				p := arg.Packs[lang]
				if want[0] == "" {
					if p != nil || len(m.Functions) != 1 {
						t.Errorf("%s: packs %+v and %d functions, want none and 1", name, p, len(m.Functions))
					}
					continue
				}
				if p == nil {
					t.Fatalf("%s: argument %s has no %s packing", name, f.Args[0], lang)
				}
				pack, unpack := m.Functions[p.Pack], m.Functions[p.Unpack]
				if pack.Source != want[0] || unpack.Source != want[1] || pack.Pool != lang || unpack.Pool != lang {
					t.Errorf("%s: pack %s, unpack %s; want %s, %s", name, pack.Source, unpack.Source, want[0], want[1])
				}
				if pack.Args[0].String() != tt.wire || !types.Equal(pack.Return, arg) ||
					!types.Equal(unpack.Args[0], arg) || unpack.Return.String() != tt.wire {
					t.Errorf("%s: pack %s -> %s, unpack %s -> %s; want %s <-> %s", name, pack.Args[0], pack.Return, unpack.Args[0], unpack.Return, tt.wire, arg)
				}
				if pack.Args[0].Packs != nil {
					t.Errorf("%s: the wire form %s carries packs", name, pack.Args[0])
				}
			}
		})
	}
}

// TestPackableErrors: what nexus does not convert, and Packable instances
// that do not fit their newtype, fail at their line and column.
func TestPackableErrors(t *testing.T) {
	head := "import root\nsource Py from \"chem.py\" (\"upper\" as pyUpper)\npyUpper :: Str -> Str\n"
	tail := "f :: Str -> Str\nf s = pyUpper s\n"
	tests := []struct{ name, text, want string }{
		{"pack and unpack in two languages", "newtype P = Str\ninstance Packable Str P where\n  source Cpp from \"stats.hpp\" (\"show\" as pack)\n  source Py from \"chem.py\" (\"upper\" as unpack)\n",
			"6:10: instance Packable of P sources pack from Cpp but not unpack; a pool needs both"},
		{"unpack missing", "newtype P = Str\ninstance Packable Str P where\n  source Py from \"chem.py\" (\"upper\" as pack)\n",
			"6:10: instance Packable of P sources pack from Py but not unpack; a pool needs both"},
		{"wrong wire form", "newtype P = Str\ninstance Packable Int P where\n  source Py from \"chem.py\" (\"upper\" as pack, \"upper\" as unpack)\n",
			"6:10: instance Packable Int P: the first type is the wire form, the body of P, which is Str; write `instance Packable Str P`"},
		{"defined, not sourced", "newtype P = Str\ninstance Packable Str P where\n  pack s = s\n  source Py from \"chem.py\" (\"upper\" as unpack)\n",
			"7:3: Packable's pack is defined here; it is sourced instead"},
		{"a record", "record R where\n  x :: Int\ninstance Packable Int R where\n  source Py from \"chem.py\" (\"upper\" as pack, \"upper\" as unpack)\n",
			"7:10: instance Packable Int R: Packable gives a newtype a native form; a record's comes from its language map"},
		{"a primitive without an instance", "newtype Table k v\n",
			"5:9: newtype Table has no body and no Packable instance giving its wire form: write `newtype Table k v = Type`, or declare `instance Packable WireType (Table k v)`"},
		{"a primitive's instance at a type", "newtype Table k v\ninstance Packable [(Int, v)] (Table Int v) where\n  source Py from \"chem.py\" (\"upper\" as pack, \"upper\" as unpack)\n",
			"6:37: the Packable instance of the primitive newtype Table gives its parameters as distinct type variables (`Table k v`)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantError(t, "module main (f)\n"+head+tt.text+tail, tt.want) })
	}
}

// TestPrimitiveBuiltin: Morloc's declarations of built-in types as
// primitive newtypes (`newtype Map a b` with its Packable instance, as
// its map module has) declare nothing more: Map stays the built-in map.
func TestPrimitiveBuiltin(t *testing.T) {
	p := compileOK(t, `module main (f)
import root
newtype Map a b
newtype Str
instance Packable [(a, b)] (Map a b) where
  source Py from "chem.py" ("count" as pack, "lines" as unpack)
source Py from "chem.py" ("count" as pyCount)
pyCount :: Map Str Int -> Int
f :: Map Str Int -> Int
f m = pyCount m
`)
	fns := p.Manifest.Functions
	if len(fns) != 1 || fns[0].Args[0].Kind != types.Map || fns[0].Args[0].Packs != nil {
		t.Errorf("functions %+v, want pyCount alone taking the built-in Map", fns)
	}
}
