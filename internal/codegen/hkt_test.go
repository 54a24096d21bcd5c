package codegen

import (
	"strings"
	"testing"
)

// hktProgram has a parameterized record with Functor and Foldable
// instances of its own beside the prelude's for lists.
const hktProgram = `module main (*)
import root

record Box a where
  value :: a

instance Functor Box where
  map h box = {value = h (.value box)}

instance Foldable Box where
  fold h acc box = h acc (.value box)

incAll :: Functor f => f Int -> f Int
incAll xs = map (\x -> x + 1) xs

`

func TestHigherKindedBodies(t *testing.T) {
	for _, tc := range []struct{ name, text, want, ret string }{
		{"box", "f :: Int -> Box Int\nf n = incAll ({value = n} :: Box Int)\n", "record{value=(.value(record{value=$0}) + 1)}", "Box Int"},
		{"list", "f :: [Int] -> [Int]\nf xs = incAll xs\n", "map(\\1:1 -> ($1 + 1), $0)", "[Int]"},
		{"boxshow", "f :: Int -> Box Str\nf n = map show ({value = n} :: Box Int)\n", "record{value=show(.value(record{value=$0}))}", "Box Str"},
		{"infer", "f :: Int -> Str\nf n = .value (map show ({value = n} :: Box Int))\n", ".value(record{value=show(.value(record{value=$0}))})", "Str"},
		{"fold", "f :: Int -> Int\nf n = fold (+) 1 ({value = n} :: Box Int)\n", "(1 + .value(record{value=$0}))", "Int"},
		{"foldlist", "f :: [Int] -> Int\nf xs = fold (+) 1 xs\n", "fold(\\1:2 -> ($1 + $2), 1, $0)", "Int"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantBodyOf(t, hktProgram+tc.text, tc.want, tc.ret) })
	}
}

func TestHigherKindedErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no instance", "record Two a where\n  x :: a\nf :: Two Int -> Two Int\nf p = map id p\n", "19:7: no instance Functor Two for 'map' here"},
		{"no instance in constraint", "record Two a where\n  x :: a\nf :: Two Int -> Two Int\nf p = incAll p\n", "19:7: 'incAll' needs an instance Functor Two here"},
		{"kind mismatch", "g :: f a -> f a b -> Int\ng x y = 1\nf :: Int -> Int\nf n = n\n", "16:13: type variable f is applied to 2 type arguments here and to 1 at 16:6"},
		{"instance kind", "instance Functor Int\nf :: Int -> Int\nf n = n\n", "16:18: instance Functor: class Functor applies its f to 1 type argument"},
		{"class kinds", "class Sized f where\n  one :: f a -> Int\n  two :: f a b -> Int\n", "18:10: class Sized: f is applied to 2 type arguments here and to 1 at 17:10"},
		{"constructor arity", "f :: Box Int Str -> Int\nf b = 1\n", "16:6: type Box takes 1 type argument, but is given 2"},
		{"not a constructor", "f :: Int -> [Int]\nf n = incAll n\n", "17:14: argument 1 of incAll: expected [Int], got Int"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantError(t, hktProgram+tc.text, tc.want) })
	}
}

// containerProgram has a class over constructors of every form: a
// built-in one, Optional, Map given its key, a parameterized record given
// its first argument, and a newtype.
const containerProgram = `module main (*)
import root
import map

record Pair a b where
  one :: a
  two :: b

newtype Stack a = [a]

class Container f where
  count :: f a -> Int

instance Container List where
  count xs = length xs
instance Container Optional where
  count x = 1
instance Container (Map Str) where
  count m = length (keys m)
instance Container (Pair Str) where
  count p = 3
instance Container Stack where
  count s = 4

`

func TestHigherKindedConstructors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"list", "f :: [Str] -> Int\nf xs = count xs\n", "length($0)"},
		{"optional", "f :: ?Int -> Int\nf x = count x\n", "1"},
		{"map", "f :: Map Str Real -> Int\nf m = count m\n", "length(keys($0))"},
		{"record", "f :: Pair Str Int -> Int\nf p = count p\n", "3"},
		{"newtype", "f :: Stack Int -> Int\nf s = count s\n", "4"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantBodyOf(t, containerProgram+tc.text, tc.want, "Int") })
	}
	wantError(t, containerProgram+"f :: Map Int Real -> Int\nf m = count m\n", "26:7: no instance Container (Map Int) for 'count' here")
	wantError(t, containerProgram+"f :: Pair Int Int -> Int\nf m = count m\n", "26:7: no instance Container (Pair Int) for 'count' here")
}

// A sourced function over any constructor gets a copy at the types of
// each use, as any generic sourced function.
func TestHigherKindedSourced(t *testing.T) {
	src := "module main (f)\nsource Py from \"chem.py\" (\"count\")\ncount :: f a -> Int\nf :: [Int] -> Int\nf xs = count xs\n"
	p := compileOK(t, src)
	fn := p.Manifest.Functions[p.Manifest.Commands[0].Body.Ref]
	if got := fn.Args[0].String(); got != "[Int]" {
		t.Errorf("count is called at %s, want [Int]", got)
	}
}

// A program's Functor instance leaves the prelude's map over a list of a
// pool function as it was: one loop in the pool.
func TestHigherKindedPoolLoop(t *testing.T) {
	use := "source Py from \"chem.py\" (\"upper\")\nupper :: Str -> Str\nf :: [Str] -> [Str]\nf xs = map upper xs\n"
	plain := "module main (f)\nimport root\n" + use
	wantBodyOf(t, plain, "map(&upper(#0), $0)", "[Str]")
	withInstance := strings.Replace(hktProgram, "module main (*)", "module main (f)", 1) + use
	wantBodyOf(t, withInstance, "map(&upper(#0), $0)", "[Str]")
}

// A variable applied to two types binds a constructor taking two, and
// one applied inside another's argument binds each.
func TestHigherKindedShapes(t *testing.T) {
	src := `module main (f)
import root
record Pair a b where
  one :: a
  two :: b
class Bi p where
  both :: p a b -> Int
instance Bi Map where
  both m = 1
instance Bi Pair where
  both p = 2
source Py from "chem.py" ("count")
count :: f (g a) -> Int
f :: Map Str Int -> Pair Int Str -> [?Int] -> Int
f m p xs = both m + both p + count xs
`
	wantBodyOf(t, src, "((1 + 2) + count($2))", "Int")
	p := compileOK(t, src)
	if got := p.Manifest.Functions[0].Args[0].String(); got != "[?Int]" {
		t.Errorf("count is called at %s, want [?Int]", got)
	}
}

// An error in an instance's method over a constructor is found at its
// first use, at the method's line; a program's own body-less instance
// for lists leaves the builtin serving them.
func TestHigherKindedInstanceUses(t *testing.T) {
	wrong := "module main (f)\nimport root\nrecord Box a where\n  value :: a\ninstance Functor Box where\n  map g b = {value = .value b}\nf :: Box Int -> Box Str\nf b = map show b\n"
	wantError(t, wrong, "6:22: expected Str, got Int")
	wantBodyOf(t, "module main (f)\nimport root\ninstance Functor List\nf :: [Int] -> [Str]\nf b = map show b\n", "map(\\1:1 -> show($1), $0)", "[Str]")
}
