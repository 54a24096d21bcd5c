package types

import "testing"

// A sized number is range-checked where it enters, wherever it sits in a
// value; Int and Real stay unbounded but for their own representation.
func TestFromJSONWidths(t *testing.T) {
	u8, i8, f32 := Sized("U8"), Sized("I8"), Sized("F32")
	tests := []struct {
		name string
		t    *Type
		in   string
		err  string
	}{
		{"U8 in range", u8, "255", ""},
		{"U8 over", u8, "256", "256 overflows U8, whose values are 0 to 255"},
		{"U8 negative", u8, "-1", "-1 overflows U8, whose values are 0 to 255"},
		{"I8 lowest", i8, "-128", ""},
		{"I8 under", i8, "-129", "-129 overflows I8, whose values are -128 to 127"},
		{"U64 beyond Int", Sized("U64"), "9223372036854775807", ""},
		{"F32 over", f32, "1e39", "1e+39 overflows F32, whose values are within ±3.4028234663852886e+38"},
		{"F32 in range", f32, "1.5", ""},
		{"list item", ListOf(u8), "[1, 2, 300]", "at [2]: 300 overflows U8, whose values are 0 to 255"},
		{"tuple item", TupleOf(StrType, OptionalOf(i8)), `["a", 200]`, "at [1]: 200 overflows I8, whose values are -128 to 127"},
		{"map value", MapOf(StrType, u8), `{"k": 999}`, "at [k]: 999 overflows U8, whose values are 0 to 255"},
		{"plain Int unbounded by widths", IntType, "100000", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromJSON(tt.t, []byte(tt.in))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.err {
				t.Errorf("FromJSON(%s, %s): error %q, want %q", tt.t, tt.in, got, tt.err)
			}
		})
	}
}

// A sized type is its Int or Real to Equal, and prints as its name.
func TestSizedIsItsKind(t *testing.T) {
	if !Equal(Sized("U8"), IntType) || !Equal(Sized("F32"), RealType) {
		t.Error("a sized type differs from its Int or Real")
	}
	if Sized("Int8") != nil || Sized("Int") != nil {
		t.Error("Sized accepts a name that is no sized type")
	}
	if s := ListOf(Sized("I32")).String(); s != "[I32]" {
		t.Errorf("String %s, want [I32]", s)
	}
}
