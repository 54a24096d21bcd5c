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
// booleans, null, Json values (their text, compacted), and lists, tuples
// and records of them, a list of numbers, strings or booleans straight
// into its typed slice (list.go). Anything else (maps, strings with
// escapes, numbers that need intFromNumber, a Json inside a record, a
// record with a key twice or a field missing that has no default, and
// every malformed or mistyped input) makes it give up with ok false,
// and FromJSON reads the value the general way, which also gives the
// error. So whatever parseFast accepts, it reads exactly as the general way
// would, except that a Json value keeps its text as it came (compacted),
// where the general way, which decoded it, writes it again with its keys
// sorted: the same JSON value.
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

// fastParser is the cursor of parseFast. Lists of leaves and their items
// are read by functions of the bytes and a position (fastItems, fastInt,
// jsonlex.Float, ...) rather than by methods: fastItems takes the item's
// reader as a function value, and a parser that reached one would escape
// to the heap, an allocation for every value read.
type fastParser struct {
	data []byte
	pos  int
	// inRecord counts the records being read: a Json inside one is left
	// to the general way, which has always written its keys sorted there.
	inRecord int
}

func (p *fastParser) space() { p.pos = jsonlex.Space(p.data, p.pos) }

func (p *fastParser) value(t *Type) (v any, ok bool) {
	end := p.pos
	switch t.Kind {
	case Int:
		v, end, ok = fastInt(p.data, p.pos)
	case Real:
		v, end, ok = jsonlex.Float(p.data, p.pos)
	case Str:
		v, end, ok = fastStr(p.data, p.pos)
	case Bool:
		v, end, ok = fastBool(p.data, p.pos)
	case Unit:
		return nil, p.literal("null")
	case JSON:
		if p.inRecord > 0 {
			return nil, false
		}
		var deep bool
		if end, ok, deep = jsonlex.Value(p.data, p.pos); !ok || deep {
			return nil, false
		}
		v = compactText(p.data[p.pos:end])
	case Optional:
		if p.literal("null") {
			return nil, true
		}
		return p.value(t.Elem)
	case List:
		return p.list(t.Elem)
	case Tuple:
		return p.tuple(t.Items)
	case Record:
		return p.record(t)
	}
	p.pos = end
	return v, ok
}

// list reads a JSON array of elem: a typed slice (list.go) or a []any.
func (p *fastParser) list(elem *Type) (v any, ok bool) {
	if !p.open() {
		return nil, false
	}
	end := p.pos
	// Items without strings or nesting: their commas count them, and a
	// list of a hundred thousand numbers is made once.
	switch elem.Kind {
	case Real:
		v, end, ok = fastItems(p.data, p.pos, p.count(), jsonlex.Float)
	case Int:
		v, end, ok = fastItems(p.data, p.pos, p.count(), fastInt)
	case Bool:
		v, end, ok = fastItems(p.data, p.pos, p.count(), fastBool)
	case Str:
		v, end, ok = fastItems(p.data, p.pos, 0, fastStr)
	default:
		return p.anyItems(elem, nil)
	}
	p.pos = end
	return v, ok
}

// tuple reads a JSON array of exactly one item of each of items.
func (p *fastParser) tuple(items []*Type) (any, bool) {
	if !p.open() {
		return nil, false
	}
	return p.anyItems(nil, items)
}

// record reads a JSON object as a value of the record t, as recordFromJSON
// does: a field left out takes its default, or nil when it is optional. A
// record given whole is where large lists travel inside records, and the
// general way would make an interface value of each of their items first.
func (p *fastParser) record(t *Type) (any, bool) {
	if p.pos >= len(p.data) || p.data[p.pos] != '{' {
		return nil, false
	}
	p.pos++
	p.inRecord++
	defer func() { p.inRecord-- }()
	out := make(map[string]any, len(t.Fields))
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return out, fillRecord(t, out)
	}
	for {
		p.space()
		key, end, ok := fastStr(p.data, p.pos)
		if !ok {
			return nil, false
		}
		f := t.Field(key)
		if _, twice := out[key]; f == nil || twice {
			return nil, false
		}
		p.pos = jsonlex.Space(p.data, end)
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, false
		}
		p.pos++
		p.space()
		v, ok := p.value(f.Type)
		if !ok {
			return nil, false
		}
		out[key] = v
		var more bool
		if p.pos, more, ok = jsonlex.ItemEnd(p.data, p.pos, '}'); !ok {
			return nil, false
		}
		if !more {
			return out, fillRecord(t, out)
		}
	}
}

// fillRecord gives the fields of t that out lacks their values, as
// recordFromJSON does; ok is false when one has none (an error the
// general way reports).
func fillRecord(t *Type, out map[string]any) bool {
	for _, f := range t.Fields {
		if _, ok := out[f.Name]; ok {
			continue
		}
		switch {
		case len(f.Default) > 0:
			v, err := FromJSON(f.Type, f.Default)
			if err != nil {
				return false
			}
			out[f.Name] = v
		case f.Type.Kind == Optional:
			out[f.Name] = nil
		default:
			return false
		}
	}
	return true
}

// anyItems reads the items of a list, after its '[', into a []any: items
// of elem, or when elem is nil exactly one item of each of items.
func (p *fastParser) anyItems(elem *Type, items []*Type) ([]any, bool) {
	out := make([]any, 0, len(items))
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return out, len(items) == 0
	}
	for {
		t := elem
		if t == nil {
			if len(out) == len(items) {
				return nil, false
			}
			t = items[len(out)]
		}
		p.space()
		v, ok := p.value(t)
		if !ok {
			return nil, false
		}
		out = append(out, v)
		var more bool
		if p.pos, more, ok = jsonlex.ItemEnd(p.data, p.pos, ']'); !ok {
			return nil, false
		}
		if !more {
			return out, len(out) == len(items) || elem != nil
		}
	}
}

// open reads the '[' that starts a list.
func (p *fastParser) open() bool {
	if p.pos >= len(p.data) || p.data[p.pos] != '[' {
		return false
	}
	p.pos++
	return true
}

// fastItems reads the items of the list whose '[' ends just before d[i],
// each with read, into a slice with room for n of them, and returns the
// position after the list's ']'. read returns the item that starts at
// d[i] and the position after it.
func fastItems[T any](d []byte, i, n int, read func(d []byte, i int) (T, int, bool)) ([]T, int, bool) {
	out := make([]T, 0, n)
	i = jsonlex.Space(d, i)
	if i < len(d) && d[i] == ']' {
		return out, i + 1, true
	}
	for {
		x, end, ok := read(d, jsonlex.Space(d, i))
		if !ok {
			return nil, i, false
		}
		out = append(out, x)
		var more bool
		if i, more, ok = jsonlex.ItemEnd(d, end, ']'); !ok {
			return nil, i, false
		}
		if !more {
			return out, i, true
		}
	}
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

func (p *fastParser) literal(word string) bool {
	if !hasWord(p.data, p.pos, word) {
		return false
	}
	p.pos += len(word)
	return true
}

// fastInt reads the JSON number at d[i] as an Int when it is written as
// digits only, which ParseInt reads as the general way does.
func fastInt(d []byte, i int) (int64, int, bool) {
	end, ok := jsonlex.Number(d, i)
	if !ok {
		return 0, i, false
	}
	tok := d[i:end]
	for j, c := range tok {
		if (c < '0' || c > '9') && !(j == 0 && c == '-') {
			return 0, i, false
		}
	}
	n, err := strconv.ParseInt(view(tok), 10, 64)
	return n, end, err == nil
}

// view is tok as a string without a copy, for strconv, which keeps the
// string only in the error it returns, and that error is dropped. A
// hundred thousand numbers are then a hundred thousand fewer allocations.
func view(tok []byte) string {
	return unsafe.String(unsafe.SliceData(tok), len(tok))
}

// fastStr reads the JSON string at d[i] when it has no escapes or control
// characters and is valid UTF-8: the text as it is.
func fastStr(d []byte, i int) (string, int, bool) {
	if i >= len(d) || d[i] != '"' {
		return "", i, false
	}
	for j := i + 1; j < len(d); j++ {
		switch c := d[j]; {
		case c == '"':
			s := d[i+1 : j]
			if !utf8.Valid(s) {
				return "", i, false
			}
			return string(s), j + 1, true
		case c == '\\' || c < 0x20:
			return "", i, false
		}
	}
	return "", i, false
}

func fastBool(d []byte, i int) (bool, int, bool) {
	switch {
	case hasWord(d, i, "true"):
		return true, i + len("true"), true
	case hasWord(d, i, "false"):
		return false, i + len("false"), true
	}
	return false, i, false
}

// hasWord reports whether d holds word at i.
func hasWord(d []byte, i int, word string) bool {
	return len(d)-i >= len(word) && string(d[i:i+len(word)]) == word
}
