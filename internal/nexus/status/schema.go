package status

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nexus-run/nexus/internal/nexus/tool"
)

// Row is one property of a tool's arguments, or one field of a record
// among them, as the page's tables show it.
type Row struct {
	Name string
	// Type says the property's type in words ("list of numbers").
	Type     string
	Required bool
	// Default is the value it takes when left out, as JSON; "" for none.
	Default     string
	Description string
	// Fields are the fields of a record (or of the records of a list or
	// map), shown as a table of their own.
	Fields []Row
	// Input is how the call form reads a value typed for it: "string"
	// as typed, "boolean" from a choice, "json" as JSON.
	Input string
}

// argRows are the rows of a tool's arguments, in the order the command
// takes them.
func argRows(t *tool.Tool) []Row { return rows(t.InputSchema) }

// result describes what a tool returns as a row without a name (its
// type, and a record's fields), or is nil when it returns nothing or
// media.
func result(t *tool.Tool) *Row {
	if t.OutputSchema == nil {
		return nil
	}
	return &Row{Type: words(t.OutputSchema), Fields: rows(record(t.OutputSchema))}
}

// fieldsOf is the Fields of a row, for the template's recursion.
func fieldsOf(r Row) []Row { return r.Fields }

func rows(s *tool.Schema) []Row {
	if s == nil {
		return nil
	}
	out := make([]Row, 0, len(s.Properties))
	for _, p := range s.Properties {
		ps := p.Schema
		def := string(ps.Default)
		out = append(out, Row{
			Name:        p.Name,
			Type:        words(ps),
			Required:    slices.Contains(s.Required, p.Name),
			Default:     def,
			Description: withoutDefault(ps.Description, def),
			Fields:      rows(record(ps)),
			Input:       input(ps),
		})
	}
	return out
}

// withoutDefault is desc without the "(default: v)" note that the tool
// model adds to descriptions for clients that show no "default": the
// page has a column for it.
func withoutDefault(desc, def string) string {
	if def == "" {
		return desc
	}
	return strings.TrimSpace(strings.TrimSuffix(desc, "(default: "+def+")"))
}

// record is the schema whose properties are the fields shown under a
// property of schema s: its own, or its elements' or values'.
func record(s *tool.Schema) *tool.Schema {
	for s != nil {
		switch {
		case len(s.Properties) > 0:
			return s
		case s.Items != nil:
			s = s.Items
		case s.Additional != nil && s.Additional != tool.AdditionalFalse:
			s = s.Additional
		default:
			return nil
		}
	}
	return nil
}

// input is how the call form reads a value of s.
func input(s *tool.Schema) string {
	switch base(s.Types) {
	case "string":
		return "string"
	case "boolean":
		return "boolean"
	}
	return "json"
}

// base is the type of a schema's Types but null ("" for any JSON).
func base(types []string) string {
	for _, t := range types {
		if t != "null" {
			return t
		}
	}
	if len(types) > 0 {
		return "null"
	}
	return ""
}

// words says the type of values of s in words: "integer",
// "list of numbers", "map from string to list of strings", "record",
// with " or null" for an optional one.
func words(s *tool.Schema) string {
	w := baseWords(s, false)
	if len(s.Types) > 1 && slices.Contains(s.Types, "null") {
		w += " or null"
	}
	return w
}

// baseWords says s without its null; plural names the values of a list.
func baseWords(s *tool.Schema, plural bool) string {
	pl := func(one, many string) string {
		if plural {
			return many
		}
		return one
	}
	if len(s.Enum) > 0 {
		return pl("one of ", "each one of ") + strings.Join(s.Enum, ", ")
	}
	switch base(s.Types) {
	case "integer":
		return pl("integer", "integers") + intRange(s)
	case "number":
		return pl("number", "numbers")
	case "string":
		return pl("string", "strings")
	case "boolean":
		return pl("true or false", "trues or falses")
	case "null":
		return "nothing"
	case "array":
		if len(s.PrefixItems) > 0 {
			items := make([]string, len(s.PrefixItems))
			for i, it := range s.PrefixItems {
				items[i] = words(it)
			}
			return pl("tuple", "tuples") + " (" + strings.Join(items, ", ") + ")"
		}
		if s.Items == nil {
			return pl("list", "lists")
		}
		return pl("list", "lists") + " of " + itemWords(s.Items)
	case "object":
		if len(s.Properties) > 0 || s.Additional == tool.AdditionalFalse {
			return pl("record", "records")
		}
		if s.Additional != nil {
			return pl("map", "maps") + " from string to " + itemWords(s.Additional)
		}
		return pl("object", "objects")
	}
	return "any JSON"
}

// itemWords says the elements of a list or values of a map, plural.
func itemWords(s *tool.Schema) string {
	w := baseWords(s, true)
	if len(s.Types) > 1 && slices.Contains(s.Types, "null") {
		w += " or nulls"
	}
	return w
}

// intRange is the bounds of an integer, when narrower than 64 bits: a
// sized integer's (U8 is 0 to 255) is worth saying, Int's is noise.
func intRange(s *tool.Schema) string {
	lo, hi := s.Minimum, s.Maximum
	if lo == strconv.FormatInt(math.MinInt64, 10) && hi == strconv.FormatInt(math.MaxInt64, 10) {
		return ""
	}
	switch {
	case lo != "" && hi != "":
		return " from " + lo + " to " + hi
	case lo != "":
		return " from " + lo
	case hi != "":
		return " up to " + hi
	}
	return ""
}
