package mcpsrc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// resultValue reads r, the result of tool f.Source of server, as a
// canonical value of f.Return. The rules, by the declared type:
//
//   - isError: the call fails with a *pool.FunctionError whose message is
//     the server's text, as an exception in a pool does;
//   - (): any result that is not an error;
//   - Str: the text content blocks joined with "\n"; with no text block,
//     the other blocks as their JSON objects, one a line;
//   - Json: see jsonResult;
//   - anything else: the JSON that jsonFor picks, checked against the type.
//
// A result that does not fit fails with an error naming the function, the
// tool, the server, the type and where in the value it went wrong.
func resultValue(f *manifest.Function, server string, r Result) (any, error) {
	t := f.Return
	if r.IsError {
		msg := strings.Join(r.Text, "\n")
		if msg == "" {
			msg = fmt.Sprintf("tool %q of mcp server %s reported an error without a message", f.Source, server)
		}
		return nil, &pool.FunctionError{Pool: "mcp server " + server, Function: f.Name, Message: msg}
	}
	misfit := func(err error) error {
		return fmt.Errorf("%s: the result of tool %q of mcp server %s is not %s: %w", f.Name, f.Source, server, t, err)
	}
	switch t.Kind {
	case types.Unit:
		return nil, nil
	case types.Str:
		if len(r.Text) == 0 {
			// No text to read: the other blocks (a resource, an image) as
			// their JSON objects, rather than a failure, so that a Str
			// (what mcp-import declares for a tool without an output
			// schema) holds whatever the tool answers.
			other := make([]string, len(r.Other))
			for i, b := range r.Other {
				other[i] = string(b)
			}
			return strings.Join(other, "\n"), nil
		}
		return strings.Join(r.Text, "\n"), nil
	}
	var (
		data []byte
		err  error
	)
	if t.Kind == types.JSON {
		data, err = jsonResult(r)
	} else {
		data, err = jsonFor(t, r)
	}
	if err != nil {
		return nil, misfit(err)
	}
	v, err := types.FromJSON(t, data)
	if err != nil {
		return nil, misfit(err)
	}
	return v, nil
}

// jsonFor picks the JSON of r that a value of t is read from: the
// structuredContent when there is some, else the text parsed as JSON.
//
// Servers whose output is not an object wrap it as {"result": output} in
// structuredContent, since structuredContent must be an object: nexus
// itself, FastMCP and the Python SDK do. So when t is not a record, a map
// nor Json (types an object may be meant for as it is) and the
// structuredContent is an object with the single key "result", the value
// of that key is read.
//
// Without structuredContent, the text blocks joined with "\n" are the
// JSON, except for a list type with several text blocks, each of which is
// then one item (as older Python SDK servers send a list). No content at
// all reads as null for an optional type.
func jsonFor(t *types.Type, r Result) ([]byte, error) {
	if r.Structured != nil {
		if t.Kind != types.Record && t.Kind != types.Map {
			if inner, ok := unwrapResult(r.Structured); ok {
				return inner, nil
			}
		}
		return r.Structured, nil
	}
	switch {
	case len(r.Text) == 0 && t.Kind == types.Optional:
		return []byte("null"), nil
	case len(r.Text) == 0:
		return nil, fmt.Errorf("it has neither structuredContent nor text content (%d other content blocks)", len(r.Other))
	case len(r.Text) > 1 && t.Kind == types.List:
		for i, text := range r.Text {
			if !json.Valid([]byte(text)) {
				return nil, fmt.Errorf("text block %d is not JSON: %s", i+1, quoteShort(text))
			}
		}
		return []byte("[" + strings.Join(r.Text, ",") + "]"), nil
	}
	text := strings.Join(r.Text, "\n")
	if !json.Valid([]byte(text)) {
		return nil, fmt.Errorf("it has no structuredContent and its text is not JSON: %s", quoteShort(text))
	}
	return []byte(text), nil
}

// unwrapResult returns the value of structured when it is an object with
// the single key "result".
func unwrapResult(structured []byte) ([]byte, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(structured, &obj) != nil || len(obj) != 1 {
		return nil, false
	}
	inner, ok := obj["result"]
	return inner, ok
}

// jsonResult is the JSON of r as a Json value: the structuredContent when
// there is some; else, with one content block, that block as blockJSON
// reads it; with several, the list of them read so; with none, null.
func jsonResult(r Result) ([]byte, error) {
	if r.Structured != nil {
		return r.Structured, nil
	}
	switch len(r.Content) {
	case 0:
		return []byte("null"), nil
	case 1:
		return blockJSON(r.Content[0])
	}
	out := []byte{'['}
	for i, b := range r.Content {
		v, err := blockJSON(b)
		if err != nil {
			return nil, fmt.Errorf("content block %d: %w", i+1, err)
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, v...)
	}
	return append(out, ']'), nil
}

// blockJSON reads one content block as a Json value: a text block is its
// text parsed as JSON, or the text as a JSON string when it is not JSON;
// an image or audio block is the object {"type", "mimeType", "data"}
// (without annotations or _meta); any other block (a resource link, an
// embedded resource) is its JSON object as the protocol has it.
func blockJSON(block Block) ([]byte, error) {
	if block.JSON == nil {
		if json.Valid([]byte(block.Text)) {
			return []byte(block.Text), nil
		}
		return marshal(block.Text)
	}
	var c struct {
		Type     string `json:"type"`
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	}
	if err := json.Unmarshal(block.JSON, &c); err != nil {
		return nil, fmt.Errorf("read a content block: %w", err)
	}
	if c.Type == "image" || c.Type == "audio" {
		return marshal(c)
	}
	return block.JSON, nil
}

// marshal is json.Marshal without HTML escaping, which would only make
// the text differ from what the server sent.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// quoteShort quotes s for an error message, cut to its first 80 bytes.
func quoteShort(s string) string {
	const max = 80
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}
