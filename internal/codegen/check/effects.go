package check

import (
	"sort"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
)

// Effect labels (`<IO, Err> T`) have no meaning of their own in nexus,
// which runs every command when it is called. Here a signature's labels
// are checked to be declared, as Morloc requires, and an inescapable
// effect of an argument to appear in the result (digest 5.1, rule 5);
// effectrules.go checks bodies against signatures. IO and Err are always
// declared, as Morloc's `internal` module, which every standard module
// imports, declares them; Err is escapable (@catch handles it).

// predeclaredEffects are the effects every program may use.
var predeclaredEffects = []string{"IO", "Err"}

// checkEffects reports every effect label a signature uses that no
// `effect` declaration declares, an effect row with more than one row
// variable, and an inescapable effect of an argument missing from the
// result.
func (c *checker) checkEffects() {
	declared := c.declaredEffects()
	known := make([]string, 0, len(declared))
	for n := range declared {
		known = append(known, n)
	}
	sort.Strings(known)
	for _, s := range c.file.Signatures {
		for _, row := range signatureRows(s) {
			vars := 0
			for _, n := range row {
				if !startsUpperName(n.Name) {
					if vars++; vars == 2 {
						c.sink.Errorf(n.Pos, "an effect row has at most one effect variable; '%s' is a second", n.Name)
					}
					continue
				}
				if !declared[n.Name] {
					c.sink.Errorf(n.Pos, "effect '%s' is not declared; declare it with `effect %s`%s", n.Name, n.Name, suggest.Hint(n.Name, known))
				}
			}
		}
		c.checkEscapes(s, declared)
	}
}

// checkEscapes reports an inescapable effect that appears in an argument
// type of s (its row, or a function argument's result row) but not in
// its result's row: only an escapable effect may be dropped, by a
// handler.
func (c *checker) checkEscapes(s *syntax.Signature, declared map[string]bool) {
	escapable := c.escapableEffects()
	result := map[string]bool{}
	for _, n := range s.Result.Effects {
		result[n.Name] = true
	}
	for i, p := range s.Params {
		for _, n := range argumentEffects(p) {
			if !startsUpperName(n.Name) || escapable[n.Name] || result[n.Name] || !declared[n.Name] {
				continue
			}
			c.sink.Errorf(n.Pos, "effect %s of argument %d of %s is not in its result's effects: an inescapable effect cannot be dropped; add it to the result (<%s> ...) or declare it `escapable effect %s`",
				n.Name, i+1, s.Name.Name, strings.Join(append(rowNames(s.Result.Effects), n.Name), ", "), n.Name)
		}
	}
}

// signatureRows are the effect rows written in s: of each part, and of
// the results of its function types.
func signatureRows(s *syntax.Signature) [][]syntax.Name {
	var rows [][]syntax.Name
	for _, part := range append(append([]*syntax.SigType(nil), s.Params...), s.Result) {
		rows = append(rows, part.Effects)
		rows = append(rows, funcRows(part.Type)...)
	}
	return rows
}

// funcRows are the result rows of the function types in t.
func funcRows(t syntax.Type) [][]syntax.Name {
	ft, ok := t.(*syntax.FuncType)
	if !ok {
		return nil
	}
	rows := [][]syntax.Name{ft.Effects}
	for _, p := range ft.Params {
		rows = append(rows, funcRows(p)...)
	}
	return append(rows, funcRows(ft.Result)...)
}

// argumentEffects are the labels an argument brings when it is run or
// applied: its own row and its result row as a function.
func argumentEffects(p *syntax.SigType) []syntax.Name {
	out := append([]syntax.Name(nil), p.Effects...)
	if ft, ok := p.Type.(*syntax.FuncType); ok {
		out = append(out, ft.Effects...)
	}
	return out
}

func rowNames(row []syntax.Name) []string {
	out := make([]string, len(row))
	for i, n := range row {
		out[i] = n.Name
	}
	return out
}

// escapableEffects are the effects a handler may discharge: Err, and
// those declared `escapable effect`.
func (c *checker) escapableEffects() map[string]bool {
	out := map[string]bool{"Err": true}
	for _, d := range c.file.Effects {
		if d.Escapable {
			for _, n := range d.Names {
				out[n.Name] = true
			}
		}
	}
	return out
}

// declaredEffects is the set of the effects the program may use.
func (c *checker) declaredEffects() map[string]bool {
	declared := map[string]bool{}
	for _, e := range predeclaredEffects {
		declared[e] = true
	}
	for _, d := range c.file.Effects {
		for _, n := range d.Names {
			declared[n.Name] = true
		}
	}
	return declared
}

func startsUpperName(s string) bool {
	return s != "" && s[0] >= 'A' && s[0] <= 'Z'
}
