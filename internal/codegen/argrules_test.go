package codegen

import (
	"strings"
	"testing"
)

// TestMorlocArgumentRules: argument directives Morloc refuses, which nexus
// took silently (found probing issue 17): an option of a Bool, a flag
// whose default is what the flag sets, stdin: with many: or on a Bool.
// Each is refused with the position and what to write, in both
// spellings.
func TestMorlocArgumentRules(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"@arg on a Bool", "f ::\n  --' @arg -y/--yes\n  Bool ->\n  Str\nf _ = \"x\"", "7:7: arg: cannot make a Bool an option, and this argument is Bool (as in Morloc); make it a flag with true: -y/--yes"},
		{"arg: on a Bool", "f ::\n  --' arg: --yes\n  Bool ->\n  Str\nf _ = \"x\"", "7:7: arg: cannot make a Bool an option"},
		{"@arg on a Bool field", "record R where\n  --' @arg --on\n  on :: Bool\nf :: R -> Str\nf _ = \"x\"", "7:7: arg: cannot make a Bool an option, and field on is Bool"},
		{"@true with @default true", "f ::\n  --' @true --yes\n  --' @default true\n  Bool ->\n  Str\nf _ = \"x\"", "8:16: default: true is what true --yes sets, so the flag would do nothing"},
		{"false: with default: false", "f ::\n  --' false: --no\n  --' default: false\n  Bool ->\n  Str\nf _ = \"x\"", "8:16: default: false is what false --no sets"},
		{"a flag field's useless default", "record R where\n  --' @true --on\n  --' @default true\n  on :: Bool\nf :: R -> Str\nf _ = \"x\"", "8:16: default: true is what true --on sets"},
		{"@stdin with @many", "f ::\n  --' @many\n  --' @stdin\n  [Str] ->\n  Str\nf _ = \"x\"", "8:7: stdin: and many: exclude each other"},
		{"@stdin on a Bool", "f ::\n  --' @stdin\n  Bool ->\n  Str\nf _ = \"x\"", "7:7: stdin: cannot read a Bool from standard input"},
		{"a Str default without quotes", "f ::\n  --' @arg --s\n  --' @default hello there\n  Str ->\n  Str\nf = upper", "8:16: default: 'hello there' is not a valid Str: not valid JSON: invalid character 'h' looking for beginning of value; a default is JSON, so a text is quoted: @default \"hello there\""},
		{"an optional Str default without quotes, old spelling", "f ::\n  --' arg: --s\n  --' default: hi\n  ?Str ->\n  Str\nf _ = \"x\"", "8:16: default: 'hi' is not a valid ?Str: not valid JSON: invalid character 'h' looking for beginning of value; a default is JSON, so a text is quoted: default: \"hi\""},
		{"an option two arguments take from their alias", "--' @arg -n\n--' @default 3\ntype N = Int\nf :: N -> N -> Str\nf _ _ = \"x\"", "6:10: option -n is used twice in command f: two of its arguments have the type this directive is on"},
		{"long option starting with _", "f ::\n  --' @arg --_x\n  Str ->\n  Str\nf = upper", "7:12: arg: long option '--_x' must start with a letter or a digit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantError(t, errHeader+tt.text, tt.want) })
	}
}

// TestMorlocArgumentRulesAllowed: what those rules leave alone.
func TestMorlocArgumentRulesAllowed(t *testing.T) {
	for _, text := range []string{
		// A pair of flags may default either way.
		"f ::\n  --' @true --yes\n  --' @false --no\n  --' @default true\n  Bool ->\n  Str\nf _ = \"x\"",
		// A flag's default that the flag changes.
		"f ::\n  --' @true --yes\n  --' @default false\n  Bool ->\n  Str\nf _ = \"x\"",
		// A positional Bool.
		"f :: Bool -> Str\nf _ = \"x\"",
	} {
		compileOK(t, errHeader+text)
	}
}

// TestMetavarOnFlag: metavar: on a flag (Morloc refuses it) has no
// effect, and says so.
func TestMetavarOnFlag(t *testing.T) {
	p := compileOK(t, errHeader+"f ::\n  --' @true --yes\n  --' @metavar X\n  Bool ->\n  Str\nf _ = \"x\"")
	if got := strings.Join(p.Warnings, "\n"); !strings.Contains(got, "8:7: warning: metavar: has no effect on a flag") {
		t.Errorf("warnings %q", got)
	}
	if m := p.Manifest.Commands[0].Args[0].Metavar; m != "" {
		t.Errorf("metavar %q", m)
	}
}
