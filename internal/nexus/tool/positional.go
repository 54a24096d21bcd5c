package tool

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Positional turns the positional arguments of a call (a daemon client's
// `[5, 10]`) into the named arguments Bind takes, so that both forms are
// bound and checked by one binder. The values stand for the command's
// arguments in the order of its signature, as on the command line and in
// Morloc's daemon: positionals, options and flags alike (a flag's value
// is the function's Bool, not its negation), an unrolled record as one
// object of its fields. A `()` argument has no value to give and takes
// no place. Trailing arguments that have a value when left out may be
// left out; any other count is an *ArgError naming the counts.
func (t *Tool) Positional(values []json.RawMessage) (map[string]json.RawMessage, error) {
	slots := t.slots()
	least := 0
	for i, s := range slots {
		if !s.omittable {
			least = i + 1
		}
	}
	if n := len(values); n < least || n > len(slots) {
		return nil, argErrorf(t.Name, nil, "%s takes %s (%s), got %d", t.Name, countText(least, len(slots)), slotNames(slots), n)
	}
	named := make(map[string]json.RawMessage, len(values))
	for i, raw := range values {
		s := slots[i]
		switch {
		case s.key != "" && s.negated:
			var b bool
			if err := json.Unmarshal(raw, &b); err != nil {
				return nil, argErrorf(t.Name, []string{s.key}, "invalid value for argument %d (%s): expected a boolean, got %s", i+1, s.name, strings.TrimSpace(string(raw)))
			}
			named[s.key] = json.RawMessage(fmt.Sprint(!b))
		case s.key != "":
			named[s.key] = raw
		default:
			// An unrolled record without a property of its own: its
			// fields go to their own properties.
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
				return nil, argErrorf(t.Name, []string{s.name}, "invalid value for argument %d (%s): expected an object (record %s), got %s", i+1, s.name, s.typ.Name, describeRaw(raw))
			}
			for f, v := range fields {
				key := t.fieldKey(s.arg, f)
				if key == "" {
					return nil, argErrorf(t.Name, []string{s.name}, "invalid value for argument %d (%s): record %s has no field %q", i+1, s.name, s.typ.Name, f)
				}
				named[key] = v
			}
		}
	}
	return named, nil
}

// slot is one place of a positional call.
type slot struct {
	name string // what messages call it
	arg  int    // index in cmd.Args
	typ  *types.Type
	// key is the property the value goes to; "" for an unrolled record
	// given by its fields' properties.
	key       string
	negated   bool // the property is a flag's negation
	omittable bool // the argument has a value when left out
}

// slots are the places of a positional call, in the command's order.
func (t *Tool) slots() []slot {
	var out []slot
	for i := range t.cmd.Args {
		a := &t.cmd.Args[i]
		if a.Kind == manifest.Positional && a.Type.Kind == types.Unit {
			continue
		}
		s := slot{arg: i, typ: a.Type}
		for _, p := range t.params {
			if p.arg == i && (p.kind == argParam || p.kind == wholeParam) {
				s.key, s.negated = p.key, p.negated
			}
		}
		s.name = s.key
		if a.Kind == manifest.Group {
			_, lacking, err := Record(a, nil, nil)
			s.omittable = err == nil && len(lacking) == 0
			if s.name == "" {
				s.name = firstOf(a.Name, strings.ToLower(a.Type.Name))
			}
		} else {
			_, ok, err := a.Omitted()
			s.omittable = ok && err == nil
		}
		out = append(out, s)
	}
	return out
}

// fieldKey is the property of field f of the unrolled record argument i,
// or "".
func (t *Tool) fieldKey(i int, f string) string {
	for _, p := range t.params {
		if p.arg == i && p.kind == fieldParam && p.field == f {
			return p.key
		}
	}
	return ""
}

func countText(least, most int) string {
	switch {
	case least == most && most == 1:
		return "1 argument"
	case least == most:
		return fmt.Sprintf("%d arguments", most)
	case least == 0:
		return fmt.Sprintf("at most %d arguments", most)
	}
	return fmt.Sprintf("%d to %d arguments", least, most)
}

func slotNames(slots []slot) string {
	if len(slots) == 0 {
		return "none"
	}
	names := make([]string, len(slots))
	for i, s := range slots {
		names[i] = s.name
	}
	return strings.Join(names, ", ")
}

func describeRaw(raw json.RawMessage) string {
	v, err := types.DecodeJSON(raw)
	if err != nil {
		return "no JSON"
	}
	return describeJSON(v)
}
