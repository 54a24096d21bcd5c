package check

import (
	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Morloc's getters and setters (syntax.Access) are functions of the value
// they are applied to. A getter's steps become the manifest's Get, Item,
// Index and Slice; a setter, ending its chain, becomes Sets that copy each
// value on the way down with its part replaced: `.1.(.0 = "S") t` is t
// with item 1 replaced by item 1 with item 0 replaced. A value used twice
// that way is computed once (a Let).

// accessFn is a getter or setter chain with the scope its bracket bounds
// and setter values are written in.
type accessFn struct {
	a  *syntax.Access
	sc *scope
}

func (f *accessFn) missing() string { return "a getter without the value it reads" }

func (f *accessFn) apply(c *checker, args []arg, pos diag.Pos, want *types.Type) value {
	x := c.structured(c.force(args[0], nil), args[0].pos, "a getter")
	if x == nil {
		return nil
	}
	steps := f.a.Steps
	var out *manifest.Expr
	if last := steps[len(steps)-1]; last.Kind == syntax.StepSet {
		out = c.update(x, steps[:len(steps)-1], true, func(inner *manifest.Expr) *manifest.Expr {
			return c.setAll(inner, last.Sets, f.sc)
		})
	} else {
		out = c.getPath(x, steps, f.sc)
	}
	if out == nil {
		return nil
	}
	return c.applyValue(out, args[1:], pos, want)
}

// structured is v as a value, or nil after saying that what needed a
// value (what) was given a function.
func (c *checker) structured(v value, pos diag.Pos, what string) *manifest.Expr {
	switch v := v.(type) {
	case *manifest.Expr:
		return v
	case fnValue:
		c.sink.Errorf(pos, "%s needs a value, got %s", what, v.missing())
	}
	return nil
}

// getPath applies the getter steps to x.
func (c *checker) getPath(x *manifest.Expr, steps []syntax.Step, sc *scope) *manifest.Expr {
	for i, st := range steps {
		if x == nil {
			return nil
		}
		switch st.Kind {
		case syntax.StepField:
			x = c.getField(x, st.Field, st.Pos)
		case syntax.StepItem:
			x = c.getItem(x, st)
		case syntax.StepIndex:
			x = c.getIndex(x, st, sc)
		case syntax.StepSlice:
			if i < len(steps)-1 {
				c.sink.Errorf(steps[i+1].Pos, "a step after a slice (mapping it over the slice's items) is not supported yet; apply the getter to the slice's items with a function")
				return nil
			}
			x = c.getSlice(x, st, sc)
		case syntax.StepGroup:
			x = c.getGroup(x, st, sc)
		case syntax.StepSet:
			c.sink.Errorf(st.Pos, "a setter ends its getter chain")
			return nil
		}
	}
	return x
}

// getField is the field name of the record r.
func (c *checker) getField(r *manifest.Expr, name string, pos diag.Pos) *manifest.Expr {
	if r.Type.Kind != types.Record {
		c.sink.Errorf(pos, "'.%s' needs a record, got %s", name, r.Type)
		return nil
	}
	f := r.Type.Field(name)
	if f == nil {
		var names []string
		for _, tf := range r.Type.Fields {
			names = append(names, tf.Name)
		}
		c.sink.Errorf(pos, "record %s has no field '%s'%s", r.Type.Name, name, suggest.Hint(name, names))
		return nil
	}
	return &manifest.Expr{Kind: manifest.Get, Type: f.Type, Field: name, Args: []*manifest.Expr{r}}
}

// getItem is item st.Index of the tuple x.
func (c *checker) getItem(x *manifest.Expr, st syntax.Step) *manifest.Expr {
	t := x.Type
	switch {
	case t.Kind == types.List || t.Kind == types.Str:
		c.sink.Errorf(st.Pos, "'.%d' reads an item of a tuple, but the value is %s; index a list with .[%d]", st.Index, t, st.Index)
		return nil
	case t.Kind != types.Tuple:
		c.sink.Errorf(st.Pos, "'.%d' needs a tuple, got %s", st.Index, t)
		return nil
	case st.Index >= len(t.Items):
		c.sink.Errorf(st.Pos, "tuple arity %d required, index %d given: %s has items .0 to .%d", len(t.Items), st.Index, t, len(t.Items)-1)
		return nil
	}
	return &manifest.Expr{Kind: manifest.Item, Type: t.Items[st.Index], Ref: st.Index, Args: []*manifest.Expr{x}}
}

// sequence is the item type of a list or string x (a Str's items are
// Strs), or nil after an error.
func (c *checker) sequence(x *manifest.Expr, pos diag.Pos, what string) *types.Type {
	switch x.Type.Kind {
	case types.List:
		return x.Type.Elem
	case types.Str:
		return types.StrType
	}
	c.sink.Errorf(pos, "%s needs a list or a string, got %s", what, x.Type)
	return nil
}

func (c *checker) getIndex(x *manifest.Expr, st syntax.Step, sc *scope) *manifest.Expr {
	elem := c.sequence(x, st.Pos, "an index .[i]")
	if elem == nil {
		return nil
	}
	i := c.structured(c.elab(st.Lo, sc, types.IntType), st.Lo.ExprPos(), "an index")
	if i == nil {
		return nil
	}
	return &manifest.Expr{Kind: manifest.Index, Type: elem, Args: []*manifest.Expr{x, i}}
}

func (c *checker) getSlice(x *manifest.Expr, st syntax.Step, sc *scope) *manifest.Expr {
	if c.sequence(x, st.Pos, "a slice .[i:j]") == nil {
		return nil
	}
	optInt := types.OptionalOf(types.IntType)
	args := []*manifest.Expr{x}
	for _, b := range []syntax.Expr{st.Lo, st.Hi, st.By} {
		if b == nil {
			args = append(args, &manifest.Expr{Kind: manifest.Lit, Type: optInt, Value: []byte("null")})
			continue
		}
		v := c.structured(c.elab(b, sc, types.IntType), b.ExprPos(), "a slice bound")
		if v == nil {
			return nil
		}
		args = append(args, v)
	}
	return &manifest.Expr{Kind: manifest.Slice, Type: x.Type, Args: args}
}

// getGroup is `.(.a, .b)` of x: a tuple of each getter's value, or the
// one value of a group of one.
func (c *checker) getGroup(x *manifest.Expr, st syntax.Step, sc *scope) *manifest.Expr {
	if len(st.Group) == 1 {
		return c.getPath(x, st.Group[0].Steps, sc)
	}
	return c.shared(x, func(v *manifest.Expr) *manifest.Expr {
		items := make([]*manifest.Expr, len(st.Group))
		its := make([]*types.Type, len(st.Group))
		for i, g := range st.Group {
			if items[i] = c.getPath(v, g.Steps, sc); items[i] == nil {
				return nil
			}
			its[i] = items[i].Type
		}
		return &manifest.Expr{Kind: manifest.MakeTuple, Type: types.TupleOf(its...), Args: items}
	})
}

// shared is body applied to x, with x computed once when body may use it
// more than once: a literal or a variable is used as it is, anything else
// takes a variable slot (a Let).
func (c *checker) shared(x *manifest.Expr, body func(*manifest.Expr) *manifest.Expr) *manifest.Expr {
	if x.Kind == manifest.Var || x.Kind == manifest.Lit {
		return body(x)
	}
	ref := c.slots
	c.slots++
	defer func() { c.slots = ref }()
	out := body(&manifest.Expr{Kind: manifest.Var, Type: x.Type, Ref: ref})
	if out == nil {
		return nil
	}
	return &manifest.Expr{Kind: manifest.Let, Type: out.Type, Args: []*manifest.Expr{x, out}}
}

// update is x with the part at path replaced by change of that part.
// usesOld says whether change uses the part's value, or its type only (a
// setter's new value): x is then used once by the last step.
func (c *checker) update(x *manifest.Expr, path []syntax.Step, usesOld bool, change func(*manifest.Expr) *manifest.Expr) *manifest.Expr {
	if len(path) == 0 {
		return change(x)
	}
	st := path[0]
	if st.Kind != syntax.StepField && st.Kind != syntax.StepItem {
		c.sink.Errorf(st.Pos, "a setter's path has fields (.name) and tuple items (.0) only; there are no bracket or group setters")
		return nil
	}
	share := c.shared
	if len(path) == 1 && !usesOld {
		share = func(x *manifest.Expr, body func(*manifest.Expr) *manifest.Expr) *manifest.Expr { return body(x) }
	}
	return share(x, func(v *manifest.Expr) *manifest.Expr {
		var part *manifest.Expr
		if st.Kind == syntax.StepField {
			part = c.getField(v, st.Field, st.Pos)
		} else {
			part = c.getItem(v, st)
		}
		if part == nil {
			return nil
		}
		repl := c.update(part, path[1:], usesOld, change)
		if repl == nil {
			return nil
		}
		set := &manifest.Expr{Kind: manifest.Set, Type: v.Type, Args: []*manifest.Expr{v, repl}}
		if st.Kind == syntax.StepField {
			set.Field = st.Field
		} else {
			set.Ref = st.Index
		}
		return set
	})
}

// setAll is x with each setter applied in turn. A new value is
// elaborated against the type of the part it replaces: a setter does not
// change a type.
func (c *checker) setAll(x *manifest.Expr, sets []syntax.SetItem, sc *scope) *manifest.Expr {
	for _, s := range sets {
		if x == nil {
			return nil
		}
		if len(s.Path.Steps) == 0 {
			return nil
		}
		x = c.update(x, s.Path.Steps, false, func(old *manifest.Expr) *manifest.Expr {
			return c.structured(c.elab(s.Value, sc, old.Type), s.Value.ExprPos(), "a setter")
		})
	}
	return x
}
