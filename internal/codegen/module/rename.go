package module

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
)

// renamer renames the terms of one module in place: every binding and
// every use of a name in names, parameters and local bindings included,
// so a renaming keeps what each name refers to. Record fields, types and
// getters are not terms and keep their names.
//
// Every expression kind of package syntax must be handled in expr: an
// unknown one is reported rather than left half renamed.
type renamer struct {
	names map[string]string
	// quals are the module's qualifiers (`import m as h`), to report a
	// qualified name that its module does not export.
	quals map[string]*module
	// standard are the qualifiers of standard modules (stdqual.go).
	standard map[string]bool
	sink     *diag.Sink
	// seen collects every term name met, renamed or not.
	seen map[string]bool
}

func (r *renamer) name(n *syntax.Name) { r.str(&n.Name) }

func (r *renamer) str(s *string) {
	if r.seen != nil {
		r.seen[*s] = true
	}
	if to, ok := r.names[*s]; ok {
		*s = to
	}
}

// namesIn returns every term name of f: its own, what it refers to and
// its local bindings.
func namesIn(f *syntax.File) map[string]bool {
	r := &renamer{seen: map[string]bool{}}
	r.file(f)
	return r.seen
}

// avoidCapture renames, in ren, the local names of a module (its
// parameters and local bindings) that are the new name of something else
// it refers to: `g square = sq square`, with sq renamed to square, would
// otherwise refer to its parameter.
func avoidCapture(ren map[string]string, local map[string]bool) {
	taken, target := map[string]bool{}, map[string]bool{}
	for k, v := range ren {
		taken[k], taken[v], target[v] = true, true, true
	}
	for n := range local {
		taken[n] = true
	}
	for n := range local {
		if _, ok := ren[n]; ok || !target[n] {
			continue
		}
		fresh := n + "'"
		for taken[fresh] {
			fresh += "'"
		}
		taken[fresh] = true
		ren[n] = fresh
	}
}

func (r *renamer) file(f *syntax.File) {
	for _, s := range f.Sources {
		for i := range s.Items {
			r.name(&s.Items[i].Alias)
		}
	}
	for _, s := range f.Signatures {
		r.name(&s.Name)
	}
	for _, fx := range f.Fixities {
		for i := range fx.Ops {
			r.name(&fx.Ops[i])
		}
	}
	for _, d := range f.Defs {
		r.def(d)
	}
	r.instances(f)
}

// exports renames an export list, dropping a name listed twice under
// its new name.
func (r *renamer) exports(ex []syntax.Name) []syntax.Name {
	var out []syntax.Name
	seen := map[string]bool{}
	for _, n := range ex {
		r.name(&n)
		if !seen[n.Name] {
			seen[n.Name] = true
			out = append(out, n)
		}
	}
	return out
}

func (r *renamer) def(d *syntax.Def) {
	r.name(&d.Name)
	r.nameList(d.Params)
	d.Body = r.expr(d.Body)
	for _, w := range d.Where {
		r.def(w)
	}
	for _, s := range d.WhereSigs {
		r.name(&s.Name)
	}
}

func (r *renamer) nameList(ns []syntax.Name) {
	for i := range ns {
		r.name(&ns[i])
	}
}

func (r *renamer) exprs(es []syntax.Expr) {
	for i := range es {
		es[i] = r.expr(es[i])
	}
}

func (r *renamer) bindings(bs []syntax.LetBinding) {
	for i := range bs {
		r.name(&bs[i].Name)
		bs[i].Value = r.expr(bs[i].Value)
	}
}

func (r *renamer) expr(e syntax.Expr) syntax.Expr {
	switch e := e.(type) {
	case nil:
	case *syntax.Var:
		r.standardQualified(e)
		if _, ok := r.names[e.Name]; !ok {
			r.unknownQualified(e)
		}
		r.str(&e.Name)
	case *syntax.IntLit, *syntax.RealLit, *syntax.StrLit, *syntax.BoolLit, *syntax.UnitLit, *syntax.NullLit, *syntax.Getter:
	case *syntax.ListLit:
		r.exprs(e.Elems)
	case *syntax.TupleLit:
		r.exprs(e.Items)
	case *syntax.RecordLit:
		for i := range e.Fields {
			e.Fields[i].Value = r.expr(e.Fields[i].Value)
		}
	case *syntax.App:
		e.Fun = r.expr(e.Fun)
		r.exprs(e.Args)
	case *syntax.Throw:
		e.Message = r.expr(e.Message)
	case *syntax.Infix:
		r.exprs(e.Operands)
		r.nameList(e.Ops)
	case *syntax.Negate:
		e.Expr = r.expr(e.Expr)
	case *syntax.Section:
		r.name(&e.Op)
		e.Left, e.Right = r.expr(e.Left), r.expr(e.Right)
	case *syntax.Let:
		r.bindings(e.Bindings)
		e.Body = r.expr(e.Body)
	case *syntax.Lambda:
		r.nameList(e.Params)
		e.Body = r.expr(e.Body)
	case *syntax.Do:
		for i := range e.Stmts {
			s := &e.Stmts[i]
			if s.Bind != nil {
				r.name(s.Bind)
			}
			r.bindings(s.Let)
			s.Expr = r.expr(s.Expr)
		}
	case *syntax.Intrinsic:
	case *syntax.Ascription:
		// Types are not renamed: a renamed type is an alias (flatten.go).
		e.Expr = r.expr(e.Expr)
	case *syntax.Access:
		r.access(e)
	case *syntax.Guard:
		for i := range e.Branches {
			b := &e.Branches[i]
			b.Cond, b.Value = r.expr(b.Cond), r.expr(b.Value)
		}
		e.Default = r.expr(e.Default)
	default:
		if r.sink == nil {
			break // collecting names only: the renaming pass reports it
		}
		r.sink.Errorf(e.ExprPos(), "internal error: an imported module's %T expression cannot be renamed (internal/codegen/module/rename.go does not know it)", e)
	}
	return e
}

// access renames the expressions inside a getter or setter chain: the
// values it sets and the bounds of its brackets.
func (r *renamer) access(a *syntax.Access) {
	if a == nil {
		return
	}
	for i := range a.Steps {
		st := &a.Steps[i]
		for _, g := range st.Group {
			r.access(g)
		}
		for j := range st.Sets {
			r.access(st.Sets[j].Path)
			st.Sets[j].Value = r.expr(st.Sets[j].Value)
		}
		st.Lo, st.Hi, st.By = r.expr(st.Lo), r.expr(st.Hi), r.expr(st.By)
	}
}

// unknownQualified reports a name `h.x` whose qualifier h is an import's
// but whose module does not export x.
func (r *renamer) unknownQualified(v *syntax.Var) {
	q, name, ok := strings.Cut(v.Name, ".")
	if m := r.quals[q]; ok && m != nil {
		r.sink.Errorf(v.Pos, "module '%s' (imported as %s) does not export '%s'%s", m.name, q, name, suggest.Hint(name, keys(m.exports)))
	}
}
