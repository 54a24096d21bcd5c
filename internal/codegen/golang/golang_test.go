package golang

import (
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// srcFiles writes files into a new folder and returns it.
func srcFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// spec is a sourced function for the tests: its Go name, argument and
// result types, and file.
func spec(id int, source, file string, ret *types.Type, args ...*types.Type) Function {
	return Function{
		Spec: &manifest.Function{ID: id, Name: strings.ToLower(source), Source: source, Pool: manifest.Go, Args: args, Return: ret},
		File: file,
	}
}

var (
	I = types.IntType
	R = types.RealType
	S = types.StrType
	B = types.BoolType
	U = types.UnitType
)

func record(name, goName string, fields ...types.Field) *types.Type {
	t := &types.Type{Kind: types.Record, Name: name, Fields: fields}
	if goName != "" {
		t.Langs = map[string]string{manifest.Go: goName}
	}
	return t
}

func field(name string, t *types.Type) types.Field { return types.Field{Name: name, Type: t} }

// acceptedSource has Go signatures that hold the program's types of
// acceptedFunctions.
const acceptedSource = `package m

type Celsius float64
type Names []string
type Index map[string]int
type Pair struct{ A int; B string }
type Summary struct {
	Mean float64
	SD   float64 ` + "`json:\"sd\"`" + `
	TmpDir string
	other int
}
type Node struct {
	Label string
	Kids  []Node
}

func Ints(a int, b int8, c int16, d int32, e int64, f uint, g uint64, h byte, i rune) int64 { return 0 }
func Reals(a float32, b float64, c Celsius) Celsius { return 0 }
func Named(n Names, i Index) (Names, Index) { return n, i }
func Tuple(p Pair) [2]float64 { return [2]float64{} }
func Rec(s *Summary) (Summary, error) { return *s, nil }
func Opt(x *int, y **string) *[]Pair { return nil }
func Variadic(prefix string, xs ...float64) float64 { return 0 }
func Nothing() {}
func OnlyErr(x int) error { return nil }
func Many(a, b int) (int, string, error) { return 0, "", nil }
func Units(a int, b struct{}) struct{} { return struct{}{} }
func Tree(n Node) Node { return n }
var Lit = func(x int) int { return x }
var Typed func(x int) int = func(x int) int { return x }
func lower(x map[Pair]bool) map[bool][]Pair { return nil }
func Doc(j any, js []interface{}, k *any) map[string]any { return nil }
func Bytes(b []byte) []uint8 { return b }
type Keep func(p Pair) bool
func Higher(f func(int8, string) []Pair, g func(Celsius) (bool, error), k Keep, say func(string)) int { return 0 }
`

func acceptedFunctions(file string) []Function {
	pair := types.TupleOf(I, S)
	summary := record("Summary", "Summary", field("mean", R), field("sd", R), field("tmp_dir", S))
	node := record("Node", "", field("label", S))
	return []Function{
		spec(0, "Ints", file, I, I, I, I, I, I, I, I, I, I),
		spec(1, "Reals", file, R, R, R, R),
		spec(2, "Named", file, types.TupleOf(types.ListOf(S), types.MapOf(S, I)), types.ListOf(S), types.MapOf(S, I)),
		spec(3, "Tuple", file, types.TupleOf(R, R), pair),
		spec(4, "Rec", file, summary, summary),
		spec(5, "Opt", file, types.OptionalOf(types.ListOf(pair)), types.OptionalOf(I), types.OptionalOf(types.OptionalOf(S))),
		spec(6, "Variadic", file, R, S, types.ListOf(R)),
		spec(7, "Nothing", file, U, U),
		spec(8, "OnlyErr", file, U, I),
		spec(9, "Many", file, types.TupleOf(I, S), I, I),
		spec(10, "Units", file, U, I, U),
		spec(11, "Tree", file, node, node),
		spec(12, "Lit", file, I, I),
		spec(13, "Typed", file, I, I),
		spec(14, "lower", file, types.MapOf(B, types.ListOf(pair)), types.MapOf(pair, B)),
		spec(15, "Doc", file, types.MapOf(S, types.JSONType), types.JSONType, types.ListOf(types.JSONType), types.OptionalOf(types.JSONType)),
		spec(16, "Higher", file, I, types.FuncOf(types.ListOf(pair), I, S), types.FuncOf(B, R), types.FuncOf(B, pair), types.FuncOf(U, S)),
		{Spec: &manifest.Function{ID: 17, Name: "map", Source: "morloc_map", Pool: manifest.Go, Args: []*types.Type{types.FuncOf(I, I), types.ListOf(I)}, Return: types.ListOf(I)}, File: sourced.PreludeFile},
		spec(18, "Bytes", file, S, S),
	}
}

// TestGenerateAccepts: generation succeeds, with the conversions each Go
// type calls for.
func TestGenerateAccepts(t *testing.T) {
	dir := srcFiles(t, map[string]string{"m.go": acceptedSource})
	m, err := generate(acceptedFunctions(filepath.Join(dir, "m.go")))
	if err != nil {
		t.Fatal(err)
	}
	gen := string(m.files["user/m/nexus_pool.go"])
	for _, want := range []string{
		"nexus_rt.DecodeInt[int8]", "nexus_rt.DecodeReal[Celsius]", "make(Names,", "nexus_rt.DecodeReals(",
		`case "sd":`, ".TmpDir", "Variadic(nexus_a0, nexus_a1...)", "nexus_rt.SortedKeysFunc(", "nexus_rt.SortedKeys(",
		"lower(nexus_a0)", "nexus_rt.DecodeJSON(", "nexus_rt.EncodeJSON(",
		"nexus_rt.DecodeFuncRef(", "return func(nexus_p0 int8, nexus_p1 string) []Pair {", "return func(nexus_p0 Celsius) (bool, error) {",
		"return func(nexus_p0 string) {",
		"nexus_rt.DecodeBytes[[]byte]", "nexus_rt.EncodeBytes[[]uint8]",
	} {
		if !strings.Contains(gen, want) {
			t.Errorf("generated code lacks %q", want)
		}
	}
	if main := string(m.files["main.go"]); !strings.Contains(main, `gopool.RegisterPrelude(17, "morloc_map", "map")`) {
		t.Errorf("main.go does not register the prelude loop:\n%s", main)
	}
	if t.Failed() {
		t.Log(gen)
	}
}

// TestWriteBuilds builds the generated code of every accepted signature
// with `go build` (the tests of pools/go and the integration tests run such
// pools).
func TestWriteBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go pool")
	}
	dir := srcFiles(t, map[string]string{"m.go": acceptedSource})
	buildDir := filepath.Join(t.TempDir(), "prog-build")
	cmd, err := Write(filepath.Join(buildDir, "pools", "go"), buildDir, acceptedFunctions(filepath.Join(dir, "m.go")))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"$BUILD/pools/go/pool"}; strings.Join(cmd, " ") != strings.Join(want, " ") {
		t.Errorf("command %q, want %q", cmd, want)
	}
	st, err := os.Stat(filepath.Join(buildDir, "pools", "go", "pool"))
	if err != nil || st.Mode()&0o100 == 0 {
		t.Fatalf("no pool binary: %v", err)
	}
	if _, set := os.LookupEnv("CGO_ENABLED"); !set {
		if dynamic, ok := dynamicELF(t, filepath.Join(buildDir, "pools", "go", "pool")); ok && dynamic {
			t.Error("the pool is linked dynamically; a pool that needs no C is built static")
		}
	}
}

// A pool whose user code needs C is built with cgo, after the build
// without it failed.
func TestWriteCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go pool")
	}
	if _, set := os.LookupEnv("CGO_ENABLED"); set {
		t.Skip("CGO_ENABLED is set, and obeyed")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler")
	}
	dir := srcFiles(t, map[string]string{"c.go": "package c\n\n// static int twice(int x) { return 2 * x; }\nimport \"C\"\n\nfunc Twice(x int) int { return int(C.twice(C.int(x))) }\n"})
	buildDir := filepath.Join(t.TempDir(), "prog-build")
	if _, err := Write(filepath.Join(buildDir, "pools", "go"), buildDir, []Function{spec(0, "Twice", filepath.Join(dir, "c.go"), I, I)}); err != nil {
		t.Fatal(err)
	}
	if dynamic, ok := dynamicELF(t, filepath.Join(buildDir, "pools", "go", "pool")); ok && !dynamic {
		t.Error("the pool of cgo code is static: was it built with cgo?")
	}
}

// dynamicELF reports whether the ELF binary at path asks for a dynamic
// loader; ok is false where binaries are not ELF.
func dynamicELF(t *testing.T, path string) (dynamic, ok bool) {
	if runtime.GOOS != "linux" {
		return false, false
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return true, true
		}
	}
	return false, true
}

func TestWriteCompileError(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go pool")
	}
	dir := srcFiles(t, map[string]string{"calc.go": "package calc\n\nfunc F(x int) int {\n\treturn y\n}\n"})
	buildDir := filepath.Join(t.TempDir(), "prog-build")
	_, err := Write(filepath.Join(buildDir, "pools", "go"), buildDir, []Function{spec(0, "F", filepath.Join(dir, "calc.go"), I, I)})
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a CompileError", err)
	}
	if want := filepath.Join(dir, "calc.go") + ":4:9: undefined: y"; ce.Output != want {
		t.Errorf("got %q, want %q", ce.Output, want)
	}
}

// TestGenerateRejects: a Go type that cannot hold the program's type is a
// build error at the user's file and line, saying why.
func TestGenerateRejects(t *testing.T) {
	cases := []struct {
		name, src string
		fn        Function
		want      []string
	}{
		{"string for Int", "package m\n\nfunc F(x string) int { return 0 }\n",
			spec(0, "F", "", I, I), []string{"m.go:3:10: F's parameter 1 has type string", "Int needs an integer type"}},
		{"float for Int result", "package m\n\nfunc F(x int) float64 { return 0 }\n",
			spec(0, "F", "", I, I), []string{"m.go:3:15: F returns float64", "the program's Int"}},
		{"no pointer for optional", "package m\n\nfunc F(x []int) int { return 0 }\n",
			spec(0, "F", "", I, types.OptionalOf(types.ListOf(I))), []string{"m.go:3:10:", "?[Int] needs a pointer"}},
		{"tuple of the wrong size", "package m\n\ntype P struct{ A, B int }\n\nfunc F(p P) int { return 0 }\n",
			spec(0, "F", "", I, types.TupleOf(I, I, I)), []string{"m.go:5:10:", "m.go:3:6:", "a struct with 3 fields, one per item", "P has 2"}},
		{"array of the wrong size", "package m\n\nfunc F(p [2]int) int { return 0 }\n",
			spec(0, "F", "", I, types.TupleOf(I, I, I)), []string{"m.go:3:10:", "or an array of 3"}},
		{"record mapped to another struct", "package m\n\ntype A struct{ X int }\n\nfunc F(a A) int { return 0 }\n",
			spec(0, "F", "", I, record("Rec", "B", field("x", I))), []string{"m.go:5:10:", `record Go => Rec = "B"`}},
		{"missing field", "package m\n\ntype A struct{ X int }\n\nfunc F(a A) int { return 0 }\n",
			spec(0, "F", "", I, record("Rec", "", field("x", I), field("y", I))), []string{"m.go:3:6:", "field y has no matching field in A"}},
		{"ambiguous field", "package m\n\ntype A struct{ Mean, MEAN int }\n\nfunc F(a A) int { return 0 }\n",
			spec(0, "F", "", I, record("Rec", "", field("mean", I))), []string{"field mean matches both Mean and MEAN"}},
		{"wrong field type", "package m\n\ntype A struct {\n\tX string\n}\n\nfunc F(a A) int { return 0 }\n",
			spec(0, "F", "", I, record("Rec", "", field("x", I))), []string{"m.go:7:10:", "m.go:4:4:", "Int needs an integer type"}},
		{"type from another package", "package m\n\nimport \"time\"\n\nfunc F(d time.Duration) int { return 0 }\n",
			spec(0, "F", "", I, I), []string{"m.go:5:10:", "time.Duration (a type from another package)"}},
		{"interface", "package m\n\nfunc F(x any) int { return 0 }\n",
			spec(0, "F", "", I, I), []string{"any (an interface)"}},
		{"Json as a struct", "package m\n\ntype D struct{ A int }\n\nfunc F(d D) int { return 0 }\n",
			spec(0, "F", "", I, types.JSONType), []string{"m.go:5:10:", "Json needs any (holding what encoding/json decodes", "not D"}},
		{"Json as a string", "package m\n\nfunc F(j int) string { return \"\" }\n",
			spec(0, "F", "", types.JSONType, I), []string{"m.go:3:15: F returns string", "Json needs any"}},
		{"parameter count", "package m\n\nfunc F(a, b int) int { return 0 }\n",
			spec(0, "F", "", I, I), []string{"m.go:3:6: F takes 2 parameters, but the program declares 1"}},
		{"no result", "package m\n\nfunc F(a int) {}\n",
			spec(0, "F", "", I, I), []string{"F returns no value, but the program declares it returns Int"}},
		{"too many results", "package m\n\nfunc F(a int) (int, int) { return 0, 0 }\n",
			spec(0, "F", "", I, I), []string{"F returns 2 values", "items of a tuple"}},
		{"generic", "package m\n\nfunc F[T any](a T) T { return a }\n",
			spec(0, "F", "", I, I), []string{"m.go:3:6: F is generic"}},
		{"untyped var", "package m\n\nimport \"math\"\n\nvar F = math.Abs\n",
			spec(0, "F", "", R, R), []string{"m.go:5:5: F is a variable whose type is not written"}},
		{"method only", "package m\n\ntype T struct{}\n\nfunc (T) F(x int) int { return x }\n",
			spec(0, "F", "", I, I), []string{"no top-level func F"}},
		{"function for a value", "package m\n\nfunc F(f int) int { return 0 }\n",
			spec(0, "F", "", I, types.FuncOf(I, I)), []string{"m.go:3:10:", "Int -> Int needs a func type with 1 parameter and one result"}},
		{"func of another arity", "package m\n\nfunc F(f func(int, int) int) int { return 0 }\n",
			spec(0, "F", "", I, types.FuncOf(I, I)), []string{"m.go:3:10:", "not func(int, int) int"}},
		{"func with a wrong parameter type", "package m\n\nfunc F(f func(string) int) int { return 0 }\n",
			spec(0, "F", "", I, types.FuncOf(I, I)), []string{"m.go:3:10:", "Int needs an integer type"}},
		{"func without a result", "package m\n\nfunc F(f func(int)) int { return 0 }\n",
			spec(0, "F", "", I, types.FuncOf(I, I)), []string{"m.go:3:10:", "not func(int)"}},
		{"unknown prelude loop", "package m\n\nfunc F(x int) int { return x }\n",
			Function{Spec: &manifest.Function{ID: 0, Name: "map", Source: "morloc_mystery", Args: []*types.Type{types.FuncOf(I, I)}, Return: I}}, []string{"no prelude function morloc_mystery"}},
		{"syntax error", "package m\n\nfunc F(x int) int { return x +* }\n",
			spec(0, "F", "", I, I), []string{"does not compile", "m.go:3:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := srcFiles(t, map[string]string{"m.go": c.src})
			c.fn.File = filepath.Join(dir, "m.go")
			fns := []Function{c.fn}
			if strings.HasPrefix(c.fn.Spec.Source, "morloc_") {
				fns[0].File = sourced.PreludeFile
				fns = append(fns, spec(1, "F", c.fn.File, I, I))
			}
			_, err := generate(fns)
			if err == nil {
				t.Fatal("generation succeeded")
			}
			t.Log(err)
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q", want)
				}
			}
			if c.name == "syntax error" {
				var ce *CompileError
				if !errors.As(err, &ce) {
					t.Errorf("a syntax error is %T, want a *CompileError", err)
				}
			}
		})
	}
}

func TestPackages(t *testing.T) {
	dir := srcFiles(t, map[string]string{
		"a.go":       "package stats\n\nfunc Mean(xs []float64) float64 { return sum(xs) / float64(len(xs)) }\n",
		"helpers.go": "package stats\n\nfunc sum(xs []float64) (s float64) {\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n",
		"a_test.go":  "package stats\n\nfunc helperForTests() {}\n",
		"gen.go":     "//go:build ignore\n\npackage stats\n\nfunc main() {}\n",
		"other.go":   "package other\n\nfunc X() {}\n",
		"tool.go":    "package main\n\nfunc shout(s string) string { return s }\n\nfunc main() {}\n",
		"tool2.go":   "package main\n\nfunc main() {}\n",
	})
	m, err := generate([]Function{
		spec(0, "Mean", filepath.Join(dir, "a.go"), R, types.ListOf(R)),
		spec(1, "shout", filepath.Join(dir, "tool.go"), S, S),
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range m.files {
		names = append(names, name)
	}
	sort.Strings(names)
	want := []string{"go.mod", "go.sum", "main.go",
		"user/stats/a.go", "user/stats/helpers.go", "user/stats/nexus_pool.go",
		"user/tool/nexus_pool.go", "user/tool/tool.go"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", names, want)
	}
	tool := string(m.files["user/tool/tool.go"])
	if wantHead := "//line " + filepath.Join(dir, "tool.go") + ":1:1\npackage tool\n"; !strings.HasPrefix(tool, wantHead) {
		t.Errorf("tool.go copy starts %q, want %q", tool[:min(len(tool), 80)], wantHead)
	}
	if a := string(m.files["user/stats/a.go"]); !strings.HasPrefix(a, "//line "+filepath.Join(dir, "a.go")+":1:1\npackage stats\n") {
		t.Errorf("a.go copy starts %q", a[:min(len(a), 80)])
	}
	main := string(m.files["main.go"])
	for _, im := range []string{`_ "nexuspool/user/stats"`, `_ "nexuspool/user/tool"`} {
		if !strings.Contains(main, im) {
			t.Errorf("main.go lacks %s:\n%s", im, main)
		}
	}
	mod := string(m.files["go.mod"])
	if !strings.HasPrefix(mod, "module nexuspool\n") || !strings.Contains(mod, "replace github.com/nexus-run/nexus => ./nexus") {
		t.Errorf("go.mod:\n%s", mod)
	}
}

func TestIdentifier(t *testing.T) {
	for in, want := range map[string]string{
		"mathx": "mathx", "My-Tool": "my_tool", "2fast": "user_2fast", "main": "user_main", "type": "user_type", "日本": "__",
	} {
		if got := identifier(in); got != want {
			t.Errorf("identifier(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCompilerOutput(t *testing.T) {
	wd, _ := os.Getwd()
	user := filepath.Join(wd, "testdata-not-there", "calc.go")
	dir := "/build/prog-build.tmp/pools/go"
	copies := map[string]string{"user/calc/calc.go": user}
	rel, _ := filepath.Rel(dir, user)
	out := "# nexuspool/user/calc\n" +
		"user/calc/nexus_pool.go:40:2: something generated\n" +
		rel + ":7:9: undefined: foo\n" +
		"go: downloading example.com/x v1.0.0\n" +
		"user/calc/calc.go:3:2: no required module provides package example.com/y; to add it:\n" +
		"\tgo get example.com/y\n"
	got := compilerOutput(out, dir, copies)
	want := filepath.Join("testdata-not-there", "calc.go") + ":7:9: undefined: foo\n" +
		filepath.Join("testdata-not-there", "calc.go") + ":3:2: no required module provides package example.com/y" +
		" (a Go pool builds with the standard library and the modules nexus itself uses; other modules cannot be imported)\n" +
		"/build/prog-build.tmp/pools/go/user/calc/nexus_pool.go:40:2: something generated"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
