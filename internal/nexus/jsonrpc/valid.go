package jsonrpc

import "github.com/nexus-run/nexus/internal/jsonlex"

// valid reports whether data is exactly one JSON value, with space around
// it allowed: json.Valid, in a tight loop of its own. Every message is
// checked whole before it is split, and for a call carrying a large array
// encoding/json's scanner, a function call per byte, cost as much as
// reading the numbers.
func valid(data []byte) bool {
	v := validator{data: data}
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.pos == len(v.data)
}

// maxDepth bounds nesting, as encoding/json does, so that a hostile line
// of ten million brackets cannot exhaust the stack.
const maxDepth = 10000

type validator struct {
	data []byte
	pos  int
}

func (v *validator) space() { v.pos = jsonlex.Space(v.data, v.pos) }

func (v *validator) value(depth int) bool {
	if v.pos >= len(v.data) || depth > maxDepth {
		return false
	}
	switch c := v.data[v.pos]; {
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
