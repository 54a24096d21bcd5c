package syntax

import "strings"

// olderQuantifier reports Morloc's older signature that names its type
// variables before the '::', `choose a :: [a] -> a` (removed in 0.68),
// naming the current form.
func (p *parser) olderQuantifier(d *Def) {
	if p.peek().kind != tokDoubleColon || len(d.Params) == 0 {
		return
	}
	vars := make([]string, len(d.Params))
	for i, n := range d.Params {
		vars[i] = n.Name
	}
	p.errorf(d.Pos, "'%s %s ::' names its type variables first, Morloc's older form (removed in 0.68); write `%s :: ...`: lower-case names in a signature are its type variables", d.Name.Name, strings.Join(vars, " "), d.Name.Name)
}
