package types

import (
	"bytes"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/nexus-run/nexus/internal/jsonlex"
)

// parseFast reads data as a value of type t in one pass over the bytes,
// for the shapes that make up large arguments: numbers, plain strings,
// booleans, null, and lists and tuples of them (a list of numbers, strings
// or booleans straight into its typed slice, list.go). Anything else (records,
// maps, strings with escapes, numbers that need intFromNumber, and every
// malformed or mistyped input) makes it give up with ok false, and FromJSON
// reads the value the general way, which also gives the error. So whatever
// parseFast accepts, it reads exactly as the general way would.
//
// The general way decodes into interface values first (a json.Number per
// number) and converts them after: three times the work for a list of a
// hundred thousand reals.
func parseFast(t *Type, data []byte) (v any, ok bool) {
	p := fastParser{data: data}
	p.space()
	v, ok = p.value(t)
	if !ok {
		return nil, false
	}
	p.space()
	return v, p.pos == len(p.data)
}

type fastParser struct {
	data []byte
	pos  int
}

func (p *fastParser) space() { p.pos = jsonlex.Space(p.data, p.pos) }

func (p *fastParser) value(t *Type) (any, bool) {
	switch t.Kind {
	case Int:
		return p.int()
	case Real:
		return p.real()
	case Str:
		return p.str()
	case Bool:
		return p.boolean()
	case Unit:
		if p.literal("null") {
			return nil, true
		}
	case Optional:
		if p.literal("null") {
			return nil, true
		}
		return p.value(t.Elem)
	case List:
		return p.list(t.Elem)
	case Tuple:
		return p.tuple(t.Items)
	}
	return nil, false
}

// list reads a JSON array of elem: a typed slice (list.go) or a []any.
func (p *fastParser) list(elem *Type) (any, bool) {
	if !p.open() {
		return nil, false
	}
	// Items without strings or nesting: their commas count them, and a
	// list of a hundred thousand numbers is made once.
	switch elem.Kind {
	case Real:
		return fastItems(p, p.count(), (*fastParser).real)
	case Int:
		return fastItems(p, p.count(), (*fastParser).int)
	case Bool:
		return fastItems(p, p.count(), (*fastParser).boolean)
	case Str:
		return fastItems(p, 0, (*fastParser).str)
	}
	return fastItems(p, 0, func(p *fastParser) (any, bool) { return p.value(elem) })
}

// tuple reads a JSON array of exactly one item of each of items.
func (p *fastParser) tuple(items []*Type) (any, bool) {
	if !p.open() {
		return nil, false
	}
	i := 0
	xs, ok := fastItems(p, len(items), func(p *fastParser) (any, bool) {
		if i == len(items) {
			return nil, false
		}
		i++
		return p.value(items[i-1])
	})
	return xs, ok && len(xs) == len(items)
}

// open reads the '[' that starts a list.
func (p *fastParser) open() bool {
	if p.pos >= len(p.data) || p.data[p.pos] != '[' {
		return false
	}
	p.pos++
	return true
}

// fastItems reads the items of a list, after its '[', each with read, into
// a slice with room for n of them.
func fastItems[T any](p *fastParser, n int, read func(*fastParser) (T, bool)) ([]T, bool) {
	out := make([]T, 0, n)
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return out, true
	}
	for {
		p.space()
		x, ok := read(p)
		if !ok {
			return nil, false
		}
		out = append(out, x)
		more, ok := p.itemEnd()
		if !ok {
			return nil, false
		}
		if !more {
			return out, true
		}
	}
}

func (p *fastParser) int() (int64, bool) {
	tok, ok := p.number()
	if !ok || !plainInteger(tok) {
		return 0, false
	}
	i, err := strconv.ParseInt(view(tok), 10, 64)
	return i, err == nil
}

func (p *fastParser) real() (float64, bool) {
	f, end, ok := jsonlex.Float(p.data, p.pos)
	if !ok {
		return 0, false
	}
	p.pos = end
	return f, true
}

func (p *fastParser) boolean() (bool, bool) {
	if p.literal("true") {
		return true, true
	}
	return false, p.literal("false")
}

// itemEnd reads the comma or ']' after an item of a list.
func (p *fastParser) itemEnd() (more, ok bool) {
	p.pos, more, ok = jsonlex.ItemEnd(p.data, p.pos, ']')
	return more, ok
}

// count is the number of items of a list of numbers or booleans whose
// items start at the cursor: one more than its commas, or none. Such a
// list holds no bracket, so it ends at the first ']'. It is an estimate for
// capacity only: the items are checked as they are read.
func (p *fastParser) count() int {
	rest := p.data[p.pos:]
	end := bytes.IndexByte(rest, ']')
	if end < 0 || len(bytes.TrimSpace(rest[:end])) == 0 {
		return 0
	}
	return bytes.Count(rest[:end], []byte{','}) + 1
}

// view is tok as a string without a copy, for strconv, which keeps the
// string only in the error it returns, and that error is dropped. A
// hundred thousand numbers are then a hundred thousand fewer allocations.
func view(tok []byte) string {
	return unsafe.String(unsafe.SliceData(tok), len(tok))
}

// number returns the JSON number at the cursor, checked against JSON's
// grammar.
func (p *fastParser) number() ([]byte, bool) {
	end, ok := jsonlex.Number(p.data, p.pos)
	if !ok {
		return nil, false
	}
	tok := p.data[p.pos:end]
	p.pos = end
	return tok, true
}

// plainInteger reports whether a JSON number is written as digits only,
// which ParseInt reads as the general way does.
func plainInteger(tok []byte) bool {
	for i, c := range tok {
		if (c < '0' || c > '9') && !(i == 0 && c == '-') {
			return false
		}
	}
	return true
}

// str reads a string without escapes or control characters, in valid
// UTF-8: the text as it is.
func (p *fastParser) str() (string, bool) {
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return "", false
	}
	start := p.pos + 1
	for i := start; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '"':
			s := p.data[start:i]
			if !utf8.Valid(s) {
				return "", false
			}
			p.pos = i + 1
			return string(s), true
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}

func (p *fastParser) literal(word string) bool {
	if len(p.data)-p.pos >= len(word) && string(p.data[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return true
	}
	return false
}
