package codegen

import "testing"

// TestStreamBodies: the stream intrinsics become Intrinsic expressions
// the nexus runs, their handle types fixed by ascription; '!' binds in a
// do block.
func TestStreamBodies(t *testing.T) {
	tests := []struct {
		name, text, want, ret string
	}{
		{"open and next", "f :: Str -> <IO, Err> [Int]\nf p = do\n  s <- @open p :: <IO, Err> IStream Int\n  @next s", "let(@open($0) in @next($1))", "[Int]"},
		{"write and close", "f :: Str -> <IO, Err> ()\nf p = do\n  o <- @open p :: <IO, Err> OStream Str\n  @write 0 o [\"a\"]\n  @close o", "let(@open($0) in let(@write(0, $1, [\"a\"]) in @close($1)))", "()"},
		{"a file, its length and a stream", "f :: Str -> <IO, Err> Int\nf p = do\n  h <- @open p :: <IO, Err> IFile Real\n  s <- @stream h\n  @flen h", "let(@open($0) in let(@stream($1) in @flen($1)))", "Int"},
		{"stdin", "f :: <IO, Err> [Str]\nf = do\n  s <- @stdin :: <IO, Err> IStream Str\n  @next s", "let(@stdin() in @next($0))", "[Str]"},
		{"stdout and tell", "f :: <IO, Err> Int\nf = do\n  o <- @stdout :: <IO> OStream Int\n  @write 0 o [1]\n  @tell", "let(@stdout() in let(@write(0, $0, [1]) in @tell()))", "Int"},
		{"append, flush, concat, fschema", "f :: Str -> <IO, Err> Str\nf p = do\n  o <- @append p :: <IO, Err> OStream Int\n  @flush o\n  @concat [p, p] p\n  @fschema p", "let(@append($0) in let(@flush($1) in let(@concat(list[$0, $0], $0) in @fschema($0))))", "Str"},
		{"a handle printed as its path", "f :: Str -> <IO, Err> IStream Int\nf p = @open p", "@open($0)", "IStream Int"},
		{"force", "f :: Str -> <IO, Err> Str\nf p = @show !(@next !(@open p :: <IO, Err> IStream Int))", "let(@open($0) in let(@next($1) in @show($2)))", "Str"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantBody(t, tt.text, tt.want, tt.ret) })
	}
}

// TestStreamErrors: handles whose type cannot be told, intrinsics given
// the wrong handle, ascriptions leaving effects out, the stream
// intrinsics nexus has not.
func TestStreamErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"open without a type", "f :: Str -> Int\nf p = do\n  s <- @open p\n  1", "8:8: cannot tell the handle @open makes; ascribe it, as in (@open path :: <IO, Err> IStream Str)"},
		{"open as a plain value", "f :: Str -> Int\nf p = (@open p :: <IO, Err> Int)", "7:8: @open makes a handle (IFile a, IStream a or OStream a), but Int is expected here"},
		{"stdin without a type", "f :: Int\nf = do\n  s <- @stdin\n  1", "8:8: cannot tell the handle @stdin makes; ascribe it, as in (@stdin :: <IO, Err> IStream Str)"},
		{"stdin as an OStream", "f :: Int\nf = do\n  s <- @stdin :: <IO, Err> OStream Int\n  1", "8:8: @stdin makes a handle (IStream a), but OStream Int is expected here"},
		{"next of an OStream", "f :: Str -> [Int]\nf p = do\n  o <- @open p :: <IO, Err> OStream Int\n  @next o", "9:9: @next takes an IStream, got OStream Int"},
		{"next of a Str", "f :: Str -> [Int]\nf p = @next p", "7:13: @next takes an IStream, got Str"},
		{"write of other elements", "f :: Str -> ()\nf p = do\n  o <- @open p :: <IO, Err> OStream Int\n  @write 0 o [\"a\"]", "9:15: expected Int, got Str"},
		{"effects left out", "f :: Str -> Int\nf p = do\n  s <- @open p :: <IO> IStream Int\n  1", "8:16: @open has the effects <IO, Err> (Str -> <IO, Err> h), but this ascription leaves out Err; write <IO, Err> IStream Int"},
		{"handle type without its element", "f :: Str -> Int\nf p = do\n  s <- @open p :: <IO, Err> IStream\n  1", "8:29: type IStream takes 1 type argument, its elements' type (IStream Int), but is given 0"},
		{"streamLayout", "f :: Int\nf = @streamLayout 1", "7:5: @streamLayout is not supported"},
		{"collect", "f :: Int\nf = @collect 1", "7:5: @collect is not supported: write the do block it stands for"},
		{"a command taking a handle", "f :: IStream Int -> Int\nf s = 1", "6:6: command 'f' takes a handle (IStream Int), which belongs to the call that opened it; take the path (a Str) and @open it"},
		{"a command taking a list of handles", "f :: [OStream Int] -> Int\nf s = 1", "6:6: command 'f' takes a handle ([OStream Int])"},
		{"force in a do let", "f :: Str -> Str\nf p = do\n  let n = @show !(@next !(@open p :: <IO, Err> IStream Int))\n  n", "8:17: a '!' in the 'let' of n would run before the 'let'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantError(t, errHeader+tt.text, tt.want) })
	}
}
