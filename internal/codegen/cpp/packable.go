package cpp

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/internal/lazyre"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Packable newtypes. A newtype with a Packable instance sourced from C++
// (`instance Packable Str Path where source Cpp from "paths.hpp"
// ("to_path" as pack, "from_path" as unpack)`) has a C++ type of its own:
// the one its type map names (`type Cpp => Path =
// "std::filesystem::path"`), else the type pack returns. main.cpp gives
// that type a Codec (nexus_pool.hpp) that reads the wire form, the
// body's natural type, and packs it, and that unpacks a value before
// writing it. So wherever the runtime reads or writes a value (an
// argument, a result, a list item, a record field, the arguments of a
// function reference) the newtype is converted, and a function declares
// the native type as it declares any other.

// packedCodec is the Codec main.cpp writes for one packable newtype.
type packedCodec struct {
	newtype      string // the newtype as the program writes it, "Path"
	native, wire string // C++ types
	pack, unpack string // the functions, as main.cpp calls them
	file         string // the header pack comes from
}

// cppTypeName is what a type map may name as a packable newtype's C++
// type: a name, maybe qualified, maybe with template arguments.
var cppTypeName = lazyre.New(`^(::)?[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*(<[A-Za-z0-9_:<>, *&]*>)?$`)

// builtinNatives are C++ types the runtime already has a Codec for: a
// packable newtype's C++ type must be another.
var builtinNatives = map[string]bool{
	"::std::string": true, "::std::string_view": true, "double": true, "float": true, "bool": true, "::nexus::Unit": true,
}

func init() {
	for _, n := range cppSized {
		builtinNatives[n] = true
	}
}

// packed notes the Codec of the packable newtype t, whose C++ packing is
// p, and returns its C++ type.
func (g *generator) packed(t *types.Type, p *types.Packing) (string, error) {
	body := *t
	body.Name, body.Packs = "", nil
	wire, err := g.natural(&body)
	if err != nil {
		return "", err
	}
	pack, file, err := g.packer(t, "pack", p.Pack)
	if err != nil {
		return "", err
	}
	unpack, _, err := g.packer(t, "unpack", p.Unpack)
	if err != nil {
		return "", err
	}
	native := "::std::decay_t<decltype(" + pack + "(::std::declval<" + wire + ">()))>"
	// A parameterized newtype's map names its constructor; each instance
	// is whatever pack makes of it.
	if p.Native != "" && !strings.Contains(t.Name, " ") {
		if !cppTypeName().MatchString(p.Native) {
			return "", fmt.Errorf("newtype %s: %q is not a C++ type name (type Cpp => %s = \"type\")", t.Name, p.Native, t.Name)
		}
		native = qualified(p.Native)
		if builtinNatives[native] || strings.HasPrefix(native, "::std::vector<") || strings.HasPrefix(native, "::std::optional<") ||
			strings.HasPrefix(native, "::std::map<") || strings.HasPrefix(native, "::std::tuple<") {
			return "", fmt.Errorf("newtype %s: its C++ type %s is one nexus converts itself, so its Packable instance cannot convert it; map %s to a type of its own (type Cpp => %s = \"...\"), or drop the instance's C++ source", t.Name, p.Native, t.Name, t.Name)
		}
	}
	if seen := g.codecs[native]; seen != nil {
		if seen.newtype != t.Name {
			return "", fmt.Errorf("newtypes %s and %s both have the C++ type %s and a Packable instance each; C++ converts a type one way, so map one of them to another type", seen.newtype, t.Name, native)
		}
		return native, nil
	}
	g.codecs[native] = &packedCodec{newtype: t.Name, native: native, wire: wire, pack: pack, unpack: unpack, file: file}
	return native, nil
}

// packer is how main.cpp calls the pack or unpack function id of the
// newtype t, and the header it comes from.
func (g *generator) packer(t *types.Type, method string, id int) (string, string, error) {
	f, ok := g.byID[id]
	if !ok {
		return "", "", fmt.Errorf("newtype %s: its %s (function %d) is not a function of the C++ pool", t.Name, method, id)
	}
	if f.Spec.Infix {
		return "", "", fmt.Errorf("newtype %s: its %s is the operator %s; source a named function", t.Name, method, f.Spec.Source)
	}
	if f.File == sourced.PreludeFile {
		return "(" + preludeNamespace + f.Spec.Source + ")", f.File, nil
	}
	return "(" + qualified(f.Spec.Source) + ")", f.File, nil
}

// packedIn returns the first packable newtype (in C++) inside t, or nil.
func packedIn(t *types.Type) *types.Type {
	if t == nil {
		return nil
	}
	if t.Packs[manifest.Cpp] != nil {
		return t
	}
	for _, sub := range append(append([]*types.Type{t.Elem, t.Key}, t.Items...), fieldTypes(t)...) {
		if p := packedIn(sub); p != nil {
			return p
		}
	}
	return nil
}

func fieldTypes(t *types.Type) []*types.Type {
	if t.Kind != types.Record {
		return nil
	}
	out := make([]*types.Type, len(t.Fields))
	for i, f := range t.Fields {
		out[i] = f.Type
	}
	return out
}

// writeCodecs writes the packable newtypes' Codecs, inside namespace
// nexus, after the user's headers.
func (g *generator) writeCodecs(w *writer) {
	for _, n := range slices.Sorted(maps.Keys(g.codecs)) {
		c := g.codecs[n]
		first := w.n + 1
		w.line("// newtype %s: packed by %s, unpacked by %s", c.newtype, c.pack, c.unpack)
		w.line("template <>")
		w.line("struct Codec<%s> {", c.native)
		w.line("  static_assert(!runtime_converts<%s>, %s);", c.native,
			cppString(fmt.Sprintf("nexus: the C++ type of newtype %s is one nexus converts itself (a number, a string, a container, a record's struct); have pack return a type of its own", c.newtype)))
		w.line("  static %s read(Reader& r) { return static_cast<%s>(%s(Codec<%s>::read(r))); }", c.native, c.native, c.pack, c.wire)
		w.line("  static void write(Writer& w, const %s& v) { write_unpacked<%s>(w, %s(v)); }", c.native, c.wire, c.unpack)
		w.line("};")
		w.line("")
		w.parts = append(w.parts, part{first: first, last: w.n, file: c.file,
			what: fmt.Sprintf("the C++ form of newtype %s (instance Packable: pack %s, unpack %s)", c.newtype, c.pack, c.unpack)})
	}
}
