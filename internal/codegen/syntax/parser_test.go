package syntax

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/codegen/diag"
)

func parse(t *testing.T, src string) (*File, *diag.Sink) {
	t.Helper()
	sink := &diag.Sink{File: "main.loc"}
	return Parse(src, sink), sink
}

func parseOK(t *testing.T, src string) *File {
	t.Helper()
	f, sink := parse(t, src)
	if errs := sink.Errors(); errs != nil {
		t.Fatalf("unexpected errors:\n%v\nsource:\n%s", errs, src)
	}
	return f
}

func TestModuleHeader(t *testing.T) {
	tests := []struct {
		src     string
		name    string
		all     bool
		exports string
	}{
		{"module chem (weight, capped)", "chem", false, "weight,capped"},
		{"module chem (*)", "chem", true, ""},
		{"module my-tool (a)", "my-tool", false, "a"},
		{"module chem\n  ( weight\n  , capped\n  )", "chem", false, "weight,capped"},
		{"module chem (Settings, f)", "chem", false, "Settings,f"},
	}
	for _, tt := range tests {
		f := parseOK(t, tt.src)
		m := f.Module
		var ex []string
		for _, e := range m.Exports {
			ex = append(ex, e.Name)
		}
		if m.Name.Name != tt.name || m.All != tt.all || strings.Join(ex, ",") != tt.exports {
			t.Errorf("%q: got name %q all %v exports %q", tt.src, m.Name.Name, m.All, ex)
		}
	}
}

func TestImports(t *testing.T) {
	f := parseOK(t, "module m (*)\nimport root\nimport root-py\nimport root-cpp (a, b)\nimport math.stats\n")
	var got []string
	for _, im := range f.Imports {
		got = append(got, im.Module.Name)
	}
	if strings.Join(got, " ") != "root root-py root-cpp math.stats" {
		t.Fatalf("imports: %v", got)
	}
	if len(f.Imports[2].Items) != 2 || f.Imports[2].Items[1].Name.Name != "b" {
		t.Errorf("import list: %+v", f.Imports[2].Items)
	}
	if p := f.Imports[1].Module.Pos; p != (diag.Pos{Line: 3, Col: 8}) {
		t.Errorf("import position %v", p)
	}
}

func TestSource(t *testing.T) {
	f := parseOK(t, `module m (*)
source Py from "lib/chem.py" ("molecular_weight" as weightPy, "describe_config")
source Cpp from "stats.hpp"
  ( "summarize" as summarizeCpp
  , "scale"
  )
source Go from "mathx.go" ("Clamp" as clamp)
`)
	if len(f.Sources) != 3 {
		t.Fatalf("got %d sources", len(f.Sources))
	}
	s := f.Sources[0]
	if s.Lang.Name != "Py" || s.Path.Value != "lib/chem.py" || s.Path.Pos != (diag.Pos{Line: 2, Col: 16}) {
		t.Errorf("source 0: %+v", s)
	}
	if it := s.Items[0]; it.Name.Value != "molecular_weight" || it.Alias.Name != "weightPy" || it.Alias.Pos != (diag.Pos{Line: 2, Col: 53}) {
		t.Errorf("item 0: %+v", it)
	}
	if it := s.Items[1]; it.Alias.Name != "describe_config" || it.Alias.Pos != it.Name.Pos {
		t.Errorf("item 1: %+v", it)
	}
	if it := f.Sources[1].Items[1]; it.Name.Value != "scale" || it.Name.Pos != (diag.Pos{Line: 5, Col: 5}) {
		t.Errorf("multi-line item: %+v", it)
	}
}

func TestTypes(t *testing.T) {
	tests := []struct{ src, want string }{
		{"f :: Int -> Real -> Str", "f :: Int -> Real -> Str"},
		{"f :: Bool -> ()", "f :: Bool -> ()"},
		{"f :: [Int] -> [[Real]]", "f :: [Int] -> [[Real]]"},
		{"f :: ?Int -> ?[Str]", "f :: ?Int -> ?[Str]"},
		{"f :: Map Str Int -> Map Int [Real]", "f :: (Map Str Int) -> (Map Int [Real])"},
		{"f :: (Int, Str) -> (Int, (Real, Bool), [Str])", "f :: (Int, Str) -> (Int, (Real, Bool), [Str])"},
		{"f :: Settings -> Summary", "f :: Settings -> Summary"},
		{"f :: (Int) -> ?(Map Str Int)", "f :: Int -> ?(Map Str Int)"},
		{"f :: Int -> <IO> Int", "f :: Int -> Int"},
		{"f :: Int -> <IO, Err> [Int]", "f :: Int -> [Int]"},
		{"f :: <Err> Str", "f :: Str"},
		{"f :: Int", "f :: Int"},
		{"f :: List Int -> Int", "f :: (List Int) -> Int"},
		{"f :: (a -> b) -> [a] -> [b]", "f :: (a -> b) -> [a] -> [b]"},
		{"f :: (a -> <IO> b -> c) -> Map a b", "f :: (a -> b -> c) -> (Map a b)"},
		{"f :: Ord a => a -> a", "f :: a -> a"},
		{"f :: (Foldable f, Monoid a) => [a] -> a", "f :: [a] -> a"},
		{"f :: Ord => a -> (a, Int) -> a", "f :: a -> (a, Int) -> a"},
	}
	for _, tt := range tests {
		f := parseOK(t, "module m (*)\n"+tt.src)
		if len(f.Signatures) != 1 {
			t.Fatalf("%q: %d signatures", tt.src, len(f.Signatures))
		}
		if got := sigString(f.Signatures[0]); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestMultiLineSignatureDocs(t *testing.T) {
	f := parseOK(t, `module m (*)
--' Molecular weight
--' return: in daltons
capped ::
  --' @name smiles
  Str ->
  --' The cap
  --' arg: --max
  --' default: 500.0
  Real ->
  --' the weight
  Real
`)
	s := f.Signatures[0]
	if got := docString(s.Doc); got != "Molecular weight|return: in daltons" {
		t.Errorf("signature doc %q", got)
	}
	if got := docString(s.Params[0].Doc); got != "@name smiles" {
		t.Errorf("arg 1 doc %q", got)
	}
	if got := docString(s.Params[1].Doc); got != "The cap|arg: --max|default: 500.0" {
		t.Errorf("arg 2 doc %q", got)
	}
	if got := docString(s.Result.Doc); got != "the weight" {
		t.Errorf("result doc %q", got)
	}
	// Pos of a doc line is where its text starts, right after --'.
	if p := s.Params[1].Doc[1].Pos; p != (diag.Pos{Line: 8, Col: 6}) {
		t.Errorf("doc line position %v", p)
	}
}

func TestDocstringAttachment(t *testing.T) {
	f := parseOK(t, `--' The program.
--' Second line.
module m (*)

--' About the source
source Py from "a.py" ("f")

--' sig doc
f :: Int -> Int
--' def doc
g x = x

--' Options.
--' unroll: true
record Settings where
  --' Precision
  --' default: 3
  precision :: Int
  -- a plain comment between docstrings and the field
  --' Include hydrogens
  hydrogens :: Bool
  other :: Map Str Int
  last :: ?Str

--' lang doc
record Py => Settings = "dict"
`)
	if got := docString(f.Module.Doc); got != "The program.|Second line." {
		t.Errorf("module doc %q", got)
	}
	if got := docString(f.Sources[0].Doc); got != "About the source" {
		t.Errorf("source doc %q", got)
	}
	if got := docString(f.Signatures[0].Doc); got != "sig doc" {
		t.Errorf("signature doc %q", got)
	}
	if got := docString(f.Defs[0].Doc); got != "def doc" {
		t.Errorf("definition doc %q", got)
	}
	r := f.Records[0]
	if got := docString(r.Doc); got != "Options.|unroll: true" {
		t.Errorf("record doc %q", got)
	}
	want := []struct{ name, typ, doc string }{
		{"precision", "Int", "Precision|default: 3"},
		{"hydrogens", "Bool", "Include hydrogens"},
		{"other", "(Map Str Int)", ""},
		{"last", "?Str", ""},
	}
	if len(r.Fields) != len(want) {
		t.Fatalf("got %d fields", len(r.Fields))
	}
	for i, w := range want {
		fd := r.Fields[i]
		if fd.Name.Name != w.name || typeString(fd.Type) != w.typ || docString(fd.Doc) != w.doc {
			t.Errorf("field %d: %s :: %s doc %q", i, fd.Name.Name, typeString(fd.Type), docString(fd.Doc))
		}
	}
	rl := f.RecordLangs[0]
	if rl.Lang.Name != "Py" || rl.Record.Name != "Settings" || rl.Type.Value != "dict" || docString(rl.Doc) != "lang doc" {
		t.Errorf("record lang %+v", rl)
	}
}

func TestDocstringAtColumnOneInsideSignature(t *testing.T) {
	f := parseOK(t, "module m (*)\nf ::\n--' first\n  Int ->\n  Int\n")
	if got := docString(f.Signatures[0].Params[0].Doc); got != "first" {
		t.Errorf("arg doc %q", got)
	}
}

func TestStrayDocstringWarns(t *testing.T) {
	f, sink := parse(t, "module m (*)\nf x =\n  --' lost\n  x\n--' at the end\n")
	if sink.HasErrors() || len(f.Defs) != 1 {
		t.Fatalf("errors: %v", sink.Errors())
	}
	w := sink.Warnings()
	if len(w) != 2 || !strings.HasPrefix(w[0], "main.loc:3:3: warning: docstring is not attached") ||
		!strings.HasPrefix(w[1], "main.loc:5:1: warning: docstring at the end of the file") {
		t.Errorf("warnings: %q", w)
	}
}

func TestComments(t *testing.T) {
	f := parseOK(t, `-- a comment
{- a block
   {- nested -} still comment
-}
module m (*) -- trailing
f x = {- inline -} g x -- done
---------- a ruler
`)
	if len(f.Defs) != 1 || exprString(f.Defs[0].Body) != "(g x)" {
		t.Fatalf("defs: %+v", f.Defs)
	}
}

func TestExpressions(t *testing.T) {
	tests := []struct{ src, want string }{
		{"f = 42", "42"},
		{"f = -1.5", "-1.5r"},
		{"f = 1e3", "1000r"},
		{`f = "a\"b\n\t\\ \x41\u00e9"`, `"a\"b\n\t\\ Aé"`},
		{"f = true", "true"},
		{"f = False", "false"},
		{"f = ()", "()"},
		{"f = [1, 2]", "[1, 2]"},
		{"f = []", "[]"},
		{`f = (1, "a")`, `(1, "a")`},
		{`f = {field = 1, other = "x"}`, `{field = 1, other = "x"}`},
		{"f x = x", "x"},
		{"f a = g a (h b)", "(g a (h b))"},
		{"f a = g -1 a", "(g -1 a)"},
		{"f r = .field r", "(.field r)"},
		{"f r = .x (.y r)", "(.x (.y r))"},
		{"f = g . h", "(g . h)"},
		{"f = g 1 . h . .mean", "((g 1) . h . .mean)"},
		{"f = g.h", "g.h"}, // a qualified name (an import `as g`), not composition
		{`f _ = @throw "no"`, `(@throw "no")`},
		{`f x = g (@throw "no") x`, `(g (@throw "no") x)`},
		{"f x =\n  g\n    x\n    [ 1\n    , 2\n    ]", "(g x [1, 2])"},
	}
	for _, tt := range tests {
		f := parseOK(t, "module m (*)\n"+tt.src)
		if len(f.Defs) != 1 {
			t.Fatalf("%q: %d definitions", tt.src, len(f.Defs))
		}
		if got := exprString(f.Defs[0].Body); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.src, got, tt.want)
		}
	}
}

func TestDefinitionParams(t *testing.T) {
	f := parseOK(t, "module m (*)\ncapped s _ hi = clamp 0.0 hi (weightPy s)\n")
	d := f.Defs[0]
	var ps []string
	for _, p := range d.Params {
		ps = append(ps, p.Name)
	}
	if d.Name.Name != "capped" || strings.Join(ps, " ") != "s _ hi" {
		t.Errorf("got %s %v", d.Name.Name, ps)
	}
	if d.Params[2].Pos != (diag.Pos{Line: 2, Col: 12}) {
		t.Errorf("param position %v", d.Params[2].Pos)
	}
}

func TestParseExpr(t *testing.T) {
	sink := &diag.Sink{File: "main.loc"}
	e := ParseExpr("fmt 2", diag.Pos{Line: 7, Col: 20}, sink)
	if sink.HasErrors() || exprString(e) != "(fmt 2)" {
		t.Fatalf("got %v, errors %v", e, sink.Errors())
	}
	if p := e.(*App).Args[0].ExprPos(); p != (diag.Pos{Line: 7, Col: 24}) {
		t.Errorf("position %v", p)
	}
	if ParseExpr("fmt )", diag.Pos{Line: 7, Col: 20}, sink) != nil {
		t.Error("bad expression parsed")
	}
	if errs := sink.Errors(); len(errs) != 1 || errs[0].Error() != "main.loc:7:24: unexpected ')' after the expression" {
		t.Errorf("errors %v", errs)
	}
}

// TestSyntaxErrors checks the message and the exact position of each kind
// of syntax error.
func TestSyntaxErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"module m (a b)", "1:13: expected ',' or ')' in the export list, got 'b'"},
		{"module m", "1:9: expected '(' and the exported names after the module name, got end of input"},
		{"module m (a)\nf :: Int ->", "2:12: expected a type, got end of input"},
		{"module m (a)\nf :: Int -> 3", "2:13: expected a type, got number 3"},
		{"module m (a)\nf x = (1, 2", "2:12: expected ',' or ')', got end of input"},
		{"module m (a)\nf x = [1, 2", "2:12: expected ',' or ']' in the list, got end of input"},
		{"module m (a)\nf x = {a 1}", "2:10: expected '=' after the field name, got number 1"},
		{"module m (a)\nf x = \"abc", "2:7: unterminated string: expected a closing '\"'"},
		{"module m (a)\nf x = \"a\\qb\"", "2:9: unknown escape sequence '\\q' in string"},
		{"module m (a)\nf x = \"\\u12\"", "2:8: malformed escape sequence '\\u12': expected 4 hex digits"},
		{"module m (a)\n  f x = 1", "2:3: unexpected 'f'; a continuation line must be indented, and a new item starts at column 1"},
		{"  module m (a)", "1:3: a top-level item must start at column 1"},
		{"module m (a)\nf x = 1\nwhere y = 2", "3:1: 'where' declarations are not supported; expected a module header, import, source, record, signature or definition"},
		{"module m (a)\nrecord R where\n  x :: Int\n  y Int", "4:5: expected '::' after the field name, got 'Int'"},
		{"module m (a)\nf x = (x :: Int", "2:16: expected ',' or ')', got end of input"},
		{"module m (a)\nf = {?)", "2:6: expected a field name in the record, got '?'"},
		{"module m (a)\nf = Inf", "2:5: Inf is not supported: a Real is finite in nexus, whose JSON has no infinity or NaN"},
		{"module m (a)\nf = do { a <- g; a", "2:19: expected ';' or '}' closing the '{' of the 'do' block at 2:8, got end of input"},
		{"module m (a)\nf = \"\"\"never closed", "2:5: unterminated string: expected a closing '\"\"\"'"},
		{"module m (a)\nrecord R R", "2:10: expected 'where' or '=' after the record name, followed by the fields, got 'R'"},
		{"module m (a)\nrecord R = R { x :: Int y :: Int }", "2:25: expected ',' or '}' in the record's fields, got 'y'"},
		{"module m (a)\nrecord R = { x :: Int }", "2:12: expected the record's constructor name after '=', got '{'"},
		{"module m (a)\nnewtype P :: Str", "2:11: a type alias's parameters are lower-case type variables, got '::'"},
		{"module m (a)\nf = .(.0, .x = 1) t", "2:14: a group holds getters or setters, not both"},
		{"module m (a)\nf = .(.x = 1, .y) t", "2:17: expected '=' and a value in the setter, got ')'"},
		{"module m (a)\nf = .(.0).1 t", "2:10: a getter chain ends with its group '.(...)'; nothing may follow it"},
		{"module m (a)\nf = .[] t", "2:7: expected an index or a slice i:j inside '.[', got ']'"},
		{"module m (a)\nf = .[1:2,", "2:10: expected ':' or ']' closing the index, got ','"},
		{"module m (a)\nf x = @throw", "2:13: expected a message after @throw, got end of input"},
		{"module m (a)\n{- never closed", "2:1: unterminated block comment: '{-' without '-}'"},
		{"module m (a)\nf x = 99999999999999999999", "2:7: integer 99999999999999999999 does not fit in 64 bits"},
		{"module m (a)\nf x = 12abc", "2:7: malformed number \"12abc\""},
		{"module m (a)\nf = 1 ; 2", "2:7: unexpected ';': it separates the items of a '{ ... }' block after 'do' or 'let', and top-level items are on lines of their own"},
		{"module m (a)\nf = do\n  !x", "3:3: a '!' as a statement of its own; the statement runs already: write it without the '!'"},
		{"module m (a)\nsource Py from \"x.py\" (\"a.b\")", "2:24: \"a.b\" is not a valid name in the program; give it one with 'as aB'"},
		{"module m (a)\nsource MCP from \"srv\" (\"get-sum\")", "2:24: \"get-sum\" is not a valid name in the program; give it one with 'as getSum'"},
		{"module m (a)\nsource MCP from \"srv\" (\"2-x\")", "2:24: \"2-x\" is not a valid name in the program; give it one with 'as name'"},
		{"module m (a)\nsource Py \"x.py\" (\"a\")", "2:11: expected 'from' after the source language, got string"},
		{"module m (a)\nsource Py from x.py (\"a\")", "2:16: expected the source file path (or MCP server) as a string, got 'x.py'"},
		{"module m (a)\nf 1 = 2", "2:3: expected a parameter name, '=' or '::' after 'f', got number 1"},
		{"module m (a)\nf x = _", "2:7: " + holeMessage},
		{"module m (a)\nf xs = filter (isBig _ 3) xs", "2:22: " + holeMessage},
		{"module m (a)\nf xs = zipWith (_, _) xs xs", "2:17: " + holeMessage},
		{"module m (a)\n=> x", "2:1: expected a module header, import, source, record, signature or definition, got '=>'"},
		{"module m (a)\nmodule n (b)", "2:1: a second module header; a file holds one module (the first is at 1:1)"},
		{"module m (a)\nimport root-", "2:13: expected the rest of the module name after '-'"},
		{"module m (a)\nf :: <IO Int", "2:10: expected ',' or '>' closing the effect list, got 'Int'"},
	}
	for _, tt := range tests {
		_, sink := parse(t, tt.src)
		errs := sink.Errors()
		if len(errs) != 1 || errs[0].Error() != "main.loc:"+tt.want {
			t.Errorf("%q:\n got %v\nwant main.loc:%s", tt.src, errs, tt.want)
		}
	}
}

// TestSeveralErrors checks that one bad item does not hide the next.
func TestSeveralErrors(t *testing.T) {
	f, sink := parse(t, "module m (a)\nf x = (\ng :: Int\nh y = ]\n")
	errs := sink.Errors()
	if len(errs) != 2 || errs[0].Line != 2 || errs[1].Line != 4 {
		t.Errorf("errors: %v", errs)
	}
	if len(f.Signatures) != 1 {
		t.Errorf("the good item between was lost")
	}
}

func TestLineEndingsAndByteOrderMark(t *testing.T) {
	f := parseOK(t, "\ufeff--' Doc\r\nmodule m (*)\r\nf ::\r\n  --' arg: --x\r\n  Int ->\r\n  Int\r\nf x = g x\r\n")
	if docString(f.Module.Doc) != "Doc" || f.Module.Pos != (diag.Pos{Line: 2, Col: 1}) {
		t.Errorf("module %+v", f.Module)
	}
	if got := f.Signatures[0].Params[0].Doc[0].Text; got != " arg: --x" {
		t.Errorf("doc text %q", got)
	}
	if len(f.Defs) != 1 || exprString(f.Defs[0].Body) != "(g x)" {
		t.Errorf("defs %+v", f.Defs)
	}
}

func TestTabsAndUnicodeColumns(t *testing.T) {
	_, sink := parse(t, "module m (a)\n--' é\nf x = \"é\" ]\n")
	errs := sink.Errors()
	if len(errs) != 1 || errs[0].Line != 3 || errs[0].Col != 11 {
		t.Errorf("columns count characters: %v", errs)
	}
	f := parseOK(t, "module m (a)\nf x =\n\tg x\n")
	if exprString(f.Defs[0].Body) != "(g x)" {
		t.Errorf("a tab indents a continuation line")
	}
}

// TestSoftKeywords checks that record, type, from and as still work as
// names where nothing else is meant.
func TestSoftKeywords(t *testing.T) {
	f := parseOK(t, `module m (record, from)
record Point where
  x :: Int
record Py => Point = "dict"
record :: Int -> Point
record a = {x = a}
from :: Int -> Int
from type = as type
`)
	if len(f.Records) != 1 || len(f.RecordLangs) != 1 || len(f.Signatures) != 2 || len(f.Defs) != 2 {
		t.Fatalf("records %d langs %d signatures %d defs %d", len(f.Records), len(f.RecordLangs), len(f.Signatures), len(f.Defs))
	}
	if f.Defs[0].Name.Name != "record" || exprString(f.Defs[1].Body) != "(as type)" || f.Module.Exports[0].Name != "record" {
		t.Errorf("defs %s %s", f.Defs[0].Name.Name, exprString(f.Defs[1].Body))
	}
}

// TestTypeDecls: aliases, parameterized ones, and language type maps, with
// or without parentheses around the left side and with the native form's
// arguments; and what is not supported yet.
func TestTypeDecls(t *testing.T) {
	f := parseOK(t, `module m (a)
--' A file name
type Filename = Str
type Pair a b = (a, b)
type (Matrix a) = [[a]]
type Py => Int = "int"
type Cpp => (List a) = "std::vector<$1>" a
type Py => (List U8) = "bytes" U8
type Cpp => (Map k v) = "std::map<$1,$2>" k v
type R => Real = "numeric"
`)
	var aliases, maps []string
	for _, a := range f.Aliases {
		var ps []string
		for _, p := range a.Params {
			ps = append(ps, p.Name)
		}
		aliases = append(aliases, fmt.Sprintf("%s(%s)=%s doc=%d", a.Name.Name, strings.Join(ps, ","), typeString(a.Body), len(a.Doc)))
	}
	for _, m := range f.TypeLangs {
		maps = append(maps, fmt.Sprintf("%s:%s/%d=%s", m.Lang.Name, m.Name.Name, len(m.Params), m.Native.Value))
	}
	if want := []string{"Filename()=Str doc=1", "Pair(a,b)=(a, b) doc=0", "Matrix(a)=[[a]] doc=0"}; !reflect.DeepEqual(aliases, want) {
		t.Errorf("aliases %q, want %q", aliases, want)
	}
	if want := []string{"Py:Int/0=int", "Cpp:List/1=std::vector<$1>", "Py:List/1=bytes", "Cpp:Map/2=std::map<$1,$2>", "R:Real/0=numeric"}; !reflect.DeepEqual(maps, want) {
		t.Errorf("maps %q, want %q", maps, want)
	}
	for _, c := range []struct{ text, want string }{
		{"type Vector (n :: Nat) a = [a]", "2:13: kind-annotated type parameters such as (n :: Nat), for type-level sizes, are not supported yet"},
		{"type Path", "2:10: 'type Path' without '=' and a type declares a primitive type, which is not supported; write `type Path = Type` for an alias"},
		{"type Box A = [A]", "2:10: a type alias's parameters are lower-case type variables, got 'A'"},
		{"type Py => Int = int", "2:18: expected the type's native form in the language as a string"},
	} {
		_, sink := parse(t, "module m (a)\n"+c.text+"\n")
		if errs := sink.Errors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want) {
			t.Errorf("%s: errors %v, want %q", c.text, errs, c.want)
		}
	}
}

// TestEffectDecls: effect declarations, several a line or escapable, and
// the labels of a signature's effect rows kept for the checker.
func TestEffectDecls(t *testing.T) {
	f := parseOK(t, `module m (a)
effect Rand
effect Net, Disk
escapable effect Fail
a :: Int -> <IO, Rand, e> Int
`)
	var got []string
	for _, e := range f.Effects {
		for _, n := range e.Names {
			got = append(got, fmt.Sprintf("%s/%v", n.Name, e.Escapable))
		}
	}
	if want := []string{"Rand/false", "Net/false", "Disk/false", "Fail/true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("effects %q, want %q", got, want)
	}
	var labels []string
	for _, n := range f.Signatures[0].Result.Effects {
		labels = append(labels, n.Name)
	}
	if want := []string{"IO", "Rand", "e"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
	_, sink := parse(t, "module m (a)\neffect rand\n")
	if errs := sink.Errors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "2:8: an effect name starts with an upper-case letter, not 'rand'") {
		t.Errorf("errors %v", errs)
	}
	// effect and escapable stay names elsewhere.
	f = parseOK(t, "module m (effect)\neffect :: Int -> Int\neffect x = x\n")
	if len(f.Effects) != 0 || len(f.Defs) != 1 {
		t.Errorf("effect as a name: %d effects, %d defs", len(f.Effects), len(f.Defs))
	}
}

// TestIntegerBases: hexadecimal, octal and binary integers, either case of
// prefix, negative too; a malformed one is named as Morloc names it.
func TestIntegerBases(t *testing.T) {
	f := parseOK(t, "module m (a)\na = 0xFF\nb = 0o17\nc = 0b101\nd = -0x10\ne = 0XfF\ng = 0B11\nh = 0O7\ni = 010\n")
	var got []int64
	for _, d := range f.Defs {
		got = append(got, d.Body.(*IntLit).Value)
	}
	if want := []int64{255, 15, 5, -16, 255, 3, 7, 10}; !reflect.DeepEqual(got, want) {
		t.Errorf("values %v, want %v", got, want)
	}
	checkFirstErrors(t, map[string]string{
		"a = 0xFOOD":              "2:5: malformed hexadecimal literal: 0xFOOD",
		"a = 0b102":               "2:5: malformed binary literal: 0b102",
		"a = 0o8":                 "2:5: malformed octal literal: 0o8",
		"a = 0x":                  "2:5: malformed hexadecimal literal: 0x",
		"a = 0x1FFFFFFFFFFFFFFFF": "2:5: integer 0x1FFFFFFFFFFFFFFFF does not fit in 64 bits",
	})
}

// TestOperators: operator chains kept flat for the checker, prefix minus,
// sections and references, the lexing of '-' (subtraction or a negative
// number), and fixity declarations.
func TestOperators(t *testing.T) {
	checkBodies(t, map[string]string{
		"f = x + 2.0 * 20.0":  "(x + 2r * 20r)",
		"f = g x + h y":       "((g x) + (h y))",
		"f = x - 1":           "(x - 1)",
		"f = x-1":             "(x - 1)",
		"f = x -1":            "(x -1)",
		"f = -x + 1":          "((negate x) + 1)",
		"f = -g x":            "(negate (g x))",
		"f = (+)":             "(+)",
		"f = (* 2)":           "(* 2)",
		"f = (2 /)":           "(2 /)",
		"f = (- 1)":           "(negate 1)",
		"f = (-)":             "(-)",
		"f = (a <> b) ++ c":   "((a <> b) ++ c)",
		"f = x ** 2 // 3 % 4": "(x ** 2 // 3 % 4)",
		"f = g $ h x":         "(g $ (h x))",
		"f = a < b || a >= b": "(a < b || a >= b)",
		"f = [x + 1, -y]":     "[(x + 1), (negate y)]",
		"f = (a + b, c)":      "((a + b), c)",
		"f = g . h":           "(g . h)",
		"f = a != b":          "(a != b)",
	})
	f := parseOK(t, "module m (f)\ninfixl 6 +, -\ninfixr 8 (**)\ninfix 4 ==, elem\n")
	var got []string
	for _, fx := range f.Fixities {
		for _, op := range fx.Ops {
			got = append(got, fmt.Sprintf("%s %d %s", fx.Assoc, fx.Prec, op.Name))
		}
	}
	if want := []string{"infixl 6 +", "infixl 6 -", "infixr 8 **", "infix 4 ==", "infix 4 elem"}; !reflect.DeepEqual(got, want) {
		t.Errorf("fixities %q, want %q", got, want)
	}
	_, sink := parse(t, "module m (f)\ninfixl 10 +\n")
	if errs := sink.Errors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "2:8: a fixity's precedence is from 0 to 9, not 10") {
		t.Errorf("errors %v", errs)
	}
}

// TestGuards: guarded definitions, guards as expressions (in parentheses
// inside larger ones), several conditions, and the required default.
func TestGuards(t *testing.T) {
	checkBodies(t, map[string]string{
		"f x\n  ? x < 0 = 0\n  ? x > 9 = 9\n  : x":   "(? (x < 0) = 0 ? (x > 9) = 9 : x)",
		"f done ? done = \"yes\" : \"no\"":           `(? done = "yes" : "no")`,
		"f x = \"l: \" <> (? x > 0 = \"p\" : \"n\")": `("l: " <> (? (x > 0) = "p" : "n"))`,
		"f x = [? x = 1 : 2]":                        "[(? x = 1 : 2)]",
	})
	_, sink := parse(t, "module m (f)\nf x ? x > 0 = 1\n")
	if errs := sink.Errors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "expected another '? condition = value', or ':' and the value when no condition holds") {
		t.Errorf("errors %v", errs)
	}
}

// TestWhere: a where clause's definitions, signatures and guards, on the
// lines after the body or after 'where' on a line of its own.
func TestWhere(t *testing.T) {
	f := parseOK(t, `module m (foo)
foo x = result where
  helper y = y + 1
  result = helper (helper x)
classify x
  ? x > big = "big"
  : "small"
  where
    big :: Int
    big = 100
    tiny n ? n < 1 = True : False
`)
	var got []string
	for _, d := range f.Defs {
		for _, b := range d.Where {
			got = append(got, fmt.Sprintf("%s.%s/%d=%s", d.Name.Name, b.Name.Name, len(b.Params), exprString(b.Body)))
		}
		for _, s := range d.WhereSigs {
			got = append(got, d.Name.Name+"."+s.Name.Name+"::")
		}
	}
	want := []string{"foo.helper/1=(y + 1)", "foo.result/0=(helper (helper x))", "classify.big/0=100", "classify.tiny/1=(? (n < 1) = true : false)", "classify.big::"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("where bindings %q, want %q", got, want)
	}
	if body := exprString(f.Defs[0].Body); body != "result" {
		t.Errorf("foo's body %s", body)
	}
	_, sink := parse(t, "module m (f)\nf x = y where\n  y = 1\n   z = 2\n")
	if errs := sink.Errors(); len(errs) == 0 || !strings.Contains(errs[0].Error(), "each definition of a 'where' starts a line, in the column of the first") {
		t.Errorf("errors %v", errs)
	}
}

// TestLet: a let's bindings, aligned on the first, chained lets, and a
// let inside parentheses.
func TestLet(t *testing.T) {
	checkBodies(t, map[string]string{
		"f n =\n  let m = n + 1\n      y = m + 2\n  in m + y": "(let m = (n + 1); y = (m + 2); in (m + y))",
		"g = let x = 1\n    let x = 2\n     in x":             "(let x = 1; in (let x = 2; in x))",
		"h x = 1 + (let y = x in y * 2)":                      "(1 + (let y = x; in (y * 2)))",
		"r x = let s ? x > 0 = x : 0 in s":                    "(let s = (? (x > 0) = x : 0); in s)",
	})
	checkFirstErrors(t, map[string]string{
		"f = let x = 1":          "expected 'in' after the bindings of the 'let', got end of input",
		"f = let g x = x in g 1": "expected '=' after the name in the 'let' (a 'let' binds values; write a function in a 'where')",
		"f = let [a] = xs in a":  "a list cannot be destructured by a pattern; use .[i] or the prelude's uncons",
	})
}

// checkBodies parses each source (a definition of f) and checks the body
// it reads, as exprString writes it.
func checkBodies(t *testing.T, bodies map[string]string) {
	t.Helper()
	for src, want := range bodies {
		f := parseOK(t, "module m (f)\n"+src+"\n")
		if got := exprString(f.Defs[0].Body); got != want {
			t.Errorf("%q: %s, want %s", src, got, want)
		}
	}
}

// checkFirstErrors parses each source and checks its first error.
func checkFirstErrors(t *testing.T, errors map[string]string) {
	t.Helper()
	for src, want := range errors {
		_, sink := parse(t, "module m (f)\n"+src+"\n")
		if errs := sink.Errors(); len(errs) == 0 || !strings.Contains(errs[0].Error(), want) {
			t.Errorf("%s: errors %v, want %q", src, errs, want)
		}
	}
}

// TestLambdasAndDo: lambdas, as far right as they reach, and do blocks
// with binds, lets and bare statements, each starting a line.
func TestLambdasAndDo(t *testing.T) {
	checkBodies(t, map[string]string{
		"f = \\x -> x + 1":     "(\\x -> (x + 1))",
		"f = g (\\x _ -> x) 2": "(g (\\x _ -> x) 2)",
		"f = g $ \\x -> h x":   "(g $ (\\x -> (h x)))",
		"f a = do\n  x <- g a\n  let y = x + 1\n  h y\n  x * y": "(do x <- (g a); let (let y = (x + 1);); (h y); (x * y);)",
	})
	checkFirstErrors(t, map[string]string{
		"f = \\ -> 1": "a lambda takes at least one parameter",
	})
}

// TestInterpolation: "#{...}" parts of a string read as concatenations;
// Null is a literal.
func TestInterpolation(t *testing.T) {
	checkBodies(t, map[string]string{
		"f x = \"hello #{x}!\"":           `("hello " <> x <> "!")`,
		"f x = \"#{g {a = 1}} and #{x}\"": `((g {a = 1}) <> " and " <> x)`,
		"f x = \"#{x}\"":                  `(x <> "")`,
		"f = Null":                        "Null",
	})
	checkFirstErrors(t, map[string]string{
		"f x = \"a #{x\"": "'#{' without its closing '}' in the string",
	})
}

// Triple-quoted strings (either quote) span lines, lose a blank first and
// last line and their common indentation; explicit braces with ';' turn
// layout off in do and let.
func TestTripleQuotesAndBraces(t *testing.T) {
	checkBodies(t, map[string]string{
		"f = \"\"\"\n  one\n    two\n  \"\"\"": `"one\n  two"`,
		"f = '''it\\'s'''":                     `"it's"`,
		"f = \"\"\"a \"quoted\" #{x}\"\"\"":    `("a \"quoted\" " <> x)`,
		"f = do { a <- g; b }":                 `(do a <- g; b;)`,
		"f = let { a = 1; b = 2 } in a":        `(let a = 1; b = 2; in a)`,
	})
}

// TestPatterns: tuple, record and as-patterns in parameters, lambdas, lets
// and do binds become projections of the value they match.
func TestPatterns(t *testing.T) {
	checkBodies(t, map[string]string{
		"f = \\(a, b) -> b":             "(\\_pat2_6 -> (let a = (<.0> _pat2_6); b = (<.1> _pat2_6); in b))",
		"f = let (a, {x = c}) = g in c": "(let _pat2_9 = g; a = (<.0> _pat2_9); c = (.x (<.1> _pat2_9)); in c)",
		"f = \\v@(a, _) -> a":           "(\\v -> (let a = (<.0> v); in a))",
		"f = do\n  (a, b) <- g\n  a":    "(do _pat3_3 <- g; let (let a = (<.0> _pat3_3); b = (<.1> _pat3_3);); a;)",
	})
	f := parseOK(t, "module m (f)\nf (x, y) {name = n} = x\n")
	d := f.Defs[0]
	var where []string
	for _, w := range d.Where {
		where = append(where, w.Name.Name+" = "+exprString(w.Body))
	}
	if len(d.Params) != 2 || d.Params[0].Name != "_pat2_3" || strings.Join(where, "; ") != "x = (<.0> _pat2_3); y = (<.1> _pat2_3); n = (.name _pat2_10)" {
		t.Errorf("pattern parameters: %v, where %v", d.Params, where)
	}
}
