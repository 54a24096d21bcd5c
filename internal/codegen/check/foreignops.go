package check

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
)

// Foreign operators (Morloc's digest, 2.5): `source Py ((+) as (<>))`,
// `source Py from "core.py" ((+), (-))` (a bare operator is the same
// foreign one) and `` source Py from "lib.py" (`and` as (&&)) ``. Each is
// a sourced function like any other, with a signature of two arguments,
// that its pool applies infix, `a + b` (manifest.Function.Infix).
//
// Where the program binds one to a standard operator, as Morloc's own
// root-py does (`&&` is Python's `and`), the choice follows the digest:
//
//   - in an instance body, it is the class's method at the instance's
//     types (`instance Semigroup Str where source Py ((+) as (<>))`),
//     the way Morloc's standard library binds every operator;
//   - at the top level, the sourced function hides the standard
//     operator in the whole program, as a program's own name hides the
//     prelude's: `x && y` calls it at its signature's types, and any
//     other use is a type error against that signature.
//
// A definition of a standard operator, `(+) x y = ...`, is still an
// error (userops.go): only a foreign language's operator or function may
// stand in for the nexus's own.

// foreignOperators are the binary operators each language writes infix,
// by their text; a backtick name must be one of them too, so that a
// mistake is reported at its line and column rather than by the pool's
// compiler. Go has no keyword operators.
var foreignOperators = map[string][]string{
	manifest.Python: {"+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==", "!=", "and", "or", "in", "not in", "is", "is not"},
	manifest.Cpp:    {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "<", ">", "<=", ">=", "==", "!=", "and", "or", "xor", "bitand", "bitor", "not_eq"},
	manifest.Go:     {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&^", "&&", "||", "<", ">", "<=", ">=", "==", "!="},
}

// foreignLangs name the languages in messages.
var foreignLangs = map[string]string{manifest.Python: "Python", manifest.Cpp: "C++", manifest.Go: "Go"}

// foreignFunction is it, a foreign operator of lang sourced from path, as
// a function; nil when lang has no such operator (reported).
func (c *checker) foreignFunction(it syntax.SourceItem, lang, path string) *function {
	text := strings.Join(strings.Fields(it.Name.Value), " ")
	known := foreignOperators[lang]
	found := false
	for _, op := range known {
		found = found || op == text
	}
	if !found {
		c.sink.Errorf(it.Name.Pos, "'%s' is not an operator of %s%s; its binary operators are %s. Source a named function instead: (\"name\" as (%s))",
			text, foreignLangs[lang], suggest.Hint(text, known), strings.Join(known, " "), it.Alias.Name)
		return nil
	}
	return &function{name: it.Alias.Name, source: text, lang: lang, path: path, pos: it.Alias.Pos, server: -1, infix: true}
}

// operatorsOnly returns the functions of a source without `from` whose
// items are all foreign operators, in a language other than Python (whose
// builtins such a source may name too): the operators need no file of
// the program's. Go's do, for the package that serves them. ok is false
// when s is not such a source.
func (c *checker) operatorsOnly(s *syntax.Source, lang string) (fns []*function, ok bool) {
	if lang == manifest.Python {
		return nil, false
	}
	for _, it := range s.Items {
		if !it.Infix {
			return nil, false
		}
	}
	if lang == manifest.Go {
		c.sink.Errorf(s.Lang.Pos, "a Go operator is served from the package of a Go file of the program's: write `source Go from \"FILE.go\" (...)`")
		return nil, true
	}
	for _, it := range s.Items {
		if f := c.foreignFunction(it, lang, sourced.OperatorsFile); f != nil {
			fns = append(fns, f)
		}
	}
	return fns, true
}

// checkInfixArity reports a foreign operator whose signature does not
// take two arguments, the operands.
func (c *checker) checkInfixArity(f *function, sig *signature) bool {
	if len(sig.params) == 2 {
		return true
	}
	c.sink.Errorf(sig.decl.Name.Pos, "'%s' is %s's operator %s, applied to two operands, but its signature takes %d argument%s", f.name, foreignLangs[f.lang], f.source, len(sig.params), plural(len(sig.params)))
	return false
}

// hidesStandard reports whether the program sources a function as the
// standard operator op at the top level, hiding the nexus's own.
func (c *checker) hidesStandard(op string) bool {
	_, std := standardFixities[op]
	return std && c.funcs[op] != nil
}

// sourcedStandard are the standard operators the program's top-level
// sources bind, which the checks on a program's own operators let pass.
func (c *checker) sourcedStandard() map[string]bool {
	out := map[string]bool{}
	for _, s := range c.file.Sources {
		for _, it := range s.Items {
			if _, std := standardFixities[it.Alias.Name]; std {
				out[it.Alias.Name] = true
			}
		}
	}
	return out
}
