package check

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// checkGeneratedStructs rejects a record with type parameters mapped to
// types.GenerateStruct in C++ (`record Cpp => Pair = "struct"`): each of
// its instances (Pair Int Str) is a record of its own, and generating a
// C++ template for them is not supported yet. The other checks of a
// generated struct need the C++ types of its fields and are the C++
// pool's (internal/codegen/cpp).
func (c *checker) checkGeneratedStructs() {
	check := func(lang, record string, native diag.Pos, value string) {
		rec := c.records[record]
		if rec == nil || value != types.GenerateStruct || len(rec.decl.Params) == 0 {
			return
		}
		if l, ok := mapLangs[strings.ToLower(lang)]; !ok || l != manifest.Cpp {
			return
		}
		c.sink.Errorf(native, "record %s has type parameters, and generating a C++ struct (a template) for it is not supported yet; declare the struct in your header and map %s to it",
			record, record)
	}
	for _, rl := range c.file.RecordLangs {
		check(rl.Lang.Name, rl.Record.Name, rl.Type.Pos, rl.Type.Value)
	}
	for _, tl := range c.file.TypeLangs {
		check(tl.Lang.Name, tl.Name.Name, tl.Native.Pos, tl.Native.Value)
	}
}
