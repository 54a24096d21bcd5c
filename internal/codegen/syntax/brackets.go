package syntax

// Morloc checks no layout inside brackets (digest 0.3): a multi-line list,
// record or export list may put its closing bracket or its leading commas
// in column 1, and a module header's export list may be indented anyhow.
// Such a token continues the item instead of starting a new one.

// bracketDepth follows the brackets open in the current top-level item.
type bracketDepth int

// update counts t's bracket, when it is one; a stray closer counts nothing.
func (d *bracketDepth) update(t token) {
	switch t.kind {
	case tokLParen, tokLBracket, tokLBrace:
		*d++
	case tokRParen, tokRBracket, tokRBrace:
		if *d > 0 {
			*d--
		}
	}
}

// continues reports whether t, starting a line in column 1, still belongs
// to the item cur, inside its open brackets: a closing bracket or a comma,
// or anything in a module header's export list. Other tokens start a new
// item even inside an unclosed bracket, so that a missing ')' is reported
// where it is missing rather than swallowing the rest of the file.
func (d bracketDepth) continues(cur []token, t token) bool {
	if d == 0 || len(cur) == 0 {
		return false
	}
	switch t.kind {
	case tokRParen, tokRBracket, tokRBrace, tokComma:
		return true
	}
	return isModuleHeader(cur)
}

// isModuleHeader reports whether the item toks is a module header.
func isModuleHeader(toks []token) bool {
	return len(toks) > 0 && toks[0].kind == tokIdent && toks[0].Text == "module"
}
