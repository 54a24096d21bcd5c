package codegen

import (
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
)

// TestIntrinsicBodies: intrinsics the nexus must run become Intrinsic
// expressions, with the type from the context or an ascription; those
// known when the program is built become literals; a partial application
// is a function value.
func TestIntrinsicBodies(t *testing.T) {
	tests := []struct {
		name, text, want, ret string
	}{
		{"show", "f :: [Int] -> Str\nf xs = @show xs", "@show($0)", "Str"},
		{"show of a literal", "f :: Str\nf = @show 4.0", "@show(4.0)", "Str"},
		{"hash", "f :: Str -> Str\nf s = @hash (upper s)", "@hash(upper($0))", "Str"},
		{"read from the signature", "f :: Str -> <Err> [Int]\nf s = @read s", "@read($0)", "[Int]"},
		{"read ascribed", "f :: Str -> <Err> Int\nf s = do\n  n <- (@read s :: <Err> Int)\n  n + 1", "let(@read($0) in ($1 + 1))", "Int"},
		{"catch with an ascribed read", "f :: Str -> Int\nf s = @catch (@read s :: <Err> Int) 0", "@catch(@read($0), 0)", "Int"},
		{"catch inferring its type", "f :: Str -> Str\nf s = @show (@catch (@read s :: <Err> Real) 1)", "@show(@catch(@read($0), 1.0))", "Str"},
		{"save", "f :: Str -> [Int] -> <IO, Err> ()\nf p xs = @save 3 xs p", "@save(3, $1, $0)", "()"},
		{"savej path first", "f :: Str -> <IO, Err> ()\nf p = @savej p [1, 2]", "@savej($0, [1,2])", "()"},
		{"savem value first (before 0.91)", "f :: Str -> <IO, Err> ()\nf p = @savem (1, true) p", "@savem($0, [1,true])", "()"},
		{"load in a do block", "f :: Str -> Int -> <IO, Err> Int\nf p x = do\n  @save 0 x p\n  @load p", "let(@save(0, $1, $0) in @load($0))", "Int"},
		{"load ascribed", "f :: Str -> <IO> Real\nf p = @catch (@load p :: <IO, Err> Real) 42", "@catch(@load($0), 42.0)", "Real"},
		{"version", "f :: Str\nf = @version", `"` + manifest.NexusVersion + `"`, "Str"},
		{"lang", "f :: Str\nf = @lang", `"morloc"`, "Str"},
		{"datafile", "f :: Str -> Str\nf p = @datafile p", "$0", "Str"},
		{"typeof", "f :: [Real] -> (Str, Str, Str)\nf xs = (@typeof xs, @typeof (Null :: ?Int), @typeof \"a\")", `["[Real]","?Int","Str"]`, "(Str, Str, Str)"},
		{"schema", "f :: [Int] -> Str\nf xs = @schema xs", `"aj"`, "Str"},
		{"partial application applied later", "f :: Str -> <IO, Err> ()\nf p = (@save 1) [1] p", "@save(1, [1], $0)", "()"},
		{"intrinsic passed to a definition", "app g x = g x\nf :: Int -> Str\nf n = app @show n", "@show($0)", "Str"},
		{"ascription of a plain value", "f :: Int -> Real\nf n = (2 :: Real) * (1 :: Real)", "(2.0 * 1.0)", "Real"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantBody(t, tt.text, tt.want, tt.ret) })
	}
}

// TestCompiledIsATimestamp: @compiled is when the program was built.
func TestCompiledIsATimestamp(t *testing.T) {
	p := compileOK(t, program("f", "f :: Str\nf = @compiled"))
	v := string(p.Manifest.Commands[0].Body.Value)
	if !strings.HasPrefix(v, `"20`) || !strings.HasSuffix(v, `Z"`) {
		t.Errorf("@compiled is %s, want an RFC 3339 UTC time", v)
	}
}

// TestIntrinsicErrors: the checker's errors for intrinsics and
// ascriptions, at their line and column.
func TestIntrinsicErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"unknown intrinsic", "f :: Int -> Str\nf x = @shw x", "7:7: unknown intrinsic '@shw' (did you mean 'show'?)"},
		{"read of unknown type", "f :: Str -> Str\nf s = @show (@read s)", "7:14: cannot tell the type @read reads; ascribe it, as in (@read s :: <Err> Int)"},
		{"load of unknown type", "f :: Str -> Str\nf p = @show (@load p)", "7:14: cannot tell the type @load reads; ascribe it, as in (@load path :: <IO, Err> Int)"},
		{"savej without a path", "f :: Int -> ()\nf n = @savej n [n]", "7:14: expected the path (a Str) first: @savej path value, got Int and [Int]"},
		{"save level not an Int", "f :: Str -> ()\nf p = @save \"x\" 1 p", "7:13: expected Int, got Str"},
		{"read of a non-Str", "f :: Int -> Int\nf n = @read n", "7:13: expected Str, got Int"},
		{"old load form", "f :: Str -> ?Int\nf p = (@load p :: <IO> ?Int)", "7:16: @load p :: <IO> ?a (Null for a missing file) is the form before Morloc 0.94; @load now raises Err: write (@load p :: <IO, Err> Int), with @catch for a fallback"},
		{"effect left out of an ascription", "f :: Str -> Int\nf s = (@read s :: Int)", "7:16: @read has the effects <Err> (Str -> <Err> a), but this ascription leaves out Err; write <Err> Int"},
		{"undeclared effect in an ascription", "f :: Str -> Int\nf s = (@read s :: <Err, Rnd> Int)", "7:25: effect 'Rnd' is not declared; declare it with `effect Rnd`"},
		{"ascription that does not fit", "f :: Int -> Str\nf n = (n :: Str)", "7:8: expected Str, got Int"},
		{"ascription of an unknown type", "f :: Int -> Int\nf n = (n :: Itn)", "7:13: unknown type 'Itn' (did you mean 'Int'?)"},
		{"catch branches of two types", "f :: Str -> Int\nf s = @catch (@read s :: <Err> Int) \"no\"", "7:37: expected Int, got Str"},
		{"show of a function", "f :: Str\nf = @show upper", "7:11: @show takes a value, not a function; got"},
		{"partial intrinsic as a value", "f :: Str\nf = @save 1", "7:5: expected Str, got @save (Int -> a -> Str -> <IO, Err> ()) waiting for 2 more arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantError(t, errHeader+tt.text, tt.want) })
	}
}
