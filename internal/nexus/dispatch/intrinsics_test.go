package dispatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

func intrinsic(t *types.Type, name string, args ...*manifest.Expr) *manifest.Expr {
	return &manifest.Expr{Kind: manifest.Intrinsic, Type: t, Op: name, Args: args}
}

func strLit(s string) *manifest.Expr {
	return lit(types.StrType, `"`+s+`"`)
}

// evalJSON evaluates e with no variables and writes its value as JSON.
func evalJSON(t *testing.T, d *Dispatcher, e *manifest.Expr) (string, error) {
	t.Helper()
	v, err := d.eval(context.Background(), e, nil)
	return asJSON(t, e.Type, v, err)
}

// TestValueIntrinsics: @show, @hash and @read on values.
func TestValueIntrinsics(t *testing.T) {
	d := &Dispatcher{M: testManifest()}
	S := types.StrType
	tests := []struct {
		name string
		e    *manifest.Expr
		want string
	}{
		{"show list of reals", intrinsic(S, "show", lit(reals, "[-1.5,0.25,3.0]")), `"[-1.5,0.25,3]"`},
		{"show string", intrinsic(S, "show", strLit("a/b")), `"\"a/b\""`},
		{"show record in field order", intrinsic(S, "show", lit(point, `{"y":2,"x":1}`)), `"{\"x\":1,\"y\":2}"`},
		{"hash of 1", intrinsic(S, "hash", lit(types.IntType, "1")), `"` + hex16(xxhash.Sum64([]byte{0x01})) + `"`},
		{"hash of a string", intrinsic(S, "hash", strLit("ab")), `"` + hex16(xxhash.Sum64([]byte{0xa2, 'a', 'b'})) + `"`},
		{"read a list", intrinsic(types.ListOf(types.IntType), "read", strLit(" [1, 2] ")), "[1,2]"},
		{"read a record", intrinsic(point, "read", lit(S, `"{\"x\":1,\"y\":2}"`)), `{"x":1,"y":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := evalJSON(t, d, tt.e)
			if err != nil || got != tt.want {
				t.Errorf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func hex16(h uint64) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 16)
	for i := 15; i >= 0; i-- {
		out[i] = digits[h&0xf]
		h >>= 4
	}
	return string(out)
}

// TestIntrinsicFailures: a failed intrinsic is a ThrowError naming the
// intrinsic and what it was given.
func TestIntrinsicFailures(t *testing.T) {
	d := &Dispatcher{M: testManifest()}
	dir := t.TempDir()
	ints := types.ListOf(types.IntType)
	if err := os.WriteFile(filepath.Join(dir, "strs.json"), []byte(`["a"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		e    *manifest.Expr
		want string
	}{
		{"read of bad JSON", intrinsic(types.IntType, "read", strLit("x1")), `@read: cannot read "x1" as Int`},
		{"read of another type", intrinsic(types.IntType, "read", strLit("1.5")), `@read: cannot read "1.5" as Int`},
		{"load of a missing file", intrinsic(ints, "load", strLit(dir+"/none")), "@load: open " + dir + "/none: no such file or directory"},
		{"load of another type", intrinsic(ints, "load", strLit(dir+"/strs.json")), "@load: " + dir + "/strs.json is neither @save's form, MessagePack nor JSON of type [Int]"},
		{"save with a bad level", intrinsic(types.UnitType, "save", lit(types.IntType, "12"), lit(ints, "[1]"), strLit(dir+"/x")), "@save: compression level 12 is not between 0 and 9"},
		{"savej into a missing directory", intrinsic(types.UnitType, "savej", strLit(dir+"/no/x"), lit(ints, "[1]")), "@savej: open " + dir + "/no/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := evalJSON(t, d, tt.e)
			var te *ThrowError
			if !errors.As(err, &te) || !strings.HasPrefix(te.Message, tt.want) {
				t.Errorf("error %v, want a ThrowError starting %q", err, tt.want)
			}
		})
	}
}

// TestSaveAndLoad: every form written is read back by @load, which tells
// them apart, and a JSON file written by hand is read too.
func TestSaveAndLoad(t *testing.T) {
	d := &Dispatcher{M: testManifest()}
	dir := t.TempDir()
	U := types.UnitType
	value := lit(types.ListOf(point), `[{"x":1,"y":2},{"x":-3,"y":40000}]`)
	writes := map[string]*manifest.Expr{
		"plain.bin":    intrinsic(U, "save", lit(types.IntType, "0"), value, strLit(dir+"/plain.bin")),
		"deflated.bin": intrinsic(U, "save", lit(types.IntType, "9"), value, strLit(dir+"/deflated.bin")),
		"value.mpk":    intrinsic(U, "savem", strLit(dir+"/value.mpk"), value),
		"value.json":   intrinsic(U, "savej", strLit(dir+"/value.json"), value),
	}
	for name, w := range writes {
		if _, err := evalJSON(t, d, w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := evalJSON(t, d, intrinsic(value.Type, "load", strLit(dir+"/"+name)))
		if err != nil || got != string(value.Value) {
			t.Errorf("%s: loaded %s, %v; want %s", name, got, err, value.Value)
		}
	}
	if data, _ := os.ReadFile(dir + "/value.json"); string(data) != string(value.Value)+"\n" {
		t.Errorf("@savej wrote %q", data)
	}
	if data, _ := os.ReadFile(dir + "/plain.bin"); !strings.HasPrefix(string(data), string(saveMagic)) {
		t.Errorf("@save wrote %q, without its header", data)
	}
	for name, text := range map[string]string{"hand.json": " [ 7 ,8 ]\n", "digit.json": "5\n", "one.mpk": "\x05"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"hand.json": "[7,8]"} {
		if got, err := evalJSON(t, d, intrinsic(types.ListOf(types.IntType), "load", strLit(dir+"/"+name))); err != nil || got != want {
			t.Errorf("%s: loaded %s, %v; want %s", name, got, err, want)
		}
	}
	for name, want := range map[string]string{"digit.json": "5", "one.mpk": "5"} {
		if got, err := evalJSON(t, d, intrinsic(types.IntType, "load", strLit(dir+"/"+name))); err != nil || got != want {
			t.Errorf("%s: loaded %s, %v; want %s", name, got, err, want)
		}
	}
}

// TestCatch: @catch gives its fallback for an @throw, a failed pool call
// and a failed intrinsic, and evaluates the fallback only then; a
// cancelled request is not caught.
func TestCatch(t *testing.T) {
	I := types.IntType
	m := testManifest()
	pools := newFakePools()
	d := &Dispatcher{M: m, Pools: pools}
	tests := []struct {
		name string
		try  *manifest.Expr
		want string
	}{
		{"no failure", call(m, fnAdd, lit(I, "1"), lit(I, "2")), "3"},
		{"throw", throw(I, "boom"), "-1"},
		{"failed pool call", call(m, fnFail, lit(I, "1")), "-1"},
		{"failed intrinsic", intrinsic(I, "read", strLit("x")), "-1"},
		{"failure deep inside", call(m, fnAdd, lit(I, "1"), intrinsic(I, "read", strLit("x"))), "-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := evalJSON(t, d, intrinsic(I, "catch", tt.try, lit(I, "-1")))
			if err != nil || got != tt.want {
				t.Errorf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	t.Run("fallback that fails", func(t *testing.T) {
		_, err := evalJSON(t, d, intrinsic(I, "catch", throw(I, "first"), throw(I, "second")))
		if err == nil || err.Error() != "second" {
			t.Errorf("error %v, want second", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := d.eval(ctx, intrinsic(I, "catch", call(m, fnAdd, lit(I, "1"), lit(I, "2")), lit(I, "-1")), nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	})
}
