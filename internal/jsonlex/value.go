package jsonlex

// Value returns the end of the one JSON value that starts at d[i], and
// whether one does: json.Valid for a value inside a larger text, in a tight
// loop of its own (encoding/json's scanner makes a function call per
// byte). deep reports that it stopped at an array or object nested beyond
// MaxDepth, so that a hostile line of ten million brackets exhausts neither
// the stack nor the time, and the caller can say the value is too deep
// rather than not JSON.
func Value(d []byte, i int) (end int, ok, deep bool) {
	v := validator{data: d, pos: i}
	ok = v.value(0)
	return v.pos, ok, v.deep
}

type validator struct {
	data []byte
	pos  int
	deep bool // stopped at nesting beyond MaxDepth
}

func (v *validator) space() { v.pos = Space(v.data, v.pos) }

// value checks the value at the cursor, inside depth arrays and objects.
func (v *validator) value(depth int) bool {
	if v.pos >= len(v.data) {
		return false
	}
	switch c := v.data[v.pos]; {
	case (c == '{' || c == '[') && depth >= MaxDepth:
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
	v.pos, more, ok = ItemEnd(v.data, v.pos, close)
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
	end, ok := Number(v.data, v.pos)
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

// Compact appends to dst the valid JSON text d (as Value accepts it)
// without the white space between its tokens, and returns the result:
// json.Compact for text already checked.
func Compact(dst, d []byte) []byte {
	inString := false
	for i := 0; i < len(d); i++ {
		c := d[i]
		switch {
		case inString && c == '\\':
			dst = append(dst, c, d[i+1])
			i++
			continue
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			continue
		}
		dst = append(dst, c)
	}
	return dst
}
