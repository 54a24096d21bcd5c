package types

import (
	"bytes"
	"reflect"
	"sort"
	"testing"
)

// fuzzTypes are the types every fuzz input is parsed as.
var fuzzTypes = []*Type{
	IntType,
	RealType,
	StrType,
	BoolType,
	UnitType,
	OptionalOf(ListOf(OptionalOf(IntType))),
	ListOf(IntType),
	ListOf(BoolType),
	ListOf(ListOf(StrType)),
	TupleOf(IntType, StrType, RealType),
	MapOf(StrType, ListOf(RealType)),
	MapOf(IntType, StrType),
	entry,
	MapOf(StrType, entry),
	JSONType,
	ListOf(JSONType),
	doc,
}

// FuzzFromJSON checks that FromJSON never panics, that ToJSON can write
// every value FromJSON accepts, and that reading that JSON back gives the
// same value (and the same JSON). Run it with
// `go test -fuzz FuzzFromJSON ./manifest/types`; plain `go test` runs the
// seed corpus.
func FuzzFromJSON(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `0`, `-0`, `3`, `3.0`, `3.5`, `1e30`, `-1e-400`, `1e400`,
		`9223372036854775807`, `-9223372036854775808`, `9223372036854775808`,
		`9007199254740993.0`, `1000000`, `5e-324`, `true`, `"x"`,
		`"\u2028<&>\ud800\u00e9\n"`, `"\xff"`, `[]`, `[null, 1, 2.0]`, `[1, "a", 2]`,
		`[1, "a", 2.5, 4]`, `{}`, `{"b": [1], "a": [2.5]}`, `[["a", [1]], ["a", [2]]]`,
		`[[1, "one"], [1, "uno"]]`, `[[1]]`, `{"name": "n"}`,
		`{"name": "n", "score": 1, "tags": ["a"], "note": null, "at": {"x": 1, "y": 2}}`,
		`{"name": "n", "extra": 1}`, `{"k": {"name": "n", "at": {"x": 1}}}`,
		`[1,`, `{"a"`, `1 2`, `NaN`, `[[[[[[[[[[]]]]]]]]]]`,
		`{"id": 1, "body": {"b": [1, {"a": "\u00e9"}], "a": null}}`, `{"id": 1, "body": null, "extra": 2}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, typ := range fuzzTypes {
			v, err := FromJSON(typ, data)
			if err != nil {
				continue
			}
			out, err := ToJSON(typ, v)
			if err != nil {
				t.Fatalf("%s: FromJSON accepted %q as %#v, but ToJSON fails: %v", typ, data, v, err)
			}
			back, err := FromJSON(typ, out)
			if err != nil {
				t.Fatalf("%s: %q → %s, which FromJSON rejects: %v", typ, data, out, err)
			}
			if !reflect.DeepEqual(normalize(typ, back), normalize(typ, v)) {
				t.Fatalf("%s: %q → %#v → %s → %#v", typ, data, v, out, back)
			}
			again, err := ToJSON(typ, back)
			if err != nil || (!hasStrMap(typ) && !bytes.Equal(again, out)) {
				t.Fatalf("%s: %s is not stable: %s, %v", typ, out, again, err)
			}
		}
	})
}

// normalize gives a Map Str value the meaning of the JSON object it is
// written as: keys unique (the last one wins) and in no particular order,
// so sorted. A Map Str read from [key, value] pairs keeps its pairs as they
// came, and becomes an object on the way out. A Json value read from its
// text keeps its keys' order and its strings' escapes; the same value read
// after encoding/json decoded it has them sorted and rewritten.
func normalize(t *Type, v any) any {
	if v == nil {
		return nil
	}
	switch t.Kind {
	case JSON:
		raw, err := DecodeJSON([]byte(v.(JSONText)))
		if err != nil {
			return err
		}
		text, err := jsonTextFromValue(raw)
		if err != nil {
			return err
		}
		return text
	case Optional:
		return normalize(t.Elem, v)
	case List, Tuple:
		if t.Kind == List && typedElem(t.Elem) {
			return v // a typed slice of leaves, as they are
		}
		xs := v.([]any)
		out := make([]any, len(xs))
		for i, x := range xs {
			et := t.Elem
			if t.Kind == Tuple {
				et = t.Items[i]
			}
			out[i] = normalize(et, x)
		}
		return out
	case Map:
		ps := v.([]Pair)
		if t.Key.Kind != Str {
			out := make([]Pair, len(ps))
			for i, p := range ps {
				out[i] = Pair{normalize(t.Key, p.Key), normalize(t.Elem, p.Value)}
			}
			return out
		}
		last := map[string]any{}
		for _, p := range ps {
			last[p.Key.(string)] = normalize(t.Elem, p.Value)
		}
		out := make([]Pair, 0, len(last))
		for k, x := range last {
			out = append(out, Pair{k, x})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Key.(string) < out[j].Key.(string) })
		return out
	case Record:
		m := v.(map[string]any)
		out := make(map[string]any, len(m))
		for _, f := range t.Fields {
			out[f.Name] = normalize(f.Type, m[f.Name])
		}
		return out
	}
	return v
}

func hasStrMap(t *Type) bool {
	return Holds(t, func(u *Type) bool { return u.Kind == Map && u.Key.Kind == Str })
}

// The normalisation above must not hide real differences.
func TestNormalize(t *testing.T) {
	m := MapOf(StrType, IntType)
	a := []Pair{{"b", int64(1)}, {"a", int64(2)}, {"b", int64(3)}}
	b := []Pair{{"a", int64(2)}, {"b", int64(3)}}
	if !reflect.DeepEqual(normalize(m, a), normalize(m, b)) {
		t.Error("a map with a repeated key should mean its last value")
	}
	c := []Pair{{"a", int64(2)}, {"b", int64(1)}}
	if reflect.DeepEqual(normalize(m, a), normalize(m, c)) {
		t.Error("normalize hides a different value")
	}
	mi := MapOf(IntType, IntType)
	if reflect.DeepEqual(normalize(mi, []Pair{{int64(1), int64(1)}, {int64(2), int64(2)}}), normalize(mi, []Pair{{int64(2), int64(2)}, {int64(1), int64(1)}})) {
		t.Error("normalize reorders a map with Int keys")
	}
	if !reflect.DeepEqual(normalize(JSONType, JSONText(`{"b":"\u00e9","a":1}`)), normalize(JSONType, JSONText(`{"a":1,"b":"é"}`))) {
		t.Error("normalize tells apart two spellings of one Json value")
	}
	if reflect.DeepEqual(normalize(JSONType, JSONText(`{"a":1}`)), normalize(JSONType, JSONText(`{"a":1.0}`))) {
		t.Error("normalize hides a different Json value")
	}
}

// samples is a record of large lists, as a record argument carries them.
var samples = &Type{Kind: Record, Name: "Samples", Fields: []Field{
	{Name: "xs", Type: ListOf(RealType)},
	{Name: "ns", Type: ListOf(IntType)},
	{Name: "more", Type: OptionalOf(ListOf(RealType))},
}}

// FuzzParseFast checks that the one-pass reader of common shapes reads
// every input it accepts exactly as the general reader does.
func FuzzParseFast(f *testing.F) {
	for _, s := range []string{`1`, `-0`, `1.5e3`, `"a"`, `"é"`, `"\u00e9"`, `[1,2,3]`, ` [ 1 , 2 ] `, `[[1],[2,3]]`, `[1,"a"]`, `true`, `null`, `[1.0]`, `01`, `1.`, `[1,]`, `[true,false]`, `[true,1]`, `9223372036854775808`, "\"\xff\"", `[]`, `[null,2]`,
		`{"name":"n"}`, `{ "name" : "n" , "score" : 1 , "tags" : [ "a" ] , "at" : { "x" : 1 , "y" : 2 } }`,
		`{"name":"n","name":"m"}`, `{"name":"n","extra":1}`, `{"score":1}`, `{"name":"n",}`, `{"name":"n" "score":1}`,
		`{"name":"n","note":null,"at":null}`, `[{"name":"a"},{"name":"b","tags":[]}]`, `{"id":1,"body":{"b":1,"a":2}}`,
		`{"xs":[1,2.5],"ns":[-9223372036854775808]}`, `{"xs":[],"ns":[],"more":[1e308]}`} {
		f.Add([]byte(s))
	}
	shapes := []*Type{
		IntType, RealType, StrType, BoolType, UnitType,
		ListOf(IntType), ListOf(RealType), ListOf(StrType), ListOf(BoolType), ListOf(ListOf(IntType)),
		OptionalOf(IntType), ListOf(OptionalOf(IntType)), TupleOf(IntType, StrType),
		JSONType, ListOf(OptionalOf(JSONType)),
		entry, ListOf(entry), doc, samples,
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ty := range shapes {
			fast, ok := parseFast(ty, data)
			if !ok {
				continue
			}
			raw, err := DecodeJSON(data)
			if err != nil {
				t.Fatalf("%s %q: fast accepted what is not JSON: %v", ty, data, err)
			}
			slow, err := FromJSONValue(ty, raw)
			if err != nil {
				t.Fatalf("%s %q: fast accepted %#v, general refused: %v", ty, data, fast, err)
			}
			if !reflect.DeepEqual(normalize(ty, fast), normalize(ty, slow)) {
				t.Fatalf("%s %q: fast %#v, general %#v", ty, data, fast, slow)
			}
		}
	})
}

// TestParseFastRecords checks which records the one-pass reader takes
// (FuzzParseFast checks that it reads them as the general way does): a
// record of large lists must not fall back to an interface value per item.
func TestParseFastRecords(t *testing.T) {
	for _, c := range []struct {
		typ  *Type
		in   string
		fast bool
	}{
		{samples, `{"xs":[1,2.5],"ns":[3]}`, true},
		{samples, ` { "ns" : [ ] , "xs" : [ ] , "more" : [ -0.0 ] } `, true},
		{ListOf(entry), `[{"name":"a","at":{"x":1,"y":2}},{"name":"b","tags":[]}]`, true},
		{entry, `{}`, false},                          // name has no default: the general way says so
		{entry, `{"name":"a","name":"b"}`, false},     // encoding/json keeps the last
		{entry, `{"name":"a","size":1}`, false},       // no such field
		{entry, `{"na\u006de":"a"}`, false},           // a key with an escape
		{doc, `{"id":1,"body":{"b":1,"a":2}}`, false}, // a Json's keys come sorted in a record
		{samples, `{"xs":[1],"ns":[1.5]}`, false},     // not an integer
	} {
		v, ok := parseFast(c.typ, []byte(c.in))
		if ok != c.fast {
			t.Errorf("%s %s: parseFast ok %v, want %v", c.typ, c.in, ok, c.fast)
			continue
		}
		if rec, isRec := v.(map[string]any); ok && isRec {
			if _, typed := rec["xs"].([]float64); !typed {
				t.Errorf("%s %s: xs is %T, want []float64", c.typ, c.in, rec["xs"])
			}
		}
	}
}
