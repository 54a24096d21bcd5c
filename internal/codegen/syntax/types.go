package syntax

import ()

func (p *parser) signature(doc Doc) *Signature {
	return p.signatureOf(p.termName("a name"), doc)
}

// signatureOf parses the rest of a signature after its name.
func (p *parser) signatureOf(name Name, doc Doc) *Signature {
	s := &Signature{Doc: doc, Name: name}
	s.Pos = s.Name.Pos
	p.expect(tokDoubleColon, "'::'")
	s.Constraints = p.constraints()
	var parts []*SigType
	for !p.failed {
		part := &SigType{Doc: p.docs()}
		part.Effects = p.effects()
		part.Type = p.typ()
		parts = append(parts, part)
		if p.peek().kind != tokArrow {
			break
		}
		p.next()
	}
	if p.failed {
		return nil
	}
	s.Params, s.Result = parts[:len(parts)-1], parts[len(parts)-1]
	return s
}

// effects reads an effect row such as <IO> or <IO, Err, e> before a type,
// and returns its labels (none when there is no row). The checker
// checks them (check/effectrules.go).
func (p *parser) effects() []Name {
	if p.peek().kind != tokLess {
		return nil
	}
	p.next()
	var names []Name
	for !p.failed {
		names = append(names, p.name("an effect name such as IO or Err"))
		if p.peek().kind != tokComma {
			break
		}
		p.next()
	}
	p.expect(tokGreater, "',' or '>' closing the effect list")
	return names
}

// effectDecl parses `effect A, B` or `escapable effect A`.
func (p *parser) effectDecl(doc Doc) *EffectDecl {
	e := &EffectDecl{Pos: p.peek().Pos, Doc: doc}
	if p.peek().Text == "escapable" {
		e.Escapable = true
		p.next()
	}
	p.next() // effect
	for !p.failed {
		n := p.name("an effect name such as IO or Rand")
		if !p.failed && !startsUpper(p.toks[p.i-1]) {
			p.errorf(n.Pos, "an effect name starts with an upper-case letter, not '%s'", n.Name)
		}
		e.Names = append(e.Names, n)
		if p.peek().kind != tokComma {
			break
		}
		p.next()
	}
	if p.failed {
		return nil
	}
	return e
}

// typ parses a type without arrows: a type name with its arguments, or an
// atomic type.
func (p *parser) typ() Type {
	t := p.peek()
	if t.kind == tokIdent {
		p.next()
		nt := &NamedType{Pos: t.Pos, Name: t.Text}
		for !p.failed && p.startsTypeArg(p.peek()) {
			nt.Args = append(nt.Args, p.atomType())
		}
		return nt
	}
	return p.atomType()
}

func (p *parser) startsTypeArg(t token) bool {
	if t.First && t.Pos.Col <= p.stopCol {
		return false
	}
	switch t.kind {
	case tokLBracket, tokLParen, tokQuestion:
		return true
	case tokIdent:
		// A lower-case name is a type variable argument (Map k v), unless
		// it starts the next field (`{ x :: Int y :: Int }`).
		return !keywords[t.Text] && (startsUpper(t) || p.peekAt(1).kind != tokDoubleColon)
	}
	return false
}

func (p *parser) atomType() Type {
	t := p.peek()
	switch t.kind {
	case tokIdent:
		p.next()
		return &NamedType{Pos: t.Pos, Name: t.Text}
	case tokQuestion:
		p.next()
		return &OptionalType{Pos: t.Pos, Elem: p.atomType()}
	case tokLBracket:
		p.next()
		elem := p.innerType()
		p.expect(tokRBracket, "']' closing the list type")
		return &ListType{Pos: t.Pos, Elem: elem}
	case tokLParen:
		p.next()
		if p.peek().kind == tokRParen {
			p.next()
			return &UnitType{Pos: t.Pos}
		}
		items := []Type{p.innerType()}
		for !p.failed && p.peek().kind == tokComma {
			p.next()
			items = append(items, p.innerType())
		}
		p.expect(tokRParen, "',' or ')' in the type")
		if len(items) == 1 {
			return items[0]
		}
		return &TupleType{Pos: t.Pos, Items: items}
	}
	p.errorf(t.Pos, "expected a type, got %s", t.describe())
	return &UnitType{Pos: t.Pos}
}

// innerType is a type inside brackets, where layout does not apply: a
// function type `a -> <IO> b` too, whose arrows the brackets enclose.
func (p *parser) innerType() Type {
	saved := p.stopCol
	p.stopCol = 0
	defer func() { p.stopCol = saved }()
	pos := p.peek().Pos
	effects := p.effects() // kept on a function type's result only
	t := p.typ()
	if p.peek().kind != tokArrow {
		return t
	}
	ft := &FuncType{Pos: pos, Params: []Type{t}}
	for !p.failed && p.peek().kind == tokArrow {
		p.next()
		effects = p.effects()
		ft.Params = append(ft.Params, p.typ())
	}
	ft.Effects = effects
	ft.Result = ft.Params[len(ft.Params)-1]
	ft.Params = ft.Params[:len(ft.Params)-1]
	return ft
}

// constraints reads the class constraints before a signature's types,
// `Ord a =>` or `(Foldable f, Monoid a) =>` (or Morloc's bare `Ord =>`),
// when a '=>' follows them at the outer level of the signature.
func (p *parser) constraints() []Type {
	depth := 0
scan:
	for j := p.i; j < len(p.toks); j++ {
		t := p.toks[j]
		if j > p.i && t.First && t.Pos.Col <= p.stopCol {
			return nil
		}
		switch t.kind {
		case tokLParen, tokLBracket:
			depth++
		case tokRParen, tokRBracket:
			depth--
		case tokArrow, tokEOF:
			if depth <= 0 {
				return nil
			}
		case tokFatArrow:
			if depth == 0 {
				break scan
			}
		}
	}
	var out []Type
	if p.peek().kind == tokLParen {
		p.next()
		for !p.failed {
			out = append(out, p.typ())
			if p.peek().kind != tokComma {
				break
			}
			p.next()
		}
		p.expect(tokRParen, "',' or ')' in the class constraints")
	} else {
		out = append(out, p.typ())
	}
	p.expect(tokFatArrow, "'=>' after the class constraints")
	return out
}

// typeDecl parses `type Lang => TTerm = "native" args` (a language map)
// or `type TTerm = Type` (an alias) into f.
func (p *parser) typeDecl(f *File, doc Doc) {
	pos := p.next().Pos
	if p.peekAt(1).kind == tokFatArrow {
		tl := &TypeLang{Pos: pos, Doc: doc}
		tl.Lang = p.name("a language such as Py, Cpp or Go")
		p.expect(tokFatArrow, "'=>'")
		tl.Name, tl.Params = p.typeTerm(false)
		p.expect(tokEquals, "'=' and the type's native form in the language")
		tl.Native = p.stringLit("the type's native form in the language as a string, like \"int\" or \"std::vector<$1>\"")
		// The native form's arguments ("std::vector<$1>" a): read and
		// dropped, since nexus's pools have their native forms built in.
		for !p.failed && p.startsNativeArg(p.peek()) {
			if p.peek().kind == tokIdent {
				p.next()
			} else {
				p.atomType()
			}
		}
		if !p.failed {
			f.TypeLangs = append(f.TypeLangs, tl)
		}
		return
	}
	ta := &TypeAlias{Pos: pos, Doc: doc}
	ta.Name, ta.Params = p.typeHead()
	if !p.failed && p.peek().kind != tokEquals {
		p.errorf(p.peek().Pos, "'type %s' without '=' and a type declares a primitive type, which is not supported; write `type %s = Type` for an alias", ta.Name.Name, ta.Name.Name)
		return
	}
	p.expect(tokEquals, "'=' and the type the alias stands for")
	ta.Body = p.typ()
	if !p.failed {
		f.Aliases = append(f.Aliases, ta)
	}
}

// typeTerm reads the left side of a type declaration, `Name p1 p2` or
// `(Name p1 p2)`. For an alias (params) each parameter is a lower-case
// type variable; for a language map any type term, `List U8` as well as
// `List a`.
func (p *parser) typeTerm(params bool) (Name, []Type) {
	paren := p.peek().kind == tokLParen
	if paren {
		p.next()
	}
	name := p.name("a type name")
	if !p.failed && !startsUpper(p.toks[p.i-1]) {
		p.errorf(name.Pos, "a type name starts with an upper-case letter, not '%s'", name.Name)
	}
	var args []Type
	for !p.failed {
		t := p.peek()
		if t.First && t.Pos.Col <= p.stopCol || t.kind == tokEquals || t.kind == tokRParen || t.kind == tokEOF {
			break
		}
		switch {
		case t.kind == tokLParen && p.peekAt(2).kind == tokDoubleColon:
			p.errorf(t.Pos, "kind-annotated type parameters such as (n :: Nat), for type-level sizes, are not supported yet")
			return name, nil
		case params && t.kind == tokIdent && !startsUpper(t):
			p.next()
			args = append(args, &NamedType{Pos: t.Pos, Name: t.Text})
		case params:
			p.errorf(t.Pos, "a type alias's parameters are lower-case type variables, got %s", t.describe())
			return name, nil
		case t.kind == tokIdent:
			p.next()
			args = append(args, &NamedType{Pos: t.Pos, Name: t.Text})
		default:
			args = append(args, p.atomType())
		}
	}
	if paren {
		p.expect(tokRParen, "')' closing the type term")
	}
	return name, args
}

// typeHead reads the left side of an alias or a newtype: its name and
// its type variables.
func (p *parser) typeHead() (Name, []Name) {
	name, params := p.typeTerm(true)
	var names []Name
	for _, pt := range params {
		if nt, ok := pt.(*NamedType); ok {
			names = append(names, Name{Pos: nt.Pos, Name: nt.Name})
		}
	}
	return name, names
}

// startsNativeArg reports whether t starts one of a language map's native
// arguments: a type variable or type on the same logical line.
func (p *parser) startsNativeArg(t token) bool {
	if t.First && t.Pos.Col <= p.stopCol {
		return false
	}
	switch t.kind {
	case tokLBracket, tokLParen, tokQuestion, tokIdent:
		return !t.First
	}
	return false
}

func (p *parser) recordLang(doc Doc) *RecordLang {
	rl := &RecordLang{Pos: p.next().Pos, Doc: doc}
	rl.Lang = p.name("a language (Py, Cpp or Go)")
	p.expect(tokFatArrow, "'=>'")
	rl.Record = p.name("a record name")
	p.expect(tokEquals, "'=' and the type's name in the language")
	rl.Type = p.stringLit("the type's name in the language as a string, like \"dict\"")
	if p.failed {
		return nil
	}
	return rl
}

func (p *parser) record(doc Doc) *Record {
	r := &Record{Pos: p.next().Pos, Doc: doc}
	r.Name = p.name("a record name after 'record'")
	r.Params = p.recordParams()
	if !p.failed && p.peek().kind == tokEquals {
		p.legacyRecord(r)
		if p.failed {
			return nil
		}
		return r
	}
	p.expectWord("where", "or '=' after the record name, followed by the fields")
	for !p.failed {
		fdoc := p.docs()
		if p.toks[p.i].kind == tokEOF {
			for _, d := range fdoc {
				p.sink.Warnf(d.Pos, "docstring after the last field of record %s is not attached to anything; ignored", r.Name.Name)
			}
			break
		}
		f := &FieldDecl{Doc: fdoc}
		f.Name = p.name("a field name")
		p.expect(tokDoubleColon, "'::' after the field name")
		p.stopCol = f.Name.Pos.Col
		f.Type = p.typ()
		p.stopCol = 0
		r.Fields = append(r.Fields, f)
	}
	if p.failed {
		return nil
	}
	return r
}
