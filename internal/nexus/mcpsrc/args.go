package mcpsrc

import (
	"encoding/json"
	"fmt"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// toolArgs turns args, a msgpack array of f.Args, into the arguments
// object of a call of tool f: Params[i] is the name of argument i, or,
// with no Params, the single record argument's fields are the tool's
// arguments. An optional argument (or field) that is null is left out, as
// a tool's optional parameter is by omission. Each value is its JSON, as
// types.ToJSON writes it (a Json value is its own JSON text).
func toolArgs(f *manifest.Function, args []byte) (map[string]any, error) {
	vs, err := types.DecodeArgs(f.Args, args)
	if err != nil {
		return nil, err
	}
	named := make(map[string]any, len(vs))
	if len(f.Params) == 0 && len(f.Args) == 1 && f.Args[0].Kind == types.Record {
		rec, ok := vs[0].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("record %s arrived as %T", f.Args[0].Name, vs[0])
		}
		for _, fd := range f.Args[0].Fields {
			if err := addArg(named, fd.Name, fd.Type, rec[fd.Name]); err != nil {
				return nil, err
			}
		}
		return named, nil
	}
	if len(f.Params) != len(vs) {
		return nil, fmt.Errorf("%d argument names for %d arguments", len(f.Params), len(vs))
	}
	for i, name := range f.Params {
		if err := addArg(named, name, f.Args[i], vs[i]); err != nil {
			return nil, err
		}
	}
	return named, nil
}

// addArg sets named[name] to the JSON of v, of type t, unless v is an
// optional's null.
func addArg(named map[string]any, name string, t *types.Type, v any) error {
	if t.Kind == types.Optional && v == nil {
		return nil
	}
	b, err := types.ToJSON(t, v)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	named[name] = json.RawMessage(b)
	return nil
}
