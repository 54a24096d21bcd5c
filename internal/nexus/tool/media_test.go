package tool

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
	"github.com/vmihailenco/msgpack/v5"
)

// media is a program with media results and a @default renderer.
const media = `
module media (logo, table, shout)
source Py from "fns.py" ("logo", "table", "loud")

--' @mime image/png
type Png = Str
--' mime: text/csv
type Csv = Str

logo :: Int -> Png
table :: Int -> Csv
loud :: [Int] -> Str

--' A renderer by default.
--' @render -s/--shout=loud @default
shout :: [Int] -> [Int]
shout xs = xs
`

const mediaPy = `
def logo(n): return b"\x89PNG\r\n\x1a\n" + bytes([0, 255, 254]) * n
def table(n): return "a,b\n" + "".join(f"{i},{i*i}\n" for i in range(n))
def loud(xs): return "!".join(map(str, xs))
`

func mediaSet(t *testing.T) *Set {
	t.Helper()
	m := pooltest.Compile(t, media, mediaPy)
	tools, skipped := FromProgram(m, &dispatch.Dispatcher{M: m, Pools: mediaPool{}}, "")
	if len(skipped) > 0 {
		t.Fatalf("skipped %v", skipped)
	}
	return NewSet(tools, Options{})
}

func TestMediaResult(t *testing.T) {
	s := mediaSet(t)
	ctx := context.Background()
	res, err := s.Call(ctx, "logo", named(t, `{"_1":2}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "\x89PNG\r\n\x1a\n\x00\xff\xfe\x00\xff\xfe"
	if res.Mime != "image/png" || string(res.Media) != want {
		t.Errorf("logo: mime %q, media %q; want image/png, %q", res.Mime, res.Media, want)
	}
	res, err = s.Call(ctx, "table", named(t, `{"_1":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Mime != "text/csv" || string(res.Media) != "a,b\n0,0\n1,1\n" {
		t.Errorf("table: mime %q, media %q", res.Mime, res.Media)
	}
	logo := s.Tool("logo")
	if logo.OutputSchema != nil || logo.Structured(ListForm{AnyOutput: true}) {
		t.Errorf("a media result has no output schema")
	}
	if logo.Description != "Returns image/png content." {
		t.Errorf("description %q", logo.Description)
	}
}

func TestDefaultRender(t *testing.T) {
	s := mediaSet(t)
	ctx := context.Background()
	for _, tc := range []struct{ args, want string }{
		{`{"_1":[1,2]}`, "1!2"},
		{`{"_1":[1,2],"_render":"shout"}`, "1!2"},
		{`{"_1":[1,2],"_render":"raw"}`, "[1,2]"},
	} {
		res, err := s.Call(ctx, "shout", named(t, tc.args))
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != tc.want {
			t.Errorf("%s: text %q, want %q", tc.args, res.Text, tc.want)
		}
		if res.Rendered != (tc.want == "1!2") {
			t.Errorf("%s: rendered %v", tc.args, res.Rendered)
		}
	}
	got := string(s.Tool("shout").AppendJSON(nil, ListForm{}))
	want := `{"name":"shout","description":"A renderer by default.","inputSchema":{"type":"object","properties":{
		"_1":{"type":"array","items":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},
		"_render":{"type":"string","description":"How to present the result: raw (the result itself), or through one of the command's output actions; shout when left out.","enum":["raw","shout"],"default":"shout"}},
		"required":["_1"],"additionalProperties":false}}`
	if !sameJSON(t, got, want) {
		t.Errorf("schema:\n got %s\nwant %s", got, compactJSON(t, want))
	}
}

// mediaPool runs mediaPy's functions in Go, its results as msgpack as the
// Python pool sends them (logo's bytes as msgpack bin; the real pool is
// in integration/media_test.go).
type mediaPool struct{}

func (mediaPool) Call(ctx context.Context, f *manifest.Function, in []byte) ([]byte, error) {
	args, err := types.DecodeArgs(f.Args, in)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	switch f.Name {
	case "logo":
		b := []byte("\x89PNG\r\n\x1a\n")
		for range args[0].(int64) {
			b = append(b, 0, 255, 254)
		}
		err = enc.EncodeBytes(b)
	case "table":
		s := "a,b\n"
		for i := range args[0].(int64) {
			s += fmt.Sprintf("%d,%d\n", i, i*i)
		}
		err = enc.EncodeString(s)
	case "loud":
		xs, _ := types.Items(args[0])
		var parts []string
		for _, x := range xs {
			parts = append(parts, fmt.Sprint(x))
		}
		err = enc.EncodeString(strings.Join(parts, "!"))
	default:
		return nil, fmt.Errorf("no function %s", f.Name)
	}
	return buf.Bytes(), err
}
