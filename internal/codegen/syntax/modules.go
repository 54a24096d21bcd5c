package syntax

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

// ParseModules parses a `.loc` file that may hold several modules: each
// `module` header starts a new one (Morloc's multi-module files). file is
// put in every position (diag.Pos.File): empty for the program's own file,
// the display path of an imported module's file. Items before the first
// header make a File without a Module.
func ParseModules(src, file string, sink *diag.Sink) []*File {
	src = strings.TrimPrefix(src, "\ufeff")
	toks := lex(src, diag.Pos{Line: 1, Col: 1, File: file}, sink)
	var files []*File
	for _, it := range splitItems(src, toks, sink) {
		p := &parser{toks: it.toks, sink: sink, src: src}
		if len(files) == 0 || p.isWord("module") {
			files = append(files, &File{})
		}
		p.item(files[len(files)-1], it.doc)
	}
	if len(files) == 0 {
		files = append(files, &File{})
	}
	return files
}

// qualified extends the name just read, which started at start, over a
// qualifier's name: `h.double` is one name, the term double of the module
// imported `as h`, exactly one level deep. Composition is written with
// spaces (`f . g`); `.g` after a space is a getter.
func (l *lexer) qualified(start int) {
	first, _ := utf8.DecodeRuneInString(l.src[start:])
	next := l.peekRune(1)
	if !unicode.IsLower(first) || l.peekRune(0) != '.' || !(unicode.IsLower(next) || next == '_') {
		return
	}
	if strings.ContainsRune(l.src[start:l.off], '.') {
		return
	}
	l.advance()
	for l.off < len(l.src) && isIdentRune(l.peekRune(0)) {
		l.advance()
	}
}

// module parses `module NAME (exports)`, `module NAME (*)`, `module (*)`.
func (p *parser) module(doc Doc) *Module {
	m := &Module{Pos: p.next().Pos, Doc: doc}
	if p.peek().kind != tokLParen {
		m.Name = p.moduleName("a module name after 'module'")
	} else {
		m.Name = Name{Pos: p.peek().Pos}
	}
	p.expect(tokLParen, "'(' and the exported names after the module name")
	switch p.peek().kind {
	case tokStar:
		p.next()
		m.All = true
	case tokRParen:
	default:
		g := &exportGroups{p: p, m: m, cur: -1, declared: map[string]diag.Pos{}}
		for !p.failed {
			g.lines()
			if p.peek().kind == tokRParen && len(m.Exports) > 0 {
				break // group lines after the last name
			}
			ex := p.importName("an exported name")
			m.Exports = append(m.Exports, ex)
			g.member(ex.Pos)
			g.lines()
			if p.peek().kind != tokComma {
				break
			}
			p.next()
		}
		g.end()
	}
	p.expect(tokRParen, "',' or ')' in the export list")
	if p.failed {
		return nil
	}
	return m
}

// importDecl parses `import [.]path [as q] [(item, ...)]`.
func (p *parser) importDecl(doc Doc) *Import {
	im := &Import{Pos: p.next().Pos, Doc: doc}
	if t := p.peek(); t.kind == tokGetter {
		// `.helpers` lexes as a getter; the rest of a nested path follows.
		p.next()
		im.Local = true
		im.Module = Name{Pos: t.Pos, Name: t.Text}
		p.modulePathRest(&im.Module)
	} else {
		im.Module = p.moduleName("a module name after 'import'")
	}
	if p.isWord("as") {
		p.next()
		q := p.name("a qualifier after 'as'")
		im.As = &q
	}
	if p.peek().kind == tokLParen {
		p.next()
		im.List = true
		for !p.failed && p.peek().kind != tokRParen {
			it := ImportItem{Name: p.importName("an imported name")}
			it.Alias = it.Name
			if p.isWord("as") {
				p.next()
				it.Alias = p.importName("a name after 'as'")
			}
			im.Items = append(im.Items, it)
			if p.peek().kind != tokComma {
				break
			}
			p.next()
		}
		p.expect(tokRParen, "',' or ')' in the import list")
	}
	if p.failed {
		return nil
	}
	return im
}

// modulePathRest reads the `.b.c` written right after the first part of a
// module path into n.
func (p *parser) modulePathRest(n *Name) {
	for !p.failed {
		sep := p.peek()
		if sep.kind == tokGetter && sep.Offset == p.toks[p.i-1].End {
			// `.lib.math` lexes as a getter chain, `.lib` then `.math`.
			p.next()
			n.Name += "." + sep.Text
			continue
		}
		if sep.kind != tokDot || sep.Offset != p.toks[p.i-1].End {
			return
		}
		p.next()
		part := p.peek()
		if part.kind != tokIdent || part.Offset != sep.End {
			p.errorf(part.Pos, "expected the rest of the module path after '.'")
			return
		}
		p.next()
		n.Name += "." + part.Text
	}
}

// importName reads a name of an import or export list: a term, a type or
// an operator in parentheses, `(+.)`, whose Name is the operator.
func (p *parser) importName(what string) Name {
	if p.peek().kind != tokLParen {
		return p.name(what)
	}
	open := p.next()
	var op strings.Builder
	pos := p.peek().Pos
	for !p.failed && p.peek().kind != tokRParen {
		t := p.peek()
		if t.kind == tokIdent || t.kind == tokEOF || t.kind == tokComma || (op.Len() > 0 && t.Offset != p.toks[p.i-1].End) {
			p.errorf(t.Pos, "expected an operator and ')' after '(' in %s, got %s", what, t.describe())
			return Name{Pos: open.Pos}
		}
		p.next()
		op.WriteString(t.Text)
	}
	if op.Len() == 0 {
		p.errorf(p.peek().Pos, "expected an operator between '(' and ')' in %s", what)
	}
	p.expect(tokRParen, "')' after the operator")
	return Name{Pos: pos, Name: op.String()}
}
