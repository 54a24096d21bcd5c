package python

import (
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// TestScriptPacked: a newtype with a Python packing is written as its
// body's form with its pack and unpack function ids; its Packs in
// another language, or none, leave the body's form.
func TestScriptPacked(t *testing.T) {
	packs := map[string]*types.Packing{manifest.Python: {Native: "pathlib.Path", Pack: 4, Unpack: 5}}
	path := &types.Type{Kind: types.Str, Name: "Path", Packs: packs}
	cppOnly := &types.Type{Kind: types.List, Elem: types.IntType, Name: "Deque Int",
		Packs: map[string]*types.Packing{manifest.Cpp: {Pack: 1, Unpack: 2}}}
	fns := []Function{{Spec: &manifest.Function{ID: 2, Name: "below", Source: "below", Pool: manifest.Python,
		Args: []*types.Type{types.ListOf(path), cppOnly}, Return: path}, File: "/src/p.py"}}
	script, err := Script(fns)
	if err != nil {
		t.Fatal(err)
	}
	want := `2: (0, "below", "below", [("list", ("packed", "str", 4, 5)), ("list", "int")], ("packed", "str", 4, 5)),`
	if !strings.Contains(string(script), want) {
		t.Errorf("pool.py:\n%s\nwant the line\n%s", script, want)
	}
}
