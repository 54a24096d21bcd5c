// Package syntax is the lexer, abstract syntax tree and parser of the
// `.loc` program language (docs/language.md).
//
// Layout follows Morloc and Haskell: a top-level item starts at column 1
// and every continuation line is indented. A `--'` docstring line belongs
// to what follows it: the next item when the next token is at column 1,
// else the argument or record field written after it. Parse reports every
// syntax error it can find, one per item, and keeps going.
package syntax

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

// keywords cannot be used as names. Words that introduce an item only at
// the start of a line and are unambiguous there (record, type) or that
// only matter inside a source line (from, as) stay usable as names:
// `record :: Int -> Point` is a fine command.
var keywords = map[string]bool{
	"module": true, "import": true, "source": true, "where": true,
	"class": true, "instance": true, "let": true, "in": true, "if": true,
	"then": true, "else": true, "do": true,
}

// Parse parses a whole `.loc` file. Errors and warnings go to sink; the
// File holds every item that parsed cleanly.
func Parse(src string, sink *diag.Sink) *File {
	src = strings.TrimPrefix(src, "\ufeff") // a byte order mark is not text
	toks := lex(src, diag.Pos{Line: 1, Col: 1}, sink)
	f := &File{}
	for _, it := range splitItems(src, toks, sink) {
		p := &parser{toks: it.toks, sink: sink, src: src}
		p.item(f, it.doc)
	}
	return f
}

// ParseExpr parses text as one expression, positioned as if it started at
// start. It parses the function named by a `with:` or `render:` directive.
func ParseExpr(text string, start diag.Pos, sink *diag.Sink) Expr {
	toks := lex(text, start, sink)
	p := &parser{toks: toks, sink: sink, src: text}
	e := p.expr()
	if !p.failed && p.peek().kind != tokEOF {
		p.errorf(p.peek().Pos, "unexpected %s after the expression", p.peek().describe())
	}
	if p.failed {
		return nil
	}
	return e
}

// item is the tokens of one top-level item, ending in an end-of-input
// token, and the docstring written above it.
type item struct {
	doc  Doc
	toks []token
}

// splitItems cuts the token stream into top-level items: a token at the
// start of a line in column 1 opens a new item.
func splitItems(src string, toks []token, sink *diag.Sink) []item {
	var items []item
	var pending []token
	var depth bracketDepth
	for _, t := range toks {
		if t.kind == tokEOF {
			break
		}
		if t.kind == tokDoc {
			pending = append(pending, t)
			continue
		}
		if t.kind == tokGroupLine {
			// Kept only inside a module header's export list (Morloc's
			// rule); elsewhere a `--*` line is a comment.
			if len(items) > 0 && depth > 0 && isModuleHeader(items[len(items)-1].toks) {
				cur := &items[len(items)-1]
				cur.toks = append(cur.toks, pending...)
				cur.toks = append(cur.toks, t)
				pending = nil
			}
			continue
		}
		if len(items) == 0 || (t.First && t.Pos.Col == 1 && !depth.continues(items[len(items)-1].toks, t)) {
			depth = 0
			if len(items) == 0 && t.Pos.Col != 1 {
				sink.Errorf(t.Pos, "a top-level item must start at column 1")
			}
			items = append(items, item{doc: docOf(pending)})
			pending = nil
		}
		cur := &items[len(items)-1]
		cur.toks = append(cur.toks, pending...)
		cur.toks = append(cur.toks, t)
		pending = nil
		depth.update(t)
	}
	for _, d := range pending {
		sink.Warnf(d.Pos, "docstring at the end of the file is not attached to anything; ignored")
	}
	for i := range items {
		items[i].toks = append(items[i].toks, endOf(src, items[i].toks))
	}
	return items
}

// endOf makes the end-of-input token of an item, placed right after its
// last token.
func endOf(src string, toks []token) token {
	last := toks[len(toks)-1]
	text := src[last.Offset:last.End]
	pos := last.Pos
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		pos.Line, pos.Col = pos.Line+strings.Count(text, "\n"), utf8.RuneCountInString(text[i+1:])+1
	} else {
		pos.Col += utf8.RuneCountInString(text)
	}
	return token{kind: tokEOF, Pos: pos, Offset: last.End, End: last.End}
}

func docOf(toks []token) Doc {
	var d Doc
	for _, t := range toks {
		d = append(d, DocLine{Pos: t.TextPos, Text: t.Text})
	}
	return d
}

// parser parses one item. After the first error it is failed: every
// further step does nothing, and the item is dropped.
type parser struct {
	toks   []token
	i      int
	sink   *diag.Sink
	src    string
	failed bool
	// stopCol ends a type at a line that starts at or left of it, so a
	// record field's type does not run into the next field.
	stopCol int
	// forces counts the '!' read so far (forces.go).
	forces int
}

func (p *parser) errorf(pos diag.Pos, format string, args ...any) {
	if p.failed {
		return
	}
	p.failed = true
	for _, t := range p.toks {
		if t.kind == tokInvalid {
			// The lexer reported this item's real problem already;
			// whatever the parser trips over is a consequence.
			return
		}
	}
	p.sink.Errorf(pos, format, args...)
}

// peek returns the next token that is not a docstring, without taking
// anything.
func (p *parser) peek() token { return p.peekAt(0) }

// peekAt returns the token n places ahead, docstrings skipped.
func (p *parser) peekAt(n int) token {
	j := p.i
	for {
		for p.toks[j].kind == tokDoc {
			j++
		}
		if n == 0 || p.toks[j].kind == tokEOF {
			return p.toks[j]
		}
		n--
		j++
	}
}

// next takes the next token. A docstring skipped on the way is not where
// a docstring belongs: it is dropped with a warning.
func (p *parser) next() token {
	p.skipDocs()
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) skipDocs() {
	for p.toks[p.i].kind == tokDoc {
		p.sink.Warnf(p.toks[p.i].Pos, "docstring is not attached to an item, argument or field; ignored")
		p.i++
	}
}

// docs takes the docstring lines at the current position.
func (p *parser) docs() Doc {
	var d Doc
	for p.toks[p.i].kind == tokDoc {
		t := p.toks[p.i]
		d = append(d, DocLine{Pos: t.TextPos, Text: t.Text})
		p.i++
	}
	return d
}

// expect takes a token of kind k, or fails with "expected what, got ...".
func (p *parser) expect(k kind, what string) token {
	t := p.peek()
	if t.kind != k {
		p.errorf(t.Pos, "expected %s, got %s", what, t.describe())
		return t
	}
	return p.next()
}

func (p *parser) isWord(word string) bool {
	t := p.peek()
	return t.kind == tokIdent && t.Text == word
}

func (p *parser) expectWord(word, context string) {
	if !p.isWord(word) {
		p.errorf(p.peek().Pos, "expected '%s' %s, got %s", word, context, p.peek().describe())
		return
	}
	p.next()
}

func (p *parser) name(what string) Name {
	t := p.peek()
	if t.kind != tokIdent || keywords[t.Text] {
		p.errorf(t.Pos, "expected %s, got %s", what, t.describe())
		return Name{Pos: t.Pos}
	}
	p.next()
	return Name{Pos: t.Pos, Name: t.Text}
}

func (p *parser) stringLit(what string) StringLit {
	t := p.expect(tokString, what)
	return StringLit{Pos: t.Pos, Value: t.Text}
}

// item parses one top-level item into f.
func (p *parser) item(f *File, doc Doc) {
	p.inlinePragma()
	t := p.peek()
	switch {
	case t.kind == tokIdent && t.Text == "module":
		if m := p.module(doc); m != nil {
			if f.Module != nil {
				p.sink.Errorf(m.Pos, "a second module header; a file holds one module (the first is at %s)", f.Module.Pos)
			} else {
				f.Module = m
			}
		}
	case t.kind == tokIdent && t.Text == "import":
		if im := p.importDecl(doc); im != nil {
			f.Imports = append(f.Imports, im)
		}
	case t.kind == tokIdent && t.Text == "source":
		if s := p.source(doc); s != nil {
			f.Sources = append(f.Sources, s)
		}
	case t.kind == tokIdent && t.Text == "newtype" && startsUpper(p.peekAt(1)):
		if nt := p.newtype(doc); nt != nil {
			f.Newtypes = append(f.Newtypes, nt)
		}
	case t.kind == tokIdent && (t.Text == "record" || t.Text == "object") && startsUpper(p.peekAt(1)):
		if p.peekAt(2).kind == tokFatArrow {
			if rl := p.recordLang(doc); rl != nil {
				f.RecordLangs = append(f.RecordLangs, rl)
			}
		} else if r := p.record(doc); r != nil {
			f.Records = append(f.Records, r)
		}
	case t.kind == tokIdent && (t.Text == "effect" && p.isEffectDecl(1) || t.Text == "escapable" && p.peekAt(1).Text == "effect" && p.isEffectDecl(2)):
		if e := p.effectDecl(doc); e != nil {
			f.Effects = append(f.Effects, e)
		}
	case t.kind == tokIdent && (t.Text == "infixl" || t.Text == "infixr" || t.Text == "infix") && p.peekAt(1).kind == tokInt:
		if fx := p.fixity(); fx != nil {
			f.Fixities = append(f.Fixities, fx)
		}
	case t.kind == tokIdent && t.Text == "type" && (startsUpper(p.peekAt(1)) || p.peekAt(1).kind == tokLParen || p.peekAt(2).kind == tokFatArrow):
		p.typeDecl(f, doc)
	case t.kind == tokLParen && p.opName(0) && p.peekAt(3).kind == tokDoubleColon:
		if s := p.signature(doc); s != nil {
			f.Signatures = append(f.Signatures, s)
		}
	case t.kind == tokLParen && p.opName(0):
		if d := p.def(doc); d != nil {
			f.Defs = append(f.Defs, d)
		}
	case t.kind == tokIdent && !keywords[t.Text] && p.peekAt(1).kind == tokDoubleColon:
		if s := p.signature(doc); s != nil {
			f.Signatures = append(f.Signatures, s)
		}
	case t.kind == tokIdent && !keywords[t.Text]:
		if d := p.def(doc); d != nil {
			f.Defs = append(f.Defs, d)
		}
	case t.kind == tokIdent && (t.Text == "class" || t.Text == "instance"):
		p.classItem(f, doc)
	case t.kind == tokIdent:
		p.errorf(t.Pos, "'%s' declarations are not supported; expected a module header, import, source, record, signature or definition", t.Text)
	default:
		p.errorf(t.Pos, "expected a module header, import, source, record, signature or definition, got %s", t.describe())
	}
	if !p.failed && p.peek().kind != tokEOF {
		if t := p.peek(); t.kind == tokSemi {
			p.errorf(t.Pos, "unexpected ';': it separates the items of a '{ ... }' block after 'do' or 'let', and top-level items are on lines of their own")
		} else {
			p.errorf(t.Pos, "unexpected %s; a continuation line must be indented, and a new item starts at column 1", t.describe())
		}
	}
	if !p.failed {
		p.skipDocs()
	}
}

// fixity parses `infixl 6 +, -`, `infixr 8 (**)` or `infix 4 ==`.
func (p *parser) fixity() *Fixity {
	t := p.next()
	fx := &Fixity{Pos: t.Pos, Assoc: t.Text}
	prec := p.next()
	n, err := strconv.Atoi(prec.Text)
	if err != nil || n < 0 || n > 9 {
		p.errorf(prec.Pos, "a fixity's precedence is from 0 to 9, not %s", prec.Text)
		return nil
	}
	fx.Prec = n
	for !p.failed {
		t := p.peek()
		paren := t.kind == tokLParen
		if paren {
			p.next()
			t = p.peek()
		}
		if !p.isOp(t) && t.kind != tokIdent {
			p.errorf(t.Pos, "expected an operator in the fixity declaration, got %s", t.describe())
			return nil
		}
		p.next()
		fx.Ops = append(fx.Ops, Name{Pos: t.Pos, Name: t.Text})
		if paren {
			p.expect(tokRParen, "')' after the operator")
		}
		if p.peek().kind != tokComma {
			break
		}
		p.next()
	}
	if p.failed {
		return nil
	}
	return fx
}

// isEffectDecl reports whether the token at i ahead starts the names of an
// effect declaration: a name followed by a comma or the end of the item,
// or any upper-case name (not a definition `effect x = ...`).
func (p *parser) isEffectDecl(i int) bool {
	n := p.peekAt(i)
	if n.kind != tokIdent {
		return false
	}
	after := p.peekAt(i + 1).kind
	return startsUpper(n) || after == tokComma || after == tokEOF
}

// moduleName reads a module name such as chem, root-py or math.stats.
func (p *parser) moduleName(what string) Name {
	n := p.name(what)
	for !p.failed {
		sep := p.peek()
		if sep.Offset != p.toks[p.i-1].End {
			break
		}
		switch sep.kind {
		case tokMinus, tokDot:
			p.next()
			part := p.peek()
			if part.kind != tokIdent || part.Offset != sep.End {
				p.errorf(part.Pos, "expected the rest of the module name after '%s'", sep.Text)
				return n
			}
			p.next()
			n.Name += sep.Text + part.Text
			continue
		}
		break
	}
	return n
}

func (p *parser) source(doc Doc) *Source {
	s := &Source{Pos: p.next().Pos, Doc: doc}
	s.Lang = p.name("a language (Py, Cpp, Go or MCP) after 'source'")
	if p.isWord("from") {
		p.next()
		s.Path = p.stringLit("the source file path (or MCP server) as a string")
	} else if p.peek().kind != tokLParen {
		p.expectWord("from", "after the source language")
	} else {
		// `source Py ("len" as size)`: the language's own builtins.
		s.Builtin = true
		s.Path = StringLit{Pos: p.peek().Pos}
	}
	if p.isWord("where") {
		p.next()
		p.sourceBlock(s)
	} else {
		p.expect(tokLParen, "'(' and the sourced names after the path, or 'where' and the names on indented lines")
		for !p.failed {
			s.Items = append(s.Items, p.sourceItem(nil))
			if p.peek().kind != tokComma {
				break
			}
			p.next()
		}
		p.expect(tokRParen, "',' or ')' in the list of sourced names")
	}
	if p.failed {
		return nil
	}
	return s
}

// sourceBlock reads the names of `source Py from "f.py" where`, one a
// line, each after its docstring and an optional `%inline` (which nexus
// reads and ignores: it calls every function where its pool runs).
func (p *parser) sourceBlock(s *Source) {
	for !p.failed {
		doc := p.docs()
		if p.toks[p.i].kind == tokEOF {
			break
		}
		if t := p.peek(); t.Text == "%" && p.peekAt(1).Text == "inline" {
			p.next()
			p.next()
			doc = append(doc, p.docs()...)
		}
		s.Items = append(s.Items, p.sourceItem(doc))
	}
	if !p.failed && len(s.Items) == 0 {
		p.errorf(p.peek().Pos, "expected the sourced names on indented lines after 'where'")
	}
}

// sourceItem reads one sourced name: "name" or name, then `as alias`.
func (p *parser) sourceItem(doc Doc) SourceItem {
	it := SourceItem{Doc: doc}
	if p.foreignOperator(&it) {
		return it
	}
	if t := p.peek(); t.kind == tokIdent && !keywords[t.Text] {
		p.next()
		it.Name = StringLit{Pos: t.Pos, Value: t.Text}
	} else {
		it.Name = p.stringLit("a sourced name as a string, like \"name\"")
	}
	if p.isWord("as") {
		p.next()
		it.Alias = p.sourceAlias()
	} else if !p.failed {
		if !isName(it.Name.Value) {
			p.errorf(it.Name.Pos, "%q is not a valid name in the program; give it one with 'as %s'", it.Name.Value, aliasFor(it.Name.Value))
		}
		it.Alias = Name{Pos: it.Name.Pos, Name: it.Name.Value}
	}
	return it
}

// aliasFor suggests a program name for a source name that is not one:
// the name in camel case at its other characters ("get-sum" is getSum),
// or "name" when that is no name either.
func aliasFor(s string) string {
	var b strings.Builder
	upper := false
	for _, r := range s {
		switch {
		case !isIdentRune(r) || r == '\'':
			upper = b.Len() > 0
		case upper:
			b.WriteRune(unicode.ToUpper(r))
			upper = false
		default:
			b.WriteRune(r)
		}
	}
	if alias := b.String(); isName(alias) {
		return alias
	}
	return "name"
}

// startsUpper reports whether t is a name starting with a capital letter:
// a type, record or language name.
func startsUpper(t token) bool {
	r, _ := utf8.DecodeRuneInString(t.Text)
	return t.kind == tokIdent && unicode.IsUpper(r)
}

// isName reports whether s is usable as a name in a program.
func isName(s string) bool {
	if s == "" || keywords[s] || s == "_" {
		return false
	}
	for i, r := range s {
		if i == 0 && !(r == '_' || unicode.IsLetter(r)) {
			return false
		}
		if !isIdentRune(r) {
			return false
		}
	}
	return true
}
