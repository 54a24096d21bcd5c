package syntax

import (
	"strconv"
	"strings"
)

func (p *parser) def(doc Doc) *Def {
	return p.defOf(p.termName("a name"), doc)
}

// defOf parses the rest of a definition after its name.
func (p *parser) defOf(name Name, doc Doc) *Def {
	d := &Def{Doc: doc, Name: name}
	d.Pos = d.Name.Pos
	var binds []LetBinding
	for !p.failed && p.peek().kind != tokEquals && p.peek().kind != tokQuestion {
		if n, b, ok := p.param(); ok {
			d.Params = append(d.Params, n)
			binds = append(binds, b...)
		} else {
			p.olderQuantifier(d)
			p.infixDefinition(d)
			p.errorf(p.peek().Pos, "expected a parameter name, '=' or '::' after '%s', got %s", d.Name.Name, p.peek().describe())
		}
	}
	forces := p.forces
	if p.peek().kind == tokQuestion {
		d.Body = p.guard() // f x ? c = a : b
	} else {
		p.expect(tokEquals, "'=' or a guard '?'")
		d.Body = p.expr()
	}
	d.Body = p.hoistForces(d.Body, forces)
	if !p.failed && p.peek().kind == tokIdent && p.peek().Text == "where" {
		p.where(d)
	}
	if p.failed {
		return nil
	}
	d.Where = append(patternDefs(binds), d.Where...)
	return d
}

// expr parses an expression: operands joined by infix operators, `f x +
// g y * 2`, each operand an application or a prefix minus on one. The
// chain is kept flat (Infix); the checker applies the fixities.
func (p *parser) expr() Expr {
	if p.peek().kind == tokQuestion {
		return p.guard()
	}
	if t := p.peek(); t.kind == tokIdent && t.Text == "let" {
		return p.letExpr()
	}
	if t := p.peek(); t.kind == tokIdent && t.Text == "do" {
		return p.doBlock()
	}
	e, _ := p.infix(false)
	return p.ascription(e)
}

// where parses the `where` clause of d: definitions and signatures, each
// starting a line at the column of the first.
func (p *parser) where(d *Def) {
	w := p.next()
	first := p.peek()
	if first.kind == tokEOF {
		p.errorf(first.Pos, "expected definitions after 'where'")
		return
	}
	outer := p.stopCol
	p.stopCol = first.Pos.Col
	defer func() { p.stopCol = outer }()
	if first.Pos.Col <= outer || first.First && first.Pos.Col <= w.Pos.Col && w.First {
		p.errorf(first.Pos, "the definitions of a 'where' are indented more than what they belong to")
		return
	}
	for !p.failed {
		t := p.peek()
		if t.kind != tokIdent || keywords[t.Text] {
			p.errorf(t.Pos, "expected a definition or a signature in the 'where', got %s", t.describe())
			return
		}
		if p.peekAt(1).kind == tokDoubleColon {
			if s := p.signature(nil); s != nil {
				d.WhereSigs = append(d.WhereSigs, s)
			}
		} else if b := p.def(nil); b != nil {
			d.Where = append(d.Where, b)
		}
		next := p.peek()
		if next.kind == tokEOF || p.failed {
			return
		}
		if !next.First || next.Pos.Col != p.stopCol {
			p.errorf(next.Pos, "unexpected %s; each definition of a 'where' starts a line, in the column of the first", next.describe())
			return
		}
	}
}

// letExpr parses `let a = e1` with more bindings each starting a line in
// the column of the first, then `in body`, or another `let` (a chain).
func (p *parser) letExpr() Expr {
	l := &Let{Pos: p.next().Pos}
	l.Bindings = p.letBindings()
	switch t := p.peek(); {
	case p.failed:
	case t.kind == tokIdent && t.Text == "in":
		p.next()
		l.Body = p.expr()
	case t.kind == tokIdent && t.Text == "let":
		l.Body = p.letExpr()
	default:
		p.errorf(t.Pos, "expected 'in' after the bindings of the 'let', got %s", t.describe())
	}
	return l
}

// letBindings parses a let's bindings, after 'let': each `name = value`
// (or `name ? c = a : b`), those after the first starting a line in its
// column.
func (p *parser) letBindings() []LetBinding {
	var bs []LetBinding
	if p.peek().kind == tokLBrace {
		p.braced("the 'let'", func() { bs = append(bs, p.letBinding()...) })
		return bs
	}
	first := p.peek()
	outer := p.stopCol
	p.stopCol = first.Pos.Col
	defer func() { p.stopCol = outer }()
	for !p.failed {
		bs = append(bs, p.letBinding()...)
		next := p.peek()
		if next.kind == tokIdent && (next.Text == "in" || next.Text == "let") || !next.First || next.Pos.Col != p.stopCol {
			break
		}
	}
	return bs
}

// letBinding reads one `name = value` (or `name ? c = a : b`, or
// `pattern = value`) of a let: its binding and those of its pattern.
func (p *parser) letBinding() []LetBinding {
	t := p.peek()
	if p.startsPattern() || t.kind == tokLBracket {
		n, binds := p.pattern()
		p.expect(tokEquals, "'=' after the pattern in the 'let'")
		return append([]LetBinding{{Name: n, Value: p.expr()}}, binds...)
	}
	if t.kind != tokIdent || keywords[t.Text] {
		p.errorf(t.Pos, "expected a name or a pattern to bind in the 'let', got %s", t.describe())
		return nil
	}
	b := LetBinding{Name: p.name("a name")}
	if p.peek().kind == tokQuestion {
		b.Value = p.guard()
	} else {
		p.expect(tokEquals, "'=' after the name in the 'let' (a 'let' binds values; write a function in a 'where')")
		b.Value = p.expr()
	}
	return []LetBinding{b}
}

// braced reads `{ item; item; ... }`, an explicit-brace block (`do { a <-
// x; f a }`, `let { x = 1; y = 2 }`), calling item for each item; layout
// does not apply inside.
func (p *parser) braced(what string, item func()) {
	open := p.next()
	outer := p.stopCol
	p.stopCol = 0
	defer func() { p.stopCol = outer }()
	for !p.failed {
		item()
		switch t := p.peek(); {
		case p.failed:
		case t.kind == tokSemi:
			p.next()
			continue
		case t.kind == tokRBrace:
			p.next()
			return
		default:
			p.errorf(t.Pos, "expected ';' or '}' closing the '{' of %s at %s, got %s", what, open.Pos, t.describe())
		}
		return
	}
}

// lambda parses `\x y -> body`; the body extends as far as it can.
func (p *parser) lambda() Expr {
	l := &Lambda{Pos: p.next().Pos}
	var binds []LetBinding
	for !p.failed && p.peek().kind != tokArrow {
		if n, b, ok := p.param(); ok {
			l.Params = append(l.Params, n)
			binds = append(binds, b...)
		} else {
			p.errorf(p.peek().Pos, "expected a parameter name or '->' in the lambda, got %s (patterns are not supported yet)", p.peek().describe())
		}
	}
	if len(l.Params) == 0 && !p.failed {
		p.errorf(p.peek().Pos, "a lambda takes at least one parameter")
	}
	p.expect(tokArrow, "'->'")
	l.Body = bindPattern(l.Pos, binds, p.expr())
	return l
}

// doBlock parses `do` and its statements, each starting a line in the
// column of the first.
func (p *parser) doBlock() Expr {
	d := &Do{Pos: p.next().Pos}
	first := p.peek()
	if first.kind == tokEOF {
		p.errorf(first.Pos, "an empty 'do' block")
		return d
	}
	if first.kind == tokLBrace {
		p.braced("the 'do' block", func() { d.Stmts = append(d.Stmts, p.doStmt()...) })
		return d
	}
	outer := p.stopCol
	p.stopCol = first.Pos.Col
	defer func() { p.stopCol = outer }()
	for !p.failed {
		d.Stmts = append(d.Stmts, p.doStmt()...)
		next := p.peek()
		if p.failed || next.kind == tokEOF || !next.First || next.Pos.Col != p.stopCol || next.kind == tokIdent && next.Text == "where" {
			break
		}
	}
	return d
}

// doStmt reads one statement of a do block: `let` bindings, `x <- e` or
// an expression; a pattern bind is two, the bind and a let of the
// pattern's names.
func (p *parser) doStmt() []DoStmt {
	t := p.peek()
	var st DoStmt
	switch {
	case t.kind == tokIdent && t.Text == "let":
		p.next()
		st.Let = p.letBindings()
	case t.kind == tokIdent && !keywords[t.Text] && p.peekAt(1).kind == tokBind:
		n := p.name("a name")
		st.Bind = &n
		p.next()
		st.Expr = p.expr()
	case p.startsPattern() && p.bindsPattern():
		// `(a, b) <- e`: e bound to the pattern's name, then its names
		// (a let of the block's, see Do).
		n, binds := p.pattern()
		st.Bind = &n
		p.expect(tokBind, "'<-'")
		st.Expr = p.expr()
		return []DoStmt{st, {Let: binds}}
	default:
		st.Expr = p.expr()
	}
	return []DoStmt{st}
}

// bindsPattern reports whether the pattern starting here is followed by
// '<-', a do block's bind.
func (p *parser) bindsPattern() bool {
	j := p.i
	if p.toks[j].kind == tokIdent {
		j += 2 // v@
	}
	depth := 0
	for ; j < len(p.toks); j++ {
		switch p.toks[j].kind {
		case tokLParen, tokLBrace, tokLBracket:
			depth++
		case tokRParen, tokRBrace, tokRBracket:
			depth--
		case tokEOF:
			return false
		}
		if depth == 0 {
			return j+1 < len(p.toks) && p.toks[j+1].kind == tokBind
		}
	}
	return false
}

// interpolate reads a string with `#{expr}` parts as the concatenation
// of its pieces, `"a #{x} b"` as "a " <> x <> " b"; each part must be a
// Str (the checker says so otherwise). Braces inside a part are counted,
// so a record literal may stand there.
func (p *parser) interpolate(t token) Expr {
	in := &Infix{}
	add := func(e Expr) {
		if len(in.Operands) > 0 {
			in.Ops = append(in.Ops, Name{Pos: e.ExprPos(), Name: "<>"})
		}
		in.Operands = append(in.Operands, e)
	}
	text := t.Text
	for {
		i := strings.Index(text, "#{")
		if i < 0 {
			break
		}
		if i > 0 {
			add(&StrLit{Pos: t.Pos, Value: text[:i]})
		}
		j := partEnd(text, i+2)
		if j < 0 {
			p.errorf(t.Pos, "'#{' without its closing '}' in the string")
			return &StrLit{Pos: t.Pos, Value: t.Text}
		}
		pos := t.Pos
		pos.Col += 1 + len([]rune(t.Text[:len(t.Text)-len(text)+i+2]))
		e := ParseExpr(text[i+2:j-1], pos, p.sink)
		if e == nil {
			p.failed = true
			return &StrLit{Pos: t.Pos, Value: t.Text}
		}
		add(e)
		text = text[j:]
	}
	if text != "" || len(in.Operands) == 0 {
		add(&StrLit{Pos: t.Pos, Value: text})
	}
	if len(in.Operands) == 1 {
		// "#{x}" alone is x, which must be a Str.
		in.Operands = append(in.Operands, &StrLit{Pos: t.Pos, Value: ""})
		in.Ops = append(in.Ops, Name{Pos: t.Pos, Name: "<>"})
	}
	return in
}

// guard parses `? c1 = e1 ? c2 = e2 : d`; the default is required.
func (p *parser) guard() Expr {
	g := &Guard{Pos: p.peek().Pos}
	for !p.failed && p.peek().kind == tokQuestion {
		p.next()
		var b GuardBranch
		b.Cond, _ = p.infix(false)
		p.expect(tokEquals, "'=' and the value when the condition holds")
		b.Value, _ = p.infix(false)
		g.Branches = append(g.Branches, b)
	}
	p.expect(tokColon, "another '? condition = value', or ':' and the value when no condition holds")
	if p.failed {
		// Nothing was read: parsing the default would start this guard
		// again (`{?)`) and never end.
		return g
	}
	g.Default = p.expr()
	return g
}

// infix parses an operator chain. With section set, the chain may end
// with an operator before ')', a left section `(2 /)`: that operator is
// returned and not in the chain.
func (p *parser) infix(section bool) (Expr, *Name) {
	first := p.operand()
	if !p.isOp(p.peek()) {
		return first, nil
	}
	in := &Infix{Operands: []Expr{first}}
	for !p.failed && p.isOp(p.peek()) {
		t := p.next()
		op := Name{Pos: t.Pos, Name: t.Text}
		if section && p.peek().kind == tokRParen {
			if len(in.Ops) == 0 {
				return first, &op
			}
			return in, &op
		}
		in.Ops = append(in.Ops, op)
		in.Operands = append(in.Operands, p.operand())
	}
	return in, nil
}

// operand is an application, or `-` before one (negate).
func (p *parser) operand() Expr {
	if t := p.peek(); t.kind == tokMinus {
		p.next()
		return &Negate{Pos: t.Pos, Expr: p.app()}
	}
	return p.app()
}

// isOp reports whether t is an infix operator in an expression.
func (p *parser) isOp(t token) bool {
	switch t.kind {
	case tokOp, tokMinus, tokLess, tokGreater, tokStar, tokDot:
		return !(t.First && t.Pos.Col <= p.stopCol)
	}
	return false
}

// app parses an application: an atom followed by its arguments.
func (p *parser) app() Expr {
	head := p.atom()
	var args []Expr
	for !p.failed && p.startsAtom(p.peek()) {
		args = append(args, p.atom())
	}
	if len(args) == 0 {
		return head
	}
	return &App{Pos: head.ExprPos(), Fun: head, Args: args}
}

func (p *parser) startsAtom(t token) bool {
	if t.First && t.Pos.Col <= p.stopCol {
		return false
	}
	switch t.kind {
	case tokInt, tokReal, tokString, tokLParen, tokLBracket, tokLBrace, tokGetter, tokAt, tokBackslash, tokBang:
		return true
	case tokUnderscore: // a hole, reported by hole
		return true
	case tokGetterIndex, tokGetterOpen, tokGetterBracket:
		return true
	case tokIdent:
		return !keywords[t.Text]
	}
	return false
}

func (p *parser) atom() Expr {
	t := p.peek()
	switch t.kind {
	case tokIdent:
		if t.Text == "let" {
			return p.letExpr()
		}
		if t.Text == "do" {
			return p.doBlock()
		}
		if keywords[t.Text] {
			break
		}
		p.next()
		switch t.Text {
		case "true", "True":
			return &BoolLit{Pos: t.Pos, Value: true}
		case "false", "False":
			return &BoolLit{Pos: t.Pos, Value: false}
		case "Null":
			return &NullLit{Pos: t.Pos}
		case "Inf", "NaN":
			p.errorf(t.Pos, "%s is not supported: a Real is finite in nexus, whose JSON has no infinity or NaN", t.Text)
		}
		return &Var{Pos: t.Pos, Name: t.Text}
	case tokInt:
		p.next()
		v, err := parseInt(t.Text)
		if err != nil {
			p.errorf(t.Pos, "integer %s does not fit in 64 bits", t.Text)
		}
		return &IntLit{Pos: t.Pos, Value: v}
	case tokReal:
		p.next()
		v, err := strconv.ParseFloat(t.Text, 64)
		if err != nil {
			p.errorf(t.Pos, "number %s is out of range", t.Text)
		}
		return &RealLit{Pos: t.Pos, Value: v}
	case tokString:
		p.next()
		if strings.Contains(t.Text, "#{") {
			return p.interpolate(t)
		}
		return &StrLit{Pos: t.Pos, Value: t.Text}
	case tokGetter, tokGetterIndex, tokGetterOpen, tokGetterBracket:
		return p.access()
	case tokAt:
		p.next()
		if t.Text != "throw" {
			return p.intrinsic(t)
		}
		if !p.startsAtom(p.peek()) {
			p.errorf(p.peek().Pos, "expected a message after @throw, got %s", p.peek().describe())
		}
		return &Throw{Pos: t.Pos, Message: p.atom()}
	case tokLParen:
		return p.parenExpr()
	case tokBang:
		return p.force()
	case tokBackslash:
		return p.lambda()
	case tokLBracket:
		p.next()
		l := &ListLit{Pos: t.Pos}
		if p.peek().kind != tokRBracket {
			l.Elems = p.exprList()
		}
		p.expect(tokRBracket, "',' or ']' in the list")
		return l
	case tokLBrace:
		return p.recordLit()
	case tokUnderscore:
		p.hole(t)
		return &UnitLit{Pos: t.Pos}
	}
	p.errorf(t.Pos, "expected an expression, got %s", t.describe())
	return &UnitLit{Pos: t.Pos}
}

func (p *parser) exprList() []Expr {
	es := []Expr{p.expr()}
	for !p.failed && p.peek().kind == tokComma {
		p.next()
		es = append(es, p.expr())
	}
	return es
}

func (p *parser) parenExpr() Expr {
	open := p.next()
	if p.peek().kind == tokRParen {
		p.next()
		return &UnitLit{Pos: open.Pos}
	}
	if p.isSetterStart() {
		return p.setters(open, p.accessChain())
	}
	if t := p.peek(); p.isOp(t) && (t.kind != tokMinus || p.peekAt(1).kind == tokRParen) {
		// (+), or a right section (* 2); (- 1) is negate 1.
		p.next()
		sec := &Section{Pos: open.Pos, Op: Name{Pos: t.Pos, Name: t.Text}}
		if p.peek().kind != tokRParen {
			sec.Right = p.expr()
		}
		p.expect(tokRParen, "')' closing the operator section")
		return sec
	}
	var first Expr
	var op *Name
	if p.peek().kind == tokQuestion {
		first = p.guard()
	} else {
		first, op = p.infix(true)
	}
	if op == nil {
		first = p.ascription(first)
	}
	if op != nil {
		p.expect(tokRParen, "')' closing the operator section")
		return &Section{Pos: open.Pos, Op: *op, Left: first}
	}
	es := []Expr{first}
	for !p.failed && p.peek().kind == tokComma {
		p.next()
		es = append(es, p.expr())
	}
	p.expect(tokRParen, "',' or ')'")
	if len(es) == 1 {
		return es[0]
	}
	return &TupleLit{Pos: open.Pos, Items: es}
}

func (p *parser) recordLit() Expr {
	open := p.next()
	r := &RecordLit{Pos: open.Pos}
	for !p.failed && p.peek().kind != tokRBrace {
		var f FieldInit
		f.Name = p.name("a field name in the record")
		p.expect(tokEquals, "'=' after the field name")
		f.Value = p.expr()
		r.Fields = append(r.Fields, f)
		if p.peek().kind != tokComma {
			break
		}
		p.next()
	}
	p.expect(tokRBrace, "',' or '}' in the record")
	return r
}

// parseInt reads an integer literal: decimal, or hexadecimal, octal or
// binary after 0x, 0o or 0b (either case), with an optional '-'.
func parseInt(text string) (int64, error) {
	digits, neg := strings.CutPrefix(text, "-")
	base := 10
	if len(digits) > 2 && digits[0] == '0' {
		if b, _ := radix(rune(digits[1])); b != 0 {
			base, digits = b, digits[2:]
		}
	}
	if neg {
		digits = "-" + digits
	}
	return strconv.ParseInt(digits, base, 64)
}
