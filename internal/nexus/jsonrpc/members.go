package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/nexus-run/nexus/internal/jsonlex"
)

// Member is one member of a JSON object: its key, decoded, and its value
// as it came.
type Member struct {
	Key   string
	Value json.RawMessage
}

// errNotObject is returned by Members for JSON that is not an object.
var errNotObject = errors.New("not a JSON object")

// Members splits obj, a JSON object, into its members in order, without
// checking their values: it is meant for a message that is checked as JSON
// once, whole (see Decode), whose large call arguments are then scanned
// once more, to split them, rather than once per level of encoding/json
// decoding. That check may still be running (see ReadParams): on what is
// not JSON, Members fails or returns members that mean nothing, but never
// panics nor hangs (FuzzMembers, FuzzDecodeUnchecked).
func Members(obj []byte) ([]Member, error) {
	var out []Member
	err := eachMember(obj, func(rawKey, value []byte) (bool, error) {
		key, err := unquote(rawKey)
		if err != nil {
			return false, err
		}
		out = append(out, Member{Key: key, Value: value})
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Lookup returns the value of obj's member named key (its last, should
// there be several, as encoding/json reads it), or nil when obj has none
// or is not an object. It is
// Members for one key, without allocating: the envelope of every request
// of the stateless revision is read this way.
func Lookup(obj []byte, key string) json.RawMessage {
	var found []byte
	_ = eachMember(obj, func(rawKey, value []byte) (bool, error) {
		if keyIs(rawKey, key) {
			found = value
		}
		return true, nil
	})
	return found
}

// keyIs reports whether rawKey, a JSON string, decodes to key.
func keyIs(rawKey []byte, key string) bool {
	if len(rawKey) < 2 {
		return false
	}
	inner := rawKey[1 : len(rawKey)-1]
	for _, c := range inner {
		if c == '\\' || c >= utf8.RuneSelf {
			k, err := unquote(rawKey)
			return err == nil && k == key
		}
	}
	return string(inner) == key
}

// eachMember calls f with the raw key and the value of each member of obj,
// a JSON object, in order, until f returns false or an error.
func eachMember(obj []byte, f func(rawKey, value []byte) (bool, error)) error {
	s := scanner{data: obj}
	s.space()
	if !s.is('{') {
		return errNotObject
	}
	s.pos++
	for n := 0; ; n++ {
		s.space()
		if s.is('}') {
			return nil
		}
		if n > 0 {
			if !s.is(',') {
				return errNotObject
			}
			s.pos++
			s.space()
		}
		if !s.is('"') {
			return errNotObject
		}
		rawKey := s.value()
		s.space()
		if !s.is(':') {
			return errNotObject
		}
		s.pos++
		s.space()
		if more, err := f(rawKey, s.value()); !more || err != nil {
			return err
		}
	}
}

// unquote decodes a JSON string.
func unquote(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", errors.New("not a JSON string")
	}
	inner := raw[1 : len(raw)-1]
	for _, c := range inner {
		// Escapes and non-ASCII (which encoding/json reads with invalid
		// UTF-8 replaced) go the general way.
		if c == '\\' || c >= utf8.RuneSelf {
			var s string
			err := json.Unmarshal(raw, &s)
			return s, err
		}
	}
	return string(inner), nil
}

// scanner walks JSON, and stops at the end of what is not.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) is(c byte) bool { return s.pos < len(s.data) && s.data[s.pos] == c }

func (s *scanner) space() { s.pos = jsonlex.Space(s.data, s.pos) }

// value skips the value at the cursor and returns it.
func (s *scanner) value() []byte {
	start := s.pos
	d := s.data
	i := s.pos
	flat := 0
	if i < len(d) && d[i] == '[' {
		if n, ok := flatArray(d[i:]); ok {
			flat = n
		}
	}
	switch {
	case i >= len(d):
	case d[i] == '"':
		i = skipString(d, i+1)
	case flat > 0:
		// A large call's array of numbers: found with the runtime's
		// vectorized byte search rather than a byte at a time.
		i += flat
	case d[i] == '{' || d[i] == '[':
		// Most bytes are digits and commas, passed over with one table
		// lookup each.
		depth := 0
		budget := len(d) - i
		for i < len(d) {
			c := d[i]
			if !structural[c] {
				i++
				continue
			}
			switch c {
			case '"':
				i = skipString(d, i+1)
				continue
			case '[':
				// A large call's arguments hold their array of
				// numbers inside an object: skipped as above while
				// the searches that find no flat array have cost no
				// more than a pass over the rest, so that nested
				// arrays whose first ']' is far cannot make the walk
				// quadratic.
				if budget > 0 {
					n, ok := flatArray(d[i:])
					if ok {
						i += n
						continue
					}
					budget -= n
				}
				depth++
			case '{':
				depth++
			case '}', ']':
				depth--
			}
			i++
			if depth == 0 {
				break
			}
		}
	default:
		for i < len(d) && !delimiter[d[i]] {
			i++
		}
	}
	s.pos = i
	return d[start:i]
}

// flatArray reports whether the array that opens d is flat, holding no
// string, object or array (so that its first ']' closes it), and how many
// bytes the search read: the array's length, or up to the first ']' when
// it is not flat.
func flatArray(d []byte) (n int, flat bool) {
	end := bytes.IndexByte(d, ']')
	if end < 0 {
		return len(d), false
	}
	inner := d[1:end]
	if bytes.IndexByte(inner, '[') >= 0 || bytes.IndexByte(inner, '"') >= 0 || bytes.IndexByte(inner, '{') >= 0 {
		return end + 1, false
	}
	return end + 1, true
}

// skipString returns the index just past the string whose contents start
// at i, or len(d) when it does not end (which JSON's check refuses, but
// Members may run before it: see ReadParams).
func skipString(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case '"':
			return i + 1
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return len(d)
}

// structural marks the bytes that open or close a string, object or array;
// delimiter those that end a number or literal.
var structural, delimiter [256]bool

func init() {
	for _, c := range []byte(`"{}[]`) {
		structural[c] = true
	}
	for _, c := range []byte(",}] \t\n\r") {
		delimiter[c] = true
	}
}
