package manifest

import (
	"fmt"

	"github.com/nexus-run/nexus/manifest/types"
)

// Omitted is the value argument (or unrolled field) a takes when a caller
// leaves it out, the same on every front end: its default, false for a flag
// (true for one that has only a negation), an empty list for a variadic
// one, null when its type admits null. ok is false when it has none of
// these, so it must be given.
func (a *Arg) Omitted() (v any, ok bool, err error) {
	switch {
	case len(a.Default) > 0:
		v, err := types.FromJSON(a.Type, a.Default)
		if err != nil {
			return nil, false, fmt.Errorf("default: %w", err)
		}
		return v, true, nil
	case a.Kind == Flag:
		return a.OnlyNegation(), true, nil
	case a.ManyElem() != nil:
		return []any{}, true, nil
	case a.Type.Nullable():
		return nil, true, nil
	}
	return nil, false, nil
}

// OnlyNegation reports whether a is a flag named only by its negation
// (`false: --no-color`), so that leaving it out means true.
func (a *Arg) OnlyNegation() bool {
	return a.Kind == Flag && a.Short == "" && a.Long == ""
}

// ManyElem is the element type of a variadic argument, read one item (or
// list of items) per token; nil when a is not variadic.
func (a *Arg) ManyElem() *types.Type {
	if !a.Many {
		return nil
	}
	t := a.Type
	if t.Kind == types.Optional {
		t = t.Elem
	}
	if t.Kind != types.List {
		return nil
	}
	return t.Elem
}
