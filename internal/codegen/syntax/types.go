package syntax

import ()

func (p *parser) signature(doc Doc) *Signature {
	s := &Signature{Doc: doc}
	s.Name = p.name("a name")
	s.Pos = s.Name.Pos
	p.expect(tokDoubleColon, "'::'")
	var parts []*SigType
	for !p.failed {
		part := &SigType{Doc: p.docs()}
		p.effects()
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

// effects skips effect markers such as <IO> or <IO, Err>, which the
// subset accepts and ignores.
func (p *parser) effects() {
	if p.peek().kind != tokLess {
		return
	}
	p.next()
	for !p.failed {
		p.name("an effect name such as IO or Err")
		if p.peek().kind != tokComma {
			break
		}
		p.next()
	}
	p.expect(tokGreater, "',' or '>' closing the effect list")
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
		return startsUpper(t)
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

// innerType is a type inside brackets, where layout does not apply.
func (p *parser) innerType() Type {
	saved := p.stopCol
	p.stopCol = 0
	defer func() { p.stopCol = saved }()
	t := p.typ()
	if p.peek().kind == tokArrow {
		p.errorf(p.peek().Pos, "function types are not supported as arguments")
	}
	return t
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
	p.expectWord("where", "after the record name, followed by indented fields")
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
