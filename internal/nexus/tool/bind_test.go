package tool

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest/types"
)

func TestBind(t *testing.T) {
	tools, _ := surfaceTools(t)
	byName := map[string]*Tool{}
	for _, tool := range tools {
		byName[tool.Name] = tool
	}
	rec := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		tool, args string
		want       []any
		render     string // the action's long or short name, "" for raw
	}{
		{"pos", `{"word":"hi","_2":3}`, []any{"hi", int64(3)}, ""},
		{"opts", `{}`, []any{1.5, false, true}, ""},
		{"opts", `{"factor":2,"clean":true,"no-color":true}`, []any{2.0, true, false}, ""},
		{"opts", `{"no-color":false}`, []any{1.5, false, true}, ""},
		{"kinds", `{"_2":{"b":[1],"a":[]},"_3":[1,"x"]}`, nil, ""},
		{"kinds", `{"_1":null,"_2":{},"_3":[1,"x"]}`, nil, ""},
		{"unrolled", `{"threads":4}`, []any{rec("tmp_dir", "/tmp", "threads", int64(4), "verbose", false, "color", true)}, ""},
		{"unrolled", `{"threads":4,"tmp_dir":"/x","verbose":true}`, []any{rec("tmp_dir", "/x", "threads", int64(4), "verbose", true, "color", true)}, ""},
		// A field known by its negation (--no-color) is still published
		// under the field's name, and carries the field's own value.
		{"unrolled", `{"threads":4,"color":false}`, []any{rec("tmp_dir", "/tmp", "threads", int64(4), "verbose", false, "color", false)}, ""},
		{"unrolled", `{"threads":4,"color":true}`, []any{rec("tmp_dir", "/tmp", "threads", int64(4), "verbose", false, "color", true)}, ""},
		{"whole", `{"configwhole":{"name":"n"}}`, []any{rec("level", int64(1), "name", "n")}, ""},
		{"whole", `{"configwhole":{"name":"w","level":5}}`, []any{rec("level", int64(5), "name", "w")}, ""},
		{"pointopt", `{}`, []any{rec("x", 0.0, "y", 1.0)}, ""},
		{"pointopt", `{"point":{"x":2,"y":3}}`, []any{rec("x", 2.0, "y", 3.0)}, ""},
		{"acts", `{"_1":[1,2]}`, []any{[]int64{1, 2}}, ""},
		{"anyjson", `{"data": {"b": [1, "é"], "a": null}}`, []any{types.JSONText(`{"b":[1,"é"],"a":null}`), nil}, ""},
		{"anyjson", `{"data":"text","_2":null}`, []any{types.JSONText(`"text"`), nil}, ""},
		{"anyjson", `{"data":null,"_2":[ 9007199254740993 ]}`, []any{types.JSONText(`null`), types.JSONText(`[9007199254740993]`)}, ""},
		{"acts", `{"_1":[1,2],"_render":"raw"}`, []any{[]int64{1, 2}}, ""},
		{"acts", `{"_1":[],"_render":"lines"}`, []any{[]int64{}}, "lines"},
		{"acts", `{"_1":[],"_render":"r"}`, []any{[]int64{}}, "raw"},
	} {
		tool := byName[tc.tool]
		c, err := tool.Bind(named(t, tc.args))
		if err != nil {
			t.Errorf("%s %s: %v", tc.tool, tc.args, err)
			continue
		}
		args, action := c.Args, c.Action
		if tc.want != nil && !reflect.DeepEqual(args, tc.want) {
			t.Errorf("%s %s:\n got %#v\nwant %#v", tc.tool, tc.args, args, tc.want)
		}
		got := ""
		if action != nil {
			got = action.Long
		}
		if got != tc.render {
			t.Errorf("%s %s: action %q, want %q", tc.tool, tc.args, got, tc.render)
		}
	}
}

func TestBindErrors(t *testing.T) {
	tools, _ := surfaceTools(t)
	byName := map[string]*Tool{}
	for _, tool := range tools {
		byName[tool.Name] = tool
	}
	for _, tc := range []struct {
		tool, args, want string
		at               []string // the ArgError's Args
	}{
		{"pos", `{"word":"hi","_2":3,"extra":1}`, "unknown argument 'extra' for tool 'pos' (it takes word, _2)", []string{"extra"}},
		{"pos", `{"word":"hi"}`, "missing required argument '_2' for tool 'pos'", []string{"_2"}},
		{"pos", `{}`, "missing required arguments 'word', '_2' for tool 'pos'", []string{"word", "_2"}},
		{"pos", `{"word":1,"_2":3}`, "invalid value for argument 'word': expected a string, got the number 1", []string{"word"}},
		{"pos", `{"word":"a","_2":1.5}`, "invalid value for argument '_2': expected an integer, got the number 1.5", []string{"_2"}},
		{"pos", `{"word":null,"_2":1}`, "invalid value for argument 'word': expected a string, got null", []string{"word"}},
		{"opts", `{"clean":"yes"}`, "invalid value for argument 'clean': expected true or false, got the string \"yes\"", []string{"clean"}},
		{"kinds", `{"_2":{"a":["x"]},"_3":[1,"x"]}`, "invalid value for argument '_2': at .a[0]: expected an integer, got the string \"x\"", []string{"_2"}},
		{"kinds", `{"_2":{},"_3":[1]}`, "invalid value for argument '_3'", []string{"_3"}},
		{"unrolled", `{}`, "missing required argument 'threads' for tool 'unrolled'", []string{"threads"}},
		{"whole", `{}`, "missing required argument 'configwhole' for tool 'whole'", []string{"configwhole"}},
		{"whole", `{"configwhole":{"level":2}}`, "missing required argument 'configwhole.name' for tool 'whole'", []string{"configwhole.name"}},
		{"whole", `{"name":"n"}`, "unknown argument 'name' for tool 'whole' (it takes configwhole)", []string{"name"}},
		{"whole", `{"configwhole":{"nam":"x"}}`, "invalid value for argument 'configwhole': record ConfigWhole has no field \"nam\"", []string{"configwhole"}},
		{"whole", `{"configwhole":[1]}`, "invalid value for argument 'configwhole': expected an object (record ConfigWhole), got a list", []string{"configwhole"}},
		{"whole", `{"configwhole":{"level":"high","name":"x"}}`, "invalid value for argument 'configwhole': field level: expected an integer", []string{"configwhole"}},
		{"acts", `{"_1":[],"_render":"fancy"}`, "unknown _render 'fancy' for tool 'acts': expected one of raw, lines, r", []string{"_render"}},
		{"acts", `{"_1":[],"_render":3}`, "invalid value for argument '_render': expected a string, got 3", []string{"_render"}},
		{"acts", `{"_1":[],"_render":null}`, "invalid value for argument '_render': expected a string, got null", []string{"_render"}}, // was "unknown _render ''"
		{"point", `{"_render":"raw","_1":1}`, "unknown argument '_render' for tool 'point' (it takes _1)", []string{"_render"}},
	} {
		_, err := byName[tc.tool].Bind(named(t, tc.args))
		var bad *ArgError
		if !errors.As(err, &bad) {
			t.Errorf("%s %s: got %v, want an ArgError %q", tc.tool, tc.args, err, tc.want)
			continue
		}
		if !strings.Contains(bad.Msg, tc.want) || bad.Tool != tc.tool || !slices.Equal(bad.Args, tc.at) {
			t.Errorf("%s %s:\n got %q at %q of %s\nwant %q at %q", tc.tool, tc.args, bad.Msg, bad.Args, bad.Tool, tc.want, tc.at)
		}
	}
}

func named(t *testing.T, s string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}
