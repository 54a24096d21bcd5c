package integration

import (
	"strings"
	"testing"
)

// packableProgram has a newtype with a Packable instance (Path, a
// pathlib.Path in Python) and a primitive newtype whose wire form is its
// instance's (Table, a list of pairs on the wire, a dict in Python). The
// Python functions say what type they were given, so a value that was
// not packed shows; a pathlib.Path or dict result that was not unpacked
// could not be sent at all.
var packableProgram = files{
	"main.loc": `module main (stem, stems, mapped, below, twice, shown, size, keys, insert, plain)
import root

newtype Path = Str
type Py => Path = "pathlib.Path"
instance Packable Str Path where
  source Py from "paths.py" ("to_path" as pack, "from_path" as unpack)

--' a table of entries
newtype Table k v
type Py => (Table k v) = "dict" k v
instance Packable [(k, v)] (Table k v) where
  source Py from "paths.py" ("to_table" as pack, "from_table" as unpack)

newtype Name = Str

source Py from "paths.py" ("stem" as pyStem, "stems" as pyStems, "below" as pyBelow, "size" as pySize, "keys" as pyKeys, "insert" as pyInsert, "name_type" as nameType)

pyStem :: Path -> Str
pyStems :: [(Int, ?Path)] -> [Str]
pyBelow :: Path -> Str -> Path
pySize :: Table Str Int -> Int
pyKeys :: Table Str Int -> [Str]
pyInsert :: Str -> Int -> Table Str Int -> Table Str Int
nameType :: Name -> Str

stem :: Path -> Str
stem p = pyStem p

stems :: [(Int, ?Path)] -> [Str]
stems ps = pyStems ps

mapped :: [Path] -> [Str]
mapped ps = map pyStem ps

below :: Path -> Str -> Path
below p s = pyBelow p s

twice :: Path -> Str -> Str -> Path
twice p a b = pyBelow (pyBelow p a) b

shown :: Path -> Str
shown p = @show (pyBelow p "x")

size :: Table Str Int -> Int
size t = pySize t

keys :: Table Str Int -> [Str]
keys t = pyKeys t

insert :: Str -> Int -> Table Str Int -> Table Str Int
insert k v t = pyInsert k v t

plain :: Name -> Str
plain n = nameType n
`,
	"paths.py": `import pathlib


def to_path(s):
    assert isinstance(s, str), type(s)
    return pathlib.PurePosixPath(s)


def from_path(p):
    assert isinstance(p, pathlib.PurePosixPath), type(p)
    return str(p)


def to_table(pairs):
    assert all(isinstance(p, tuple) for p in pairs), pairs
    return dict(pairs)


def from_table(d):
    assert isinstance(d, dict), type(d)
    return sorted(d.items())


def stem(p):
    return type(p).__name__ + ":" + p.stem


def stems(ps):
    return [str(i) + ":" + (stem(p) if p is not None else "-") for i, p in ps]


def below(p, s):
    return p / s


def size(t):
    return len(t) if isinstance(t, dict) else -1


def keys(t):
    return sorted(t.keys())


def insert(k, v, t):
    t = dict(t)
    t[k] = v
    return t


def name_type(n):
    return type(n).__name__ + ":" + n
`,
}

// TestPackable: through the CLI and MCP, a Python function is given the
// native form of a Packable newtype and its native result goes back in
// the wire form, which the nexus keeps (chained calls, @show, the
// prelude's map over a Python function, one pool loop); a newtype
// without an instance stays in its body's form; an instance without
// unpack, one whose first type is not the newtype's body and a primitive
// newtype without one fail the build at their line.
func TestPackable(t *testing.T) {
	p := build(t, packableProgram)
	table := `[["b", 2], ["a", 1]]`
	p.okAll([]cliCase{
		{[]string{"stem", "/tmp/report.txt"}, "\"PurePosixPath:report\"\n"},
		{[]string{"stems", `[[1, "/a/b.c"], [2, null]]`}, "[\"1:PurePosixPath:b\",\"2:-\"]\n"},
		{[]string{"mapped", `["/a/x.y", "z"]`}, "[\"PurePosixPath:x\",\"PurePosixPath:z\"]\n"},
		{[]string{"below", "/tmp", "a"}, "\"/tmp/a\"\n"},
		{[]string{"twice", "/tmp", "a", "b.txt"}, "\"/tmp/a/b.txt\"\n"},
		{[]string{"shown", "/tmp"}, "\"\\\"/tmp/x\\\"\"\n"},
		{[]string{"size", table}, "2\n"},
		{[]string{"keys", table}, "[\"a\",\"b\"]\n"},
		{[]string{"insert", "c", "3", table}, "[[\"a\",1],[\"b\",2],[\"c\",3]]\n"},
		{[]string{"plain", "ann"}, "\"str:ann\"\n"},
	})

	p.toolsOK([]toolCall{
		{"stem", map[string]any{"_1": "/a/b/c.tar"}, `"PurePosixPath:c"`},
		{"twice", map[string]any{"_1": "/", "_2": "x", "_3": "y"}, `"/x/y"`},
		{"insert", map[string]any{"_1": "z", "_2": 26, "_3": []any{[]any{"y", 25}}}, `[["y",25],["z",26]]`},
	})
	p.checkClean()

	for _, c := range []struct {
		edits []string // pairs: from, to
		want  string
	}{
		{[]string{`("to_table" as pack, "from_table" as unpack)`, `("to_table" as pack)`},
			"main.loc:12:10: instance Packable of Table sources pack from Py but not unpack; a pool needs both"},
		{[]string{"instance Packable [(k, v)] (Table k v) where", "instance Packable [(k, v)] (Other k v) where"},
			"main.loc:10:9: newtype Table has no body and no Packable instance giving its wire form: write `newtype Table k v = Type`, or declare `instance Packable WireType (Table k v)`"},
		{[]string{"instance Packable Str Path", "instance Packable Int Path"},
			"main.loc:6:10: instance Packable Int Path: the first type is the wire form, the body of Path, which is Str; write `instance Packable Str Path`"},
	} {
		if msg := editFails(t, packableProgram, c.edits); !strings.Contains(msg, c.want) {
			t.Errorf("%v: %q, want %q", c.edits, msg, c.want)
		}
	}
}
