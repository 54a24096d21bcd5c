package types

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/nexus-run/nexus/internal/jsonlex"
)

// ParseJSONText reads data, exactly one JSON value with white space around
// it allowed, as a value of type Json: its compact text. Keys keep their
// order and strings their escapes; invalid UTF-8 inside a string becomes
// U+FFFD, as in a Str. Nesting beyond jsonlex.MaxDepth is refused, as
// everywhere nexus reads JSON.
func ParseJSONText(data []byte) (JSONText, error) {
	start := jsonlex.Space(data, 0)
	end, ok, deep := jsonlex.Value(data, start)
	if ok && jsonlex.Space(data, end) == len(data) {
		return compactText(data[start:end]), nil
	}
	if deep {
		return "", fmt.Errorf("not valid JSON: it nests arrays and objects deeper than %d levels, the limit", jsonlex.MaxDepth)
	}
	if _, err := DecodeJSON(data); err != nil {
		return "", err
	}
	return "", fmt.Errorf("not valid JSON")
}

// compactText is the Json value of the checked JSON text d.
func compactText(d []byte) JSONText {
	out := jsonlex.Compact(make([]byte, 0, len(d)), d)
	if !utf8.Valid(out) {
		out = validUTF8(out)
	}
	return JSONText(out)
}

// validUTF8 is d with each byte that is not part of valid UTF-8 replaced
// by U+FFFD, as encoding/json and appendString do. Outside its strings
// JSON text is ASCII, so only string contents change.
func validUTF8(d []byte) []byte {
	out := make([]byte, 0, len(d)+8)
	for i := 0; i < len(d); {
		r, size := utf8.DecodeRune(d[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, "\ufffd"...)
		} else {
			out = append(out, d[i:i+size]...)
		}
		i += size
	}
	return out
}

// jsonTextFromValue writes v, a value decoded by encoding/json (numbers as
// json.Number or float64), as a Json value. encoding/json has lost the
// order of an object's keys; they are written sorted, so the text is the
// same whatever order they arrived in.
func jsonTextFromValue(v any) (JSONText, error) {
	buf, err := appendDecoded(nil, v, 0)
	if err != nil {
		return "", err
	}
	return JSONText(buf), nil
}

func appendDecoded(buf []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...), nil
	case bool:
		return strconv.AppendBool(buf, x), nil
	case string:
		return appendString(buf, x), nil
	case json.Number:
		if end, ok := jsonlex.Number([]byte(x), 0); !ok || end != len(x) {
			return nil, &PathError{Msg: fmt.Sprintf("%q is not a JSON number", string(x))}
		}
		return append(buf, x...), nil
	case float64:
		if !finite(x) {
			return nil, &PathError{Msg: fmt.Sprintf("the number %v cannot be written in JSON", x)}
		}
		return appendReal(buf, x), nil
	case []any:
		if depth >= jsonlex.MaxDepth {
			return nil, tooDeep()
		}
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = appendDecoded(buf, e, depth+1); err != nil {
				return nil, within(fmt.Sprintf("[%d]", i), err)
			}
		}
		return append(buf, ']'), nil
	case map[string]any:
		if depth >= jsonlex.MaxDepth {
			return nil, tooDeep()
		}
		buf = append(buf, '{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(appendString(buf, k), ':')
			var err error
			if buf, err = appendDecoded(buf, x[k], depth+1); err != nil {
				return nil, within("["+string(appendString(nil, k))+"]", err)
			}
		}
		return append(buf, '}'), nil
	}
	return nil, &PathError{Msg: fmt.Sprintf("expected a JSON value, got %T", v)}
}

func tooDeep() error {
	return &PathError{Msg: fmt.Sprintf("nested deeper than %d levels, the limit", jsonlex.MaxDepth)}
}
