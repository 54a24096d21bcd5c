package mcpimport

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// maxDepth bounds how deep nested schemas (and $ref chains) are followed:
// deeper than any schema a person writes, shallow enough that a
// self-referencing one ends quickly, as Json.
const maxDepth = 16

// schemaTypes turns JSON Schemas into `.loc` types, declaring the records
// they need. Its zero value is not ready; use newSchemaTypes.
type schemaTypes struct {
	records []*record
	byName  map[string]*record
	taken   map[string]bool
}

// record is a generated record declaration.
type record struct {
	name   string
	doc    string
	fields []field
}

// field is a record field or a signature's argument: a name, a `.loc`
// type and a description.
type field struct {
	name, typ, doc string
}

func newSchemaTypes() *schemaTypes {
	return &schemaTypes{byName: map[string]*record{}, taken: map[string]bool{}}
}

// scope is where a schema sits: the root schema its $refs point into and
// the $refs being followed (a ref inside itself is recursive, so Json).
type scope struct {
	root  map[string]any
	refs  []string
	depth int
}

// typeOf is the `.loc` type of schema s; name is the record name to use
// when s is an object with properties.
func (st *schemaTypes) typeOf(s any, name string, sc scope) string {
	m, ok := s.(map[string]any)
	if !ok || sc.depth > maxDepth {
		return "Json"
	}
	sc.depth++
	if ref, ok := m["$ref"].(string); ok {
		return st.refType(ref, sc)
	}
	if ts, ok := m["type"].([]any); ok {
		return st.typeList(m, ts, name, sc)
	}
	if t, ok := nullable(m); ok {
		return optional(st.typeOf(t, name, sc))
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := m[k].([]any); ok {
			if len(alts) == 1 {
				return st.typeOf(alts[0], name, sc)
			}
			return "Json"
		}
	}
	if _, ok := m["not"]; ok {
		return "Json"
	}
	typ, _ := m["type"].(string)
	if enum, ok := m["enum"].([]any); ok {
		if t := valuesType(enum); t == "" || typ != "" && t != baseType(typ) && !(typ == "number" && t == "Int") {
			return "Json"
		}
		if typ == "" {
			return valuesType(enum)
		}
	}
	if c, ok := m["const"]; ok && typ == "" {
		if t := valuesType([]any{c}); t != "" {
			return t
		}
		return "Json"
	}
	if typ == "" {
		switch {
		case m["properties"] != nil || m["additionalProperties"] != nil:
			typ = "object"
		case m["items"] != nil:
			typ = "array"
		}
	}
	switch typ {
	case "array":
		if _, tuple := m["prefixItems"]; tuple {
			return "Json"
		}
		if items, ok := m["items"].(map[string]any); ok {
			return "[" + st.typeOf(items, name+"Item", sc) + "]"
		}
		return "[Json]"
	case "object":
		return st.objectType(m, name, sc)
	case "null":
		return "()"
	}
	if t := baseType(typ); t != "" {
		return t
	}
	return "Json"
}

// baseType is the `.loc` type of a scalar JSON Schema type, "" for others.
func baseType(typ string) string {
	switch typ {
	case "integer":
		return "Int"
	case "number":
		return "Real"
	case "string":
		return "Str"
	case "boolean":
		return "Bool"
	}
	return ""
}

// nullable returns the schema of T when m is a T-or-null schema written
// as anyOf or oneOf of T and {"type": "null"} (pydantic writes
// Optional[T] so).
func nullable(m map[string]any) (any, bool) {
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, ok := m[k].([]any)
		if !ok || len(alts) != 2 {
			continue
		}
		for i, a := range alts {
			if am, ok := a.(map[string]any); ok && am["type"] == "null" && len(am) == 1 {
				return alts[1-i], true
			}
		}
	}
	return nil, false
}

// typeList is the type of a schema whose "type" is a list: ["T"] is T,
// ["T", "null"] is ?T, anything else Json.
func (st *schemaTypes) typeList(m map[string]any, ts []any, name string, sc scope) string {
	var other []any
	hasNull := false
	for _, t := range ts {
		if t == "null" {
			hasNull = true
		} else {
			other = append(other, t)
		}
	}
	if len(other) != 1 {
		return "Json"
	}
	t := st.typeOf(withType(m, other[0]), name, sc)
	if hasNull {
		return optional(t)
	}
	return t
}

// withType is a copy of m with "type" set to t.
func withType(m map[string]any, t any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	c["type"] = t
	return c
}

// optional is ?t, or t when it already is optional. Json holds null too,
// but ?Json says that null means "left out": an optional argument that is
// null is not sent, where a Json null would be sent as null.
func optional(t string) string {
	if strings.HasPrefix(t, "?") || t == "()" {
		return t
	}
	return "?" + wrap(t)
}

// valuesType is the one type of every value of an enum, "" when they do
// not share one.
func valuesType(vals []any) string {
	t := ""
	for _, v := range vals {
		var vt string
		switch v := v.(type) {
		case string:
			vt = "Str"
		case bool:
			vt = "Bool"
		case float64:
			vt = "Real"
			if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
				vt = "Int"
			}
		case json.Number:
			vt = "Real"
			if _, err := v.Int64(); err == nil {
				vt = "Int"
			}
		default:
			return ""
		}
		switch {
		case t == "" || t == vt:
			t = vt
		case t == "Int" && vt == "Real", t == "Real" && vt == "Int":
			t = "Real"
		default:
			return ""
		}
	}
	return t
}

// refType is the type of a "$ref": a local reference (#/$defs/Name,
// #/definitions/Name) is the type of what it names, a record named after
// it; any other reference, or one inside itself, is Json.
func (st *schemaTypes) refType(ref string, sc scope) string {
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return "Json"
	}
	for _, r := range sc.refs {
		if r == ref {
			return "Json"
		}
	}
	var target any = sc.root
	for _, p := range strings.Split(path, "/") {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		m, ok := target.(map[string]any)
		if !ok {
			return "Json"
		}
		target = m[p]
	}
	if target == nil {
		return "Json"
	}
	sc.refs = append(sc.refs[:len(sc.refs):len(sc.refs)], ref)
	name := typeName(path[strings.LastIndex(path, "/")+1:])
	if name == "" {
		name = "Ref"
	}
	return st.typeOf(target, name, sc)
}

// objectType is the type of an object schema: a record when it lists
// properties that can all be fields, a Map Str T when it only says what
// its values are, else Json.
func (st *schemaTypes) objectType(m map[string]any, name string, sc scope) string {
	props, _ := m["properties"].(map[string]any)
	if len(props) == 0 {
		if ap, ok := m["additionalProperties"].(map[string]any); ok && len(ap) > 0 {
			return "Map Str " + wrap(st.typeOf(ap, name+"Value", sc))
		}
		return "Json"
	}
	names := propertyOrder(m)
	for _, n := range names {
		if !isFunctionName(n) {
			return "Json" // a field must be a program name
		}
	}
	req := required(m)
	r := &record{doc: description(m)}
	for _, n := range names {
		t := st.typeOf(props[n], name+typeName(n), sc)
		if !req[n] {
			t = optional(t)
		}
		r.fields = append(r.fields, field{name: n, typ: t, doc: description(props[n])})
	}
	return st.declare(name, r)
}

// declare names r after name (a number added when another record took the
// name) and returns the name. A record equal to one of the same name is
// that record: a $ref used twice declares one.
func (st *schemaTypes) declare(name string, r *record) string {
	if name == "" || !isRecordNameFree(name) {
		name += "Record"
	}
	for i, n := 2, name; ; i++ {
		if old, ok := st.byName[n]; ok && sameRecord(old, r) {
			return n
		}
		if !st.taken[n] {
			break
		}
		n = fmt.Sprintf("%s%d", name, i)
	}
	r.name = unique(name, st.taken)
	st.byName[r.name] = r
	st.records = append(st.records, r)
	return r.name
}

func sameRecord(a, b *record) bool {
	if a.doc != b.doc || len(a.fields) != len(b.fields) {
		return false
	}
	for i := range a.fields {
		if a.fields[i] != b.fields[i] {
			return false
		}
	}
	return true
}

// wrap parenthesises a type with a space in it, for use as a type argument.
func wrap(t string) string {
	if strings.Contains(t, " ") && !strings.HasPrefix(t, "[") {
		return "(" + t + ")"
	}
	return t
}

// propertyOrder lists an object schema's properties: the required ones in
// the order of "required", then the others sorted by name. The order the
// server wrote them in is lost on the way (the SDK decodes a schema into a
// map); "required" is a list, and servers generated from function
// signatures write it in the parameters' order.
func propertyOrder(m map[string]any) []string {
	props, _ := m["properties"].(map[string]any)
	seen := map[string]bool{}
	var names []string
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if n, ok := r.(string); ok && props[n] != nil && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	var rest []string
	for n := range props {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

// required is the set of an object schema's required properties.
func required(m map[string]any) map[string]bool {
	set := map[string]bool{}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if n, ok := r.(string); ok {
				set[n] = true
			}
		}
	}
	return set
}

// description is a schema's "description", with its enum values and its
// default (what the server uses when the argument is left out), "" when
// it has none of these.
func description(s any) string {
	m, _ := s.(map[string]any)
	var lines []string
	if d, ok := m["description"].(string); ok && strings.TrimSpace(d) != "" {
		lines = append(lines, strings.TrimSpace(d))
	}
	if enum, ok := m["enum"].([]any); ok && len(enum) > 0 {
		vals := make([]string, len(enum))
		for i, v := range enum {
			vals[i] = compact(v)
		}
		lines = append(lines, "One of "+strings.Join(vals, ", ")+".")
	}
	if d, ok := m["default"]; ok {
		lines = append(lines, "Default on the server: "+compact(d)+".")
	}
	return strings.Join(lines, "\n")
}

// compact is v as compact JSON.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
