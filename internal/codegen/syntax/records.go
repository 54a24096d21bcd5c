package syntax

import "github.com/nexus-run/nexus/internal/codegen/diag"

// Newtype is `newtype Name p1 p2 = Type`: a type of its own (nominal)
// whose values have the form of Body. A primitive newtype (`newtype Map a
// b`) has no Body.
type Newtype struct {
	Pos    diag.Pos
	Doc    Doc
	Name   Name
	Params []Name
	Body   Type
}

// recordParams reads a record's type parameters, lower-case names before
// `where` or '='.
func (p *parser) recordParams() []Name {
	var params []Name
	for !p.failed {
		t := p.peek()
		if t.kind != tokIdent || startsUpper(t) || t.Text == "where" {
			break
		}
		params = append(params, p.name("a type parameter"))
	}
	return params
}

// legacyRecord reads the rest of `record Name = Con { field :: Type, ... }`
// (Morloc's one-line form) after the name. The constructor names the
// record's native form in Morloc and is not kept.
func (p *parser) legacyRecord(r *Record) {
	p.next() // =
	switch t := p.peek(); t.kind {
	case tokIdent, tokString:
		p.next()
	default:
		p.errorf(t.Pos, "expected the record's constructor name after '=', got %s", t.describe())
		return
	}
	if p.peek().kind != tokLBrace {
		return
	}
	p.next()
	saved := p.stopCol
	p.stopCol = 0
	defer func() { p.stopCol = saved }()
	for !p.failed && p.peek().kind != tokRBrace {
		f := &FieldDecl{Doc: p.docs()}
		f.Name = p.name("a field name")
		p.expect(tokDoubleColon, "'::' after the field name")
		f.Type = p.typ()
		r.Fields = append(r.Fields, f)
		if p.peek().kind != tokComma {
			break
		}
		p.next()
	}
	p.expect(tokRBrace, "',' or '}' in the record's fields")
}

// newtype parses `newtype Name p1 = Type`.
func (p *parser) newtype(doc Doc) *Newtype {
	nt := &Newtype{Pos: p.next().Pos, Doc: doc}
	nt.Name, nt.Params = p.typeHead()
	if !p.failed && p.peek().kind != tokEquals {
		// A primitive (`newtype Map a b`; typeHead stopped at the end of
		// the line): its form is its Packable instance's wire type, or a
		// built-in type's (check/packable.go).
		return nt
	}
	p.expect(tokEquals, "'=' and the type whose form the newtype has")
	nt.Body = p.typ()
	// The body's type variables (`List a`), which a type in a signature
	// does not have.
	if named, ok := nt.Body.(*NamedType); ok {
		for t := p.peek(); !p.failed && t.kind == tokIdent && !t.First && !startsUpper(t); t = p.peek() {
			p.next()
			named.Args = append(named.Args, &NamedType{Pos: t.Pos, Name: t.Text})
		}
	}
	if p.failed {
		return nil
	}
	return nt
}
