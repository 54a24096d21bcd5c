package golang

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// packedPath is a newtype of Str whose Go packing is functions 7 (pack)
// and 8 (unpack).
func packedPath(native string) *types.Type {
	return &types.Type{Kind: types.Str, Name: "Path", Packs: map[string]*types.Packing{
		manifest.Go: {Native: native, Pack: 7, Unpack: 8},
	}}
}

const pathsSource = `package m

type Path struct{ Parts []string }

func ToPath(s string) (Path, error) { return Path{Parts: []string{s}}, nil }
func FromPath(p Path) string { return p.Parts[0] }
func Bad(a, b string) Path { return Path{} }
func Stems(ps []*Path, q Path) Path { return q }
func Plain(s string) string { return s }
`

// TestGeneratePackable: a function declaring the type pack returns gets
// the wire form decoded as pack's parameter and packed, in a list of
// pointers too, and its result unpacked; pack's error is the decoder's.
func TestGeneratePackable(t *testing.T) {
	dir := srcFiles(t, map[string]string{"m.go": pathsSource})
	file := filepath.Join(dir, "m.go")
	path := packedPath("Path")
	m, err := generate([]Function{
		spec(7, "ToPath", file, path, S),
		spec(8, "FromPath", file, S, path),
		spec(1, "Stems", file, path, types.ListOf(types.OptionalOf(path)), path),
	})
	if err != nil {
		t.Fatal(err)
	}
	gen := string(m.files["user/m/nexus_pool.go"])
	for _, want := range []string{
		"return ToPath(nexus_w)\n",
		"nexus_w := FromPath(nexus_v)\n",
		"Stems(nexus_a0, nexus_a1)",
	} {
		if !strings.Contains(gen, want) {
			t.Errorf("generated code lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(gen)
	}
}

func TestGeneratePackableRejects(t *testing.T) {
	cases := []struct {
		name   string
		native string
		fns    func(file, other string, path *types.Type) []Function
		want   []string
	}{
		{"the body's form", "", func(file, _ string, path *types.Type) []Function {
			return []Function{spec(7, "ToPath", file, path, S), spec(8, "FromPath", file, S, path), spec(1, "Plain", file, S, path)}
		}, []string{"m.go:9:14: Plain's parameter 1 has type string", "Path is Path in Go, what its pack function ToPath returns, not string"}},
		{"another type map", "Other", func(file, _ string, path *types.Type) []Function {
			return []Function{spec(7, "ToPath", file, path, S), spec(8, "FromPath", file, S, path)}
		}, []string{`m.go:3:6: newtype Path is the Go type Other (type Go => Path = "Other"), but its pack function ToPath returns Path`}},
		{"pack of two parameters", "", func(file, _ string, path *types.Type) []Function {
			return []Function{spec(7, "Bad", file, path, S), spec(8, "FromPath", file, S, path), spec(1, "Stems", file, path, types.ListOf(types.OptionalOf(path)), path)}
		}, []string{"m.go:7:6: Bad, the pack of newtype Path, must take one value and return one"}},
		{"pack in another package", "", func(file, other string, path *types.Type) []Function {
			return []Function{spec(7, "ToPath", other, path, S), spec(8, "FromPath", file, S, path), spec(1, "Stems", file, path, types.ListOf(types.OptionalOf(path)), path)}
		}, []string{"newtype Path's pack ToPath is not in package m", "put them in that package"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := srcFiles(t, map[string]string{"m.go": pathsSource})
			otherDir := srcFiles(t, map[string]string{"o.go": "package o\n\ntype Path struct{}\n\nfunc ToPath(s string) Path { return Path{} }\n"})
			_, err := generate(c.fns(filepath.Join(dir, "m.go"), filepath.Join(otherDir, "o.go"), packedPath(c.native)))
			if err == nil {
				t.Fatal("generation succeeded")
			}
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}
