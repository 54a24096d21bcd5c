package syntax

import "testing"

// TestPrimitiveNewtype: `newtype Map a b` without '=' is a primitive
// newtype, without a body, and the next line starts a new item.
func TestPrimitiveNewtype(t *testing.T) {
	f := parseOK(t, "module m (f)\nnewtype Table k v\nnewtype Path = Str\nnewtype Unit\nf :: Path -> Str\n")
	if len(f.Newtypes) != 3 {
		t.Fatalf("got %d newtypes, want 3", len(f.Newtypes))
	}
	for i, want := range []struct {
		name   string
		params int
		body   bool
	}{{"Table", 2, false}, {"Path", 0, true}, {"Unit", 0, false}} {
		nt := f.Newtypes[i]
		if nt.Name.Name != want.name || len(nt.Params) != want.params || (nt.Body != nil) != want.body {
			t.Errorf("newtype %d: %s with %d params, body %v; want %s with %d, body %v", i, nt.Name.Name, len(nt.Params), nt.Body != nil, want.name, want.params, want.body)
		}
	}
	if len(f.Signatures) != 1 {
		t.Errorf("got %d signatures after the primitive newtypes, want 1", len(f.Signatures))
	}
}
