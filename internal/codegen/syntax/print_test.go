package syntax

import (
	"fmt"
	"strings"
)

// The printers below write AST nodes in a compact, fully parenthesised
// form so tests can compare whole trees as strings.

func typeString(t Type) string {
	switch t := t.(type) {
	case *NamedType:
		if len(t.Args) == 0 {
			return t.Name
		}
		parts := []string{t.Name}
		for _, a := range t.Args {
			parts = append(parts, typeString(a))
		}
		return "(" + strings.Join(parts, " ") + ")"
	case *ListType:
		return "[" + typeString(t.Elem) + "]"
	case *OptionalType:
		return "?" + typeString(t.Elem)
	case *TupleType:
		parts := make([]string, len(t.Items))
		for i, it := range t.Items {
			parts[i] = typeString(it)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case *UnitType:
		return "()"
	case *FuncType:
		parts := make([]string, 0, len(t.Params)+1)
		for _, p := range append(append([]Type(nil), t.Params...), t.Result) {
			parts = append(parts, typeString(p))
		}
		return "(" + strings.Join(parts, " -> ") + ")"
	}
	return fmt.Sprintf("<%T>", t)
}

func exprString(e Expr) string {
	switch e := e.(type) {
	case *Var:
		return e.Name
	case *IntLit:
		return fmt.Sprint(e.Value)
	case *RealLit:
		return fmt.Sprintf("%gr", e.Value)
	case *StrLit:
		return fmt.Sprintf("%q", e.Value)
	case *BoolLit:
		return fmt.Sprint(e.Value)
	case *UnitLit:
		return "()"
	case *ListLit:
		return "[" + exprsString(e.Elems, ", ") + "]"
	case *TupleLit:
		return "(" + exprsString(e.Items, ", ") + ")"
	case *RecordLit:
		parts := make([]string, len(e.Fields))
		for i, f := range e.Fields {
			parts[i] = f.Name.Name + " = " + exprString(f.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *App:
		return "(" + exprString(e.Fun) + " " + exprsString(e.Args, " ") + ")"
	case *Getter:
		return "." + e.Field
	case *Access:
		return accessString(e)
	case *Infix:
		out := "(" + exprString(e.Operands[0])
		for i, op := range e.Ops {
			out += " " + op.Name + " " + exprString(e.Operands[i+1])
		}
		return out + ")"
	case *NullLit:
		return "Null"
	case *Lambda:
		out := "(\\"
		for _, p := range e.Params {
			out += p.Name + " "
		}
		return out + "-> " + exprString(e.Body) + ")"
	case *Do:
		out := "(do"
		for _, st := range e.Stmts {
			switch {
			case st.Bind != nil:
				out += " " + st.Bind.Name + " <- " + exprString(st.Expr) + ";"
			case st.Let != nil:
				out += " let " + exprString(&Let{Bindings: st.Let}) + ";"
			default:
				out += " " + exprString(st.Expr) + ";"
			}
		}
		return out + ")"
	case *Let:
		out := "(let"
		for _, b := range e.Bindings {
			out += " " + b.Name.Name + " = " + exprString(b.Value) + ";"
		}
		if e.Body == nil {
			return out + ")"
		}
		return out + " in " + exprString(e.Body) + ")"
	case *Guard:
		out := "("
		for _, b := range e.Branches {
			out += "? " + exprString(b.Cond) + " = " + exprString(b.Value) + " "
		}
		return out + ": " + exprString(e.Default) + ")"
	case *Negate:
		return "(negate " + exprString(e.Expr) + ")"
	case *Section:
		switch {
		case e.Left != nil:
			return "(" + exprString(e.Left) + " " + e.Op.Name + ")"
		case e.Right != nil:
			return "(" + e.Op.Name + " " + exprString(e.Right) + ")"
		}
		return "(" + e.Op.Name + ")"
	case *Throw:
		return "(@throw " + exprString(e.Message) + ")"
	case *Intrinsic:
		return "@" + e.Name
	case *Ascription:
		return "(" + exprString(e.Expr) + " :: " + effectsString(e.Type.Effects) + typeString(e.Type.Type) + ")"
	}
	return fmt.Sprintf("<%T>", e)
}

func exprsString(es []Expr, sep string) string {
	parts := make([]string, len(es))
	for i, x := range es {
		parts[i] = exprString(x)
	}
	return strings.Join(parts, sep)
}

func docString(d Doc) string {
	parts := make([]string, len(d))
	for i, l := range d {
		parts[i] = strings.TrimSpace(l.Text)
	}
	return strings.Join(parts, "|")
}

func sigString(s *Signature) string {
	var parts []string
	for _, p := range s.Params {
		parts = append(parts, typeString(p.Type))
	}
	parts = append(parts, typeString(s.Result.Type))
	return s.Name.Name + " :: " + strings.Join(parts, " -> ")
}
