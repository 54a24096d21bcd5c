package codegen

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Source stubs shared by the tests: small real files in each language.
const (
	chemPy = `import math

def molecular_weight(smiles: str) -> float:
    return 12.0 * len(smiles)

def describe_config(cfg: dict) -> str:
    return str(cfg)

def upper(s: str) -> str:
    return s.upper()

def lines(xs):
    return "\n".join(str(x) for x in xs)

def count(xs) -> int:
    return len(xs)

def shout(s, n):
    return s * n
`
	statsHpp = `#pragma once
#include <vector>
#include <string>

struct summary_t { double mean; double sd; };

inline summary_t summarize(const std::vector<double>& xs) {
    double m = 0;
    for (double x : xs) m += x;
    return summary_t{m / xs.size(), 0.0};
}

template <typename T>
std::vector<T> scale(T f, const std::vector<T>& xs) {
    std::vector<T> out;
    for (auto x : xs) out.push_back(f * x);
    return out;
}

inline std::string show(const summary_t& s) { return std::to_string(s.mean); }
`
	mathxGo = `package mathx

func Clamp(lo, hi, x float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func Double(x int) int { return 2 * x }
`
)

// writeProgram writes main.loc and the stub sources into a new folder and
// returns the path of main.loc.
func writeProgram(t *testing.T, loc string) string {
	t.Helper()
	dir := writeModules(t, map[string]string{
		"main.loc": loc, "chem.py": chemPy, "stats.hpp": statsHpp, "mathx.go": mathxGo,
	})
	return filepath.Join(dir, "main.loc")
}

// compileOK compiles loc, fails the test on errors, and checks that the
// manifest validates once pool commands are filled in.
func compileOK(t *testing.T, loc string) *Program {
	t.Helper()
	p, err := Compile(writeProgram(t, loc))
	if err != nil {
		t.Fatalf("unexpected errors:\n%v\nprogram:\n%s", err, loc)
	}
	validate(t, p.Manifest)
	return p
}

// wantBody compiles text after the library, exporting f, and checks f's
// body (as exprString writes it), its return type (unless ret is empty)
// and that the body's type is the return type.
func wantBody(t *testing.T, text, want, ret string) {
	t.Helper()
	wantBodyOf(t, program("f", text), want, ret)
}

// wantBodyOf is wantBody for a whole program, without the library.
func wantBodyOf(t *testing.T, src, want, ret string) {
	t.Helper()
	p := compileOK(t, src)
	c := p.Manifest.Commands[0]
	if got := exprString(p.Manifest, c.Body); got != want {
		t.Errorf("body %s, want %s", got, want)
	}
	if ret != "" && c.Return.String() != ret {
		t.Errorf("return %s, want %s", c.Return, ret)
	}
	if !types.Equal(c.Body.Type, c.Return) && !(c.Return.Kind == types.Optional && types.Equal(c.Body.Type, c.Return.Elem)) {
		t.Errorf("body type %s, return %s", c.Body.Type, c.Return)
	}
}

// wantError compiles src, expecting it to fail, and checks that one of
// its errors starts with want ("line:col: message").
func wantError(t *testing.T, src, want string) {
	t.Helper()
	errs := compileErrors(t, src)
	for _, e := range errs {
		if strings.HasPrefix(e, want) {
			return
		}
	}
	t.Errorf("no error %q among:\n%s", want, strings.Join(errs, "\n"))
}

// compileErrors compiles loc, expecting it to fail, and returns the errors
// without the file name: "line:col: message".
func compileErrors(t *testing.T, loc string) []string {
	t.Helper()
	path := writeProgram(t, loc)
	p, err := Compile(path)
	if err == nil {
		t.Fatalf("compiled without errors, want some; manifest commands: %d\nprogram:\n%s", len(p.Manifest.Commands), loc)
	}
	list, ok := err.(ErrorList)
	if !ok {
		t.Fatalf("error is %T, want ErrorList", err)
	}
	var out []string
	for _, e := range list {
		if e.File != path {
			t.Errorf("error names file %q, want %q", e.File, path)
		}
		line := e.Error()
		if !strings.HasPrefix(line, path+":") || strings.Contains(e.Msg, "\n") {
			t.Errorf("error is not one line %q", line)
		}
		out = append(out, strings.TrimPrefix(line, path+":"))
	}
	return out
}

// validate fills in dummy pool commands, as the pool generators would,
// and checks the manifest; it also checks that it survives JSON.
func validate(t *testing.T, m *manifest.Manifest) {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var copy manifest.Manifest
	if err := json.Unmarshal(data, &copy); err != nil {
		t.Fatal(err)
	}
	for i := range copy.Pools {
		copy.Pools[i].Command = []string{"$BUILD/pools/" + copy.Pools[i].Lang + "/pool"}
	}
	if err := copy.Validate(); err != nil {
		t.Fatalf("manifest does not validate: %v", err)
	}
	for _, p := range m.Pools {
		if len(p.Command) != 0 {
			t.Errorf("pool %s has a command; the generators fill it", p.Lang)
		}
	}
}

// exprString writes a body compactly: calls by function name, $i for
// argument i, literals as JSON, a Real literal always with a decimal point
// or an exponent (2.0, where the manifest has 2) so a body shows which
// literals became Reals.
func exprString(m *manifest.Manifest, e *manifest.Expr) string {
	if e == nil {
		return "<nil>"
	}
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = exprString(m, a)
	}
	switch e.Kind {
	case manifest.Lit:
		return litString(e.Type, e.Value)
	case manifest.Var:
		return fmt.Sprintf("$%d", e.Ref)
	case manifest.Call:
		return m.Functions[e.Ref].Name + "(" + strings.Join(args, ", ") + ")"
	case manifest.Get:
		return "." + e.Field + "(" + args[0] + ")"
	case manifest.Throw:
		return fmt.Sprintf("throw(%q)", e.Message)
	case manifest.MakeList:
		return "list[" + strings.Join(args, ", ") + "]"
	case manifest.MakeTuple:
		return "tuple(" + strings.Join(args, ", ") + ")"
	case manifest.MakeRecord:
		for i := range args {
			args[i] = e.Fields[i] + "=" + args[i]
		}
		return "record{" + strings.Join(args, ", ") + "}"
	case manifest.If:
		return "if(" + strings.Join(args, ", ") + ")"
	case manifest.Let:
		return "let(" + args[0] + " in " + args[1] + ")"
	case manifest.Intrinsic:
		return "@" + e.Op + "(" + strings.Join(args, ", ") + ")"
	case manifest.Item:
		return fmt.Sprintf(".%d(%s)", e.Ref, args[0])
	case manifest.Index:
		return "index(" + strings.Join(args, ", ") + ")"
	case manifest.Slice:
		return "slice(" + strings.Join(args, ", ") + ")"
	case manifest.Set:
		if e.Field != "" {
			return "set(" + args[0] + ", ." + e.Field + " = " + args[1] + ")"
		}
		return fmt.Sprintf("set(%s, .%d = %s)", args[0], e.Ref, args[1])
	case manifest.Op:
		if _, builtin := manifest.Builtins[e.Op]; builtin || len(args) != 2 {
			return e.Op + "(" + strings.Join(args, ", ") + ")"
		}
		return "(" + args[0] + " " + e.Op + " " + args[1] + ")"
	case manifest.Lambda:
		return fmt.Sprintf("\\%d:%d -> %s", e.Ref, len(e.Type.Items), args[0])
	case manifest.FnRef:
		return "&" + m.Functions[e.Ref].Name + "(" + strings.Join(args, ", ") + ")"
	case manifest.Param:
		return fmt.Sprintf("#%d", e.Ref)
	case manifest.Apply:
		return fmt.Sprintf("apply%d(%s)", e.Ref, strings.Join(args, ", "))
	}
	return "?" + string(e.Kind)
}

// litString writes a literal's JSON with every Real in it marked by a
// decimal point or an exponent (2.0, where the manifest has 2), so a body
// shows which literals became Reals; JSON it cannot read as t stays as is.
func litString(t *types.Type, data []byte) string {
	v, err := types.FromJSON(t, data)
	if err != nil {
		return string(data)
	}
	return markReals(t, v)
}

// markReals writes v, a value of type t, as compact JSON, a Real always
// with a decimal point or an exponent.
func markReals(t *types.Type, v any) string {
	switch t.Kind {
	case types.Real:
		s := string(jsonOrError(types.ToJSON(t, v)))
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	case types.Optional:
		if v != nil {
			return markReals(t.Elem, v)
		}
	case types.List, types.Tuple:
		n, _ := types.Len(v)
		items := make([]string, n)
		for i := range items {
			et := t.Elem
			if t.Kind == types.Tuple {
				et = t.Items[i]
			}
			items[i] = markReals(et, types.Index(v, i))
		}
		return "[" + strings.Join(items, ",") + "]"
	case types.Record:
		m, _ := v.(map[string]any)
		fields := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = fmt.Sprintf("%q:%s", f.Name, markReals(f.Type, m[f.Name]))
		}
		return "{" + strings.Join(fields, ",") + "}"
	}
	return string(jsonOrError(types.ToJSON(t, v)))
}

func jsonOrError(b []byte, err error) []byte {
	if err != nil {
		return []byte(err.Error())
	}
	return b
}

// argString writes an argument's command-line shape compactly.
func argString(a manifest.Arg) string {
	var b strings.Builder
	b.WriteString(string(a.Kind))
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, " %s=%s", k, v)
		}
	}
	field("name", a.Name)
	field("short", a.Short)
	field("long", a.Long)
	field("falseShort", a.FalseShort)
	field("falseLong", a.FalseLong)
	field("default", litString(a.Type, a.Default))
	field("metavar", a.Metavar)
	field("field", a.Field)
	field("type", a.Type.String())
	if a.Many {
		b.WriteString(" many")
	}
	if a.Stdin {
		b.WriteString(" stdin")
	}
	if len(a.Doc) > 0 {
		fmt.Fprintf(&b, " doc=%q", strings.Join(a.Doc, "|"))
	}
	if len(a.Fields) > 0 {
		parts := make([]string, len(a.Fields))
		for i, f := range a.Fields {
			parts[i] = argString(f)
		}
		b.WriteString(" {" + strings.Join(parts, "; ") + "}")
	}
	return b.String()
}
