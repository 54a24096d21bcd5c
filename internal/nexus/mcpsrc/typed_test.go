package mcpsrc

import (
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// TestJSONFor: which JSON a result of each type is read from.
func TestJSONFor(t *testing.T) {
	point := &types.Type{Kind: types.Record, Name: "Point", Fields: []types.Field{{Name: "result", Type: types.IntType}}}
	ints := types.ListOf(types.IntType)
	for _, tc := range []struct {
		name string
		t    *types.Type
		r    Result
		want string // the JSON, or the error's text after "error: "
	}{
		{"structured", ints, Result{Structured: []byte(`[1,2]`), Text: []string{"ignored"}}, `[1,2]`},
		{"wrapped", ints, Result{Structured: []byte(`{"result":[1,2]}`)}, `[1,2]`},
		{"wrapped optional", types.OptionalOf(types.IntType), Result{Structured: []byte(`{"result":null}`)}, `null`},
		{"a record is never unwrapped", point, Result{Structured: []byte(`{"result":3}`)}, `{"result":3}`},
		{"a map is never unwrapped", types.MapOf(types.StrType, types.IntType), Result{Structured: []byte(`{"result":3}`)}, `{"result":3}`},
		{"two keys", ints, Result{Structured: []byte(`{"result":[1],"more":2}`)}, `{"result":[1],"more":2}`},
		{"text", ints, Result{Text: []string{"[1, 2]"}}, `[1, 2]`},
		{"a list in text blocks", ints, Result{Text: []string{"1", "2"}}, `[1,2]`},
		{"a record in text blocks", point, Result{Text: []string{`{"result":`, `3}`}}, "{\"result\":\n3}"},
		{"not JSON", ints, Result{Text: []string{"one, two"}}, `error: its text is not JSON: "one, two"`},
		{"a list item not JSON", ints, Result{Text: []string{"1", "two"}}, `error: text block 2 is not JSON: "two"`},
		{"nothing, optional", types.OptionalOf(types.IntType), Result{}, `null`},
		{"nothing", types.IntType, Result{Other: [][]byte{[]byte(`{}`)}}, `error: it has neither structuredContent nor text content (1 other content blocks)`},
	} {
		got, err := jsonFor(tc.t, tc.r)
		if want, isErr := strings.CutPrefix(tc.want, "error: "); isErr {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: got %s, %v; want the error %q", tc.name, got, err, want)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}

// TestJSONResult: a Json result is its structuredContent, else its
// content blocks, each text as JSON or a string, images and audio as
// {type, mimeType, data}, other blocks as they are.
func TestJSONResult(t *testing.T) {
	image := `{"type":"image","data":"AAAA","mimeType":"image/png","annotations":{"priority":1}}`
	link := `{"type":"resource_link","uri":"test://1","name":"one"}`
	for _, tc := range []struct {
		name string
		r    Result
		want string
	}{
		{"structured", Result{Structured: []byte(`{"a":1}`), Content: []Block{{JSON: []byte(image)}}}, `{"a":1}`},
		{"none", Result{}, `null`},
		{"JSON text", Result{Content: []Block{{Text: `[1, {"b": 2}]`}}}, `[1, {"b": 2}]`},
		{"plain text", Result{Content: []Block{{Text: `a <b> & "c"`}}}, `"a <b> & \"c\""`},
		{"image", Result{Content: []Block{{JSON: []byte(image)}}}, `{"type":"image","mimeType":"image/png","data":"AAAA"}`},
		{"audio", Result{Content: []Block{{JSON: []byte(`{"type":"audio","mimeType":"audio/wav","data":"UklG"}`)}}}, `{"type":"audio","mimeType":"audio/wav","data":"UklG"}`},
		{"several, in order", Result{Content: []Block{{Text: "see:"}, {JSON: []byte(image)}, {JSON: []byte(link)}, {Text: "42"}}},
			`["see:",{"type":"image","mimeType":"image/png","data":"AAAA"},` + link + `,42]`},
	} {
		got, err := jsonResult(tc.r)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}

func TestStrResult(t *testing.T) {
	f := &manifest.Function{Name: "f", Source: "tool", Return: types.StrType}
	link := `{"type":"resource_link","uri":"file:///x.gz","name":"x.gz"}`
	for _, tc := range []struct {
		name string
		r    Result
		want string
	}{
		{"text blocks joined", Result{Text: []string{"a", "b"}, Other: [][]byte{[]byte(link)}}, "a\nb"},
		{"no text: the other blocks as JSON", Result{Other: [][]byte{[]byte(link), []byte(link)}}, link + "\n" + link},
		{"no content at all", Result{}, ""},
	} {
		got, err := resultValue(f, "srv", tc.r)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
