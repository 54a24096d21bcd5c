package syntax

import "testing"

// TestFunctionTypeEffects: a function type keeps the effect row of its
// result (`a -> <e> b`), the row a row variable binds through.
func TestFunctionTypeEffects(t *testing.T) {
	for src, want := range map[string]string{
		"f :: (a -> <e> b) -> [a] -> <e> [b]":          "<e> ",
		"f :: (a -> <IO> b -> <Err, e> c) -> a -> Int": "<Err, e> ",
		"f :: (a -> b) -> a -> b":                      "",
	} {
		f := parseOK(t, "module m (f)\n"+src+"\n")
		ft, ok := f.Signatures[0].Params[0].Type.(*FuncType)
		if !ok {
			t.Fatalf("%s: first parameter is %T, want a function type", src, f.Signatures[0].Params[0].Type)
		}
		if got := effectsString(ft.Effects); got != want {
			t.Errorf("%s: result row %q, want %q", src, got, want)
		}
	}
}
