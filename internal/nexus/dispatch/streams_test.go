package dispatch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

var (
	ints      = types.ListOf(types.IntType)
	unit      = types.UnitType
	outInts   = types.HandleOf(types.OStream, types.IntType)
	inInts    = types.HandleOf(types.IStream, types.IntType)
	fileInts  = types.HandleOf(types.IFile, types.IntType)
	inStrs    = types.HandleOf(types.IStream, types.StrType)
	outStrs   = types.HandleOf(types.OStream, types.StrType)
	batchesOf = types.ListOf(ints)
)

// do is the chain of lets of a do block: each of stmts bound to the next
// variable after nvars, the last one the value.
func do(nvars int, stmts ...*manifest.Expr) *manifest.Expr {
	out := stmts[len(stmts)-1]
	for i := len(stmts) - 2; i >= 0; i-- {
		out = &manifest.Expr{Kind: manifest.Let, Type: out.Type, Args: []*manifest.Expr{stmts[i], out}}
	}
	return out
}

func ref(t *types.Type, i int) *manifest.Expr {
	return &manifest.Expr{Kind: manifest.Var, Type: t, Ref: i}
}

// runBody runs body as a command of no arguments with stdio, and writes
// its result as JSON.
func runBody(t *testing.T, stdio *Stdio, body *manifest.Expr) (string, error) {
	t.Helper()
	ctx := context.Background()
	if stdio != nil {
		ctx = WithStdio(ctx, *stdio)
	}
	d := &Dispatcher{M: testManifest()}
	v, err := d.Run(ctx, &manifest.Command{Name: "c", Body: body, Return: body.Type}, nil)
	return asJSON(t, body.Type, v, err)
}

// asJSON is v, a value of typ, as JSON, or err when there is one.
func asJSON(t *testing.T, typ *types.Type, v any, err error) (string, error) {
	t.Helper()
	if err != nil {
		return "", err
	}
	out, err := types.ToJSON(typ, v)
	if err != nil {
		t.Fatalf("result %v is not a %s: %v", v, typ, err)
	}
	return string(out), nil
}

// TestStreamFileRoundTrip: batches written with @write read back one per
// @next, an empty batch written as nothing, [] at the end and after; the
// file is JSON lines under a header.
func TestStreamFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	p := strLit(path)
	next := intrinsic(ints, "next", ref(inInts, 4))
	got, err := runBody(t, nil, do(0,
		intrinsic(outInts, "open", p), // 0
		intrinsic(unit, "write", lit(types.IntType, "0"), ref(outInts, 0), lit(ints, "[1,2]")), // 1
		intrinsic(unit, "write", lit(types.IntType, "9"), ref(outInts, 0), lit(ints, "[]")),    // 2
		intrinsic(unit, "write", lit(types.IntType, "0"), ref(outInts, 0), lit(ints, "[3]")),   // 3
		intrinsic(inInts, "open", p),              // 4, before the close: the writer flushes on close
		intrinsic(unit, "close", ref(outInts, 0)), // 5
		&manifest.Expr{Kind: manifest.MakeList, Type: batchesOf, Args: []*manifest.Expr{next, next, next, next}},
	))
	if err != nil || got != "[[1,2],[3],[],[]]" {
		t.Errorf("round trip: %s, %v; want [[1,2],[3],[],[]]", got, err)
	}
	data, _ := os.ReadFile(path)
	if want := "{\"nexus-stream\":1,\"schema\":\"j\"}\n[1,2]\n[3]\n"; string(data) != want {
		t.Errorf("the file holds %q, want %q", data, want)
	}
}

// TestStreamFileIntrinsics: an IFile's length and its independent
// streams, @fschema, @append and @concat.
func TestStreamFileIntrinsics(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	header := "{\"nexus-stream\":1,\"schema\":\"j\"}\n"
	os.WriteFile(a, []byte(header+"[1,2]\n[3]\n"), 0o644)
	os.WriteFile(b, []byte(header+"[4]\n"), 0o644)
	I := types.IntType
	tests := []struct {
		name string
		body *manifest.Expr
		want string
	}{
		{"flen", do(0, intrinsic(fileInts, "open", strLit(a)), intrinsic(I, "flen", ref(fileInts, 0))), "3"},
		{"two streams of a file", do(0,
			intrinsic(fileInts, "open", strLit(a)),
			intrinsic(inInts, "stream", ref(fileInts, 0)),
			intrinsic(inInts, "stream", ref(fileInts, 0)),
			intrinsic(ints, "next", ref(inInts, 1)),
			&manifest.Expr{Kind: manifest.MakeList, Type: batchesOf, Args: []*manifest.Expr{ref(ints, 3), intrinsic(ints, "next", ref(inInts, 2)), intrinsic(ints, "next", ref(inInts, 1))}},
		), "[[1,2],[1,2],[3]]"},
		{"fschema", intrinsic(types.StrType, "fschema", strLit(a)), `"j"`},
		{"append then concat", do(0,
			intrinsic(outInts, "append", strLit(b)),
			intrinsic(unit, "write", lit(I, "0"), ref(outInts, 0), lit(ints, "[5,6]")),
			intrinsic(unit, "close", ref(outInts, 0)),
			intrinsic(unit, "concat", lit(types.ListOf(types.StrType), `["`+a+`","`+b+`"]`), strLit(c)),
			do(4, intrinsic(fileInts, "open", strLit(c)), intrinsic(I, "flen", ref(fileInts, 4))),
		), "6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := runBody(t, nil, tt.body); err != nil || got != tt.want {
				t.Errorf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	if data, _ := os.ReadFile(c); string(data) != header+"[1,2]\n[3]\n[4]\n[5,6]\n" {
		t.Errorf("concatenated file: %q", data)
	}
}

// TestPlainInputs: a JSON-lines file without the header is read one
// element a line, blank lines skipped; a Str stream takes a line that is
// no JSON string as its text.
func TestPlainInputs(t *testing.T) {
	dir := t.TempDir()
	nums, text := filepath.Join(dir, "n.jsonl"), filepath.Join(dir, "t.txt")
	os.WriteFile(nums, []byte("1\n\n 2 \r\n3"), 0o644)
	os.WriteFile(text, []byte("a b\n\"q\"\n\n{x\n"), 0o644)
	strs := types.ListOf(types.StrType)
	got, err := runBody(t, nil, do(0, intrinsic(inInts, "open", strLit(nums)),
		&manifest.Expr{Kind: manifest.MakeList, Type: batchesOf, Args: []*manifest.Expr{intrinsic(ints, "next", ref(inInts, 0)), intrinsic(ints, "next", ref(inInts, 0))}}))
	if err != nil || got != "[[1,2,3],[]]" {
		t.Errorf("plain JSON lines: %s, %v", got, err)
	}
	got, err = runBody(t, nil, do(0, intrinsic(inStrs, "open", strLit(text)), intrinsic(strs, "next", ref(inStrs, 0))))
	if err != nil || got != `["a b","q","","{x"]` {
		t.Errorf("text lines: %s, %v", got, err)
	}
}

// endless is standard input that never ends: lines of "x" until limit
// bytes, then a failure, which reading it all would meet.
type endless struct{ limit, read int }

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.limit {
		return 0, errors.New("read the whole input")
	}
	n := 0
	for n+1 < len(p) && e.read+n+1 < e.limit {
		p[n], p[n+1] = 'x', '\n'
		n += 2
	}
	e.read += n
	return n, nil
}

// TestStdio: @stdin is read a batch at a time, and at most once; @stdout
// is written one element a line, counted by @tell; without standard
// streams (over MCP) @stdin and @stdout fail.
func TestStdio(t *testing.T) {
	in := &endless{limit: 1 << 20}
	var out bytes.Buffer
	stdio := &Stdio{In: in, Out: &out}
	strs := types.ListOf(types.StrType)
	I := types.IntType
	got, err := runBody(t, stdio, do(0,
		intrinsic(inStrs, "stdin"),
		intrinsic(outStrs, "stdout"),
		intrinsic(strs, "next", ref(inStrs, 0)),
		intrinsic(unit, "write", lit(I, "0"), ref(outStrs, 1), lit(strs, `["a","b"]`)),
		intrinsic(I, "tell"),
	))
	if err != nil || got != "2" || out.String() != "\"a\"\n\"b\"\n" {
		t.Errorf("stdio: %s, %v, stdout %q", got, err, out.String())
	}
	if in.read >= in.limit {
		t.Errorf("the first batch read all %d bytes of standard input", in.read)
	}
	_, err = runBody(t, &Stdio{In: strings.NewReader("")}, do(0, intrinsic(inStrs, "stdin"), intrinsic(inStrs, "stdin")))
	if err == nil || !strings.Contains(err.Error(), "@stdin: standard input is opened at most once in a call") {
		t.Errorf("stdin twice: %v", err)
	}
	_, err = runBody(t, nil, intrinsic(inStrs, "stdin"))
	if err == nil || !strings.Contains(err.Error(), "@stdin: this call has no standard input") {
		t.Errorf("stdin over MCP: %v", err)
	}
	_, err = runBody(t, nil, intrinsic(outStrs, "stdout"))
	if err == nil || !strings.Contains(err.Error(), "@stdout: this call has no standard output") {
		t.Errorf("stdout over MCP: %v", err)
	}
}

// TestStreamFailures: each failure is an error naming the intrinsic and
// what it was given, which @catch catches.
func TestStreamFailures(t *testing.T) {
	dir := t.TempDir()
	reals := filepath.Join(dir, "r")
	os.WriteFile(reals, []byte("{\"nexus-stream\":1,\"schema\":\"f8\"}\n[1.5]\n"), 0o644)
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("1\nx\n"), 0o644)
	I := types.IntType
	tests := []struct {
		name string
		body *manifest.Expr
		want string
	}{
		{"missing file", intrinsic(inInts, "open", strLit(filepath.Join(dir, "nope"))), "@open: open " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{"other schema", do(0, intrinsic(inInts, "open", strLit(reals)), intrinsic(ints, "next", ref(inInts, 0))), `@next: ` + reals + ` holds elements of schema "f8", not Int ("j")`},
		{"other schema as an IFile", intrinsic(fileInts, "open", strLit(reals)), `@open: ` + reals + ` holds elements of schema "f8"`},
		{"a line of another type", do(0, intrinsic(inInts, "open", strLit(bad)), intrinsic(ints, "next", ref(inInts, 0))), "@next: " + bad + " line 2: "},
		{"closed handle", do(0, intrinsic(inInts, "open", strLit(bad)), intrinsic(unit, "close", ref(inInts, 0)), intrinsic(ints, "next", ref(inInts, 0))), "@next: " + bad + " is closed"},
		{"level", do(0, intrinsic(outInts, "open", strLit(filepath.Join(dir, "o"))), intrinsic(unit, "write", lit(I, "12"), ref(outInts, 0), lit(ints, "[1]"))), "@write: compression level 12 is not between 0 and 9"},
		{"fschema of a plain file", intrinsic(types.StrType, "fschema", strLit(bad)), "@fschema: " + bad + " is not a stream file"},
		{"append to a file of other elements", intrinsic(outInts, "append", strLit(reals)), `@append: ` + reals + ` holds elements of schema "f8"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runBody(t, nil, tt.body)
			var te *ThrowError
			if err == nil || !errors.As(err, &te) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a ThrowError with %q", err, tt.want)
			}
		})
	}
}

// TestHandlesClosedAtTheEnd: what a body wrote and left open is flushed
// when the command ends.
func TestHandlesClosedAtTheEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "o")
	_, err := runBody(t, nil, do(0,
		intrinsic(outInts, "open", strLit(path)),
		intrinsic(unit, "write", lit(types.IntType, "0"), ref(outInts, 0), lit(ints, "[7]")),
	))
	data, _ := os.ReadFile(path)
	if err != nil || !strings.HasSuffix(string(data), "\n[7]\n") {
		t.Errorf("left open: %v, the file holds %q", err, data)
	}
}
