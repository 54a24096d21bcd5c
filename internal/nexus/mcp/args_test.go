package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/jsonrpc"
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
		{"unrolled", `{"threads":4}`, []any{rec("tmp_dir", "/tmp", "threads", int64(4), "verbose", false)}, ""},
		{"unrolled", `{"threads":4,"tmp_dir":"/x","verbose":true}`, []any{rec("tmp_dir", "/x", "threads", int64(4), "verbose", true)}, ""},
		{"whole", `{"name":"n"}`, []any{rec("level", int64(1), "name", "n")}, ""},
		{"whole", `{"config":{"name":"w","level":5}}`, []any{rec("level", int64(5), "name", "w")}, ""},
		{"whole", `{"config":{"name":"w","level":5},"level":7}`, []any{rec("level", int64(7), "name", "w")}, ""},
		{"acts", `{"_1":[1,2]}`, []any{[]int64{1, 2}}, ""},
		{"acts", `{"_1":[1,2],"_render":"raw"}`, []any{[]int64{1, 2}}, ""},
		{"acts", `{"_1":[],"_render":"lines"}`, []any{[]int64{}}, "lines"},
		{"acts", `{"_1":[],"_render":"r"}`, []any{[]int64{}}, "raw"},
	} {
		tool := byName[tc.tool]
		args, action, err := tool.bind(named(t, tc.args))
		if err != nil {
			t.Errorf("%s %s: %v", tc.tool, tc.args, err)
			continue
		}
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
	}{
		{"pos", `{"word":"hi","_2":3,"extra":1}`, "unknown argument 'extra' for tool 'pos' (it takes word, _2)"},
		{"pos", `{"word":"hi"}`, "missing required argument '_2' for tool 'pos'"},
		{"pos", `{}`, "missing required arguments 'word', '_2' for tool 'pos'"},
		{"pos", `{"word":1,"_2":3}`, "invalid value for argument 'word': expected a string, got the number 1"},
		{"pos", `{"word":"a","_2":1.5}`, "invalid value for argument '_2': expected an integer, got the number 1.5"},
		{"pos", `{"word":null,"_2":1}`, "invalid value for argument 'word': expected a string, got null"},
		{"opts", `{"clean":"yes"}`, "invalid value for argument 'clean': expected true or false, got the string \"yes\""},
		{"kinds", `{"_2":{"a":["x"]},"_3":[1,"x"]}`, "invalid value for argument '_2': at .a[0]: expected an integer, got the string \"x\""},
		{"kinds", `{"_2":{},"_3":[1]}`, "invalid value for argument '_3'"},
		{"unrolled", `{}`, "missing required argument 'threads' for tool 'unrolled'"},
		{"whole", `{}`, "missing required argument 'name' for tool 'whole'"},
		{"whole", `{"config":{"nam":"x"}}`, "invalid value for argument 'config': record Config has no field \"nam\""},
		{"whole", `{"config":[1]}`, "invalid value for argument 'config': expected an object (record Config), got a list"},
		{"whole", `{"config":{"level":"high","name":"x"}}`, "invalid value for argument 'config': field level: expected an integer"},
		{"acts", `{"_1":[],"_render":"fancy"}`, "unknown _render 'fancy' for tool 'acts': expected one of raw, lines, r"},
		{"acts", `{"_1":[],"_render":3}`, "invalid value for argument '_render': expected a string, got 3"},
		{"point", `{"_render":"raw","_1":1}`, "unknown argument '_render' for tool 'point' (it takes _1)"},
	} {
		_, _, err := byName[tc.tool].bind(named(t, tc.args))
		if err == nil {
			t.Errorf("%s %s: no error, want %q", tc.tool, tc.args, tc.want)
			continue
		}
		if err.Code != jsonrpc.CodeInvalidParams || !strings.Contains(err.Message, tc.want) {
			t.Errorf("%s %s:\n got %d %q\nwant %d %q", tc.tool, tc.args, err.Code, err.Message, jsonrpc.CodeInvalidParams, tc.want)
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
