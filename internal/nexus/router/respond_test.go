package router

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

func TestWriteResult(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\xff"
	for _, tc := range []struct {
		name        string
		res         tool.Result
		ctype, body string
	}{
		{"media", tool.Result{Value: []byte(`"x"`), Mime: "image/png", Media: []byte(png)}, "image/png", png},
		{"rendered text", tool.Result{Value: []byte(`"a\nb"`), Text: "a\nb", Rendered: true}, "text/plain; charset=utf-8", "a\nb\n"},
		{"JSON", tool.Result{Value: []byte(`[1,2]`), Text: "[1,2]"}, "application/json", `{"result":[1,2]}` + "\n"},
	} {
		w := httptest.NewRecorder()
		writeResult(w, tc.res, moduleReply.wrap)
		if w.Code != 200 || w.Header().Get("Content-Type") != tc.ctype || w.Body.String() != tc.body {
			t.Errorf("%s: %d %q %q; want 200 %q %q", tc.name, w.Code, w.Header().Get("Content-Type"), w.Body.String(), tc.ctype, tc.body)
		}
	}
}

func TestWithRender(t *testing.T) {
	s := types.StrType
	act := &manifest.Expr{Kind: manifest.Var, Type: s, Ref: 0}
	c := &manifest.Command{Name: "c", Args: []manifest.Arg{}, Return: s, Body: &manifest.Expr{Kind: manifest.Lit, Type: s, Value: json.RawMessage(`"x"`)},
		Actions: []manifest.Action{{Kind: "render", Long: "shout", Body: act, Return: s, Default: true}}}
	plain := &manifest.Command{Name: "p", Args: []manifest.Arg{}, Return: s, Body: c.Body}
	d := &dispatch.Dispatcher{M: &manifest.Manifest{}}
	withActions, err := tool.New(c, d, "m__c")
	if err != nil {
		t.Fatal(err)
	}
	without, err := tool.New(plain, d, "m__p")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool       *tool.Tool
		query      string
		wantRender string // "" when no _render is added
		wantMsg    string
	}{
		{withActions, "", "", ""},
		{withActions, "?render=shout", `"shout"`, ""},
		{withActions, "?render=raw", `"raw"`, ""},
		{withActions, "?render=bogus", `"bogus"`, ""}, // refused by the tool's binding, naming the valid ones
		{without, "?render=raw", "", ""},
		{without, "?render=shout", "", "unknown render 'shout': command m__p has no output actions; render=raw is its result"},
	} {
		r := httptest.NewRequest("POST", "/call/m/x"+tc.query, strings.NewReader("{}"))
		named, msg := withRender(r, tc.tool, nil)
		if msg != tc.wantMsg || string(named[tool.RenderKey]) != tc.wantRender {
			t.Errorf("%s %s: _render %s, msg %q; want %s, %q", tc.tool.Name, tc.query, named[tool.RenderKey], msg, tc.wantRender, tc.wantMsg)
		}
	}
	if _, err := withActions.Bind(map[string]json.RawMessage{tool.RenderKey: json.RawMessage(`"bogus"`)}); err == nil || !strings.Contains(err.Error(), "expected one of raw, shout") {
		t.Errorf("bogus render: %v", err)
	}
}
