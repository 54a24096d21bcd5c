package check

// commandable reports whether name, exported by `(*)`, becomes a command:
// a definition or sourced function with a signature at concrete types,
// not an operator. `(*)` also exports what importers use, such as a
// generic helper or an operator (`(<+>)`), which no command line or MCP
// client could call; those are left out rather than refused, as an
// explicit export list would be.
func (c *checker) commandable(name string) bool {
	if isOperator(name) {
		return false
	}
	var sig *signature
	if def := c.defs[name]; def != nil {
		sig = def.sig
	} else if f := c.funcs[name]; f != nil {
		sig = f.sig
	}
	return sig != nil && sig.ok && !generic(sig.params, sig.result)
}
