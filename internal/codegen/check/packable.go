package check

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest/types"
)

// Packable newtypes. `instance Packable Str Path where source Py from
// "p.py" ("to_path" as pack, "from_path" as unpack)` gives the newtype
// Path a native form in Python other than its body's: the nexus keeps
// the wire form (a Str, on the command line, over MCP and in every
// builtin), and a Python pool function taking a Path gets pack applied to
// it, one returning a Path has unpack applied to its result. The type
// carries this as types.Type.Packs; the pack and unpack functions are
// ordinary functions of the pool, linked when a function of the same
// pool takes or returns the newtype.
//
// A primitive newtype (`newtype Table k v`, no body) takes its wire form
// from its Packable instance's first type (`instance Packable [(k, v)]
// (Table k v)`). A primitive newtype with the name of a built-in type
// (Morloc's `newtype Map a b`, `newtype Str`) declares the built-in
// type, which every pool already knows, and its instances are left
// aside.
//
// Every pool converts: Python in nexus_pool/convert.py, C++ with a Codec
// of the newtype's native type written into main.cpp (cpp/packable.go),
// Go in the generated converters (golang/packable.go). A function of a
// language without an instance takes the newtype in its body's native
// form, as every newtype without an instance.

// packableClass is the class whose instances give newtypes native forms.
const packableClass = "Packable"

// packer is a newtype's Packable instance in one language.
type packer struct {
	pack, unpack *function
	native       string
}

// packableHeads finds the Packable instances of the program's newtypes
// before any type is resolved: a use of such a newtype carries Packs, and
// a primitive newtype takes its body from the instance.
func (c *checker) packableHeads() {
	c.nominal.packable = map[string]bool{}
	c.nominal.packs = map[string]map[string]*types.Packing{}
	c.nominal.packers = map[string]map[string]*packer{}
	for _, in := range c.file.Instances {
		for _, h := range in.Heads {
			if h.Name != packableClass || len(h.Args) != 2 {
				continue
			}
			native, ok := h.Args[1].(*syntax.NamedType)
			if !ok || c.nominal.newtypes[native.Name] == nil {
				continue
			}
			c.nominal.packable[native.Name] = true
			if nt := c.nominal.newtypes[native.Name]; nt.Body == nil {
				c.primitiveBody(nt, h.Args[0], native)
			}
		}
	}
	for _, nt := range c.file.Newtypes {
		if nt.Body == nil && c.nominal.newtypes[nt.Name.Name] == nt {
			use := strings.TrimSpace(nt.Name.Name + " " + paramList(nt.Params))
			paren := use
			if len(nt.Params) > 0 {
				paren = "(" + use + ")"
			}
			// Its uses resolve to nothing, without more errors (newtype).
			c.sink.Errorf(nt.Name.Pos, "newtype %s has no body and no Packable instance giving its wire form: write `newtype %s = Type`, or declare `instance Packable WireType %s` with pack and unpack sourced from a pool",
				nt.Name.Name, use, paren)
		}
	}
}

// primitiveBody gives the primitive newtype nt the wire type of its
// Packable instance `instance Packable wire native`, written over nt's
// own parameters.
func (c *checker) primitiveBody(nt *syntax.Newtype, wire syntax.Type, native *syntax.NamedType) {
	if len(native.Args) != len(nt.Params) {
		c.sink.Errorf(native.Pos, "type %s takes %d type argument%s, but is given %d", nt.Name.Name, len(nt.Params), plural(len(nt.Params)), len(native.Args))
		return
	}
	subst := map[string]syntax.Type{}
	for i, a := range native.Args {
		v, ok := a.(*syntax.NamedType)
		if !ok || len(v.Args) > 0 || startsUpperName(v.Name) || subst[v.Name] != nil {
			c.sink.Errorf(a.TypePos(), "the Packable instance of the primitive newtype %s gives its parameters as distinct type variables (`%s %s`)", nt.Name.Name, nt.Name.Name, paramList(nt.Params))
			return
		}
		subst[v.Name] = &syntax.NamedType{Pos: nt.Params[i].Pos, Name: nt.Params[i].Name}
	}
	// The syntax tree's body is what every use of the newtype resolves;
	// a primitive's is its wire type.
	nt.Body = substitute(wire, subst)
}

// packsOf is the Packs of the newtype base used as name ("Table Str
// Int"): one map for every use of the same type, nil when base has no
// Packable instance.
func (c *checker) packsOf(base, name string) map[string]*types.Packing {
	if !c.nominal.packable[base] {
		return nil
	}
	p := c.nominal.packs[name]
	if p == nil {
		p = map[string]*types.Packing{}
		c.nominal.packs[name] = p
	}
	return p
}

// collectPacking checks the Packable instances, once the classes and
// their sourced methods are known, and keeps each newtype's pack and
// unpack by language.
func (c *checker) collectPacking() {
	cl := c.classes.classes[packableClass]
	if cl == nil || len(cl.params) != 2 {
		return
	}
	for _, in := range cl.instances {
		wire, native := in.types[0], in.types[1]
		base := baseName(native.Name)
		if native.Kind == types.Record || !isNewtype(native) || c.nominal.newtypes[base] == nil {
			if native.Kind == types.Record {
				c.sink.Errorf(in.pos, "instance %s: Packable gives a newtype a native form; a record's comes from its language map (`record Py => %s = \"dict\"`)", headString(cl, in.types), native.Name)
			}
			// A built-in type's native form is built into the pools.
			continue
		}
		if body := newtypeBody(native); !types.Equal(body, wire) {
			c.sink.Errorf(in.pos, "instance %s: the first type is the wire form, the body of %s, which is %s; write `instance %s`", headString(cl, in.types), native.Name, body, headString(cl, []*types.Type{body, native}))
			continue
		}
		for name, d := range in.defs {
			c.sink.Errorf(d.Name.Pos, "Packable's %s is defined here; it is sourced instead (`source Py from \"file.py\" (\"to_x\" as pack, \"from_x\" as unpack)`), since the nexus keeps a newtype's wire form and a pool converts it", name)
		}
		c.instancePackers(in, base)
	}
}

// instancePackers keeps the pack and unpack of the Packable instance in
// of the newtype base, by language.
func (c *checker) instancePackers(in *classInstance, base string) {
	byLang := map[string]*packer{}
	for _, method := range []string{"pack", "unpack"} {
		for _, f := range in.sourced[method] {
			p := byLang[f.lang]
			if p == nil {
				p = &packer{native: c.nativeName(base, f.lang)}
				byLang[f.lang] = p
			}
			if method == "pack" {
				p.pack = f
			} else {
				p.unpack = f
			}
		}
	}
	for lang, p := range byLang {
		if p.pack == nil || p.unpack == nil {
			have, missing := "pack", "unpack"
			if p.pack == nil {
				have, missing = "unpack", "pack"
			}
			c.sink.Errorf(in.pos, "instance Packable of %s sources %s from %s but not %s; a pool needs both", base, have, langName(lang), missing)
			continue
		}
		if c.nominal.packers[base] == nil {
			c.nominal.packers[base] = map[string]*packer{}
		}
		c.nominal.packers[base][lang] = p
	}
}

// nativeName is the type map's native type of the newtype base in lang,
// or "".
func (c *checker) nativeName(base, lang string) string {
	for _, tl := range c.file.TypeLangs {
		if tl.Name.Name == base && mapLangs[strings.ToLower(tl.Lang.Name)] == lang {
			return tl.Native.Value
		}
	}
	return ""
}

// linkPacking marks as used the pack and unpack of every packable
// newtype that a used function of the same language takes or returns, at
// the newtype's concrete types, and records them in the type's Packs.
// Newly used functions are looked at in turn: a wire form may hold
// another packable newtype.
func (c *checker) linkPacking(used map[int]bool) {
	done := map[int]bool{}
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(c.funcList); i++ {
			f := c.funcList[i]
			if !used[f.index] || done[f.index] || f.sig == nil {
				continue
			}
			done[f.index] = true
			for _, t := range append(append([]*types.Type{}, f.sig.params...), f.sig.result) {
				if c.linkPacks(t, f.lang, used) {
					changed = true
				}
			}
		}
	}
}

// linkPacks links the packings t needs in lang; it reports whether it
// marked a function used.
func (c *checker) linkPacks(t *types.Type, lang string, used map[int]bool) bool {
	if t == nil {
		return false
	}
	linked := false
	if t.Packs != nil && t.Packs[lang] == nil && ground(t) {
		if p := c.nominal.packers[baseName(t.Name)][lang]; p != nil {
			body := newtypeBody(t)
			pack := c.instanceOf(p.pack, []*types.Type{body}, t)
			unpack := c.instanceOf(p.unpack, []*types.Type{t}, body)
			used[pack.index], used[unpack.index] = true, true
			t.Packs[lang] = &types.Packing{Native: p.native, Pack: pack.index, Unpack: unpack.index}
			linked = true
		}
	}
	for _, s := range append(append([]*types.Type{t.Elem, t.Key}, t.Items...), fieldTypes(t)...) {
		if c.linkPacks(s, lang, used) {
			linked = true
		}
	}
	return linked
}

func fieldTypes(t *types.Type) []*types.Type {
	out := make([]*types.Type, len(t.Fields))
	for i, f := range t.Fields {
		out[i] = f.Type
	}
	return out
}

// renumberPacking replaces the checker's function indices in the
// packings by the manifest's function ids.
func (c *checker) renumberPacking(ids map[int]int) {
	for _, packs := range c.nominal.packs {
		for _, p := range packs {
			p.Pack, p.Unpack = ids[p.Pack], ids[p.Unpack]
		}
	}
}

func paramList(params []syntax.Name) string {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	return strings.Join(names, " ")
}

// baseName is the type constructor of a type's name, `Table` of `Table
// Str Int`.
func baseName(name string) string {
	base, _, _ := strings.Cut(name, " ")
	return base
}
