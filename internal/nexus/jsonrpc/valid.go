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
// it allowed: json.Valid, in a tight loop of its own (jsonlex.Value).
// Every message is checked whole before it is split, and for a call
// carrying a large array encoding/json's scanner, a function call per
// byte, cost as much as reading the numbers. Nesting beyond maxDepth is
// told apart from what is not JSON, so that the reply can say which.
func check(data []byte) verdict {
	end, ok, deep := jsonlex.Value(data, jsonlex.Space(data, 0))
	switch {
	case ok && jsonlex.Space(data, end) == len(data):
		return isJSON
	case deep:
		return tooDeep
	}
	return notJSON
}

// maxDepth bounds the nesting of arrays and objects: jsonlex.MaxDepth.
const maxDepth = jsonlex.MaxDepth
