package dispatch

import (
	"fmt"

	"github.com/nexus-run/nexus/manifest/types"
)

// The map module's builtins. A Map is a []types.Pair in the order its
// keys were first inserted; keys are compared by their JSON.

// pairs returns v as a map's entries.
func pairs(v any) ([]types.Pair, error) {
	ps, ok := v.([]types.Pair)
	if !ok && v != nil {
		return nil, fmt.Errorf("%T is no map", v)
	}
	return ps, nil
}

// eachPair is the list of f of each entry of the map m.
func eachPair(m any, f func(types.Pair) any) (any, error) {
	ps, err := pairs(m)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(ps))
	for i, p := range ps {
		out[i] = f(p)
	}
	return out, nil
}

// keyed is a map's entries with an index of their keys.
type keyed struct {
	t     *types.Type // the key type
	pairs []types.Pair
	at    map[string]int
}

func newKeyed(t *types.Type) *keyed { return &keyed{t: t, at: map[string]int{}} }

func (k *keyed) key(x any) (string, error) {
	j, err := types.ToJSON(k.t, x)
	return string(j), err
}

// put sets x's value to v, keeping x's place if it is there already.
func (k *keyed) put(x, v any) error {
	s, err := k.key(x)
	if err != nil {
		return err
	}
	if i, ok := k.at[s]; ok {
		k.pairs[i].Value = v
		return nil
	}
	k.at[s] = len(k.pairs)
	k.pairs = append(k.pairs, types.Pair{Key: x, Value: v})
	return nil
}

func (k *keyed) get(x any) (any, bool, error) {
	s, err := k.key(x)
	if err != nil {
		return nil, false, err
	}
	i, ok := k.at[s]
	if !ok {
		return nil, false, nil
	}
	return k.pairs[i].Value, true, nil
}

func (k *keyed) result() []types.Pair {
	if k.pairs == nil {
		return []types.Pair{}
	}
	return k.pairs
}

// indexMap reads a map value of type t (a Map type).
func indexMap(t *types.Type, v any) (*keyed, error) {
	ps, err := pairs(v)
	if err != nil {
		return nil, err
	}
	k := newKeyed(t.Key)
	for _, p := range ps {
		if err := k.put(p.Key, p.Value); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// mapArg is argument i of c, a map, indexed.
func (c *invocation) mapArg(a []any, i int) (*keyed, error) {
	return indexMap(c.argType(i), a[i])
}

var mapBuiltins = map[string]builtinFunc{
	"emptyMap": func(c *invocation, a []any) (any, error) { return []types.Pair{}, nil },
	"singleton": func(c *invocation, a []any) (any, error) {
		return []types.Pair{{Key: a[0], Value: a[1]}}, nil
	},
	"fromList": func(c *invocation, a []any) (any, error) {
		xs, err := list(a[0])
		if err != nil {
			return nil, err
		}
		k := newKeyed(c.e.Type.Key)
		for _, x := range xs {
			p, _ := types.Items(x)
			if len(p) != 2 {
				return nil, fmt.Errorf("an item is no pair")
			}
			if err := k.put(p[0], p[1]); err != nil {
				return nil, err
			}
		}
		return k.result(), nil
	},
	"toList": func(c *invocation, a []any) (any, error) {
		return eachPair(a[0], func(p types.Pair) any { return []any{p.Key, p.Value} })
	},
	"lookup": func(c *invocation, a []any) (any, error) {
		k, err := c.mapArg(a, 1)
		if err != nil {
			return nil, err
		}
		v, _, err := k.get(a[0])
		return v, err
	},
	"member": func(c *invocation, a []any) (any, error) {
		k, err := c.mapArg(a, 1)
		if err != nil {
			return nil, err
		}
		_, ok, err := k.get(a[0])
		return ok, err
	},
	"insert": func(c *invocation, a []any) (any, error) {
		k, err := c.mapArg(a, 2)
		if err != nil {
			return nil, err
		}
		if err := k.put(a[0], a[1]); err != nil {
			return nil, err
		}
		return k.result(), nil
	},
	"delete": func(c *invocation, a []any) (any, error) {
		k, err := c.mapArg(a, 1)
		if err != nil {
			return nil, err
		}
		gone, err := k.key(a[0])
		if err != nil {
			return nil, err
		}
		out := []types.Pair{}
		for _, p := range k.pairs {
			if s, _ := k.key(p.Key); s != gone {
				out = append(out, p)
			}
		}
		return out, nil
	},
	"keys": func(c *invocation, a []any) (any, error) {
		return eachPair(a[0], func(p types.Pair) any { return p.Key })
	},
	"values": func(c *invocation, a []any) (any, error) {
		return eachPair(a[0], func(p types.Pair) any { return p.Value })
	},
	"union": func(c *invocation, a []any) (any, error) {
		return combine(c, a[0], a[1], nil, false)
	},
	"unionWith": func(c *invocation, a []any) (any, error) {
		f, err := fn(a[0])
		if err != nil {
			return nil, err
		}
		return combine(c, a[1], a[2], f, false)
	},
	"intersectionWith": func(c *invocation, a []any) (any, error) {
		f, err := fn(a[0])
		if err != nil {
			return nil, err
		}
		return combine(c, a[1], a[2], f, true)
	},
	"difference": func(c *invocation, a []any) (any, error) {
		l, err := c.mapArg(a, 0)
		if err != nil {
			return nil, err
		}
		r, err := c.mapArg(a, 1)
		if err != nil {
			return nil, err
		}
		out := []types.Pair{}
		for _, p := range l.pairs {
			if _, ok, _ := r.get(p.Key); !ok {
				out = append(out, p)
			}
		}
		return out, nil
	},
	"mapValues": func(c *invocation, a []any) (any, error) {
		return mapEntries(c, a, func(f *closure, p types.Pair) (any, any, error) {
			v, err := f.call(c.ctx, p.Value)
			return p.Key, v, err
		})
	},
	"mapKeys": func(c *invocation, a []any) (any, error) {
		return mapEntries(c, a, func(f *closure, p types.Pair) (any, any, error) {
			k, err := f.call(c.ctx, p.Key)
			return k, p.Value, err
		})
	},
	"mapWithKey": func(c *invocation, a []any) (any, error) {
		return mapEntries(c, a, func(f *closure, p types.Pair) (any, any, error) {
			v, err := f.call(c.ctx, p.Key, p.Value)
			return p.Key, v, err
		})
	},
	"filterMap": func(c *invocation, a []any) (any, error) {
		f, err := fn(a[0])
		if err != nil {
			return nil, err
		}
		ps, err := pairs(a[1])
		if err != nil {
			return nil, err
		}
		out := []types.Pair{}
		for _, p := range ps {
			ok, err := c.pred(f, p.Key, p.Value)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, p)
			}
		}
		return out, nil
	},
	"foldWithKey": func(c *invocation, a []any) (any, error) {
		f, err := fn(a[0])
		if err != nil {
			return nil, err
		}
		ps, err := pairs(a[2])
		if err != nil {
			return nil, err
		}
		acc := a[1]
		for _, p := range ps {
			if acc, err = f.call(c.ctx, acc, p.Key, p.Value); err != nil {
				return nil, err
			}
		}
		return acc, nil
	},
}

// combine is the union of two maps (the right one's values winning, or
// f of both), or with inter their intersection.
func combine(c *invocation, l, r any, f *closure, inter bool) (any, error) {
	t := c.e.Type
	lk, err := indexMap(t, l)
	if err != nil {
		return nil, err
	}
	rk, err := indexMap(t, r)
	if err != nil {
		return nil, err
	}
	out := newKeyed(t.Key)
	for _, p := range lk.pairs {
		v := p.Value
		rv, ok, err := rk.get(p.Key)
		if err != nil {
			return nil, err
		}
		switch {
		case ok && f != nil:
			if v, err = f.call(c.ctx, p.Value, rv); err != nil {
				return nil, err
			}
		case ok:
			v = rv
		case inter:
			continue
		}
		if err := out.put(p.Key, v); err != nil {
			return nil, err
		}
	}
	if !inter {
		for _, p := range rk.pairs {
			if _, ok, _ := lk.get(p.Key); !ok {
				if err := out.put(p.Key, p.Value); err != nil {
					return nil, err
				}
			}
		}
	}
	return out.result(), nil
}

// mapEntries maps each entry of the map a[1] with entry and the function
// a[0]; a key given twice keeps its first place and last value.
func mapEntries(c *invocation, a []any, entry func(*closure, types.Pair) (any, any, error)) (any, error) {
	f, err := fn(a[0])
	if err != nil {
		return nil, err
	}
	ps, err := pairs(a[1])
	if err != nil {
		return nil, err
	}
	out := newKeyed(c.e.Type.Key)
	for _, p := range ps {
		k, v, err := entry(f, p)
		if err != nil {
			return nil, err
		}
		if err := out.put(k, v); err != nil {
			return nil, err
		}
	}
	return out.result(), nil
}
