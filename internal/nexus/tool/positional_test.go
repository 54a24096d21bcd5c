package tool

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestPositional: a positional call binds as the named call the same
// values make, in the command's order, through Bind.
func TestPositional(t *testing.T) {
	tools, _ := surfaceTools(t)
	byName := map[string]*Tool{}
	for _, tool := range tools {
		byName[tool.Name] = tool
	}
	for _, tc := range []struct {
		tool, args, named string
	}{
		{"pos", `["hi", 3]`, `{"word":"hi","_2":3}`},
		// Options and flags take their places too; a flag known by its
		// negation takes the function's value, not the negation's.
		{"opts", `[]`, `{}`},
		{"opts", `[2]`, `{"factor":2}`},
		{"opts", `[2, true, false]`, `{"factor":2,"clean":true,"no-color":true}`},
		{"opts", `[2, true, true]`, `{"factor":2,"clean":true,"no-color":false}`},
		{"kinds", `[null, {}, [1, "x"]]`, `{"_1":null,"_2":{},"_3":[1,"x"]}`},
		// An unrolled record is one object, its fields by name.
		{"unrolled", `[{"threads":4}]`, `{"threads":4}`},
		{"unrolled", `[{"threads":4,"color":false}]`, `{"threads":4,"color":false}`},
		{"whole", `[{"name":"w","level":5}]`, `{"configwhole":{"name":"w","level":5}}`},
		{"point", `[1.5]`, `{"_1":1.5}`},
	} {
		tool := byName[tc.tool]
		var values []json.RawMessage
		if err := json.Unmarshal([]byte(tc.args), &values); err != nil {
			t.Fatal(err)
		}
		got, err := tool.Positional(values)
		if err != nil {
			t.Errorf("%s %s: %v", tc.tool, tc.args, err)
			continue
		}
		a, errA := tool.Bind(got)
		b, errB := tool.Bind(named(t, tc.named))
		if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s %s: binds as %#v (%v), want as %s: %#v (%v)", tc.tool, tc.args, a, errA, tc.named, b, errB)
		}
	}
}

func TestPositionalErrors(t *testing.T) {
	tools, _ := surfaceTools(t)
	byName := map[string]*Tool{}
	for _, tool := range tools {
		byName[tool.Name] = tool
	}
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"pos", `["hi"]`, "pos takes 2 arguments (word, _2), got 1"},
		{"pos", `["hi", 1, 2]`, "pos takes 2 arguments (word, _2), got 3"},
		{"point", `[]`, "point takes 1 argument (_1), got 0"},
		{"opts", `[1, true, false, 4]`, "opts takes at most 3 arguments (factor, clean, no-color), got 4"},
		{"whole", `[]`, "whole takes 1 argument (configwhole), got 0"},
		{"kinds", `[null]`, "kinds takes 3 arguments (_1, _2, _3), got 1"},
		{"opts", `[1, true, "no"]`, "invalid value for argument 3 (no-color): expected a boolean"},
		{"unrolled", `[[1]]`, "invalid value for argument 1 (settings): expected an object (record Settings), got a list"},
		{"unrolled", `[{"thread":1}]`, `record Settings has no field "thread"`},
		// The values' types are Bind's to check.
		{"pos", `[1, 3]`, "invalid value for argument 'word': expected a string"},
		{"unrolled", `[{}]`, "missing required argument 'threads'"},
	} {
		var values []json.RawMessage
		if err := json.Unmarshal([]byte(tc.args), &values); err != nil {
			t.Fatal(err)
		}
		tool := byName[tc.tool]
		n, err := tool.Positional(values)
		if err == nil {
			_, err = tool.Bind(n)
		}
		var bad *ArgError
		if !errors.As(err, &bad) || !strings.Contains(bad.Msg, tc.want) {
			t.Errorf("%s %s: got %v, want an ArgError saying %q", tc.tool, tc.args, err, tc.want)
		}
	}
}
