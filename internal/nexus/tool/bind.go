package tool

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Call is a call bound to its command: the command's positional argument
// values, and the output action to apply to the result (nil for raw).
type Call struct {
	Args   []any
	Action *manifest.Action
}

// Bind turns the named arguments of a call into the command's positional
// argument values, filling in what was left out, and picks the output
// action. Every value is checked against its type here, so a bad call
// fails before any pool is involved, with an *ArgError that names the
// argument and what it expected. Any other error is a fault of the
// manifest, not of the call.
func (t *Tool) Bind(named map[string]json.RawMessage) (Call, error) {
	action, err := t.render(named)
	if err != nil {
		return Call{}, err
	}
	given := make([]any, len(t.params)) // by index in t.params
	has := make([]bool, len(t.params))
	for _, k := range slices.Sorted(maps.Keys(named)) {
		if k == RenderKey && t.actions != nil {
			continue
		}
		i := t.param(k)
		if i < 0 {
			return Call{}, argErrorf(t.Name, []string{k}, "unknown argument '%s' for tool '%s'%s", k, t.Name, t.accepted())
		}
		v, err := decodeValue(&t.params[i], named[k])
		if err != nil {
			return Call{}, argErrorf(t.Name, []string{k}, "invalid value for argument '%s': %v", k, err)
		}
		given[i], has[i] = v, true
	}

	args := make([]any, len(t.cmd.Args))
	set := make([]bool, len(t.cmd.Args))
	for i, p := range t.params {
		if !has[i] || p.kind != argParam {
			continue
		}
		v := given[i]
		if p.negated {
			v = !v.(bool)
		}
		args[p.arg], set[p.arg] = v, true
	}
	var missing []string
	for i := range t.cmd.Args {
		a := &t.cmd.Args[i]
		switch {
		case set[i]:
		case a.Kind == manifest.Group:
			rec, lacking, err := t.record(i, given, has)
			if err != nil {
				return Call{}, err
			}
			args[i] = rec
			missing = append(missing, lacking...)
		default:
			v, ok, err := a.Omitted()
			if err != nil {
				return Call{}, fmt.Errorf("argument %d of %s: %w", i+1, t.cmd.Name, err)
			}
			if !ok {
				missing = append(missing, t.keyOf(i, ""))
			}
			args[i] = v
		}
	}
	if len(missing) > 0 {
		return Call{}, argErrorf(t.Name, missing, "missing required argument%s '%s' for tool '%s'", plural(len(missing)), strings.Join(missing, "', '"), t.Name)
	}
	if err := t.checkPaths(args); err != nil {
		return Call{}, err
	}
	return Call{Args: args, Action: action}, nil
}

// record builds the value of the unrolled record argument i from the
// properties given (see Record). lacking names the properties of the
// fields that have no value.
func (t *Tool) record(i int, given []any, has []bool) (map[string]any, []string, error) {
	var whole map[string]any
	fields := map[string]any{}
	for j, p := range t.params {
		if p.arg != i || !has[j] {
			continue
		}
		switch p.kind {
		case wholeParam:
			whole = given[j].(map[string]any)
		case fieldParam:
			v := given[j]
			if p.negated {
				v = !v.(bool)
			}
			fields[p.field] = v
		}
	}
	rec, lacking, err := Record(&t.cmd.Args[i], fields, whole)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", t.cmd.Name, err)
	}
	keys := make([]string, len(lacking))
	for j, fa := range lacking {
		keys[j] = t.keyOf(i, fa.Field)
	}
	if whole == nil && len(keys) > 0 {
		// A record given only whole was not given at all: it is the
		// missing argument, not each of its fields.
		for _, p := range t.params {
			if p.arg == i && p.kind == wholeParam {
				return rec, []string{p.key}, nil
			}
		}
	}
	return rec, keys, nil
}

// decodeValue reads raw as a value of p's type. A record given whole may
// leave fields out (they come from their own properties or defaults), so
// only the fields present are read; the result holds those.
func decodeValue(p *param, raw json.RawMessage) (any, error) {
	if p.kind != wholeParam {
		return types.FromJSON(p.typ, raw)
	}
	v, err := types.DecodeJSON(raw)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected an object (record %s), got %s", p.typ.Name, describeJSON(v))
	}
	return WholeRecord(p.typ, obj)
}

// describeJSON names the kind of an untyped JSON value.
func describeJSON(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	}
	return "an object"
}

// render reads the _render property: the output action it names, or nil.
func (t *Tool) render(named map[string]json.RawMessage) (*manifest.Action, error) {
	raw, ok := named[RenderKey]
	if !ok || t.actions == nil {
		return t.defaultAction, nil
	}
	var v string
	// null would read as "" without an error, and be called an unknown
	// name: it is the wrong type, as for every other argument.
	if err := json.Unmarshal(raw, &v); err != nil || strings.TrimSpace(string(raw)) == "null" {
		return nil, argErrorf(t.Name, []string{RenderKey}, "invalid value for argument '%s': expected a string, got %s", RenderKey, strings.TrimSpace(string(raw)))
	}
	if v == RenderRaw {
		return nil, nil
	}
	if a := t.actions[v]; a != nil {
		return a, nil
	}
	return nil, argErrorf(t.Name, []string{RenderKey}, "unknown %s '%s' for tool '%s': expected one of %s", RenderKey, v, t.Name, strings.Join(t.renderValues(), ", "))
}

// RenderValues are the values _render takes ("raw" and the output
// actions' names), nil for a command without output actions.
func (t *Tool) RenderValues() []string {
	if t.actions == nil {
		return nil
	}
	return t.renderValues()
}

func (t *Tool) renderValues() []string {
	for _, p := range t.InputSchema.Properties {
		if p.Name == RenderKey {
			return p.Schema.Enum
		}
	}
	return nil
}

// param is the index in t.params of the property called key, or -1.
func (t *Tool) param(key string) int {
	for i := range t.params {
		if t.params[i].key == key {
			return i
		}
	}
	return -1
}

// keyOf is the property key of argument i (of its field, for a record;
// KEY.FIELD for a field of a record given whole).
func (t *Tool) keyOf(i int, field string) string {
	for _, p := range t.params {
		if p.arg == i && p.field == field && p.kind != wholeParam {
			return p.key
		}
	}
	for _, p := range t.params {
		if p.arg == i && p.kind == wholeParam {
			return p.key + "." + field
		}
	}
	return field
}

// accepted lists the tool's property names, for an unknown argument error.
func (t *Tool) accepted() string {
	names := make([]string, 0, len(t.InputSchema.Properties))
	for _, p := range t.InputSchema.Properties {
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return " (it takes no arguments)"
	}
	return " (it takes " + strings.Join(names, ", ") + ")"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
