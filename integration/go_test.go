package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// goProgram has a Go identity function per type of the language's table,
// with the Go types the table names, plus functions for the ways a Go
// function can end: no result, a returned error, a panic, printing.
var goProgram = files{
	"ids.go": `package ids

import (
	"errors"
	"fmt"
	"os"
)

// Pair is the mapped struct of record Pair; its fields match by name,
// ignoring case.
type Pair struct {
	Name  string
	Score float64
	Tags  []string
	Note  *string
	Extra int // not in the record: left alone
}

// Triple holds the tuple (Int, Str, Bool), item by item.
type Triple struct {
	N int
	S string
	B bool
}

// Entry is the tuple (Str, ?[Map Str Real]).
type Entry struct {
	Key    string
	Values *[]map[string]float64
}

type Celsius float64

func IdInt(x int) int                           { return x }
func IdInt64(x int64) int64                     { return x }
func IdInt8(x int8) int8                        { return x }
func IdUint(x uint32) uint32                    { return x }
func IdReal(x float64) float64                  { return x }
func IdCelsius(x Celsius) Celsius               { return x }
func IdStr(s string) string                     { return s }
func IdBool(b bool) bool                        { return b }
func IdList(xs []int) []int                     { return xs }
func IdReals(xs []float64) []float64            { return xs }
func IdOpt(x *int) *int                         { return x }
func IdMapStr(m map[string]int) map[string]int  { return m }
func IdMapInt(m map[int]string) map[int]string  { return m }
func IdTuple(t Triple) Triple                   { return t }
func IdArray(t [3]float64) [3]float64           { return t }
func IdRec(p Pair) Pair                         { return p }
func IdRecPtr(p *Pair) *Pair                    { return p }
func IdRecs(ps []Pair) []Pair                   { return ps }
func IdNested(es []Entry) []Entry               { return es }
func IdOptRec(p *Pair) *Pair                    { return p }

// Describe shows the Go value it received.
func Describe(p Pair) string {
	note := "<nil>"
	if p.Note != nil {
		note = *p.Note
	}
	return fmt.Sprintf("%s %v %q %s %d", p.Name, p.Score, p.Tags, note, p.Extra)
}

func Nothing(x int) {
	fmt.Println("side effect only", x)
}

func Now() int { return 42 }

func Sum(xs ...float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

func DivMod(a, b int) (int, int) { return a / b, a % b }

func Safe(a, b int) (int, error) {
	if b == 0 {
		return 0, errors.New("cannot divide " + fmt.Sprint(a) + " by zero")
	}
	return a / b, nil
}

func Check(x int) error {
	if x < 0 {
		return fmt.Errorf("%d is negative", x)
	}
	return nil
}

func Boom(x int) int {
	var m map[string]int
	m["x"] = x
	return x
}

func Shout(s string) string {
	fmt.Println("println:", s)
	fmt.Fprintln(os.Stdout, "fprintln to os.Stdout:", s)
	os.Stderr.WriteString("to stderr: " + s + "\n")
	return s
}
`,
	"main.loc": `
module gotypes (*)
import root-go
source Go from "ids.go"
  ( "IdInt" as idInt, "IdInt64" as idInt64, "IdInt8" as idInt8, "IdUint" as idUint
  , "IdReal" as idReal, "IdCelsius" as idCelsius, "IdStr" as idStr, "IdBool" as idBool
  , "IdList" as idList, "IdReals" as idReals, "IdOpt" as idOpt
  , "IdMapStr" as idMapStr, "IdMapInt" as idMapInt, "IdTuple" as idTuple, "IdArray" as idArray
  , "IdRec" as idRec, "IdRecPtr" as idRecPtr, "IdRecs" as idRecs, "IdNested" as idNested
  , "IdOptRec" as idOptRec, "Describe" as describe
  , "Nothing" as nothing, "Now" as now, "Sum" as sum, "DivMod" as divMod
  , "Safe" as safe, "Check" as check, "Boom" as boom, "Shout" as shout
  )

record Pair where
  name :: Str
  score :: Real
  tags :: [Str]
  note :: ?Str
record Go => Pair = "Pair"

idInt :: Int -> Int
idInt64 :: Int -> Int
idInt8 :: Int -> Int
idUint :: Int -> Int
idReal :: Real -> Real
idCelsius :: Real -> Real
idStr :: Str -> Str
idBool :: Bool -> Bool
idList :: [Int] -> [Int]
idReals :: [Real] -> [Real]
idOpt :: ?Int -> ?Int
idMapStr :: Map Str Int -> Map Str Int
idMapInt :: Map Int Str -> Map Int Str
idTuple :: (Int, Str, Bool) -> (Int, Str, Bool)
idArray :: (Real, Real, Real) -> (Real, Real, Real)
idRec :: Pair -> Pair
idRecPtr :: Pair -> Pair
idRecs :: [Pair] -> [Pair]
idNested :: [(Str, ?[Map Str Real])] -> [(Str, ?[Map Str Real])]
idOptRec :: ?Pair -> ?Pair
describe :: Pair -> Str
nothing :: Int -> ()
now :: () -> Int
sum :: [Real] -> Real
divMod :: Int -> Int -> (Int, Int)
safe :: Int -> Int -> Int
check :: Int -> ()
boom :: Int -> Int
shout :: Str -> Str

--' Go and a pure command together
viaBoth :: Int -> Int
viaBoth x = idInt (idInt64 x)
`,
}

func TestGoTypesRoundTrip(t *testing.T) {
	p := buildTimed(t, goProgram)
	pair := `{"name":"n","score":2.5,"tags":["a","b"],"note":null}`
	cases := []struct {
		cmd  string
		args []string
		out  string
	}{
		{"idInt", []string{"42"}, "42"},
		{"idInt", []string{"-7"}, "-7"},
		{"idInt", []string{"-9223372036854775808"}, "-9223372036854775808"},
		{"idInt", []string{"9223372036854775807"}, "9223372036854775807"},
		{"idInt64", []string{"-9223372036854775808"}, "-9223372036854775808"},
		{"idInt64", []string{"9007199254740993"}, "9007199254740993"},
		{"idInt8", []string{"-128"}, "-128"},
		{"idUint", []string{"4294967295"}, "4294967295"},
		{"idReal", []string{"1.5"}, "1.5"},
		{"idReal", []string{"-0.25"}, "-0.25"},
		{"idReal", []string{"3"}, "3"},
		{"idReal", []string{"1e300"}, "1e+300"},
		{"idCelsius", []string{"36.6"}, "36.6"},
		{"idStr", []string{"hello"}, `"hello"`},
		{"idStr", []string{"héllo wörld ✓ 日本"}, `"héllo wörld ✓ 日本"`},
		{"idStr", []string{`"a \"q\" \\ b\nc"`}, `"a \"q\" \\ b\nc"`},
		{"idStr", []string{`"it's"`}, `"it's"`},
		{"idStr", []string{""}, `""`},
		{"idBool", []string{"true"}, "true"},
		{"idBool", []string{"false"}, "false"},
		{"idList", []string{"[1,2,3]"}, "[1,2,3]"},
		{"idList", []string{"[]"}, "[]"},
		{"idReals", []string{"[0.5,-1,1e-9]"}, "[0.5,-1,1e-09]"},
		{"idReals", []string{"[]"}, "[]"},
		{"idOpt", []string{"7"}, "7"},
		{"idMapStr", []string{`{"b":2,"a":1}`}, `{"a":1,"b":2}`},
		{"idMapStr", []string{`{}`}, `{}`},
		// A Go map has no order; the pool sends its entries sorted by key.
		{"idMapInt", []string{`[[2,"two"],[1,"one"],[-5,"minus five"]]`}, `[[-5,"minus five"],[1,"one"],[2,"two"]]`},
		{"idMapInt", []string{`[]`}, `[]`},
		{"idTuple", []string{`[1,"x",true]`}, `[1,"x",true]`},
		{"idArray", []string{`[1.5,2,-3]`}, `[1.5,2,-3]`},
		{"idRec", []string{pair}, pair},
		{"idRec", []string{`{"tags":[],"score":1,"name":"z","note":"hi"}`}, `{"name":"z","score":1,"tags":[],"note":"hi"}`},
		{"idRecPtr", []string{pair}, pair},
		{"idRecs", []string{"[" + pair + "," + pair + "]"}, "[" + pair + "," + pair + "]"},
		{"idRecs", []string{"[]"}, "[]"},
		{"idNested", []string{`[["a",null],["b",[{"x":1.5,"y":-2},{}]]]`}, `[["a",null],["b",[{"x":1.5,"y":-2},{}]]]`},
		{"idOptRec", []string{pair}, pair},
		{"describe", []string{`{"name":"n","score":2.5,"tags":["a","b"],"note":"hi"}`}, `"n 2.5 [\"a\" \"b\"] hi 0"`},
		{"describe", []string{pair}, `"n 2.5 [\"a\" \"b\"] <nil> 0"`},
		{"now", []string{}, "42"},
		{"sum", []string{"[1,2,3.5]"}, "6.5"},
		{"divMod", []string{"17", "5"}, "[3,2]"},
		{"safe", []string{"9", "2"}, "4"},
		{"viaBoth", []string{"41"}, "41"},
	}
	for _, c := range cases {
		args := append([]string{c.cmd}, c.args...)
		if got := p.ok(args...); got != c.out+"\n" {
			t.Errorf("%q = %q, want %q", args, got, c.out+"\n")
		}
	}
	// Unset optionals print nothing unless kept.
	if got := p.ok("--keep-null", "idOpt", "null"); got != "null\n" {
		t.Errorf("idOpt null = %q, want null", got)
	}
	if got := p.ok("--keep-null", "idOptRec", "null"); got != "null\n" {
		t.Errorf("idOptRec null = %q, want null", got)
	}
}

func TestGoFailures(t *testing.T) {
	p := build(t, goProgram)

	// A function without a result: nothing on stdout, its print on stderr.
	res := p.run("nothing", "3")
	if res.code != 0 || res.stdout != "" {
		t.Errorf("nothing 3: exit %d, stdout %q; want 0 and nothing", res.code, res.stdout)
	}
	if !strings.Contains(res.stderr, "side effect only 3") {
		t.Errorf("nothing's print is not on stderr: %q", res.stderr)
	}

	// A returned error is the failure's message.
	stderr := p.fails(1, "safe", "1", "0")
	if !strings.Contains(stderr, "cannot divide 1 by zero") {
		t.Errorf("safe 1 0: %q", stderr)
	}
	stderr = p.fails(1, "check", "--", "-4")
	if !strings.Contains(stderr, "-4 is negative") {
		t.Errorf("check -4: %q", stderr)
	}
	if out := p.ok("check", "4"); out != "" {
		t.Errorf("check 4 printed %q", out)
	}

	// A panic fails the command with the panic and the user's line, and
	// nothing of the pool's or gRPC's.
	stderr = p.fails(1, "boom", "1")
	t.Log(stderr)
	for _, want := range []string{"panicked: assignment to entry in nil map", "ids.Boom(", "ids.go:96"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("boom: stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, unwanted := range []string{"grpc", "nexus_call", "goroutine ", "nexuspool"} {
		if strings.Contains(stderr, unwanted) {
			t.Errorf("boom: stderr mentions %q:\n%s", unwanted, stderr)
		}
	}

	// An Int that does not fit the Go parameter.
	stderr = p.fails(1, "idInt8", "300")
	if !strings.Contains(stderr, "300 does not fit in int8") {
		t.Errorf("idInt8 300: %q", stderr)
	}
	stderr = p.fails(1, "idUint", "--", "-1")
	if !strings.Contains(stderr, "-1 does not fit in uint32") {
		t.Errorf("idUint -1: %q", stderr)
	}
}

// TestGoStdout: what a Go function prints reaches stderr, never stdout,
// which holds the result only.
func TestGoStdout(t *testing.T) {
	p := build(t, goProgram)
	res := p.run("shout", "hey")
	if res.code != 0 || res.stdout != "\"hey\"\n" {
		t.Fatalf("shout hey: exit %d, stdout %q", res.code, res.stdout)
	}
	for _, want := range []string{"println: hey", "fprintln to os.Stdout: hey", "to stderr: hey"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q: %q", want, res.stderr)
		}
	}
}

// buildTimed builds fs twice, logging how long the first build and the
// rebuild of unchanged sources take; no timing is asserted on a shared
// machine.
func buildTimed(t *testing.T, fs files) *program {
	t.Helper()
	start := time.Now()
	p := build(t, fs)
	first := time.Since(start)
	start = time.Now()
	res := runIn(t, p.dir, nil, nexusBin, "make", "-o", "prog", "main.loc")
	if res.code != 0 {
		t.Fatalf("rebuild failed:\n%s", res.stderr)
	}
	t.Logf("nexus make with a Go pool: first build %s, rebuild %s", first.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	return p
}

// TestGoPackageMain: a file of `package main`, with a main function and
// unexported functions, serves those functions.
func TestGoPackageMain(t *testing.T) {
	p := build(t, files{
		"tool.go": `package main

import (
	"fmt"
	"strings"
)

type point struct{ x, y float64 }

func shout(s string) string { return strings.ToUpper(s) + "!" }

func mid(a, b point) point { return point{(a.x + b.x) / 2, (a.y + b.y) / 2} }

func main() { fmt.Println(shout("run by hand")) }
`,
		"main.loc": `
module tool (shout, mid)
import root-go
source Go from "tool.go" ("shout", "mid")
record Point where
  x :: Real
  y :: Real
shout :: Str -> Str
mid :: Point -> Point -> Point
`,
	})
	if got := p.ok("shout", "hey"); got != "\"HEY!\"\n" {
		t.Errorf("shout hey = %q", got)
	}
	if got := p.ok("mid", `{"x":0,"y":0}`, `{"x":2,"y":-4}`); got != `{"x":1,"y":-2}`+"\n" {
		t.Errorf("mid = %q", got)
	}
}

// TestGoCompileError: Go that does not compile fails the build with the
// compiler's message, naming the user's file and line first.
func TestGoCompileError(t *testing.T) {
	stderr := makeFails(t, files{
		"bad.go": `package bad

func Twice(x int) int {
	return x * 2
}

func Broken(x int) int {
	return "not an int"
}
`,
		"main.loc": `
module m (twice)
import root-go
source Go from "bad.go" ("Twice" as twice)
twice :: Int -> Int
`,
	})
	t.Log(stderr)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	var first string
	for _, l := range lines {
		if strings.Contains(l, ".go:") {
			first = l
			break
		}
	}
	if !strings.HasPrefix(first, "bad.go:8:9: ") || !strings.Contains(first, "not an int") {
		t.Errorf("the first message is %q, want bad.go:8:9 and the compiler's words", first)
	}
	for _, unwanted := range []string{"nexus_pool.go", "user/bad", "# nexuspool"} {
		if strings.Contains(stderr, unwanted) {
			t.Errorf("stderr mentions generated code %q:\n%s", unwanted, stderr)
		}
	}
}

// TestGoBuildErrors: a Go function whose types cannot hold the program's,
// and a Go file that does not parse, fail the build naming the user's file
// and line.
func TestGoBuildErrors(t *testing.T) {
	cases := []struct {
		name, src, loc string
		want           []string
	}{
		{"parameter type", `package f

func F(xs []string) int { return len(xs) }
`, "f :: [Int] -> Int", []string{"f.go:3:11:", "[]string", "[Int]", "integer type"}},
		{"result type", `package f

func F(x int) string { return "" }
`, "f :: Int -> Int", []string{"f.go:3:15:", "string", "Int"}},
		{"parameter count", `package f

func F(a, b int) int { return a + b }
`, "f :: Int -> Int", []string{"f.go:3:6:", "2 parameters", "declares 1"}},
		{"record field", `package f

type S struct{ A int }

func F(s S) int { return s.A }
`, "record R where\n  a :: Int\n  b :: Int\nf :: R -> Int", []string{"f.go:5:10:", "f.go:3:6:", "field b", "S"}},
		{"optional without pointer", `package f

func F(x int) int { return x }
`, "f :: ?Int -> Int", []string{"f.go:3:10:", "pointer"}},
		{"syntax error", `package f

func F(x int) int { return x +* }
`, "f :: Int -> Int", []string{"f.go:3:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stderr := makeFails(t, files{
				"f.go":     c.src,
				"main.loc": "module m (f)\nimport root-go\nsource Go from \"f.go\" (\"F\" as f)\n" + c.loc + "\n",
			})
			t.Log(stderr)
			for _, want := range c.want {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}

// TestGoRebuildAfterEdit: a rebuild picks up an edited Go file.
func TestGoRebuildAfterEdit(t *testing.T) {
	p := build(t, files{
		"v.go":     "package v\n\nfunc Version() int { return 1 }\n",
		"main.loc": "module v (version)\nimport root-go\nsource Go from \"v.go\" (\"Version\" as version)\nversion :: () -> Int\n",
	})
	if got := p.ok("version"); got != "1\n" {
		t.Fatalf("version = %q", got)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "v.go"), []byte("package v\n\nfunc Version() int { return 2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if res := runIn(t, p.dir, nil, nexusBin, "make", "-o", "prog", "main.loc"); res.code != 0 {
		t.Fatalf("rebuild failed:\n%s", res.stderr)
	}
	t.Logf("rebuild after an edit: %s", time.Since(start).Round(time.Millisecond))
	if got := p.ok("version"); got != "2\n" {
		t.Errorf("after the edit, version = %q", got)
	}
}

// TestGoWithPython: one command calls a Python function and feeds its
// result to a Go function, each in its own pool.
func TestGoWithPython(t *testing.T) {
	p := build(t, files{
		"chem.py": "def weight(s):\n    return 12.0 * len(s)\n",
		"mathx.go": `package mathx

func Clamp(lo, hi, x float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}
`,
		"main.loc": `
module mixed (capped)
import root-py
import root-go
source Py from "chem.py" ("weight" as weightPy)
source Go from "mathx.go" ("Clamp" as clamp)
weightPy :: Str -> Real
clamp :: Real -> Real -> Real -> Real

capped ::
  Str ->
  --' arg: --max
  --' default: 50.0
  Real ->
  Real
capped s hi = clamp 0.0 hi (weightPy s)
`,
	})
	if got := p.ok("capped", "CCO"); got != "36\n" {
		t.Errorf("capped CCO = %q, want 36", got)
	}
	if got := p.ok("capped", "CCCCCC"); got != "50\n" {
		t.Errorf("capped CCCCCC = %q, want 50", got)
	}
}
