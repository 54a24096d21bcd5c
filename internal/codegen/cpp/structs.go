package cpp

import (
	"fmt"
	"sort"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// A record whose C++ type is types.GenerateStruct (`record Cpp => Person =
// "struct"`, as in Morloc) gets its struct from main.cpp: `struct Person`
// with the record's fields, declared before the user's headers are
// included, so that they can use it by the record's name.
//
// structNamespace holds the generated structs. Each is brought into the
// global namespace by a using-declaration, so the user's code names it
// Person; inside main.cpp it is always named in full, so a name of the
// runtime's (Record, Result, Unit, ...) cannot be taken for it.
const structNamespace = "::nexus::records"

// generated says whether the record's struct is generated.
func generated(t *types.Type) bool {
	return t.Langs[manifest.Cpp] == types.GenerateStruct
}

// cppRecordName is the C++ type of a record: its generated struct, or the
// user's type named from the global namespace. The record's C++ type must
// have been checked (see generator.record).
func cppRecordName(t *types.Type) string {
	if generated(t) {
		return structNamespace + "::" + t.Name
	}
	return qualified(t.Langs[manifest.Cpp])
}

// checkGenerated rejects a generated record that cannot be a C++ struct:
// one whose name is no C++ name (an instance of a parameterized record,
// "Pair Int Str"), or one with a field of a record whose type comes from
// the user's header, which is included after the generated structs.
func checkGenerated(t *types.Type) error {
	if !cppIdentifier().MatchString(t.Name) {
		return fmt.Errorf("record %s: a C++ struct cannot be generated for an instance of a record with type parameters; declare it in your header (a template) and map the record to it", t.Name)
	}
	for _, f := range t.Fields {
		if nt := packedIn(f.Type); nt != nil {
			return fmt.Errorf("record %s: its C++ struct is generated (%q), so its field %s cannot hold newtype %s, whose C++ type comes with its Packable instance from your header; declare %s in your header and map the record to it",
				t.Name, types.GenerateStruct, f.Name, nt.Name, t.Name)
		}
		if inner := userRecordIn(f.Type); inner != nil {
			return fmt.Errorf("record %s: its C++ struct is generated (%q), so its field %s cannot be record %s, whose C++ type %s comes from your header; map %s to %q too, or declare %s in your header",
				t.Name, types.GenerateStruct, f.Name, inner.Name, inner.Langs[manifest.Cpp], inner.Name, types.GenerateStruct, t.Name)
		}
	}
	return nil
}

// userRecordIn returns the first record inside t whose C++ type is the
// user's, or nil. A record without a C++ type is not reported here: noting
// it says it has none.
func userRecordIn(t *types.Type) *types.Type {
	if t == nil {
		return nil
	}
	if t.Kind == types.Record {
		if t.Langs[manifest.Cpp] != "" && !generated(t) {
			return t
		}
		return nil // a generated one's fields are checked when it is noted
	}
	for _, sub := range append([]*types.Type{t.Elem, t.Key}, t.Items...) {
		if r := userRecordIn(sub); r != nil {
			return r
		}
	}
	return nil
}

// writeStructs writes the generated structs, each after the records its
// fields hold, in a namespace, with a using-declaration for each.
func (g *generator) writeStructs(w *writer) error {
	var order []*types.Type
	done := map[string]bool{}
	var visit func(t *types.Type)
	visit = func(t *types.Type) {
		if t == nil {
			return
		}
		if t.Kind == types.Record {
			if !generated(t) || done[t.Name] {
				return
			}
			done[t.Name] = true
			for _, f := range t.Fields {
				visit(f.Type)
			}
			order = append(order, t)
			return
		}
		for _, sub := range append([]*types.Type{t.Elem, t.Key}, t.Items...) {
			visit(sub)
		}
	}
	for _, name := range g.recordOrder() {
		visit(g.records[name])
	}
	if len(order) == 0 {
		return nil
	}
	w.line("// Structs of the records mapped to %q, declared before the user's headers.", types.GenerateStruct)
	w.line("namespace %s {", structNamespace[2:])
	for _, t := range order {
		first := w.n + 1
		w.line("struct %s {", t.Name)
		for _, f := range t.Fields {
			ft, err := g.natural(f.Type)
			if err != nil {
				return fmt.Errorf("record %s field %s: %w", t.Name, f.Name, err)
			}
			// Value-initialized, so that a struct the user's code
			// declares without initializing holds zeros, not garbage.
			w.line("  %s %s{};", ft, f.Name)
		}
		w.line("};")
		w.parts = append(w.parts, part{first: first, last: w.n, file: g.owners[cppRecordName(t)],
			what: fmt.Sprintf("the struct generated for record %s (record Cpp => %s = %q)", t.Name, t.Name, types.GenerateStruct)})
	}
	w.line("}  // namespace %s", structNamespace[2:])
	names := make([]string, len(order))
	for i, t := range order {
		names[i] = t.Name
	}
	sort.Strings(names)
	for _, n := range names {
		w.line("using %s::%s;", structNamespace, n)
	}
	w.line("")
	return nil
}

// describeRecordType names a record's C++ type in messages.
func describeRecordType(t *types.Type) string {
	if generated(t) {
		return fmt.Sprintf("%s (generated)", t.Name)
	}
	return t.Langs[manifest.Cpp]
}
