package syntax

import "github.com/nexus-run/nexus/internal/codegen/diag"

// Class is `class (Supers =>)? Name params where methods`: a typeclass,
// its superclasses and its methods' signatures, in which the class's
// parameters are free.
type Class struct {
	Pos     diag.Pos
	Doc     Doc
	Supers  []Type // the constraints before `=>`, such as `Semigroup a`
	Name    Name
	Params  []Name
	Methods []*Signature
}

// Instance is `instance Head, Head where body`: each head a class applied
// to types (`Show Person`, `Packable (List a) (Deque a)`), the body the
// methods' definitions, sourced functions and signatures, shared by every
// head. A body-less instance only declares membership.
type Instance struct {
	Pos     diag.Pos
	Heads   []*NamedType
	Defs    []*Def
	Sources []*Source
	Sigs    []*Signature
}

// classItem parses a `class` or `instance` declaration into f.
func (p *parser) classItem(f *File, doc Doc) {
	kw := p.next()
	if kw.Text == "class" {
		if c := p.class(kw, doc); c != nil {
			f.Classes = append(f.Classes, c)
		}
		return
	}
	if in := p.instance(kw); in != nil {
		f.Instances = append(f.Instances, in)
	}
}

// class parses the rest of `class ...` after the keyword.
func (p *parser) class(kw token, doc Doc) *Class {
	c := &Class{Pos: kw.Pos, Doc: doc}
	if p.hasSupers() {
		c.Supers = p.constraints()
	}
	c.Name = p.name("a class name such as Show")
	if !p.failed && !startsUpper(p.toks[p.i-1]) {
		p.errorf(c.Name.Pos, "a class name starts with an upper-case letter, not '%s'", c.Name.Name)
	}
	for !p.failed && p.peek().kind == tokIdent && !p.isWord("where") {
		n := p.name("a class parameter")
		if startsUpper(p.toks[p.i-1]) {
			p.errorf(n.Pos, "a class parameter is a lower-case type variable, not '%s'", n.Name)
		}
		c.Params = append(c.Params, n)
	}
	if !p.failed && len(c.Params) == 0 {
		p.errorf(p.peek().Pos, "expected the class's type variables after '%s' (class %s a where ...), got %s", c.Name.Name, c.Name.Name, p.peek().describe())
	}
	if !p.failed && p.isWord("where") {
		p.body(func(name Name, doc Doc) {
			if p.peek().kind != tokDoubleColon {
				p.errorf(p.peek().Pos, "expected '::' and the type of method '%s'; a class holds signatures only (definitions go in an instance)", name.Name)
				return
			}
			if s := p.signatureOf(name, doc); s != nil {
				c.Methods = append(c.Methods, s)
			}
		}, nil, "the class's method signatures")
	}
	if p.failed {
		return nil
	}
	return c
}

// hasSupers reports whether a `=>` comes before the class's `where`.
func (p *parser) hasSupers() bool {
	for j := p.i; j < len(p.toks); j++ {
		t := p.toks[j]
		if t.kind == tokEOF || t.kind == tokIdent && t.Text == "where" {
			return false
		}
		if t.kind == tokFatArrow {
			return true
		}
	}
	return false
}

// instance parses the rest of `instance ...` after the keyword.
func (p *parser) instance(kw token) *Instance {
	in := &Instance{Pos: kw.Pos}
	for !p.failed {
		t := p.peek()
		if !startsUpper(t) {
			p.errorf(t.Pos, "expected a class name and its types (instance Show Person), got %s", t.describe())
			return nil
		}
		head, _ := p.typ().(*NamedType)
		if !p.failed && len(head.Args) == 0 {
			p.errorf(p.peek().Pos, "expected the types of the instance after '%s' (instance %s T), got %s", head.Name, head.Name, p.peek().describe())
		}
		in.Heads = append(in.Heads, head)
		if p.peek().kind != tokComma {
			break
		}
		p.next()
	}
	if !p.failed && p.isWord("where") {
		p.body(func(name Name, doc Doc) {
			if p.peek().kind == tokDoubleColon {
				if s := p.signatureOf(name, doc); s != nil {
					in.Sigs = append(in.Sigs, s)
				}
				return
			}
			if d := p.defOf(name, doc); d != nil {
				in.Defs = append(in.Defs, d)
			}
		}, func(s *Source) { in.Sources = append(in.Sources, s) }, "the instance's definitions")
	}
	if p.failed {
		return nil
	}
	return in
}

// body parses the block after `where` of a class or an instance: items
// each starting a line at the column of the first. A `source` line goes
// to src (nil for a class, where it is an error); anything else starts
// with a name or a parenthesized operator, given to item.
func (p *parser) body(item func(Name, Doc), src func(*Source), what string) {
	w := p.next()
	first := p.peek()
	if first.kind == tokEOF {
		p.errorf(first.Pos, "expected %s after 'where'", what)
		return
	}
	outer := p.stopCol
	p.stopCol = first.Pos.Col
	defer func() { p.stopCol = outer }()
	if first.First && first.Pos.Col <= w.Pos.Col && w.First {
		p.errorf(first.Pos, "%s are indented more than the 'where'", what)
		return
	}
	for !p.failed {
		doc := p.docs()
		p.inlinePragma()
		t := p.peek()
		switch {
		case t.kind == tokIdent && t.Text == "source" && src == nil:
			p.errorf(t.Pos, "a class declares signatures only; 'source' belongs in an instance")
			return
		case t.kind == tokIdent && t.Text == "source":
			if s := p.source(doc); s != nil {
				src(s)
			}
		case t.kind == tokLParen:
			p.next()
			op := p.peek()
			if !p.isOp(op) {
				p.errorf(op.Pos, "expected an operator in parentheses, got %s", op.describe())
				return
			}
			p.next()
			p.expect(tokRParen, "')' after the operator")
			item(Name{Pos: op.Pos, Name: op.Text}, doc)
		case t.kind == tokIdent && !keywords[t.Text]:
			item(p.name("a name"), doc)
		default:
			p.errorf(t.Pos, "expected %s, got %s", what, t.describe())
			return
		}
		next := p.peek()
		if next.kind == tokEOF || p.failed {
			return
		}
		if !next.First || next.Pos.Col != p.stopCol {
			p.errorf(next.Pos, "unexpected %s; each item after 'where' starts a line, in the column of the first", next.describe())
			return
		}
	}
}

// sourceAlias reads the program name after a source item's `as`: a name,
// or an operator in parentheses (`"morloc_eq" as (==)`), which an
// instance's source may bind as a method.
func (p *parser) sourceAlias() Name {
	return p.termName("a name or an operator in parentheses after 'as'")
}
