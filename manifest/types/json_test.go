package types

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFromJSON(t *testing.T) {
	mapStrMap := MapOf(StrType, MapOf(IntType, StrType))
	cases := []struct {
		name string
		typ  *Type
		in   string
		want any
	}{
		{"int", IntType, `3`, int64(3)},
		{"negative int", IntType, `-7`, int64(-7)},
		{"int with spaces", IntType, " 42 \n", int64(42)},
		{"int written as real", IntType, `3.0`, int64(3)},
		{"int with zero fraction", IntType, `-12.000`, int64(-12)},
		{"int with exponent", IntType, `3e2`, int64(300)},
		{"int with capital exponent", IntType, `1E3`, int64(1000)},
		{"int with negative exponent", IntType, `300e-2`, int64(3)},
		{"int zero", IntType, `0.0`, int64(0)},
		{"int negative zero", IntType, `-0`, int64(0)},
		{"int zero with huge exponent", IntType, `0e99999999999`, int64(0)},
		{"int64 max", IntType, `9223372036854775807`, int64(math.MaxInt64)},
		{"int64 min", IntType, `-9223372036854775808`, int64(math.MinInt64)},
		{"int64 max with fraction", IntType, `9223372036854775807.0`, int64(math.MaxInt64)},
		{"int64 min with fraction", IntType, `-9223372036854775808.0`, int64(math.MinInt64)},
		// Beyond 2^53 a float64 would round these to a neighbour.
		{"int above 2^53 with fraction", IntType, `9007199254740993.0`, int64(9007199254740993)},
		{"int with many digits and exponent", IntType, `9.223372036854775807e18`, int64(math.MaxInt64)},

		{"real", RealType, `1.5`, 1.5},
		{"real from int", RealType, `3`, 3.0},
		{"real from negative int", RealType, `-2`, -2.0},
		{"real big", RealType, `1e300`, 1e300},
		{"real tiny", RealType, `5e-324`, 5e-324},

		{"str", StrType, `"hi"`, "hi"},
		{"str empty", StrType, `""`, ""},
		{"str escapes", StrType, `"a\"b\\c\n\u00e9\ud83d\ude00"`, "a\"b\\c\né😀"},
		{"str html", StrType, `"<a>&"`, "<a>&"},
		{"str that looks like a number", StrType, `"42"`, "42"},

		{"bool true", BoolType, `true`, true},
		{"bool false", BoolType, `false`, false},
		{"unit", UnitType, `null`, nil},

		{"optional null", OptionalOf(IntType), `null`, nil},
		{"optional value", OptionalOf(IntType), `5`, int64(5)},
		{"optional list", OptionalOf(ListOf(IntType)), `[1]`, []int64{1}},

		{"list", ListOf(IntType), `[1, 2, 3]`, []int64{1, 2, 3}},
		{"list empty", ListOf(IntType), `[]`, []int64{}},
		{"list of lists", ListOf(ListOf(StrType)), `[["a"], []]`, []any{[]string{"a"}, []string{}}},
		{"list of optionals", ListOf(OptionalOf(RealType)), `[null, 2]`, []any{nil, 2.0}},

		{"tuple", TupleOf(IntType, StrType), `[1, "x"]`, []any{int64(1), "x"}},
		{"tuple nested", TupleOf(IntType, ListOf(StrType)), `[1, ["a", "b"]]`, []any{int64(1), []string{"a", "b"}}},

		// An object loses its order in encoding/json; keys come sorted.
		{"map str from object", MapOf(StrType, IntType), `{"b": 2, "a": 1}`,
			[]Pair{{"a", int64(1)}, {"b", int64(2)}}},
		{"map str empty object", MapOf(StrType, IntType), `{}`, []Pair{}},
		{"map str from pairs keeps order", MapOf(StrType, IntType), `[["b", 2], ["a", 1]]`,
			[]Pair{{"b", int64(2)}, {"a", int64(1)}}},
		{"map int from pairs keeps order", MapOf(IntType, StrType), `[[2, "two"], [1, "one"]]`,
			[]Pair{{int64(2), "two"}, {int64(1), "one"}}},
		{"map int empty", MapOf(IntType, StrType), `[]`, []Pair{}},
		{"map with tuple keys", MapOf(TupleOf(IntType, IntType), BoolType), `[[[1, 2], true]]`,
			[]Pair{{[]any{int64(1), int64(2)}, true}}},
		{"map str of map int", mapStrMap, `{"x": [[1, "one"]], "w": []}`,
			[]Pair{{"w", []Pair{}}, {"x", []Pair{{int64(1), "one"}}}}},

		{"record", point, `{"y": 2, "x": 1}`, map[string]any{"x": int64(1), "y": int64(2)}},
		{"record with every field", entry,
			`{"name": "n", "score": 2, "tags": ["a"], "note": "hi", "at": {"x": 1, "y": 2}}`,
			map[string]any{"name": "n", "score": 2.0, "tags": []string{"a"}, "note": "hi",
				"at": map[string]any{"x": int64(1), "y": int64(2)}}},
		{"record fills defaults and optionals", entry, `{"name": "n"}`,
			map[string]any{"name": "n", "score": 0.5, "tags": []string{"new"}, "note": nil, "at": nil}},
		{"record with explicit nulls", entry, `{"name": "n", "note": null, "at": null, "tags": []}`,
			map[string]any{"name": "n", "score": 0.5, "tags": []string{}, "note": nil, "at": nil}},
		{"list of records", ListOf(point), `[{"x": 1, "y": 2}]`,
			[]any{map[string]any{"x": int64(1), "y": int64(2)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := FromJSON(c.typ, []byte(c.in))
			if err != nil {
				t.Fatalf("FromJSON(%s, %s) failed: %v", c.typ, c.in, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("FromJSON(%s, %s) = %#v, want %#v", c.typ, c.in, got, c.want)
			}
		})
	}
}

func TestFromJSONErrors(t *testing.T) {
	badDefault := &Type{Kind: Record, Name: "R", Fields: []Field{
		{Name: "a", Type: IntType, Default: json.RawMessage(`"x"`)},
	}}
	cases := []struct {
		name string
		typ  *Type
		in   string
		want string // the whole message
	}{
		{"int fraction", IntType, `3.5`, "expected an integer, got the number 3.5"},
		{"int small fraction", IntType, `1e-400`, "expected an integer, got the number 1e-400"},
		{"int fraction past float precision", IntType, `3.0000000000000001`, "expected an integer, got the number 3.0000000000000001"},
		{"int too big", IntType, `1e30`, "integer 1e30 does not fit in 64 bits"},
		{"int beyond float range", IntType, `1e400`, "integer 1e400 does not fit in 64 bits"},
		{"int huge exponent", IntType, `1e99999999999`, "integer 1e99999999999 does not fit in 64 bits"},
		{"int64 max + 1", IntType, `9223372036854775808`, "integer 9223372036854775808 does not fit in 64 bits"},
		{"int64 min - 1", IntType, `-9223372036854775809`, "integer -9223372036854775809 does not fit in 64 bits"},
		{"int64 max + 1 as real", IntType, `9223372036854775808.0`, "integer 9223372036854775808.0 does not fit in 64 bits"},
		{"int from string", IntType, `"3"`, `expected an integer, got the string "3"`},
		{"int from bool", IntType, `true`, "expected an integer, got true"},
		{"int from null", IntType, `null`, "expected an integer, got null"},
		{"int from list", IntType, `[1]`, "expected an integer, got a list of 1 items"},
		{"int from long string", IntType, `"` + strings.Repeat("a", 50) + `"`,
			`expected an integer, got the string "` + strings.Repeat("a", 40) + `..."`},
		{"real from string", RealType, `"1.5"`, `expected a number, got the string "1.5"`},
		{"real from null", RealType, `null`, "expected a number, got null"},
		{"real out of range", RealType, `1e400`, "the number 1e400 is beyond the range of a Real, ±1.8e308"},
		{"real out of range in a list", ListOf(RealType), `[1, -1e400]`, "at [1]: the number -1e400 is beyond the range of a Real, ±1.8e308"},
		{"str from number", StrType, `3`, "expected a string, got the number 3"},
		{"str from null", StrType, `null`, "expected a string, got null"},
		{"bool from string", BoolType, `"true"`, `expected true or false, got the string "true"`},
		{"bool from number", BoolType, `1`, "expected true or false, got the number 1"},
		{"unit from number", UnitType, `0`, "expected null, got the number 0"},
		{"unit from object", UnitType, `{}`, "expected null, got an object"},
		{"optional with wrong value", OptionalOf(IntType), `"x"`, `expected an integer, got the string "x"`},
		{"list from object", ListOf(IntType), `{}`, "expected a list [Int], got an object"},
		{"list with bad element", ListOf(IntType), `[1, 2, "x"]`, `at [2]: expected an integer, got the string "x"`},
		{"list of lists bad element", ListOf(ListOf(IntType)), `[[], [1, null]]`, "at [1][1]: expected an integer, got null"},
		{"tuple too long", TupleOf(IntType, StrType), `[1, "x", 2]`, "expected a list of 2 items (Int, Str), got a list of 3 items"},
		{"tuple too short", TupleOf(IntType, StrType), `[1]`, "expected a list of 2 items (Int, Str), got a list of 1 items"},
		{"tuple from string", TupleOf(IntType, StrType), `"x"`, `expected a list of 2 items (Int, Str), got the string "x"`},
		{"tuple bad item", TupleOf(IntType, StrType), `[1, 2]`, "at [1]: expected a string, got the number 2"},
		{"map str bad value", MapOf(StrType, IntType), `{"a": "x"}`, `at .a: expected an integer, got the string "x"`},
		{"map str from number", MapOf(StrType, IntType), `3`, "expected an object Map Str Int, got the number 3"},
		{"map str pair list with non-pair", MapOf(StrType, IntType), `[1]`, "at [0]: expected a [key, value] pair, got the number 1"},
		{"map int from object", MapOf(IntType, StrType), `{"1": "a"}`, "expected a list of [key, value] pairs Map Int Str, got an object"},
		{"map int from string", MapOf(IntType, StrType), `"x"`, `expected a list of [key, value] pairs Map Int Str, got the string "x"`},
		{"map int short pair", MapOf(IntType, StrType), `[[1, "a"], [2]]`, "at [1]: expected a [key, value] pair, got a list of 1 items"},
		{"map int long pair", MapOf(IntType, StrType), `[[1, "a", 2]]`, "at [0]: expected a [key, value] pair, got a list of 3 items"},
		{"map int pair not a list", MapOf(IntType, StrType), `[[1, "a"], 3]`, "at [1]: expected a [key, value] pair, got the number 3"},
		{"map int bad key", MapOf(IntType, StrType), `[["1", "a"]]`, `at [0][0]: expected an integer, got the string "1"`},
		{"map int bad value", MapOf(IntType, StrType), `[[1, 2]]`, "at [0][1]: expected a string, got the number 2"},
		{"record from list", point, `[1, 2]`, "expected an object (record Point), got a list of 2 items"},
		{"record from null", point, `null`, "expected an object (record Point), got null"},
		{"record missing field", point, `{"x": 1}`, `record Point is missing field "y"`},
		{"record unknown field", point, `{"x": 1, "y": 2, "z": 3}`, `record Point has no field "z"`},
		{"record bad field", point, `{"x": 1.5, "y": 2}`, "at .x: expected an integer, got the number 1.5"},
		{"record path into list", entry, `{"name": "n", "tags": ["a", "b", 3]}`, "at .tags[2]: expected a string, got the number 3"},
		{"record path into record", entry, `{"name": "n", "at": {"x": 1, "y": "2"}}`, `at .at.y: expected an integer, got the string "2"`},
		{"record missing field deep", ListOf(point), `[{"x": 1, "y": 2}, {"x": 1}]`, `at [1]: record Point is missing field "y"`},
		{"map of records", MapOf(StrType, point), `{"p": {"x": true, "y": 1}}`, "at .p.x: expected an integer, got true"},
		{"record bad default", badDefault, `{}`, `at .a: default: expected an integer, got the string "x"`},
		{"unknown kind", &Type{Kind: "float"}, `1`, `unknown type kind "float"`},
		{"empty input", IntType, ``, "not valid JSON: EOF"},
		{"two values", IntType, `1 2`, "not valid JSON: more than one value"},
		{"trailing garbage", ListOf(IntType), `[1] x`, "not valid JSON: more than one value"},
		{"NaN is not JSON", RealType, `NaN`, "not valid JSON: invalid character 'N' looking for beginning of value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := FromJSON(c.typ, []byte(c.in))
			if err == nil {
				t.Fatalf("FromJSON(%s, %s) = %#v, want error %q", c.typ, c.in, got, c.want)
			}
			if err.Error() != c.want {
				t.Errorf("FromJSON(%s, %s) error:\n got %q\nwant %q", c.typ, c.in, err, c.want)
			}
		})
	}
}

func TestFromJSONPathError(t *testing.T) {
	_, err := FromJSON(MapOf(StrType, entry), []byte(`{"k": {"name": "n", "tags": [1]}}`))
	var pe *PathError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *PathError", err, err)
	}
	if pe.Path != ".k.tags[0]" || pe.Msg != "expected a string, got the number 1" {
		t.Errorf("PathError = %+v", *pe)
	}
}

// FromJSONValue takes values decoded without UseNumber too.
func TestFromJSONValueFloat64(t *testing.T) {
	cases := []struct {
		typ     *Type
		in      any
		want    any
		wantErr bool
	}{
		{IntType, 3.0, int64(3), false},
		{IntType, -1e18, int64(-1e18), false},
		{IntType, 3.5, nil, true},
		{IntType, 1e30, nil, true},
		{RealType, 2.5, 2.5, false},
		{ListOf(IntType), []any{1.0, 2.0}, []int64{1, 2}, false},
	}
	for _, c := range cases {
		got, err := FromJSONValue(c.typ, c.in)
		if (err != nil) != c.wantErr || !reflect.DeepEqual(got, c.want) {
			t.Errorf("FromJSONValue(%s, %v) = %#v, %v; want %#v, error %v", c.typ, c.in, got, err, c.want, c.wantErr)
		}
	}
}

func TestToJSON(t *testing.T) {
	cases := []struct {
		name string
		typ  *Type
		v    any
		want string
	}{
		{"int", IntType, int64(42), `42`},
		{"int negative", IntType, int64(-3), `-3`},
		{"int64 max", IntType, int64(math.MaxInt64), `9223372036854775807`},
		{"int64 min", IntType, int64(math.MinInt64), `-9223372036854775808`},
		{"str", StrType, "hi", `"hi"`},
		{"bool true", BoolType, true, `true`},
		{"bool false", BoolType, false, `false`},
		{"unit", UnitType, nil, `null`},
		{"optional null", OptionalOf(IntType), nil, `null`},
		{"optional value", OptionalOf(IntType), int64(3), `3`},
		{"optional real", OptionalOf(RealType), 2.0, `2`},
		{"list", ListOf(IntType), []any{int64(1), int64(2)}, `[1,2]`},
		{"list empty", ListOf(IntType), []any{}, `[]`},
		{"list of reals", ListOf(RealType), []any{1.0, 2.5}, `[1,2.5]`},
		{"list of optionals", ListOf(OptionalOf(StrType)), []any{nil, "a"}, `[null,"a"]`},
		{"tuple", TupleOf(IntType, ListOf(StrType)), []any{int64(1), []any{"a", "b"}}, `[1,["a","b"]]`},
		{"map str in entry order", MapOf(StrType, IntType), []Pair{{"b", int64(1)}, {"a", int64(2)}}, `{"b":1,"a":2}`},
		{"map str empty", MapOf(StrType, IntType), []Pair{}, `{}`},
		{"map str key escaped", MapOf(StrType, IntType), []Pair{{"a\"b", int64(1)}}, `{"a\"b":1}`},
		{"map int in entry order", MapOf(IntType, StrType), []Pair{{int64(2), "two"}, {int64(1), "one"}}, `[[2,"two"],[1,"one"]]`},
		{"map int empty", MapOf(IntType, StrType), []Pair{}, `[]`},
		{"map str of map int", MapOf(StrType, MapOf(IntType, StrType)),
			[]Pair{{"x", []Pair{{int64(1), "one"}}}}, `{"x":[[1,"one"]]}`},
		{"record in field order", point, map[string]any{"y": int64(2), "x": int64(1)}, `{"x":1,"y":2}`},
		{"record with every field", entry,
			map[string]any{"at": map[string]any{"y": int64(2), "x": int64(1)}, "note": "hi", "tags": []any{"a"}, "score": 1.0, "name": "n"},
			`{"name":"n","score":1,"tags":["a"],"note":"hi","at":{"x":1,"y":2}}`},
		{"record missing optional", entry, map[string]any{"name": "n", "score": 0.5, "tags": []any{}},
			`{"name":"n","score":0.5,"tags":[],"note":null,"at":null}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ToJSON(c.typ, c.v)
			if err != nil {
				t.Fatalf("ToJSON failed: %v", err)
			}
			if string(got) != c.want {
				t.Errorf("ToJSON(%s, %#v) = %s, want %s", c.typ, c.v, got, c.want)
			}
		})
	}
}

// Reals are written as Morloc prints them (digest section 9): whole reals
// below 1e15 as integers, others in their shortest exact digits, with an
// exponent (two digits at least, as C's %g) below 1e-4 and from 1e15 on.
func TestToJSONReal(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		// A whole real below 1e15 is an integer.
		{42, "42"},
		{1, "1"},
		{-9, "-9"},
		{0, "0"},
		{math.Copysign(0, -1), "-0"},
		{4.2e5, "420000"},
		{1e6, "1000000"},
		{123456789, "123456789"},
		{9007199254740, "9007199254740"},
		{999999999999999, "999999999999999"},
		{-999999999999999, "-999999999999999"},
		// Other reals keep their shortest exact digits, in decimal for
		// exponents -4 through 14.
		{1.5, "1.5"},
		{-0.25, "-0.25"},
		{0.1, "0.1"},
		{3.14, "3.14"},
		{0.042, "0.042"},
		{-0.002, "-0.002"},
		{0.30000000000000004, "0.30000000000000004"}, // 0.1 + 0.2 at run time
		{1.0 / 3.0, "0.3333333333333333"},
		{0.0001, "0.0001"},
		{123456.789, "123456.789"},
		{999999999999999.9, "999999999999999.9"},
		// Exponent form below 1e-4 and from 1e15, whole or not.
		{9.999e-05, "9.999e-05"},
		{1e-5, "1e-05"},
		{1.5e-7, "1.5e-07"},
		{-2.5e-7, "-2.5e-07"},
		{1e15, "1e+15"},
		{-1e15, "-1e+15"},
		{1e15 + 0.5, "1.0000000000000005e+15"},
		{9999999999999998, "9.999999999999998e+15"},
		{1e16, "1e+16"},
		{6.022e23, "6.022e+23"},
		{1e300, "1e+300"},
		{-1e100, "-1e+100"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
	}
	for _, c := range cases {
		got, err := ToJSON(RealType, c.v)
		if err != nil {
			t.Fatalf("ToJSON(%v) failed: %v", c.v, err)
		}
		if string(got) != c.want {
			t.Errorf("ToJSON(Real, %v) = %s, want %s", c.v, got, c.want)
		}
		back, err := FromJSON(RealType, got)
		if err != nil || back.(float64) != c.v || math.Signbit(back.(float64)) != math.Signbit(c.v) {
			t.Errorf("FromJSON(Real, %s) = %v, %v; want %v", got, back, err, c.v)
		}
	}
}

func TestToJSONString(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", `""`},
		{"plain", "hello", `"hello"`},
		{"quote", `a"b`, `"a\"b"`},
		{"backslash", `a\b`, `"a\\b"`},
		{"newline", "line1\nline2", `"line1\nline2"`},
		{"return and tab", "a\r\tb", `"a\r\tb"`},
		{"control chars", "\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"backspace and form feed", "\b\f", `"\u0008\u000c"`},
		{"delete", "\x7f", `"\u007f"`},
		{"html unescaped", "<a href='x'>&amp;</a>", `"<a href='x'>&amp;</a>"`},
		{"non-ASCII unchanged", "héllo wörld ✓ 日本 😀", `"héllo wörld ✓ 日本 😀"`},
		{"replacement char kept", "a\uFFFDb", "\"a\uFFFDb\""},
		{"line separators escaped", "a\u2028b\u2029c", `"a\u2028b\u2029c"`},
		{"U+2027 left alone", "\u2027", "\"\u2027\""},
		{"invalid byte", "a\xffb", "\"a\uFFFDb\""},
		{"truncated sequence", "a\xc3", "\"a\uFFFD\""},
		{"encoded surrogate", "\xed\xa0\x80", "\"\uFFFD\uFFFD\uFFFD\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ToJSON(StrType, c.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("ToJSON(%q) = %s, want %s", c.in, got, c.want)
			}
			if !json.Valid(got) {
				t.Errorf("ToJSON(%q) = %s is not valid JSON", c.in, got)
			}
			if !utf8.ValidString(c.in) {
				return
			}
			var back string
			if err := json.Unmarshal(got, &back); err != nil || back != c.in {
				t.Errorf("%s decodes to %q, %v; want %q", got, back, err, c.in)
			}
		})
	}
}

func TestAppendJSON(t *testing.T) {
	buf := []byte("result: ")
	out, err := AppendJSON(buf, ListOf(RealType), []any{1.0, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "result: [1,0.5]" {
		t.Errorf("AppendJSON = %q", out)
	}
	out, err = AppendJSON([]byte("x"), ListOf(IntType), []any{int64(1), "two"})
	if err == nil || out != nil {
		t.Errorf("AppendJSON of a wrong value = %q, %v; want nil and an error", out, err)
	}
}

// Values of the wrong Go shape are programming errors elsewhere in nexus;
// they must come back as errors, never as panics or wrong JSON.
func TestToJSONWrongShape(t *testing.T) {
	cases := []struct {
		name string
		typ  *Type
		v    any
		want string
	}{
		{"int as Go int", IntType, 3, "value 3 is not of type Int"},
		{"int as float", IntType, 3.0, "value 3 is not of type Int"},
		{"int nil", IntType, nil, "value <nil> is not of type Int"},
		{"real as int64", RealType, int64(1), "value 1 is not of type Real"},
		{"str as bytes", StrType, []byte("x"), "value []byte{0x78} is not of type Str"},
		{"bool as string", BoolType, "true", `value "true" is not of type Bool`},
		{"optional wrong", OptionalOf(IntType), "x", `value "x" is not of type Int`},
		{"list as a slice of another type", ListOf(IntType), []float64{1}, "at [0]: value 1 is not of type Int"},
		{"list as a Go slice of no list value", ListOf(IntType), []int{1}, "value []int{1} is not of type [Int]"},
		{"list bad element", ListOf(IntType), []any{int64(1), "x"}, `at [1]: value "x" is not of type Int`},
		{"tuple wrong length", TupleOf(IntType, StrType), []any{int64(1)}, "value []interface {}{1} is not of type (Int, Str)"},
		{"tuple bad item", TupleOf(IntType, StrType), []any{int64(1), int64(2)}, "at [1]: value 2 is not of type Str"},
		{"map as Go map", MapOf(StrType, IntType), map[string]any{"a": int64(1)}, `value map[string]interface {}{"a":1} is not of type Map Str Int`},
		{"map str key not string", MapOf(StrType, IntType), []Pair{{int64(1), int64(1)}}, "map key 1 is not a string"},
		{"map str bad value", MapOf(StrType, IntType), []Pair{{"k", "v"}}, `at ["k"]: value "v" is not of type Int`},
		{"map int bad key", MapOf(IntType, StrType), []Pair{{"1", "a"}}, `at [0][0]: value "1" is not of type Int`},
		{"map int bad value", MapOf(IntType, StrType), []Pair{{int64(1), "a"}, {int64(2), 2}}, "at [1][1]: value 2 is not of type Str"},
		{"record as list", point, []any{int64(1), int64(2)}, "value []interface {}{1, 2} is not of type Point"},
		{"record missing field", point, map[string]any{"x": int64(1)}, "at .y: value <nil> is not of type Int"},
		{"record nested", entry, map[string]any{"name": "n", "score": 1.0, "tags": []any{"a", 1}}, "at .tags[1]: value 1 is not of type Str"},
		{"unknown kind", &Type{Kind: "x"}, 1, "value 1 is not of type x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ToJSON(c.typ, c.v)
			if err == nil {
				t.Fatalf("ToJSON(%s, %#v) = %s, want an error", c.typ, c.v, got)
			}
			if err.Error() != c.want {
				t.Errorf("ToJSON(%s, %#v) error:\n got %q\nwant %q", c.typ, c.v, err, c.want)
			}
		})
	}
}

// JSON has no NaN nor infinities: ToJSON refuses them wherever they are,
// and says where, so that no reply carries what a strict parser rejects.
func TestToJSONNonFinite(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	pointR := &Type{Kind: Record, Name: "P", Fields: []Field{{Name: "x", Type: RealType}, {Name: "y", Type: RealType}}}
	shape := &Type{Kind: Record, Name: "Shape", Fields: []Field{{Name: "points", Type: ListOf(pointR)}}}
	cases := []struct {
		name string
		typ  *Type
		v    any
		want string
	}{
		{"NaN", RealType, nan, "result is NaN, which JSON cannot represent"},
		{"infinity", RealType, inf, "result is Infinity, which JSON cannot represent"},
		{"minus infinity", RealType, math.Inf(-1), "result is -Infinity, which JSON cannot represent"},
		{"typed list", ListOf(RealType), []float64{1, 2, 3, nan}, "result[3] is NaN, which JSON cannot represent"},
		{"boxed list", ListOf(RealType), []any{1.0, inf}, "result[1] is Infinity, which JSON cannot represent"},
		{"list of lists", ListOf(ListOf(RealType)), []any{[]float64{1}, []float64{2, inf}}, "result[1][1] is Infinity, which JSON cannot represent"},
		{"record", pointR, map[string]any{"x": 1.0, "y": nan}, "result.y is NaN, which JSON cannot represent"},
		{"record of list of records", shape, map[string]any{"points": []any{
			map[string]any{"x": 1.0, "y": 1.0}, map[string]any{"x": 2.0, "y": 2.0}, map[string]any{"x": inf, "y": 3.0},
		}}, "result.points[2].x is Infinity, which JSON cannot represent"},
		{"map by string", MapOf(StrType, RealType), []Pair{{"a", 1.0}, {"the key", nan}}, `result["the key"] is NaN, which JSON cannot represent`},
		{"map by int, value", MapOf(IntType, RealType), []Pair{{int64(7), inf}}, "result[0][1] is Infinity, which JSON cannot represent"},
		{"map by real, key", MapOf(RealType, IntType), []Pair{{nan, int64(1)}}, "result[0][0] is NaN, which JSON cannot represent"},
		{"tuple", TupleOf(StrType, RealType), []any{"a", inf}, "result[1] is Infinity, which JSON cannot represent"},
		{"optional", OptionalOf(RealType), nan, "result is NaN, which JSON cannot represent"},
		{"list of optionals", ListOf(OptionalOf(RealType)), []any{nil, inf}, "result[1] is Infinity, which JSON cannot represent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ToJSON(c.typ, c.v)
			if err == nil {
				t.Fatalf("ToJSON(%s, %v) = %s, want an error", c.typ, c.v, got)
			}
			var nf *NonFiniteError
			if !errors.As(err, &nf) {
				t.Errorf("ToJSON(%s, %v) error is a %T, want a *NonFiniteError", c.typ, c.v, err)
			}
			if err.Error() != c.want {
				t.Errorf("ToJSON(%s, %v) error:\n got %q\nwant %q", c.typ, c.v, err, c.want)
			}
		})
	}
}

// Whatever FromJSON accepts, ToJSON writes back in canonical form.
func TestJSONCanonicalForm(t *testing.T) {
	cases := []struct {
		typ     *Type
		in, out string
	}{
		{IntType, `3.0`, `3`},
		{IntType, `1e3`, `1000`},
		{RealType, `3.0`, `3`},
		{RealType, `4.2E5`, `420000`},
		{RealType, `1e15`, `1e+15`},
		{RealType, `-0.0`, `-0`},
		{StrType, `"\u00e9\/\u003c"`, `"é/<"`},
		{MapOf(StrType, IntType), `{"b": 1, "a": 2}`, `{"a":2,"b":1}`},
		{MapOf(IntType, IntType), `[[2, 1], [1, 2]]`, `[[2,1],[1,2]]`},
		{entry, `{"name": "n"}`, `{"name":"n","score":0.5,"tags":["new"],"note":null,"at":null}`},
		{TupleOf(OptionalOf(IntType), UnitType), `[null, null]`, `[null,null]`},
	}
	for _, c := range cases {
		v, err := FromJSON(c.typ, []byte(c.in))
		if err != nil {
			t.Fatalf("FromJSON(%s, %s): %v", c.typ, c.in, err)
		}
		got, err := ToJSON(c.typ, v)
		if err != nil {
			t.Fatalf("ToJSON(%s, %#v): %v", c.typ, v, err)
		}
		if string(got) != c.out {
			t.Errorf("%s %s → %s, want %s", c.typ, c.in, got, c.out)
		}
	}
}
