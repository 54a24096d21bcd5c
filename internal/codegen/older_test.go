package codegen

import "testing"

// Morloc's older prelude functions (digest section 11) work, as their
// current forms.
func TestOlderPreludeFunctions(t *testing.T) {
	cases := []bodyCase{
		{"at", "f :: [Int] -> Int\nf xs = at 1 xs", "index($0, 1)", "Int"},
		{"slice", "f :: [Int] -> [Int]\nf xs = slice 1 3 xs", "slice($0, 1, 3, null)", "[Int]"},
		{"head", "f :: [Str] -> Str\nf xs = head xs", "index($0, 0)", "Str"},
		{"reverse", "f :: [Int] -> [Int]\nf xs = reverse xs", "reverse($0)", "[Int]"},
		{"branch", "f :: Int -> Int\nf = branch (\\x -> x > 0) (\\x -> x * 2) (\\x -> 0 - x)", "if(($0 > 0), ($0 * 2), (0 - $0))", "Int"},
		{"ifelse", "f :: Bool -> Str\nf b = ifelse b \"yes\" \"no\"", `if($0, "yes", "no")`, "Str"},
		{"toDeque", "f :: [Int] -> [Int]\nf xs = toDeque xs", "$0", "[Int]"},
		{"fromMaybe", "import maybe\nf :: ?Int -> Int\nf x = fromMaybe x", "require($0)", "Int"},
		{"fromMaybeWith", "import maybe\nf :: ?Int -> Int\nf x = fromMaybeWith 0 x", "if(isNull($0), 0, require($0))", "Int"},
		{"a program's own at hides the older one", "at x y = x + y\nf :: Int -> Int\nf x = at x 1", "($0 + 1)", "Int"},
	}
	for i := range cases {
		cases[i].text = "import root\n" + cases[i].text
	}
	wantBodies(t, cases)
}
