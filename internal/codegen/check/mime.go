package check

import (
	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
)

// Media results. `mime: image/png` (or `@mime image/png`) belongs on a
// type declaration, an alias or a newtype, whose values are raw content:
// a Str, which holds any bytes (a Python function may return bytes, a C++
// one a std::string, a Go one a string; none is read as UTF-8 on its way).
// A command whose written result type carries a mime, directly or through
// the aliases and newtypes it names, returns media (manifest.Command.Mime).
// The nearest declaration that says decides; two different mimes on one
// chain are an error at the nearer one.

// checkMimes checks every `mime:` directive on a type declaration, and
// reports the ones on records, which are not raw.
func (c *checker) checkMimes() {
	for _, a := range c.file.Aliases {
		c.checkTypeMime(a.Name.Name, a.Doc, a.Body)
	}
	for _, nt := range c.file.Newtypes {
		if nt.Body != nil {
			c.checkTypeMime(nt.Name.Name, nt.Doc, nt.Body)
		} else if dir := directive(nt.Doc, "mime"); dir != nil {
			c.sink.Errorf(dir.Pos, "mime: type %s has no form of its own to be raw content; put mime: on an alias or newtype of Str", nt.Name.Name)
		}
	}
	for _, r := range c.file.Records {
		if dir := directive(r.Doc, "mime"); dir != nil {
			c.sink.Errorf(dir.Pos, "mime: a record's values are not raw content; put mime: on an alias or newtype of Str, such as `type Png = Str`")
		}
		for _, f := range r.Fields {
			c.misplacedMime(doc.Parse(f.Doc), "a record field")
		}
	}
}

// checkTypeMime checks the mime of the type declaration name, whose
// docstring is d and whose body is body.
func (c *checker) checkTypeMime(name string, d syntax.Doc, body syntax.Type) {
	parsed := doc.Parse(d)
	dirs := parsed.All("mime")
	if len(dirs) == 0 {
		return
	}
	dir := dirs[len(dirs)-1]
	for _, other := range dirs[:len(dirs)-1] {
		if other.Value != dir.Value {
			c.sink.Errorf(dir.Pos, "mime: type %s has two media types, %s and %s (at %s); keep one", name, other.Value, dir.Value, other.Pos)
			return
		}
	}
	if err := manifest.CheckMime(dir.Value); err != nil {
		c.sink.Errorf(dir.ValuePos, "mime: %v", err)
		return
	}
	root, inner, innerName := c.typeChain(body)
	if inner != nil && inner.Value != dir.Value {
		c.sink.Errorf(dir.Pos, "mime: type %s says %s, but %s, which it stands for, says %s (at %s); one type has one media type", name, dir.Value, innerName, inner.Value, inner.Pos)
		return
	}
	if nt, ok := root.(*syntax.NamedType); !ok || nt.Name != "Str" || len(nt.Args) > 0 {
		c.sink.Errorf(dir.Pos, "mime: type %s is %s, whose values are not raw content; only a Str (which holds any bytes) can have a media type", name, describeType(root))
	}
}

// typeChain follows the aliases and newtypes w names to the type they
// stand for (root), and returns the nearest mime directive on the way
// (with the name of the type that has it), or nil.
func (c *checker) typeChain(w syntax.Type) (root syntax.Type, mime *doc.Directive, mimeOf string) {
	seen := map[string]bool{}
	for {
		nt, ok := w.(*syntax.NamedType)
		if !ok || seen[nt.Name] {
			return w, mime, mimeOf
		}
		seen[nt.Name] = true
		var d syntax.Doc
		var next syntax.Type
		if a := c.aliases[nt.Name]; a != nil {
			d, next = a.Doc, a.Body
		} else if n := c.nominal.newtypes[nt.Name]; n != nil && n.Body != nil {
			d, next = n.Doc, n.Body
		} else {
			return w, mime, mimeOf
		}
		if dir := directive(d, "mime"); dir != nil && mime == nil {
			mime, mimeOf = dir, nt.Name
		}
		w = next
	}
}

// resultMime is the media type of a command's result, written as w: the
// nearest mime of the aliases and newtypes it names (checked by
// checkMimes), or "". newtype is the result's type name, for a signature
// inferred without a written type.
func (c *checker) resultMime(w syntax.Type, newtype string) string {
	if w == nil && newtype != "" {
		w = &syntax.NamedType{Name: newtype}
	}
	if w == nil {
		return ""
	}
	_, dir, _ := c.typeChain(w)
	if dir == nil || manifest.CheckMime(dir.Value) != nil {
		return ""
	}
	return dir.Value
}

// misplacedMime reports the mime directives of d, the docstring of a
// command, an argument, a result or a field: a media type belongs to the
// type of the values.
func (c *checker) misplacedMime(d doc.Doc, where string) {
	for _, dir := range d.All("mime") {
		c.sink.Errorf(dir.Pos, "mime: is not allowed on %s; it belongs on a type declaration, such as `--' @mime %s` above `type Png = Str`, and the result's type then names it", where, orExample(dir.Value))
	}
}

func orExample(v string) string {
	if v == "" {
		return "image/png"
	}
	return v
}

// describeType names a written type in a message.
func describeType(t syntax.Type) string {
	switch t := t.(type) {
	case *syntax.NamedType:
		return t.Name
	case *syntax.ListType:
		return "a list"
	case *syntax.OptionalType:
		return "an optional"
	case *syntax.TupleType:
		return "a tuple"
	case *syntax.FuncType:
		return "a function"
	}
	return "not a Str"
}

// directive is the last directive key of docstring d, or nil.
func directive(d syntax.Doc, key string) *doc.Directive {
	parsed := doc.Parse(d)
	return parsed.Get(key)
}
