package status

import (
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/tool"
)

// TestWords: each shape of schema said in words.
func TestWords(t *testing.T) {
	num := &tool.Schema{Types: []string{"number"}}
	str := &tool.Schema{Types: []string{"string"}}
	rec := &tool.Schema{Types: []string{"object"}, Properties: []tool.Property{{Name: "x", Schema: num}}, Additional: tool.AdditionalFalse}
	for _, tc := range []struct {
		s    *tool.Schema
		want string
	}{
		{&tool.Schema{Types: []string{"integer"}, Minimum: "-9223372036854775808", Maximum: "9223372036854775807"}, "integer"},
		{&tool.Schema{Types: []string{"integer"}, Minimum: "0", Maximum: "255"}, "integer from 0 to 255"},
		{&tool.Schema{Types: []string{"number", "null"}}, "number or null"},
		{&tool.Schema{Types: []string{"boolean"}}, "true or false"},
		{&tool.Schema{Types: []string{"null"}}, "nothing"},
		{&tool.Schema{}, "any JSON"},
		{&tool.Schema{Types: []string{"string"}, Enum: []string{"csv", "json"}}, "one of csv, json"},
		{&tool.Schema{Types: []string{"array"}, Items: str}, "list of strings"},
		{&tool.Schema{Types: []string{"array"}, Items: &tool.Schema{Types: []string{"array"}, Items: num}}, "list of lists of numbers"},
		{&tool.Schema{Types: []string{"array"}, Items: &tool.Schema{Types: []string{"integer", "null"}}}, "list of integers or nulls"},
		{&tool.Schema{Types: []string{"array"}, PrefixItems: []*tool.Schema{num, str}, MinItems: 2, MaxItems: 2}, "tuple (number, string)"},
		{&tool.Schema{Types: []string{"object"}, Additional: num}, "map from string to numbers"},
		{rec, "record"},
		{&tool.Schema{Types: []string{"array"}, Items: rec}, "list of records"},
		{&tool.Schema{Types: []string{"object"}, Additional: rec}, "map from string to records"},
	} {
		if got := words(tc.s); got != tc.want {
			t.Errorf("words = %q, want %q", got, tc.want)
		}
	}
	// The fields shown under a list of records, or a map of them, are
	// the record's.
	for _, s := range []*tool.Schema{rec, {Types: []string{"array"}, Items: rec}, {Types: []string{"object"}, Additional: rec}} {
		if got := rows(record(s)); len(got) != 1 || got[0].Name != "x" || got[0].Type != "number" {
			t.Errorf("fields of %s: %+v", words(s), got)
		}
	}
	// What a tool returns: a record with its fields; nothing for none.
	if got := result(&tool.Tool{OutputSchema: rec}); got == nil || got.Type != "record" || len(got.Fields) != 1 || got.Fields[0].Name != "x" {
		t.Errorf("result of a record: %+v", got)
	}
	if got := result(&tool.Tool{}); got != nil {
		t.Errorf("result of a tool returning nothing: %+v", got)
	}
	if got := record(&tool.Schema{Types: []string{"array"}, Items: num}); got != nil {
		t.Errorf("a list of numbers has fields: %+v", got)
	}
}
