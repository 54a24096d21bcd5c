package tool

import (
	"fmt"
	"maps"
	"slices"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Record builds the value of a, an unrolled record argument, by the rule
// every front end follows (tools here, options on the command line): each
// field from fields (the values given to the fields' own properties or
// options, by field name) when there, else from whole (the fields of the
// record given whole, already of their types, see WholeRecord), else the
// value its field argument takes when left out (manifest.Arg.Omitted, with
// the record type's default for the field when the argument has none).
// lacking are the field arguments that have none of these, in order.
func Record(a *manifest.Arg, fields, whole map[string]any) (rec map[string]any, lacking []*manifest.Arg, err error) {
	rec = make(map[string]any, len(a.Fields))
	for j := range a.Fields {
		fa := &a.Fields[j]
		if v, ok := fields[fa.Field]; ok {
			rec[fa.Field] = v
			continue
		}
		if v, ok := whole[fa.Field]; ok {
			rec[fa.Field] = v
			continue
		}
		v, ok, err := fieldArg(a, fa).Omitted()
		if err != nil {
			return nil, nil, fmt.Errorf("field %s of %s: %w", fa.Field, a.Type.Name, err)
		}
		if !ok {
			lacking = append(lacking, fa)
			continue
		}
		rec[fa.Field] = v
	}
	return rec, lacking, nil
}

// fieldArg is fa, a field of the unrolled record a, with the default the
// record type gives the field when fa has none of its own.
func fieldArg(a, fa *manifest.Arg) *manifest.Arg {
	if len(fa.Default) > 0 {
		return fa
	}
	f := a.Type.Field(fa.Field)
	if f == nil || len(f.Default) == 0 {
		return fa
	}
	withDefault := *fa
	withDefault.Default = f.Default
	return &withDefault
}

// WholeRecord reads obj, an untyped JSON object (types.DecodeJSON), as the
// fields of a record of type t given whole. It may leave fields out (they
// come from elsewhere, see Record), so the result holds only those given,
// each read as its field's type; a field t does not have is an error.
func WholeRecord(t *types.Type, obj map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(obj))
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		f := t.Field(k)
		if f == nil {
			return nil, fmt.Errorf("record %s has no field %q", t.Name, k)
		}
		v, err := types.FromJSONValue(f.Type, obj[k])
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}
