package check

import (
	"embed"
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// The prelude: Morloc's standard modules root, maybe and map, written in
// the program file's own language (prelude/*.loc). Importing one of the
// standard modules brings in its names: a name with a definition there is
// inlined like the program's own definitions; a name with a signature
// only is a builtin, evaluated by the nexus (manifest.Builtins). When a
// higher-order builtin is given functions of one pool that has it too
// (poolPrelude), the whole loop runs in that pool: `map score xs` over a
// Python score is one call of the Python pool, not one per element.

//go:embed prelude/*.loc
var preludeFiles embed.FS

// preludeOf maps a standard module's base name to the prelude files it
// brings in.
var preludeOf = map[string][]string{
	"maybe": {"root", "older", "maybe"},
	"map":   {"root", "older", "map"},
}

// builtinFn is a builtin given some of its arguments.
type builtinFn struct {
	name  string
	sig   *signature
	given []arg
}

func (b *builtinFn) missing() string {
	n := len(b.sig.params)
	return fmt.Sprintf("'%s' given %d of its %d argument%s", b.name, len(b.given), n, plural(n))
}

func (b *builtinFn) apply(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
	all := append(append([]arg(nil), b.given...), args...)
	n := len(b.sig.params)
	if len(all) < n {
		return &builtinFn{name: b.name, sig: b.sig, given: all}
	}
	v := b.call(c, all[:n], pos, want)
	if len(all) > n {
		return c.applyValue(v, all[n:], pos, want)
	}
	return v
}

// call applies the builtin to exactly its arguments.
func (b *builtinFn) call(c *checker, all []arg, pos diag.Pos, want *types.Type) value {
	in := c.instantiate(b.name, b.sig.params, b.sig.result, all, pos, want, lambdaFns)
	if in == nil {
		return nil
	}
	if err := builtinConstraint(b.name, in.params, in.result); err != "" {
		c.sink.Errorf(pos, "%s", err)
		return nil
	}
	exprs := make([]*manifest.Expr, len(all))
	for i, a := range in.args {
		exprs[i] = a.val.(*manifest.Expr)
	}
	if call := c.poolLoop(b.name, in, exprs); call != nil {
		return call
	}
	return &manifest.Expr{Kind: manifest.Op, Op: b.name, Type: in.result, Args: exprs}
}

// builtinConstraint is what Morloc's class constraints say of a builtin
// at these types, or "": sum, neg, abs and zero take numbers, toReal an
// Int or a Real, mempty a Str or a list.
func builtinConstraint(name string, params []*types.Type, result *types.Type) string {
	var t *types.Type
	switch name {
	case "sum":
		t = result
	case "neg", "abs", "toReal":
		t = params[0]
	case "zero":
		t = result
	case "mempty":
		if result.Kind != types.Str && result.Kind != types.List {
			return fmt.Sprintf("mempty is the empty Str or list, not a %s", result)
		}
		return ""
	case "into":
		if !types.Equal(params[0], result) && !(params[0].Kind == types.Int && result.Kind == types.Real) {
			return fmt.Sprintf("into converts a value to its own type or an Int to a Real, not %s to %s", params[0], result)
		}
		return ""
	case "tryInto":
		if !types.Equal(params[0], result) && !(params[0].Kind == types.Real && result.Kind == types.Int) {
			return fmt.Sprintf("tryInto converts a value to its own type or a Real to an Int, not %s to %s", params[0], result)
		}
		return ""
	default:
		return ""
	}
	if t.Kind != types.Int && t.Kind != types.Real {
		return fmt.Sprintf("%s works on numbers (Int or Real), not %s", name, t)
	}
	return ""
}

// poolPrelude lists, per pool language, the prelude's higher-order
// functions that language's pool runs itself, by their names there
// (pools/python/nexus_pool/prelude.py, pools/cpp/nexus_pool/nexus_prelude.hpp,
// pools/go/prelude.go). A language listed here is one whose functions may
// take functions.
var poolPrelude = map[string]map[string]string{
	manifest.Python: preludeLoops,
	manifest.Cpp:    preludeLoops,
	manifest.Go:     preludeLoops,
}

// preludeLoops are the names every pool gives its prelude loops.
var preludeLoops = map[string]string{
	"map": "morloc_map", "filter": "morloc_filter", "fold": "morloc_fold", "zipWith": "morloc_zipWith",
	"any": "morloc_any", "all": "morloc_all", "find": "morloc_find", "concatMap": "morloc_concatMap",
	"partition": "morloc_partition", "takeWhile": "morloc_takeWhile", "dropWhile": "morloc_dropWhile",
	"scanl": "morloc_scanl", "sortBy": "morloc_sortBy", "groupBy": "morloc_groupBy",
}

// poolLoop is the call of the pool's own copy of builtin name, when every
// function argument is a function of one pool that has it; else nil.
func (c *checker) poolLoop(name string, in *instance, exprs []*manifest.Expr) *manifest.Expr {
	lang := ""
	for _, e := range exprs {
		if e.Kind != manifest.Lambda {
			continue
		}
		body := e.Args[0]
		if body.Kind != manifest.Call {
			return nil
		}
		l := c.funcList[body.Ref].lang
		if lang != "" && l != lang {
			return nil
		}
		lang = l
	}
	source := poolPrelude[lang][name]
	if source == "" || anonymousIn(in) {
		return nil
	}
	args := make([]*manifest.Expr, len(exprs))
	for i, e := range exprs {
		args[i] = e
		if e.Kind == manifest.Lambda {
			if args[i] = fnRefOf(e, lang, c.funcList); args[i] == nil {
				return nil
			}
		}
	}
	f := c.preludeFunction(name, source, lang)
	g := c.instanceOf(f, in.params, in.result)
	return &manifest.Expr{Kind: manifest.Call, Type: in.result, Ref: g.index, Args: args}
}

// preludeFunction is the pool function source of lang, the pool's copy of
// builtin name, declared the first time it is needed.
func (c *checker) preludeFunction(name, source, lang string) *function {
	key := lang + "/" + source
	if f := c.poolPreludes[key]; f != nil {
		return f
	}
	f := &function{name: name, source: source, lang: lang, path: sourced.PreludeFile, server: -1, sig: c.builtins[name].sig}
	f.index = len(c.funcList)
	c.funcList = append(c.funcList, f)
	if c.poolPreludes == nil {
		c.poolPreludes = map[string]*function{}
	}
	c.poolPreludes[key] = f
	return f
}

// loadPrelude brings in the prelude of the standard modules imported.
func (c *checker) loadPrelude(modules []string) {
	seen := map[string]bool{}
	for _, m := range modules {
		base := m
		for _, suffix := range []string{"-py", "-cpp", "-go"} {
			base = strings.TrimSuffix(base, suffix)
		}
		files, ok := preludeOf[base]
		if !ok {
			files = []string{"root", "older"}
		}
		for _, name := range files {
			if !seen[name] {
				seen[name] = true
				c.addPrelude(name)
			}
		}
	}
}

// addPrelude adds prelude/<name>.loc's names that the program does not
// define, source or declare itself.
func (c *checker) addPrelude(name string) {
	text, err := preludeFiles.ReadFile("prelude/" + name + ".loc")
	if err != nil {
		panic(fmt.Sprintf("prelude %s: %v", name, err)) // embedded: cannot happen
	}
	sink := &diag.Sink{File: "prelude/" + name + ".loc"}
	f := syntax.Parse(string(text), sink)
	if errs := sink.Errors(); errs != nil {
		panic(fmt.Sprintf("the embedded prelude does not parse: %v", errs))
	}
	c.classes.preludeDecls = append(c.classes.preludeDecls, f.Classes...)
	own := map[string]bool{}
	for _, s := range c.file.Signatures {
		own[s.Name.Name] = true
	}
	for _, d := range c.file.Defs {
		own[d.Name.Name] = true
	}
	for _, s := range c.file.Sources {
		for _, it := range s.Items {
			own[it.Alias.Name] = true
		}
	}
	defs := map[string]*syntax.Def{}
	for _, d := range f.Defs {
		defs[d.Name.Name] = d
	}
	for _, s := range f.Signatures {
		n := s.Name.Name
		if own[n] || c.builtins[n] != nil || c.preludeDefs[n] {
			continue
		}
		sig := &signature{decl: s, ok: true}
		for _, p := range s.Params {
			t := c.resolveType(p.Type, nil)
			sig.params = append(sig.params, t)
		}
		sig.result = c.resolveType(s.Result.Type, nil)
		if d := defs[n]; d != nil {
			c.defs[n] = &definition{decl: d, sig: sig}
			c.preludeDefs[n] = true
			continue
		}
		if _, ok := manifest.Builtins[n]; !ok {
			panic("prelude builtin without an implementation: " + n)
		}
		c.builtins[n] = &builtinFn{name: n, sig: sig}
	}
}
