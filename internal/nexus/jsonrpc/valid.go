package jsonrpc

import "github.com/nexus-run/nexus/internal/jsonlex"

// verdict is what check finds of a message.
type verdict uint8

const (
	isJSON  verdict = iota
	notJSON         // not exactly one JSON value
	tooDeep         // JSON, or its start is, but nested beyond maxDepth
)

// check reports whether data is exactly one JSON value, with space around
// it allowed: json.Valid, in a tight loop of its own. Every message is
// checked whole before it is split, and for a call carrying a large array
// encoding/json's scanner, a function call per byte, cost as much as
// reading the numbers. Nesting beyond maxDepth is told apart from what is
// not JSON, so that the reply can say which.
func check(data []byte) verdict {
	v := validator{data: data}
	v.space()
	ok := v.value(0)
	if ok {
		v.space()
		ok = v.pos == len(v.data)
	}
	switch {
	case ok:
		return isJSON
	case v.deep:
		return tooDeep
	}
	return notJSON
}

// maxDepth bounds the nesting of arrays and objects (see jsonlex.MaxDepth),
// so that a hostile line of ten million brackets can exhaust neither the
// stack nor the time: the check stops at the first bracket past it.
const maxDepth = jsonlex.MaxDepth

type validator struct {
	data []byte
	pos  int
	deep bool // the check stopped at nesting beyond maxDepth
}

func (v *validator) space() { v.pos = jsonlex.Space(v.data, v.pos) }

// value checks the value at the cursor, inside depth arrays and objects.
func (v *validator) value(depth int) bool {
	if v.pos >= len(v.data) {
		return false
	}
	switch c := v.data[v.pos]; {
	case (c == '{' || c == '[') && depth >= maxDepth:
		v.deep = true
		return false
	case c == '{':
		return v.object(depth + 1)
	case c == '[':
		return v.array(depth + 1)
	case c == '"':
		return v.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return v.number()
	case c == 't':
		return v.word("true")
	case c == 'f':
		return v.word("false")
	case c == 'n':
		return v.word("null")
	}
	return false
}

func (v *validator) object(depth int) bool {
	v.pos++ // {
	v.space()
	if v.pos < len(v.data) && v.data[v.pos] == '}' {
		v.pos++
		return true
	}
	for {
		v.space()
		if v.pos >= len(v.data) || v.data[v.pos] != '"' || !v.str() {
			return false
		}
		v.space()
		if v.pos >= len(v.data) || v.data[v.pos] != ':' {
			return false
		}
		v.pos++
		v.space()
		if !v.value(depth) {
			return false
		}
		if more, ok := v.itemEnd('}'); !more {
			return ok
		}
	}
}

func (v *validator) array(depth int) bool {
	v.pos++ // [
	v.space()
	if v.pos < len(v.data) && v.data[v.pos] == ']' {
		v.pos++
		return true
	}
	for {
		v.space()
		if !v.value(depth) {
			return false
		}
		if more, ok := v.itemEnd(']'); !more {
			return ok
		}
	}
}

// itemEnd reads what follows an item of an object or array closed by
// close: a comma (more items follow) or close (the end).
func (v *validator) itemEnd(close byte) (more, ok bool) {
	v.pos, more, ok = jsonlex.ItemEnd(v.data, v.pos, close)
	return more, ok
}

// str checks a string: no control characters, and only JSON's escapes.
func (v *validator) str() bool {
	d := v.data
	i := v.pos + 1
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			v.pos = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if i+1 >= len(d) {
				return false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !hex4(d[i+2:i+6]) {
					return false
				}
				i += 6
			default:
				return false
			}
		default:
			i++
		}
	}
	return false
}

func hex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func (v *validator) number() bool {
	end, ok := jsonlex.Number(v.data, v.pos)
	v.pos = end
	return ok
}

func (v *validator) word(w string) bool {
	if len(v.data)-v.pos < len(w) || string(v.data[v.pos:v.pos+len(w)]) != w {
		return false
	}
	v.pos += len(w)
	return true
}
