package syntax

import (
	"strconv"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

// Getters and setters (Morloc's patterns): a chain of steps written
// without spaces, each after a '.': a field (`.name`), a tuple index
// (`.0`), a group (`.(.1, .0)`), setters (`.(.x = 1, .y = 2)`) or a
// bracket index or slice (`.[i]`, `.[i:j:k]`). The lexer makes one token
// of each step's start; the parser joins the steps that touch into one
// Access. A lone `.name` stays a Getter.

// Access is a getter or setter chain other than a lone `.field`: a
// function of the value it is applied to.
type Access struct {
	Pos   diag.Pos
	Steps []Step
}

// StepKind says what a Step does.
type StepKind int

const (
	// StepField reads the record field Field.
	StepField StepKind = iota
	// StepItem reads the tuple item Index.
	StepItem
	// StepGroup applies each of Group to the value: a tuple of their
	// results, or the one result of a group of one.
	StepGroup
	// StepSet is a copy of the value with each of Sets applied.
	StepSet
	// StepIndex reads item Lo of a list or string (negative from the end).
	StepIndex
	// StepSlice is the part Lo:Hi:By of a list or string (any may be nil).
	StepSlice
)

// Step is one step of an Access.
type Step struct {
	Pos   diag.Pos
	Kind  StepKind
	Field string
	Index int
	Group []*Access
	Sets  []SetItem
	// Lo, Hi and By are a bracket's expressions, nil where not written.
	Lo, Hi, By Expr
}

// SetItem is one `.path = value` of a setter.
type SetItem struct {
	Path  *Access
	Value Expr
}

func (e *Access) ExprPos() diag.Pos { return e.Pos }

// trackBrackets keeps the stack of open brackets as kind is emitted.
func (l *lexer) trackBrackets(k kind) {
	l.closedGetter = false
	switch k {
	case tokLParen, tokLBracket, tokLBrace:
		l.brackets = append(l.brackets, false)
	case tokGetterOpen, tokGetterBracket:
		l.brackets = append(l.brackets, true)
	case tokRParen, tokRBracket, tokRBrace:
		if n := len(l.brackets); n > 0 {
			l.closedGetter = l.brackets[n-1]
			l.brackets = l.brackets[:n-1]
		}
	}
}

// startsGetterStep reports whether the '.' at the cursor starts a getter
// step other than a first `.name` (which the lexer's own case reads): a
// `.0`, `.(` or `.[` where no value ends right before it, or any step
// right after another getter step.
func (l *lexer) startsGetterStep() bool {
	next := l.peekRune(1)
	chained := l.afterGetter()
	if chained && isIdentStart(next) {
		return true
	}
	if !isDigit(next) && next != '(' && next != '[' {
		return false
	}
	return chained || !l.prevEndsValueAdjacent()
}

// afterGetter reports whether the previous token is a getter step, or
// the bracket closing one, touching the cursor.
func (l *lexer) afterGetter() bool {
	t, ok := l.touching()
	if !ok {
		return false
	}
	switch t.kind {
	case tokGetter, tokGetterIndex:
		return true
	case tokRParen, tokRBracket:
		return l.closedGetter
	}
	return false
}

// getterStep reads the start of one getter step after its '.'.
func (l *lexer) getterStep(pos diag.Pos, off int) {
	l.advance()
	start := l.off
	switch r := l.peekRune(0); {
	case r == '(':
		l.advance()
		l.emit(tokGetterOpen, ".(", pos, off)
	case r == '[':
		l.advance()
		l.emit(tokGetterBracket, ".[", pos, off)
	case isDigit(r):
		for l.off < len(l.src) && isDigit(l.peekRune(0)) {
			l.advance()
		}
		l.emit(tokGetterIndex, l.src[start:l.off], pos, off)
	default:
		for l.off < len(l.src) && isIdentRune(l.peekRune(0)) {
			l.advance()
		}
		l.emit(tokGetter, l.src[start:l.off], pos, off)
	}
}

func isGetterStart(k kind) bool {
	return k == tokGetter || k == tokGetterIndex || k == tokGetterOpen || k == tokGetterBracket
}

// access parses a getter chain. A lone `.name` is a Getter.
func (p *parser) access() Expr {
	first := p.peek()
	a := p.accessChain()
	if len(a.Steps) == 1 && a.Steps[0].Kind == StepField {
		return &Getter{Pos: first.Pos, Field: a.Steps[0].Field}
	}
	return a
}

// accessChain parses the steps that touch each other, from a getter token.
func (p *parser) accessChain() *Access {
	a := &Access{Pos: p.peek().Pos}
	end := -1
	for !p.failed {
		t := p.peek()
		if !isGetterStart(t.kind) || end >= 0 && t.Offset != end {
			break
		}
		if n := len(a.Steps); n > 0 && (a.Steps[n-1].Kind == StepGroup || a.Steps[n-1].Kind == StepSet) {
			p.errorf(t.Pos, "a getter chain ends with its group '.(...)'; nothing may follow it")
			break
		}
		p.next()
		st := Step{Pos: t.Pos}
		switch t.kind {
		case tokGetter:
			st.Kind, st.Field = StepField, t.Text
		case tokGetterIndex:
			n, err := strconv.Atoi(t.Text)
			if err != nil {
				p.errorf(t.Pos, "tuple index %s is too large", t.Text)
			}
			st.Kind, st.Index = StepItem, n
		case tokGetterOpen:
			p.group(&st)
		case tokGetterBracket:
			p.bracket(&st)
		}
		a.Steps = append(a.Steps, st)
		end = p.toks[p.i-1].End
	}
	return a
}

// group parses the inside of `.(...)` and its ')': getters, or setters
// `.path = value` (not both).
func (p *parser) group(st *Step) {
	st.Kind = StepGroup
	for !p.failed {
		t := p.peek()
		if !isGetterStart(t.kind) {
			p.errorf(t.Pos, "expected a getter such as .0 or .name inside '.(', got %s", t.describe())
			return
		}
		path := p.accessChain()
		if p.peek().kind == tokEquals {
			if len(st.Group) > 0 {
				p.errorf(p.peek().Pos, "a group holds getters or setters, not both")
				return
			}
			p.next()
			st.Kind = StepSet
			st.Sets = append(st.Sets, SetItem{Path: path, Value: p.expr()})
		} else {
			if st.Kind == StepSet {
				p.errorf(p.peek().Pos, "expected '=' and a value in the setter, got %s", p.peek().describe())
				return
			}
			st.Group = append(st.Group, path)
		}
		if p.peek().kind != tokComma {
			break
		}
		p.next()
	}
	p.expect(tokRParen, "',' or ')' closing the getter group")
}

// setters parses `.path = value, ...)` after a '(' that opened it: the
// setter written `(.x = 1) r`.
func (p *parser) setters(open token, first *Access) Expr {
	st := Step{Pos: open.Pos, Kind: StepSet}
	path := first
	for !p.failed {
		p.expect(tokEquals, "'=' and the field's new value")
		st.Sets = append(st.Sets, SetItem{Path: path, Value: p.expr()})
		if p.peek().kind != tokComma {
			break
		}
		p.next()
		if !isGetterStart(p.peek().kind) {
			p.errorf(p.peek().Pos, "expected another setter such as .name = value, got %s", p.peek().describe())
			return &UnitLit{Pos: open.Pos}
		}
		path = p.accessChain()
	}
	p.expect(tokRParen, "',' or ')' closing the setter")
	return &Access{Pos: open.Pos, Steps: []Step{st}}
}

// bracket parses the inside of `.[...]` and its ']': an index, or a
// slice with up to three bounds.
func (p *parser) bracket(st *Step) {
	st.Kind = StepIndex
	saved := p.stopCol
	p.stopCol = 0
	defer func() { p.stopCol = saved }()
	bound := func() Expr {
		switch p.peek().kind {
		case tokColon, tokDoubleColon, tokRBracket:
			return nil
		}
		return p.expr()
	}
	st.Lo = bound()
	switch p.peek().kind {
	case tokColon:
		p.next()
		st.Kind = StepSlice
		st.Hi = bound()
		if p.peek().kind == tokColon {
			p.next()
			st.By = bound()
		}
	case tokDoubleColon:
		p.next()
		st.Kind = StepSlice
		st.By = bound()
	}
	if st.Kind == StepIndex && st.Lo == nil {
		p.errorf(p.peek().Pos, "expected an index or a slice i:j inside '.[', got %s", p.peek().describe())
		return
	}
	p.expect(tokRBracket, "':' or ']' closing the index")
}

// isSetterStart reports whether a '(' is followed by a setter `.x = ...`.
func (p *parser) isSetterStart() bool {
	if !isGetterStart(p.peek().kind) {
		return false
	}
	// The chain's end is found by the parser; look for '=' after the
	// run of getter tokens that touch.
	j, end := 0, -1
	for {
		t := p.peekAt(j)
		if !isGetterStart(t.kind) || end >= 0 && t.Offset != end {
			return t.kind == tokEquals
		}
		if t.kind == tokGetterOpen || t.kind == tokGetterBracket {
			return false
		}
		end = t.End
		j++
	}
}
