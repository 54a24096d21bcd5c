package check

import (
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Some values cannot tell their own type: `@load file`, `emptyMap`,
// `Null`, `[]`, a generic call whose result only its use settles. Morloc's
// bidirectional checker takes the type from a later use; so does the
// checker here, in two places:
//
//   - A do-bind or let whose value cannot tell its type where it is bound
//     (`ts <- @load file` then `toggle idx ts`): the rest of the block is
//     elaborated once on trial, with the variable of a placeholder type
//     that the first place expecting a known type settles (as
//     inferSignature does for parameters); the value is then elaborated
//     against that type, and the rest for real.
//   - An argument of a generic function that cannot tell its type
//     (`fold f emptyMap ws`) waits until the other arguments or the result
//     expected settle its parameter's type; a generic call given as an
//     argument that cannot tell its result (`toList (fold ...)`) is
//     elaborated again against its parameter's type.
//
// Both first try the value without context (withoutContext): the places
// that need a type (needType) then record that they lack one instead of
// reporting it, and whatever the try made is undone (checkpoint).

// laterState is the checker's state for inference from a later use.
type laterState struct {
	// deferring is set while a value is tried without context; lacked
	// then says a place needed a type it did not have.
	deferring, lacked bool
	// trial counts the trial elaborations in progress; placeholders
	// numbers the placeholder types made.
	trial        int
	placeholders int
}

// needType reports that the type of what is at pos is unknown, or, while
// a value is tried without context, records it for the caller to try
// again with one.
func (c *checker) needType(pos diag.Pos, format string, args ...any) {
	if c.later.deferring {
		c.later.lacked = true
		return
	}
	c.sink.Errorf(pos, format, args...)
}

// withoutContext runs elab, an elaboration without an expected type.
// lacked reports that a place in it needed a type; then nothing it
// reported is kept or made is kept, and the caller tries again with a
// type, or without deferring to report why it cannot.
func (c *checker) withoutContext(elab func() value) (v value, lacked bool) {
	deferring, outer := c.later.deferring, c.later.lacked
	c.later.deferring, c.later.lacked = true, false
	cp := c.checkpoint()
	v = elab()
	lacked = c.later.lacked
	c.later.deferring, c.later.lacked = deferring, outer
	if lacked {
		c.rollback(cp)
		return nil, true
	}
	return v, false
}

// boundValue elaborates the value of binding i of l, a let or a do-bind,
// in scope sc: without context, else against the type its first use in
// the rest of l expects (want is the type expected of l).
func (c *checker) boundValue(l *syntax.Let, i int, sc *scope, want *types.Type) value {
	b := l.Bindings[i]
	v, lacked := c.withoutContext(func() value { return c.elab(b.Value, sc, nil) })
	if !lacked {
		return v
	}
	ph := c.placeholder()
	if c.later.trial > 0 {
		// Within a trial only the outer variable's type matters: this
		// one stays open (until the trial ends), so trials do not nest.
		return &manifest.Expr{Kind: manifest.Var, Type: ph, Ref: c.slots}
	}
	defer delete(c.inferring, ph.Name)
	rest := &syntax.Let{Pos: l.Pos, Bindings: l.Bindings[i+1:], Body: l.Body}
	c.trialElab(rest, sc.with(b.Name.Name, arg{val: &manifest.Expr{Kind: manifest.Var, Type: ph, Ref: c.slots}, pos: b.Name.Pos}), want)
	t := c.inferring[ph.Name]
	if t != nil && !ground(t) {
		t = nil
	}
	// Without a type from the rest, the value reports why it needs one.
	return c.elab(b.Value, sc, t)
}

// openBinding reports whether v is a bound variable whose type is a
// placeholder not settled yet: a generic function's argument that waits,
// like a value that cannot tell its type, for its parameter's type.
func (c *checker) openBinding(v value) bool {
	e, ok := v.(*manifest.Expr)
	if !ok || e.Type.Kind != types.Var || !strings.HasPrefix(e.Type.Name, "?let") {
		return false
	}
	t, open := c.inferring[e.Type.Name]
	return open && t == nil
}

// placeholder is a new open type, settled by the first conform against
// a known type (see conform).
func (c *checker) placeholder() *types.Type {
	c.later.placeholders++
	t := &types.Type{Kind: types.Var, Name: fmt.Sprintf("?let%d", c.later.placeholders)}
	if c.inferring == nil {
		c.inferring = map[string]*types.Type{}
	}
	c.inferring[t.Name] = nil
	return t
}

// trialElab elaborates e in sc against want for what it settles only:
// its errors go to a sink of its own and what it made is undone.
func (c *checker) trialElab(e syntax.Expr, sc *scope, want *types.Type) {
	cp := c.checkpoint()
	sink := c.sink
	c.sink = &diag.Sink{File: sink.File}
	c.later.trial++
	first := c.later.placeholders
	defer func() {
		c.later.trial--
		c.sink = sink
		c.rollback(cp)
		for n := first + 1; n <= c.later.placeholders; n++ {
			delete(c.inferring, fmt.Sprintf("?let%d", n))
		}
	}()
	c.elab(e, sc, want)
}

// checkpoint is what an elaboration may add to the checker's state: the
// pool functions and recursive definitions made, the step budget's
// exhaustion and the variable slots.
type checkpoint struct {
	funcs, recDefs int
	instances      map[string]*function
	poolPreludes   map[string]*function
	exhausted      bool
	slots          int
}

func (c *checker) checkpoint() checkpoint {
	cp := checkpoint{funcs: len(c.funcList), recDefs: len(c.recDefs), exhausted: c.exhausted, slots: c.slots,
		instances: make(map[string]*function, len(c.instances)), poolPreludes: make(map[string]*function, len(c.poolPreludes))}
	for k, f := range c.instances {
		cp.instances[k] = f
	}
	for k, f := range c.poolPreludes {
		cp.poolPreludes[k] = f
	}
	return cp
}

// rollback undoes what was made since cp. The steps taken stay counted,
// so the budget bounds tries too.
func (c *checker) rollback(cp checkpoint) {
	c.funcList = c.funcList[:cp.funcs]
	c.recDefs = c.recDefs[:cp.recDefs]
	for k := range c.instances {
		if cp.instances[k] == nil {
			delete(c.instances, k)
		}
	}
	for k := range c.poolPreludes {
		if cp.poolPreludes[k] == nil {
			delete(c.poolPreludes, k)
		}
	}
	for _, d := range c.defs {
		if d.compiled && d.rec >= cp.recDefs {
			d.compiled = false
		}
	}
	c.exhausted, c.slots = cp.exhausted, cp.slots
}
