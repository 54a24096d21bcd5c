package codegen

import "testing"

// todoDecls declare the record of the todo examples (digest 3.4).
const todoDecls = `
record Todo where
  title :: Str
  done :: Bool
record Py => Todo = "dict"
`

// TestAnonymousRecordBodies: a record literal where no record is
// expected, that no one declared record fits, has an anonymous record type
// the nexus evaluates; where a declared record with its fields is
// expected, it is that record.
func TestAnonymousRecordBodies(t *testing.T) {
	twins := "record A where\n  name :: Str\n  age :: Int\nrecord B where\n  name :: Str\n  age :: Int\n"
	tests := []struct {
		name, text, want, ret string
	}{
		{"getter on a literal", "f :: Int\nf = .x.0 {x = (7, \"hi\"), y = 9}", `.0(.x({"x":[7,"hi"],"y":9}))`, "Int"},
		{"fields from parameters", "f :: Str -> Int -> Str\nf n a = .name {name = n, age = a}", ".name(record{name=$0, age=$1})", "Str"},
		{"setter then getter", "f :: Int -> Int\nf a = .age (.(.age = 5) {name = \"x\", age = a})", `.age(set(record{name="x", age=$0}, .age = 5))`, "Int"},
		{"shown in the literal's order", "f :: Str\nf = @show {b = 1, a = \"x\"}", `@show({"b":1,"a":"x"})`, "Str"},
		{"several records fit: anonymous, then the one expected", twins + "f :: Str -> A\nf n = let r = {name = n, age = 3} in r", "let(record{name=$0, age=3} in $1)", "A"},
		{"one declared record fits", todoDecls + "f :: Str\nf = @show {done = True, title = \"t\"}", `@show({"title":"t","done":true})`, "Str"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantBodyOf(t, "module m (f)\nimport root\n"+tt.text, tt.want, tt.ret) })
	}
}

// TestLaterUseBodies: a bound value or a generic argument that cannot
// tell its type takes the type its first use expects.
func TestLaterUseBodies(t *testing.T) {
	toggle := "\n  where\n    toggle :: Int -> [Todo] -> [Todo]\n    toggle i ts = ts"
	tests := []struct {
		name, text, want, ret string
	}{
		{"do-bind of @load settled by a where function (digest 3.4)",
			todoDecls + "f :: Str -> Int -> <IO, Err> [Todo]\nf file idx = do\n  ts <- @load file\n  @savej file (toggle idx ts)\n  toggle idx ts" + toggle,
			"let(@load($0) in let(@savej($0, $2) in $2))", "[Todo]"},
		{"a use that tells nothing before the one that does",
			todoDecls + "f :: Str -> Int -> <IO, Err> [Todo]\nf file idx = do\n  ts <- @load file\n  @savej file ts\n  toggle idx ts" + toggle,
			"let(@load($0) in let(@savej($0, $2) in $2))", "[Todo]"},
		{"settled by the block's type", "f :: Str -> <IO, Err> [Int]\nf p = do\n  xs <- @load p\n  xs", "let(@load($0) in $1)", "[Int]"},
		{"do-bind of @read settled by an operator", "f :: Str -> <Err> Int\nf s = do\n  n <- @read s\n  n + 1", "let(@read($0) in ($1 + 1))", "Int"},
		{"let of an empty list settled by a generic function's other argument", "f :: [Int]\nf = let xs = [] in xs ++ [1]", "([] <> [1])", "[Int]"},
		{"do-bind settled by a generic function's other argument", "f :: Str -> <IO, Err> Int\nf p = do\n  xs <- @load p\n  length (xs ++ [1.5])", "let(@load($0) in length(($1 <> [1.5])))", "Int"},
		{"let of Null", "f :: ?Int\nf = let x = Null in x", "null", "?Int"},
		{"two binds, the second settled first", "f :: Str -> <IO, Err> (Int, Str)\nf p = do\n  a <- @load p\n  b <- @load p\n  (a + 1, b)", "let(@load($0) in let(@load($0) in tuple(($1 + 1), $2)))", "(Int, Str)"},
		{"a generic pool function sees the variable before its use settles it",
			"source Py from \"chem.py\" (\"lines\")\nlines :: [a] -> Str\nf :: Str -> <IO, Err> [Real]\nf p = do\n  xs <- @load p\n  @savej p (lines xs)\n  g xs\n  where\n    g :: [Real] -> [Real]\n    g ys = ys",
			"let(@load($0) in let(@savej($0, lines($1)) in $1))", "[Real]"},
		{"fold seed settled by the result (finding 5)", "import map as mp\nf :: [Str] -> [(Str, Int)]\nf ws = mp.toList (fold (\\acc w -> mp.insert w 1 acc) mp.emptyMap ws)", "toList(fold(\\1:2 -> insert($2, 1, $1), emptyMap(), $0))", "[(Str, Int)]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantBodyOf(t, "module m (f)\nimport root\n"+tt.text, tt.want, tt.ret) })
	}
}

// TestAnonymousRecordAndLaterUseErrors: where a pool or a command needs a
// declared record, an anonymous one is an error saying what to declare; a
// value no later use settles still says it needs a type; a declared
// record expected keeps its errors.
func TestAnonymousRecordAndLaterUseErrors(t *testing.T) {
	gen := "module m (f)\nimport root\nsource Py from \"chem.py\" (\"lines\")\nlines :: [a] -> Str\n"
	tests := []struct{ name, src, want string }{
		{"anonymous record given to a generic pool function", gen + "f :: Int -> Str\nf n = lines [{x = n, y = \"a\"}]",
			"6:13: argument 1 of lines (run in the Py pool) holds {x = Int, y = Str}, the anonymous type of a record literal, which only the nexus can handle; declare a record (`record R where; x :: Int; y :: Str`, with a language map such as `record Py => R = \"dict\"`) and give the literal that type, in a signature or as ({...} :: R)"},
		{"exported definition returning an anonymous record", "module m (g)\ng = {x = 1}",
			"1:11: the result of the exported 'g' holds {x = Int}, the anonymous type of a record literal"},
		{"unknown field of an anonymous record", "module m (f)\nf :: Int\nf = .z {x = 1}",
			"3:5: record {x = Int} has no field 'z'"},
		{"a function as a field", errHeader + "f :: Str\nf = .x {x = upper}",
			"7:13: expected a value, got 'upper' given 0 of its 1 argument"},
		{"anonymous record where another record is expected", errHeader + todoDecls + "f :: Str -> Todo\nf s = let r = {title = s, done = True, n = 1} in r",
			"12:50: expected Todo, got {title = Str, done = Bool, n = Int}"},
		{"declared record expected: missing field", errHeader + todoDecls + "f :: Todo\nf = {title = \"t\"}",
			"12:5: record Todo is missing field 'done'"},
		{"no use settles the bound value", errHeader + "f :: Str -> <IO, Err> Str\nf p = do\n  x <- @load p\n  @show x",
			"8:8: cannot tell the type @load reads; ascribe it, as in (@load path :: <IO, Err> Int)"},
		{"the use settles a type the value cannot have", errHeader + "f :: Str -> <IO, Err> Int\nf p = do\n  x <- (@load p :: <IO, Err> Str)\n  count x",
			"9:9: expected [Int], got Str"},
		{"fold seed no use settles", "module m (f)\nimport root\nimport map as mp\nf :: [Str] -> Int\nf ws = length (mp.toList (fold (\\acc w -> mp.insert w 1 acc) mp.emptyMap ws))",
			"5:62: cannot tell what type emptyMap returns here (Map a b)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantError(t, tt.src, tt.want) })
	}
}

// TestLaterUseTrialIsUndone: what the trial for a variable's type made is
// undone, so an error in a recursive definition first compiled during the
// trial is still reported.
func TestLaterUseTrialIsUndone(t *testing.T) {
	src := "module m (f)\nimport root\nf :: Str -> <IO, Err> Int\nf p = do\n  n <- @load p\n  loop n\nloop :: Int -> Int\nloop k ? k <= 0 = \"x\" : loop (k - 1)"
	wantError(t, src, "8:19: expected Int, got Str")
}
