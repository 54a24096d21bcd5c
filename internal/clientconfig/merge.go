// Package clientconfig writes the entries that make MCP clients (Claude
// Desktop, Claude Code, Cursor) start nexus programs as MCP servers: the
// `mcpServers` object `--mcp-config` and `nexus mcp-config` print, and the
// merge of those entries into a client's own configuration file that
// `nexus install-client` does.
//
// A client's file holds much besides the entries (Claude Code keeps its
// whole state in it), so a merge changes only the entries it adds: every
// other key and entry keeps its value and its place, and a file that is
// not valid JSON is refused rather than repaired.
package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ServersKey is the key of the object, in every client's file, that maps a
// server's name to how to start it.
const ServersKey = "mcpServers"

// Server is one program as an MCP server over stdio: the command a client
// runs to start it.
type Server struct {
	Name    string
	Command string
	Args    []string
	// Env are variables the client sets for the server; none when empty.
	Env map[string]string
}

// entry is a Server as a client's file holds it. Typed adds "type":
// "stdio", which Claude Code writes for its own stdio servers.
func (s Server) entry(typed bool) (json.RawMessage, error) {
	v := struct {
		Type    string            `json:"type,omitempty"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env,omitempty"`
	}{Command: s.Command, Args: s.Args, Env: s.Env}
	if typed {
		v.Type = "stdio"
	}
	return marshal(v)
}

// Merge returns the configuration file data with servers added to its
// mcpServers object, which is created if missing. An entry of the same
// name is replaced in place; the names of those replaced are returned.
// Every other key and entry keeps its value and its place. Empty data (no
// file yet, or a file of blanks) is an empty object. typed is as for
// Client.Typed. The result is laid out as data was (see layout), two
// spaces an indent for empty data, and ends in a newline.
func Merge(data []byte, servers []Server, typed bool) (merged []byte, replaced []string, err error) {
	form, data := layoutOf(data)
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if err := checkJSON(data); err != nil {
		return nil, nil, err
	}
	top, err := parseObject(data)
	if err != nil {
		return nil, nil, fmt.Errorf("the file is %w: %s", err, fixAdvice)
	}
	var list object
	at := top.last(ServersKey)
	if at >= 0 && string(top[at].value) != "null" {
		if list, err = parseObject(top[at].value); err != nil {
			return nil, nil, fmt.Errorf("its %q is %w: %s", ServersKey, err, fixAdvice)
		}
	}
	for _, s := range servers {
		e, err := s.entry(typed)
		if err != nil {
			return nil, nil, err
		}
		if i := list.last(s.Name); i >= 0 {
			list[i].value = e
			replaced = append(replaced, s.Name)
		} else {
			list = append(list, member{s.Name, e})
		}
	}
	servs, err := list.marshal()
	if err != nil {
		return nil, nil, err
	}
	if at >= 0 {
		top[at].value = servs
	} else {
		top = append(top, member{ServersKey, servs})
	}
	flat, err := top.marshal()
	if err != nil {
		return nil, nil, err
	}
	out, err := form.write(flat)
	if err != nil {
		return nil, nil, err
	}
	return out, replaced, nil
}

// byteOrderMark is UTF-8's, which some Windows editors put first in a file.
var byteOrderMark = []byte("\ufeff")

// layout is how a file lays its JSON out, which a merge keeps so that the
// file changes only where entries are added: an editor's or a version
// control's diff shows those alone.
type layout struct {
	bom     bool   // it starts with a byte-order mark
	indent  string // one level of indent
	newline string // "\n", or "\r\n" on Windows
}

// layoutOf returns data's layout and data without its byte-order mark.
// The indent is that of the first indented line, which in an object
// printed by any JSON writer is one level deep.
func layoutOf(data []byte) (layout, []byte) {
	form := layout{indent: "  ", newline: "\n"}
	data, form.bom = bytes.CutPrefix(data, byteOrderMark)
	if bytes.Contains(data, []byte("\r\n")) {
		form.newline = "\r\n"
	}
	// A JSON string holds no raw newline, so every line break is layout.
	lines := bytes.Split(data, []byte("\n"))
	for _, line := range lines[1:] {
		line = bytes.TrimSuffix(line, []byte("\r"))
		text := bytes.TrimLeft(line, " \t")
		if len(text) > 0 && len(text) < len(line) {
			form.indent = string(line[:len(line)-len(text)])
			break
		}
	}
	return form, data
}

// write indents flat, compact JSON, as the layout says.
func (form layout) write(flat []byte) ([]byte, error) {
	var out bytes.Buffer
	if form.bom {
		out.Write(byteOrderMark)
	}
	if err := json.Indent(&out, flat, "", form.indent); err != nil {
		return nil, fmt.Errorf("internal error: merged config is not JSON: %w", err)
	}
	out.WriteByte('\n')
	if form.newline == "\n" {
		return out.Bytes(), nil
	}
	return bytes.ReplaceAll(out.Bytes(), []byte("\n"), []byte(form.newline)), nil
}

// What to do about a file a merge refuses.
const (
	fixAdvice    = "fix it, or move it aside to start a new one"
	byHandAdvice = "or add the entry by hand (nexus mcp-config PROG prints it)"
)

// checkJSON reports where data stops being JSON, by line. Comments and
// trailing commas, which some clients accept (JSONC), are named as such:
// a merge would have to drop them, so the file is refused.
func checkJSON(data []byte) error {
	var v json.RawMessage // which any number fits
	err := json.Unmarshal(data, &v)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		at := min(int(syntax.Offset), len(data))
		line := 1 + bytes.Count(data[:at], []byte("\n"))
		before := bytes.TrimRight(data[:max(at-1, 0)], " \t\r\n")
		switch {
		case at > 0 && data[at-1] == '/':
			return fmt.Errorf("the file has a comment (line %d), which JSON does not allow and a merge would drop: remove the comments, %s", line, byHandAdvice)
		case at > 0 && (data[at-1] == '}' || data[at-1] == ']') && bytes.HasSuffix(before, []byte(",")):
			return fmt.Errorf("the file has a comma before a closing bracket (line %d), which JSON does not allow: remove it, %s", line, byHandAdvice)
		}
		return fmt.Errorf("the file is not valid JSON (line %d: %v): %s", line, syntax, fixAdvice)
	}
	if err != nil {
		return fmt.Errorf("the file is not valid JSON (%w): %s", err, fixAdvice)
	}
	return nil
}

// member is one key of a JSON object with its value as written.
type member struct {
	key   string
	value json.RawMessage
}

// object is a JSON object as its members in order. encoding/json's maps
// would sort the keys and drop duplicates; a client's file must come back
// as it was, but for what is merged into it.
type object []member

var errNotObject = errors.New("not a JSON object")

// parseObject reads data, valid JSON, as an object.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errNotObject
	}
	var obj object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errNotObject
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		obj = append(obj, member{key, value})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errNotObject
	}
	return obj, nil
}

// last is the index of the last member called key (the one JSON readers
// keep when a key repeats), or -1.
func (o object) last(key string) int {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			return i
		}
	}
	return -1
}

// marshal writes o compactly, members in order.
func (o object) marshal() (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := marshal(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escapes: the file is read by
// people and clients, never embedded in HTML.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
