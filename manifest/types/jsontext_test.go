package types

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/jsonlex"
	"github.com/vmihailenco/msgpack/v5"
)

// doc is a record with a Json field, whose values the general reader
// decodes before it writes them again.
var doc = &Type{Kind: Record, Name: "Doc", Fields: []Field{
	{Name: "id", Type: IntType},
	{Name: "body", Type: JSONType},
	{Name: "extra", Type: OptionalOf(JSONType)},
}}

func TestFromJSONJson(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  *Type
		in   string
		want any
	}{
		{"an object keeps its key order", JSONType, ` { "b" : 1 , "a" : [ true , null ] } `, JSONText(`{"b":1,"a":[true,null]}`)},
		{"a string keeps its escapes", JSONType, `"\u00e9 é \" \\ <&>"`, JSONText(`"\u00e9 é \" \\ <&>"`)},
		{"null is a Json value", JSONType, `null`, JSONText(`null`)},
		{"a number keeps its spelling", JSONType, `9007199254740993`, JSONText(`9007199254740993`)},
		{"a real", JSONType, `-1.5e300`, JSONText(`-1.5e300`)},
		{"invalid UTF-8 in a string", JSONType, "\"a\xffb\"", JSONText("\"a\ufffdb\"")},
		{"a list of Json", ListOf(JSONType), `[1, "x", {"k": [ ]}, null]`,
			[]any{JSONText(`1`), JSONText(`"x"`), JSONText(`{"k":[]}`), JSONText(`null`)}},
		{"an optional Json that is null is absent", OptionalOf(JSONType), `null`, nil},
		{"a tuple with a Json", TupleOf(IntType, JSONType), `[1, {"z": 0, "a": 1}]`,
			[]any{int64(1), JSONText(`{"z":0,"a":1}`)}},
		// Decoded by encoding/json first: keys sorted, strings written
		// again, numbers as they were spelt.
		{"a record field", doc, `{"id": 1, "body": {"z": "\u00e9<", "a": [1.50, 2e3]}}`,
			map[string]any{"id": int64(1), "body": JSONText(`{"a":[1.50,2e3],"z":"é<"}`), "extra": nil}},
		{"a map of Json", MapOf(StrType, JSONType), `{"x": [{"b": 1, "a": 2}], "y": "s"}`,
			[]Pair{{"x", JSONText(`[{"a":2,"b":1}]`)}, {"y", JSONText(`"s"`)}}},
	} {
		got, err := FromJSON(c.typ, []byte(c.in))
		if err != nil {
			t.Errorf("%s: FromJSON(%s, %s): %v", c.name, c.typ, c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: FromJSON(%s, %s) = %#v, want %#v", c.name, c.typ, c.in, got, c.want)
		}
		out, err := ToJSON(c.typ, got)
		if err != nil {
			t.Errorf("%s: ToJSON: %v", c.name, err)
			continue
		}
		if back, err := FromJSON(c.typ, out); err != nil || !reflect.DeepEqual(back, got) {
			t.Errorf("%s: %#v → %s → %#v, %v", c.name, got, out, back, err)
		}
	}
}

func TestFromJSONJsonErrors(t *testing.T) {
	deep := strings.Repeat("[", jsonlex.MaxDepth+1) + strings.Repeat("]", jsonlex.MaxDepth+1)
	for _, c := range []struct {
		typ  *Type
		in   string
		want string
	}{
		{JSONType, ``, "not valid JSON"},
		{JSONType, `hello`, "not valid JSON"},
		{JSONType, `{"a":1,}`, "not valid JSON"},
		{JSONType, `1 2`, "not valid JSON"},
		{JSONType, `NaN`, "not valid JSON"},
		{JSONType, deep, "exceeded max depth"},
		{ListOf(JSONType), `[1, nope]`, "not valid JSON"},
		{doc, `{"id": 1}`, `missing field "body"`},
	} {
		_, err := FromJSON(c.typ, []byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromJSON(%s, %.30q) = %v, want an error saying %q", c.typ, c.in, err, c.want)
		}
	}
	// Where the general reader has decoded the value: what it cannot
	// write as JSON, with where it was.
	for _, c := range []struct {
		v    any
		want string
	}{
		{map[string]any{"a": []any{1.0, nanValue()}}, `at ["a"][1]: the number NaN cannot be written in JSON`},
		{[]any{struct{}{}}, "at [0]: expected a JSON value, got struct {}"},
		{deepList(jsonlex.MaxDepth + 1), "deeper than 10000 levels"},
	} {
		_, err := FromJSONValue(JSONType, c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromJSONValue(Json, %.30v) = %v, want an error saying %q", c.v, err, c.want)
		}
	}
	if v, err := FromJSONValue(JSONType, deepList(jsonlex.MaxDepth)); err != nil || len(v.(JSONText)) != 2*jsonlex.MaxDepth {
		t.Errorf("a Json at the depth limit: %v", err)
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

func deepList(n int) any {
	var v any = []any{}
	for range n - 1 {
		v = []any{v}
	}
	return v
}

func TestToJSONJson(t *testing.T) {
	out, err := ToJSON(ListOf(JSONType), []any{JSONText(`{"b":[1,"é"],"a":null}`), JSONText(`3`)})
	if want := `[{"b":[1,"é"],"a":null},3]`; err != nil || string(out) != want {
		t.Errorf("ToJSON = %s, %v; want %s", out, err, want)
	}
	for _, v := range []any{"a plain string", JSONText(""), nil, map[string]any{}} {
		var pe *PathError
		if _, err := ToJSON(JSONType, v); !errors.As(err, &pe) {
			t.Errorf("ToJSON(Json, %#v) = %v, want a PathError", v, err)
		}
	}
}

func TestMsgpackJson(t *testing.T) {
	typ := ListOf(OptionalOf(JSONType))
	v := []any{JSONText(`{"b":1,"a":"é"}`), nil, JSONText(`null`), JSONText(`[9007199254740992]`)}
	var buf bytes.Buffer
	if err := EncodeMsgpack(msgpack.NewEncoder(&buf), typ, v); err != nil {
		t.Fatal(err)
	}
	// The wire form: a str of the text, the contract with every pool.
	want := foreign(t, seq(arr(4), str(`{"b":1,"a":"é"}`), nilv, str(`null`), str(`[9007199254740992]`)))
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("wire form % x, want % x", buf.Bytes(), want)
	}
	got, err := DecodeMsgpackBytes(typ, buf.Bytes())
	if err != nil || !reflect.DeepEqual(got, v) {
		t.Errorf("round trip: %#v, %v", got, err)
	}

	// From a pool: text with spaces is compacted.
	got, err = DecodeMsgpackBytes(doc, foreign(t, seq(mapn(2), str("id"), i64(1), str("body"), str(`{ "x" : [1, 2] }`))))
	if err != nil || !reflect.DeepEqual(got, map[string]any{"id": int64(1), "body": JSONText(`{"x":[1,2]}`), "extra": nil}) {
		t.Errorf("record from a pool: %#v, %v", got, err)
	}

	deep := strings.Repeat("[", jsonlex.MaxDepth+1) + strings.Repeat("]", jsonlex.MaxDepth+1)
	for _, c := range []struct {
		typ  *Type
		data []byte
		want string
	}{
		{JSONType, foreign(t, str(`NaN`)), `expected Json text, got the string "NaN": not valid JSON`},
		{JSONType, foreign(t, str(`{"a":Infinity}`)), "not valid JSON"},
		{JSONType, foreign(t, str(``)), "not valid JSON"},
		{JSONType, foreign(t, str(deep)), "deeper than 10000 levels"},
		{JSONType, foreign(t, i64(3)), "expected Json, a string of JSON text, got msgpack type 0x03"},
		{JSONType, foreign(t, nilv), "expected Json, got nil"},
		{doc, foreign(t, seq(mapn(2), str("id"), i64(1), str("body"), str(`{"a":`))), `at .body: expected Json text, got the string "{\"a\":"`},
		{ListOf(JSONType), foreign(t, seq(arr(2), str(`1`), str(`one`))), `at [1]: expected Json text`},
	} {
		_, err := DecodeMsgpackBytes(c.typ, c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("DecodeMsgpackBytes(%s, % .20x) = %v, want an error saying %q", c.typ, c.data, err, c.want)
		}
	}
}
