package types

import (
	"encoding/json"
	"strings"
	"testing"
)

// Records shared by the tests of this package.
var (
	// point is a record without defaults or optional fields.
	point = &Type{Kind: Record, Name: "Point", Fields: []Field{
		{Name: "x", Type: IntType},
		{Name: "y", Type: IntType},
	}}
	// entry has a field of every flavour: required, optional, defaulted,
	// and a nested record. Its field order is deliberately not sorted.
	entry = &Type{Kind: Record, Name: "Entry", Fields: []Field{
		{Name: "name", Type: StrType},
		{Name: "score", Type: RealType, Default: json.RawMessage(`0.5`)},
		{Name: "tags", Type: ListOf(StrType), Default: json.RawMessage(`["new"]`)},
		{Name: "note", Type: OptionalOf(StrType)},
		{Name: "at", Type: OptionalOf(point)},
	}}
)

func TestString(t *testing.T) {
	cases := []struct {
		typ  *Type
		want string
	}{
		{IntType, "Int"},
		{RealType, "Real"},
		{StrType, "Str"},
		{BoolType, "Bool"},
		{UnitType, "()"},
		{ListOf(IntType), "[Int]"},
		{ListOf(ListOf(StrType)), "[[Str]]"},
		{OptionalOf(IntType), "?Int"},
		{OptionalOf(ListOf(IntType)), "?[Int]"},
		{ListOf(OptionalOf(IntType)), "[?Int]"},
		{OptionalOf(OptionalOf(BoolType)), "??Bool"},
		{MapOf(StrType, IntType), "Map Str Int"},
		{MapOf(StrType, MapOf(IntType, StrType)), "Map Str (Map Int Str)"},
		{MapOf(MapOf(IntType, IntType), StrType), "Map (Map Int Int) Str"},
		{MapOf(StrType, ListOf(RealType)), "Map Str [Real]"},
		{MapOf(IntType, TupleOf(IntType, StrType)), "Map Int (Int, Str)"},
		{OptionalOf(MapOf(StrType, IntType)), "?(Map Str Int)"},
		{ListOf(MapOf(StrType, IntType)), "[Map Str Int]"},
		{TupleOf(IntType, StrType), "(Int, Str)"},
		{TupleOf(IntType, ListOf(StrType)), "(Int, [Str])"},
		{TupleOf(UnitType, OptionalOf(RealType), MapOf(StrType, BoolType)), "((), ?Real, Map Str Bool)"},
		{ListOf(TupleOf(IntType, point)), "[(Int, Point)]"},
		{point, "Point"},
		{OptionalOf(entry), "?Entry"},
		{MapOf(StrType, point), "Map Str Point"},
		{nil, "<nil type>"},
		{&Type{Kind: "mystery"}, "mystery"},
	}
	for _, c := range cases {
		if got := c.typ.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}

func TestValidateGood(t *testing.T) {
	good := []*Type{
		IntType, RealType, StrType, BoolType, UnitType,
		ListOf(IntType),
		OptionalOf(ListOf(OptionalOf(StrType))),
		MapOf(StrType, MapOf(IntType, StrType)),
		TupleOf(IntType, StrType),
		TupleOf(IntType, StrType, ListOf(point)),
		point,
		entry,
		{Kind: Record, Name: "Empty"},
		{Kind: Record, Name: "Defaults", Fields: []Field{
			{Name: "p", Type: point, Default: json.RawMessage(`{"x": 1, "y": 2}`)},
			{Name: "m", Type: MapOf(IntType, StrType), Default: json.RawMessage(`[[1, "one"]]`)},
			{Name: "o", Type: OptionalOf(IntType), Default: json.RawMessage(`null`)},
		}},
	}
	for _, typ := range good {
		if err := typ.Validate(); err != nil {
			t.Errorf("%s: Validate() = %v, want nil", typ, err)
		}
	}
}

func TestValidateBad(t *testing.T) {
	cases := []struct {
		name string
		typ  *Type
		want string
	}{
		{"nil", nil, "missing type"},
		{"unknown kind", &Type{Kind: "float"}, `unknown type kind "float"`},
		{"empty kind", &Type{}, `unknown type kind ""`},
		{"list without element", &Type{Kind: List}, "list type without an element type"},
		{"optional without element", &Type{Kind: Optional}, "optional type without an element type"},
		{"bad list element", ListOf(&Type{Kind: "x"}), `unknown type kind "x"`},
		{"bad optional element", OptionalOf(ListOf(nil)), "list type without an element type"},
		{"map without key", &Type{Kind: Map, Elem: IntType}, "map type without key or value type"},
		{"map without value", &Type{Kind: Map, Key: StrType}, "map type without key or value type"},
		{"bad map key", MapOf(&Type{Kind: List}, IntType), "list type without an element type"},
		{"bad map value", MapOf(StrType, TupleOf()), "tuple type with 0 items"},
		{"empty tuple", TupleOf(), "tuple type with 0 items"},
		{"one-item tuple", TupleOf(IntType), "tuple type with 1 items"},
		{"tuple with nil item", TupleOf(IntType, nil), "missing type"},
		{"tuple with bad item", TupleOf(IntType, &Type{Kind: Map}), "map type without key or value type"},
		{"record without name", &Type{Kind: Record}, "record type without a name"},
		{"field without name", &Type{Kind: Record, Name: "R", Fields: []Field{{Type: IntType}}},
			"record R: field without a name"},
		{"field twice", &Type{Kind: Record, Name: "R", Fields: []Field{{Name: "a", Type: IntType}, {Name: "a", Type: StrType}}},
			`record R: field "a" twice`},
		{"field without type", &Type{Kind: Record, Name: "R", Fields: []Field{{Name: "a"}}},
			"record R field a: missing type"},
		{"nested bad field", &Type{Kind: Record, Name: "R", Fields: []Field{{Name: "a", Type: ListOf(nil)}}},
			"record R field a: list type without an element type"},
		{"default of wrong type", &Type{Kind: Record, Name: "R", Fields: []Field{{Name: "a", Type: IntType, Default: json.RawMessage(`"one"`)}}},
			`record R field a: default: expected an integer, got the string "one"`},
		{"default not JSON", &Type{Kind: Record, Name: "R", Fields: []Field{{Name: "a", Type: IntType, Default: json.RawMessage(`{`)}}},
			"record R field a: default: not valid JSON"},
		{"bad record inside list", ListOf(&Type{Kind: Record, Name: "Q", Fields: []Field{{Name: "", Type: IntType}}}),
			"record Q: field without a name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.typ.Validate()
			if err == nil {
				t.Fatalf("Validate() = nil, want an error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate() = %q, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestEqual(t *testing.T) {
	otherPoint := &Type{Kind: Record, Name: "Point", Fields: []Field{{Name: "z", Type: StrType}}}
	cases := []struct {
		a, b *Type
		want bool
	}{
		{nil, nil, true},
		{IntType, nil, false},
		{nil, IntType, false},
		{IntType, &Type{Kind: Int}, true},
		{IntType, RealType, false},
		{StrType, BoolType, false},
		{UnitType, &Type{Kind: Unit}, true},
		{ListOf(IntType), ListOf(IntType), true},
		{ListOf(IntType), ListOf(RealType), false},
		{ListOf(IntType), OptionalOf(IntType), false},
		{OptionalOf(ListOf(StrType)), OptionalOf(ListOf(StrType)), true},
		{OptionalOf(ListOf(StrType)), OptionalOf(ListOf(IntType)), false},
		{MapOf(StrType, IntType), MapOf(StrType, IntType), true},
		{MapOf(StrType, IntType), MapOf(IntType, IntType), false},
		{MapOf(StrType, IntType), MapOf(StrType, StrType), false},
		{MapOf(StrType, MapOf(IntType, StrType)), MapOf(StrType, MapOf(IntType, StrType)), true},
		{TupleOf(IntType, StrType), TupleOf(IntType, StrType), true},
		{TupleOf(IntType, StrType), TupleOf(StrType, IntType), false},
		{TupleOf(IntType, StrType), TupleOf(IntType, StrType, StrType), false},
		{TupleOf(IntType, StrType), ListOf(IntType), false},
		// Records are compared by name: codegen makes names unique.
		{point, point, true},
		{point, otherPoint, true},
		{point, entry, false},
		{ListOf(point), ListOf(entry), false},
	}
	for _, c := range cases {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Equal(c.b, c.a); got != c.want {
			t.Errorf("Equal(%s, %s) = %v, want %v (not symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestField(t *testing.T) {
	if f := entry.Field("tags"); f == nil || f.Name != "tags" || !Equal(f.Type, ListOf(StrType)) {
		t.Errorf("Field(tags) = %+v", f)
	}
	if f := entry.Field("nope"); f != nil {
		t.Errorf("Field(nope) = %+v, want nil", f)
	}
}

// The manifest stores types as JSON; a type must survive that unchanged.
func TestTypeJSONRoundTrip(t *testing.T) {
	typ := TupleOf(MapOf(StrType, OptionalOf(entry)), ListOf(UnitType))
	typ.Items[0].Elem.Elem.Langs = map[string]string{"py": "dict", "cpp": "Entry"}
	data, err := json.Marshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	var back Type
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(&back)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(data) {
		t.Errorf("type changed through JSON:\n%s\n%s", data, again)
	}
	if err := back.Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
	if back.String() != "(Map Str ?Entry, [()])" {
		t.Errorf("String() = %q", back.String())
	}
}
