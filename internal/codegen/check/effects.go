package check

import (
	"sort"

	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
)

// Effect labels (`<IO, Err> T`) have no meaning of their own in nexus,
// which runs every command when it is called: a signature's effects are
// only checked to be declared, as Morloc requires. IO and Err are always
// declared, as Morloc's `internal` module, which every standard module
// imports, declares them.

// predeclaredEffects are the effects every program may use.
var predeclaredEffects = []string{"IO", "Err"}

// checkEffects reports every effect label a signature uses that no
// `effect` declaration declares, and an effect row with more than one row
// variable.
func (c *checker) checkEffects() {
	declared := map[string]bool{}
	for _, e := range predeclaredEffects {
		declared[e] = true
	}
	for _, d := range c.file.Effects {
		for _, n := range d.Names {
			declared[n.Name] = true
		}
	}
	known := make([]string, 0, len(declared))
	for n := range declared {
		known = append(known, n)
	}
	sort.Strings(known)
	for _, s := range c.file.Signatures {
		for _, part := range append(append([]*syntax.SigType(nil), s.Params...), s.Result) {
			vars := 0
			for _, n := range part.Effects {
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
	}
}

func startsUpperName(s string) bool {
	return s != "" && s[0] >= 'A' && s[0] <= 'Z'
}
