package check

import (
	"encoding/json"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// literal makes the literal of a constant v of type t.
func (c *checker) literal(t *types.Type, v any, pos diag.Pos) value {
	data, err := types.ToJSON(t, v)
	if err != nil {
		c.sink.Errorf(pos, "literal cannot be represented as %s: %v", t, err)
		return nil
	}
	return &manifest.Expr{Kind: manifest.Lit, Type: t, Value: data}
}

// unwrapOptional returns the type a literal is built against: want itself,
// or its element when want is optional.
func unwrapOptional(want *types.Type) *types.Type {
	if want != nil && want.Kind == types.Optional {
		return want.Elem
	}
	return want
}

// jsonLiteralHint explains, where a Json is expected, which literals can
// be one: a program writes a Json only as a scalar; a list or an object
// comes from an argument or a function's result.
func jsonLiteralHint(want *types.Type) string {
	if want.Kind != types.JSON {
		return ""
	}
	return " (a literal Json is an Int, Real, Str, Bool or (); a Json list or object comes from an argument or a function)"
}

// list elaborates [a, b, ...]; without an expected type the elements
// agree on one.
func (c *checker) list(e *syntax.ListLit, sc *scope, want *types.Type) value {
	w := unwrapOptional(want)
	if w != nil && w.Kind != types.List {
		c.sink.Errorf(e.Pos, "expected %s, got a list%s", w, jsonLiteralHint(w))
		return nil
	}
	if w != nil {
		items, ok := c.elabAll(e.Elems, sc, func(int) *types.Type { return w.Elem })
		if !ok {
			return nil
		}
		return build(manifest.MakeList, w, items, nil)
	}
	if len(e.Elems) == 0 {
		c.needType(e.Pos, "cannot tell the element type of this empty list; give the definition a signature")
		return nil
	}
	items, ok := c.elabAll(e.Elems, sc, func(int) *types.Type { return nil })
	if !ok {
		return nil
	}
	elem := commonType(items)
	if elem == nil {
		for i, it := range items {
			if !assignable(it.Type, items[0].Type, it.Kind == manifest.Lit) {
				c.sink.Errorf(e.Elems[i].ExprPos(), "list elements differ in type: expected %s, got %s", items[0].Type, it.Type)
				break
			}
		}
		return nil
	}
	for i, it := range items {
		v := c.conform(it, elem, e.Elems[i].ExprPos())
		if v == nil {
			return nil
		}
		items[i] = v.(*manifest.Expr)
	}
	return build(manifest.MakeList, types.ListOf(elem), items, nil)
}

// commonType picks the type every item fits, preferring the first that
// works: [1, 2.5] is a [Real].
func commonType(items []*manifest.Expr) *types.Type {
	for _, cand := range items {
		ok := true
		for _, it := range items {
			if !assignable(it.Type, cand.Type, it.Kind == manifest.Lit) {
				ok = false
				break
			}
		}
		if ok {
			return cand.Type
		}
	}
	return nil
}

// elabAll elaborates exprs, the i-th against want(i). ok is false when
// any of them failed (each failure reported).
func (c *checker) elabAll(exprs []syntax.Expr, sc *scope, want func(int) *types.Type) ([]*manifest.Expr, bool) {
	out := make([]*manifest.Expr, len(exprs))
	ok := true
	for i, x := range exprs {
		v := c.elab(x, sc, want(i))
		if f, isFn := v.(fnValue); isFn {
			c.sink.Errorf(x.ExprPos(), "expected a value, got %s", f.missing())
			v = nil
		}
		if v == nil {
			ok = false
			continue
		}
		out[i] = v.(*manifest.Expr)
	}
	return out, ok
}

// build makes a list, tuple or record from its parts; when every part is
// a literal the result is one literal.
func build(kind manifest.ExprKind, t *types.Type, items []*manifest.Expr, fields []string) *manifest.Expr {
	allLit := true
	for _, it := range items {
		allLit = allLit && it.Kind == manifest.Lit
	}
	if allLit {
		var b strings.Builder
		open, close := "[", "]"
		if kind == manifest.MakeRecord {
			open, close = "{", "}"
		}
		b.WriteString(open)
		for i, it := range items {
			if i > 0 {
				b.WriteByte(',')
			}
			if fields != nil {
				name, _ := json.Marshal(fields[i])
				b.Write(name)
				b.WriteByte(':')
			}
			b.Write(it.Value)
		}
		b.WriteString(close)
		if lit, err := relit(t, []byte(b.String())); err == nil {
			return lit
		}
	}
	return &manifest.Expr{Kind: kind, Type: t, Args: items, Fields: fields}
}

// tuple elaborates (a, b, ...).
func (c *checker) tuple(e *syntax.TupleLit, sc *scope, want *types.Type) value {
	w := unwrapOptional(want)
	if w != nil && (w.Kind != types.Tuple || len(w.Items) != len(e.Items)) {
		c.sink.Errorf(e.Pos, "expected %s, got a tuple of %d items%s", w, len(e.Items), jsonLiteralHint(w))
		return nil
	}
	items, ok := c.elabAll(e.Items, sc, func(i int) *types.Type {
		if w == nil {
			return nil
		}
		return w.Items[i]
	})
	if !ok {
		return nil
	}
	t := w
	if t == nil {
		its := make([]*types.Type, len(items))
		for i, it := range items {
			its[i] = it.Type
		}
		t = types.TupleOf(its...)
	}
	return build(manifest.MakeTuple, t, items, nil)
}

// recordLit elaborates {field = value, ...}; omitted fields take their
// defaults, or null when optional.
func (c *checker) recordLit(e *syntax.RecordLit, sc *scope, want *types.Type) value {
	w := unwrapOptional(want)
	given := map[string]syntax.FieldInit{}
	for _, f := range e.Fields {
		if _, dup := given[f.Name.Name]; dup {
			c.sink.Errorf(f.Name.Pos, "field %s is given twice", f.Name.Name)
			return nil
		}
		given[f.Name.Name] = f
	}
	if w != nil && w.Kind != types.Record {
		c.sink.Errorf(e.Pos, "expected %s, got a record%s", w, jsonLiteralHint(w))
		return nil
	}
	if w == nil {
		if w = c.recordFor(e, given); w == nil {
			return c.anonymousRecord(e, sc)
		}
	}
	for _, f := range e.Fields {
		if w.Field(f.Name.Name) == nil {
			var names []string
			for _, tf := range w.Fields {
				names = append(names, tf.Name)
			}
			c.sink.Errorf(f.Name.Pos, "record %s has no field '%s'%s", w.Name, f.Name.Name, suggest.Hint(f.Name.Name, names))
			return nil
		}
	}
	items := make([]*manifest.Expr, 0, len(w.Fields))
	fields := make([]string, 0, len(w.Fields))
	ok := true
	for _, tf := range w.Fields {
		var it *manifest.Expr
		if f, has := given[tf.Name]; has {
			v := c.elab(f.Value, sc, tf.Type)
			if v == nil {
				ok = false
				continue
			}
			it = v.(*manifest.Expr)
		} else if len(tf.Default) > 0 {
			it = &manifest.Expr{Kind: manifest.Lit, Type: tf.Type, Value: tf.Default}
		} else if tf.Type.Kind == types.Optional {
			it = &manifest.Expr{Kind: manifest.Lit, Type: tf.Type, Value: []byte("null")}
		} else {
			c.sink.Errorf(e.Pos, "record %s is missing field '%s'", w.Name, tf.Name)
			ok = false
			continue
		}
		items = append(items, it)
		fields = append(fields, tf.Name)
	}
	if !ok {
		return nil
	}
	return build(manifest.MakeRecord, w, items, fields)
}

// recordFor finds the record a literal without an expected type builds:
// the one declared record whose fields fit the given ones; nil when none
// or several do (the literal is then of an anonymous record type).
func (c *checker) recordFor(e *syntax.RecordLit, given map[string]syntax.FieldInit) *types.Type {
	var fit *types.Type
	for _, rec := range c.records {
		t := rec.typ
		if t == nil {
			continue
		}
		ok := true
		for name := range given {
			ok = ok && t.Field(name) != nil
		}
		for _, f := range t.Fields {
			_, has := given[f.Name]
			ok = ok && (has || len(f.Default) > 0 || f.Type.Kind == types.Optional)
		}
		if ok && fit != nil {
			return nil
		}
		if ok {
			fit = t
		}
	}
	return fit
}

// throw elaborates @throw "message" into a failure of the expected type.
func (c *checker) throw(e *syntax.Throw, sc *scope, want *types.Type) value {
	v := c.elab(e.Message, sc, types.StrType)
	if v == nil {
		return nil
	}
	msg := v.(*manifest.Expr)
	var text string
	if msg.Kind != manifest.Lit || json.Unmarshal(msg.Value, &text) != nil {
		c.sink.Errorf(e.Message.ExprPos(), "@throw needs a literal string message")
		return nil
	}
	if want == nil {
		c.needType(e.Pos, "cannot tell the type of this @throw; give the definition a signature")
		return nil
	}
	return &manifest.Expr{Kind: manifest.Throw, Type: want, Message: text}
}
