package codegen

import (
	"strings"
	"testing"
)

// Sized number types are Int and Real with a width: they mix with Int and
// Real, and their literals take the width.
func TestSizedTypes(t *testing.T) {
	wantBodies(t, []bodyCase{
		{"a U8 plus an Int literal", "f :: U8 -> U8\nf x = x + 1", "($0 + 1)", "U8"},
		{"a U8 where an Int is expected", "f :: U8 -> Int\nf x = double x", "double($0)", "Int"},
		{"an Int literal widened to F32", "f :: F32\nf = 255", "255.0", "F32"},
		{"a list of I16", "f :: [I16]\nf = [-32768, 32767]", "[-32768,32767]", "[I16]"},
		{"an older spelling", "f :: UInt8 -> Float64\nf x = 1.5", "1.5", "F64"},
		{"an older spelling the program declares", "type Int32 = Int\nf :: Int32 -> Int32\nf x = x", "$0", "Int"},
	})
}

// Literals out of a sized type's range are errors where they are written.
func TestSizedLiteralErrors(t *testing.T) {
	wantErrors(t, []errorCase{
		{"over U8", "f :: U8\nf = 1000", "7:5: Integer literal 1000 overflows U8, whose values are 0 to 255"},
		{"under U16", "f :: U16 -> U16\nf x = x - -1", "7:11: Integer literal -1 overflows U16, whose values are 0 to 65535"},
		{"in a list", "f :: [I8]\nf = [1, 128]", "7:9: Integer literal 128 overflows I8, whose values are -128 to 127"},
		{"over F32", "f :: F32\nf = 1.0e39", "7:5: Float literal 1e+39 overflows F32"},
		{"type arguments", "f :: U8 Int -> Int\nf x = 1", "6:6: type U8 takes no type arguments, but is given 1"},
	})
}

// An older spelling of a sized type warns, naming the current one.
func TestOlderSizedSpellingWarns(t *testing.T) {
	p := compileOK(t, program("f", "f :: Int64 -> Int\nf x = x"))
	want := "Int64 is Morloc's older spelling of I64; write I64"
	for _, w := range p.Warnings {
		if strings.HasSuffix(w, want) {
			return
		}
	}
	t.Errorf("warnings %q, want one saying %q", p.Warnings, want)
}
