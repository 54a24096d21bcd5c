package syntax

// inlinePragma skips Morloc's `%inline` before a `source` declaration, at
// the top level or in an instance: a hint to Morloc's code generator to
// inline the call, with no meaning for what the call does, so nexus reads
// and ignores it as it does in a `source ... where` block.
func (p *parser) inlinePragma() {
	t := p.peek()
	if t.Text == "%" && p.peekAt(1).Text == "inline" && p.peekAt(1).Offset == t.End && p.peekAt(2).Text == "source" {
		p.next()
		p.next()
	}
}
