package check

import (
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest/types"
)

// A program's own operators (`+.`, `<&>`) are terms like any other, named
// by their symbols: a definition `(+.) x y = ...`, a signature
// `(+.) :: Real -> Real -> Real`, or a sourced function bound to one,
// `source Py from "ops.py" ("add" as (+.))`. `x +. y` is `(+.) x y`,
// structured by the operator's fixity: the program's `infixl`/`infixr`/
// `infix` declaration for it, else Morloc's default, infixl 9. The
// standard operators are the nexus's own (operators.go) and cannot be
// redefined.

// defaultFixity is the fixity of an operator without a declaration, as
// in Morloc (and Haskell).
var defaultFixity = fixity{"infixl", 9}

// collectFixities checks the program's fixity declarations: a standard
// operator's must repeat its standard fixity, and any other must be of an
// operator the program defines, once.
func (c *checker) collectFixities() {
	c.userFixities = map[string]fixity{}
	defined := c.programOperators()
	declared := map[string]syntax.Name{}
	for _, fx := range c.file.Fixities {
		for _, op := range fx.Ops {
			got := fixity{fx.Assoc, fx.Prec}
			std, isStd := standardFixities[op.Name]
			switch {
			case isStd && std != got:
				c.sink.Errorf(op.Pos, "fixity %s %d for '%s' differs from its standard one, %s %d", fx.Assoc, fx.Prec, op.Name, std.assoc, std.prec)
			case isStd:
			case !isOperator(op.Name):
				c.sink.Warnf(op.Pos, "fixity for the name '%s' has no effect: Morloc has no infix application of names; ignored", op.Name)
			case !defined[op.Name]:
				c.sink.Errorf(op.Pos, "fixity for '%s', which the program does not define: define it with `(%s) x y = ...` or source a function as it, `(\"name\" as (%s))`", op.Name, op.Name, op.Name)
			case declared[op.Name].Name != "" && c.userFixities[op.Name] != got:
				first := c.userFixities[op.Name]
				c.sink.Errorf(op.Pos, "a second fixity for '%s', %s %d, differs from the first, %s %d at %s", op.Name, fx.Assoc, fx.Prec, first.assoc, first.prec, declared[op.Name].Pos)
			default:
				declared[op.Name] = op
				c.userFixities[op.Name] = got
			}
		}
	}
}

// programOperators are the operators the program defines, signs or
// sources; redefining a standard operator is reported here.
func (c *checker) programOperators() map[string]bool {
	ops := map[string]bool{}
	add := func(n syntax.Name) {
		if !isOperator(n.Name) {
			return
		}
		if _, std := standardFixities[n.Name]; std {
			c.sink.Errorf(n.Pos, "'%s' is a standard operator, which the nexus evaluates itself; a program cannot redefine it: give yours another name, such as (%s.)", n.Name, n.Name)
			return
		}
		ops[n.Name] = true
	}
	hidden := c.sourcedStandard()
	for _, s := range c.file.Sources {
		for _, it := range s.Items {
			if !hidden[it.Alias.Name] {
				add(it.Alias)
			}
		}
	}
	for _, s := range c.file.Signatures {
		if !hidden[s.Name.Name] {
			add(s.Name)
		}
	}
	for _, d := range c.file.Defs {
		add(d.Name)
	}
	return ops
}

// isOperator reports whether name is an operator's, made of symbols;
// the module package may prefix one a module keeps to itself with the
// module's key (`ops.<!>`), so it is the end that tells.
func isOperator(name string) bool {
	if name == "" {
		return false
	}
	r := name[len(name)-1]
	return !(r == '_' || r == '\'' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127)
}

// fixityOf is op's fixity, when op is a standard operator or one the
// program defines.
func (c *checker) fixityOf(op string) (fixity, bool) {
	if fx, ok := standardFixities[op]; ok {
		return fx, true
	}
	if !c.definesOperator(op) {
		return fixity{}, false
	}
	if fx, ok := c.userFixities[op]; ok {
		return fx, true
	}
	return defaultFixity, true
}

// definesOperator reports whether op is a term of the program.
func (c *checker) definesOperator(op string) bool {
	return c.defs[op] != nil || c.funcs[op] != nil || c.builtins[op] != nil
}

// applyUserOp applies the program's operator op to l and r: the term
// named op applied to them.
func (c *checker) applyUserOp(op syntax.Name, l, r arg, want *types.Type) value {
	if !c.definesOperator(op.Name) {
		c.unknownOperator(op)
		return nil
	}
	head := c.variable(&syntax.Var{Pos: op.Pos, Name: op.Name}, &scope{}, nil)
	return c.applyValue(head, []arg{l, r}, op.Pos, want)
}

// unknownOperator reports op, which is neither standard nor defined,
// suggesting a known operator it may be a typo of.
func (c *checker) unknownOperator(op syntax.Name) {
	var known []string
	for o := range standardFixities {
		known = append(known, o)
	}
	for n := range c.defs {
		if isOperator(n) {
			known = append(known, n)
		}
	}
	for n := range c.funcs {
		if isOperator(n) {
			known = append(known, n)
		}
	}
	c.sink.Errorf(op.Pos, "unknown operator '%s'%s; a program's own operator needs a definition `(%s) x y = ...` or a source `(\"name\" as (%s))`", op.Name, suggest.Hint(op.Name, known), op.Name, op.Name)
}
