package syntax

import "github.com/nexus-run/nexus/internal/codegen/diag"

// kind is the kind of a token.
type kind int

// Token kinds.
const (
	tokEOF         kind = iota
	tokIdent            // a name: foo, Foo, x', _tmp
	tokInt              // 42, -7
	tokReal             // 1.5, -2e3
	tokString           // "text"; token.Text holds the decoded value
	tokDoc              // a `--'` docstring line; token.Text is the rest of the line
	tokGetter           // .field written against its field name; token.Text is the field
	tokAt               // @name; token.Text is the name
	tokDoubleColon      // ::
	tokArrow            // ->
	tokFatArrow         // =>
	tokEquals           // =
	tokLParen           // (
	tokRParen           // )
	tokLBracket         // [
	tokRBracket         // ]
	tokLBrace           // {
	tokRBrace           // }
	tokComma            // ,
	tokSemi             // ; between the items of an explicit-brace block
	tokQuestion         // ?
	tokLess             // <
	tokGreater          // >
	tokDot              // . as composition
	tokUnderscore       // _
	tokStar             // *
	tokMinus            // - not followed by a digit (inside module names like root-py)
	tokColon            // : (a guard's default)
	tokBackslash        // \ (a lambda)
	tokBind             // <- (a do block's binding)
	tokOp               // another operator: + / % $ && || == != <= >= <> ** // ++
	tokInvalid          // text the lexer rejected, with an error reported already

	// Getter steps after the first `.name` (getters.go).
	tokGetterIndex   // .0, a tuple item; token.Text is the digits
	tokGetterOpen    // .( opening a getter group or setters
	tokGetterBracket // .[ opening an index or a slice

	tokBang // ! the force prefix (forces.go)

	tokBacktick // `and`, a foreign operator's text in a source list; token.Text is the text (foreignops.go)

	tokGroupLine // a `--*` line; token.Text is the rest of the line (exportgroups.go)
)

var kindNames = [...]string{
	tokEOF:         "end of input",
	tokOp:          "operator",
	tokColon:       "':'",
	tokBackslash:   "'\\'",
	tokBind:        "'<-'",
	tokIdent:       "name",
	tokInt:         "integer",
	tokReal:        "number",
	tokString:      "string",
	tokDoc:         "docstring",
	tokGroupLine:   "'--*' group line",
	tokGetter:      "field getter",
	tokAt:          "@-keyword",
	tokDoubleColon: "'::'",
	tokArrow:       "'->'",
	tokFatArrow:    "'=>'",
	tokEquals:      "'='",
	tokLParen:      "'('",
	tokRParen:      "')'",
	tokLBracket:    "'['",
	tokRBracket:    "']'",
	tokLBrace:      "'{'",
	tokRBrace:      "'}'",
	tokComma:       "','",
	tokSemi:        "';'",
	tokQuestion:    "'?'",
	tokLess:        "'<'",
	tokGreater:     "'>'",
	tokDot:         "'.'",
	tokUnderscore:  "'_'",
	tokStar:        "'*'",
	tokMinus:       "'-'",
	tokInvalid:     "invalid text",

	tokGetterIndex:   "tuple getter",
	tokGetterOpen:    "'.('",
	tokGetterBracket: "'.['",

	tokBang: "'!'",

	tokBacktick: "backtick name",
}

func (k kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "token"
}

// token is one lexical token.
type token struct {
	kind kind
	// Text is the token's text: the name of an identifier, the digits of
	// a number, the decoded value of a string, the field of a getter, the
	// keyword of an @-keyword, the line of a docstring after `--'`.
	Text string
	Pos  diag.Pos
	// TextPos is where a Doc's Text starts.
	TextPos diag.Pos
	// Offset and End are byte offsets of the token in its input, so the
	// parser can tell `root-py` (adjacent) from `root - py`.
	Offset, End int
	// First is set on the first token of a line.
	First bool
}

// describe names t for an error message: `'foo'`, `'::'`, `end of input`.
func (t token) describe() string {
	switch t.kind {
	case tokIdent:
		return "'" + t.Text + "'"
	case tokInt, tokReal:
		return "number " + t.Text
	case tokString:
		return "string"
	case tokAt:
		return "'@" + t.Text + "'"
	case tokGetter, tokGetterIndex:
		return "'." + t.Text + "'"
	}
	return t.kind.String()
}
