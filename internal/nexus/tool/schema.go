package tool

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/nexus-run/nexus/manifest/types"
)

// Schema is the JSON Schema of a tool's input or output, or of a part of
// it: the subset that describes nexus types. Properties keep their order,
// so a tool's schema lists arguments in the order the command takes them.
type Schema struct {
	// Types is "type": one name, or several when null is allowed too.
	Types       []string
	Description string
	Properties  []Property
	Required    []string
	// Additional is "additionalProperties": nil leaves it out, else
	// AdditionalFalse forbids other properties, or it is their schema.
	Additional *Schema
	Items      *Schema
	// PrefixItems, MinItems and MaxItems describe a tuple.
	PrefixItems []*Schema
	MinItems    int
	MaxItems    int
	Enum        []string
	// Minimum and Maximum bound an integer: JSON number text, or empty
	// for no bound.
	Minimum, Maximum string
	// Default is the value a property left out takes (compact JSON), or
	// empty when it has none or it goes without saying (null for an
	// optional one).
	Default json.RawMessage
}

// Property is one named property of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

// AdditionalFalse is the Additional of an object with no properties beyond
// those it lists.
var AdditionalFalse = &Schema{}

// typeSchema is the schema of values of t.
func typeSchema(t *types.Type) *Schema {
	switch t.Kind {
	case types.Int:
		// Int is 64 bits, a sized integer (U8) fewer: a client can know
		// the range before it sends.
		r := types.IntRange(t)
		return &Schema{Types: []string{"integer"}, Minimum: strconv.FormatInt(r.Min, 10), Maximum: strconv.FormatInt(r.Max, 10)}
	case types.Real:
		return &Schema{Types: []string{"number"}}
	case types.Str:
		return &Schema{Types: []string{"string"}}
	case types.Bool:
		return &Schema{Types: []string{"boolean"}}
	case types.Unit:
		return &Schema{Types: []string{"null"}}
	case types.List:
		return &Schema{Types: []string{"array"}, Items: typeSchema(t.Elem)}
	case types.Optional:
		s := typeSchema(t.Elem)
		if len(s.Types) > 0 && s.Types[len(s.Types)-1] != "null" {
			s.Types = append(s.Types, "null")
		}
		return s
	case types.Map:
		if t.Key.Kind == types.Str {
			return &Schema{Types: []string{"object"}, Additional: typeSchema(t.Elem)}
		}
		// Other keys cannot be object keys: a list of [key, value] pairs.
		pair := tupleSchema([]*types.Type{t.Key, t.Elem})
		return &Schema{Types: []string{"array"}, Items: pair}
	case types.Tuple:
		return tupleSchema(t.Items)
	case types.Record:
		return recordSchema(t, true)
	case types.JSON:
		// Any JSON value, null included, so ?Json is the same.
		return &Schema{}
	case types.Handle:
		// A handle's JSON is its path.
		return &Schema{Types: []string{"string"}}
	}
	return &Schema{}
}

func tupleSchema(items []*types.Type) *Schema {
	s := &Schema{Types: []string{"array"}, MinItems: len(items), MaxItems: len(items)}
	for _, it := range items {
		s.PrefixItems = append(s.PrefixItems, typeSchema(it))
	}
	return s
}

// recordSchema is the schema of a record value: its fields as properties,
// those without a default and not optional required when requireFields.
func recordSchema(t *types.Type, requireFields bool) *Schema {
	s := &Schema{Types: []string{"object"}, Description: docText(t.Doc), Additional: AdditionalFalse}
	s.Properties = make([]Property, 0, len(t.Fields))
	for _, f := range t.Fields {
		fs := typeSchema(f.Type)
		fs.Description = withDefault(docText(f.Doc), f.Default)
		fs.Default = compactDefault(f.Default)
		s.Properties = append(s.Properties, Property{Name: f.Name, Schema: fs})
		if requireFields && len(f.Default) == 0 && f.Type.Kind != types.Optional {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s
}

// withDefault appends "(default: v)" to a description, for a value that
// has a default. The schema says it again as "default" (compactDefault),
// which not every client shows a model.
func withDefault(desc string, def json.RawMessage) string {
	if len(def) == 0 {
		return desc
	}
	note := "(default: " + string(compactDefault(def)) + ")"
	if desc == "" {
		return note
	}
	return desc + " " + note
}

// compactDefault is def without insignificant space; def itself when it is
// not JSON (a manifest's defaults are checked when it is built).
func compactDefault(def json.RawMessage) json.RawMessage {
	if len(def) == 0 {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, def); err != nil {
		return def
	}
	return b.Bytes()
}

// MarshalJSON writes the schema with its keys in a fixed order and its
// properties in theirs.
func (s *Schema) MarshalJSON() ([]byte, error) {
	return s.appendJSON(nil), nil
}

func (s *Schema) appendJSON(b []byte) []byte {
	b = append(b, '{')
	n := 0
	key := func(k string) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = strconv.AppendQuote(b, k)
		b = append(b, ':')
	}
	switch len(s.Types) {
	case 0:
	case 1:
		key("type")
		b = strconv.AppendQuote(b, s.Types[0])
	default:
		key("type")
		b = appendStrings(b, s.Types)
	}
	if s.Description != "" {
		key("description")
		b = AppendString(b, s.Description)
	}
	if s.Properties != nil {
		key("properties")
		b = append(b, '{')
		for i, p := range s.Properties {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, p.Name)
			b = append(b, ':')
			b = p.Schema.appendJSON(b)
		}
		b = append(b, '}')
	}
	if s.Properties != nil || len(s.Required) > 0 {
		key("required")
		b = appendStrings(b, s.Required)
	}
	if s.Additional == AdditionalFalse {
		key("additionalProperties")
		b = append(b, "false"...)
	} else if s.Additional != nil {
		key("additionalProperties")
		b = s.Additional.appendJSON(b)
	}
	if s.Items != nil {
		key("items")
		b = s.Items.appendJSON(b)
	}
	if s.PrefixItems != nil {
		key("prefixItems")
		b = append(b, '[')
		for i, it := range s.PrefixItems {
			if i > 0 {
				b = append(b, ',')
			}
			b = it.appendJSON(b)
		}
		b = append(b, ']')
		key("minItems")
		b = strconv.AppendInt(b, int64(s.MinItems), 10)
		key("maxItems")
		b = strconv.AppendInt(b, int64(s.MaxItems), 10)
	}
	if s.Minimum != "" {
		key("minimum")
		b = append(b, s.Minimum...)
	}
	if s.Maximum != "" {
		key("maximum")
		b = append(b, s.Maximum...)
	}
	if s.Enum != nil {
		key("enum")
		b = appendStrings(b, s.Enum)
	}
	if len(s.Default) > 0 {
		key("default")
		b = append(b, s.Default...)
	}
	return append(b, '}')
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}

// AppendString appends s as a JSON string.
func AppendString(b []byte, s string) []byte {
	out, _ := json.Marshal(s) // a string always marshals
	return append(b, out...)
}
