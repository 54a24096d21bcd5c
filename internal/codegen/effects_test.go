package codegen

import "testing"

// effHeader sources Python functions with effects (the same function as
// upper, under other names and signatures: effects change nothing at run
// time). A test's text starts on line 12.
const effHeader = `module m (f)
import root
source Py from "chem.py" ("upper", "upper" as readIO, "upper" as risky, "count", "shout" as roll)
upper :: Str -> Str
readIO :: Str -> <IO> Str
risky :: Str -> <IO, Err> Str
count :: [Int] -> Int
effect Rand
roll :: Str -> Int -> <Rand> Str
record P where
  a :: Str
`

// TestEffectBodies: bodies whose effects fit their signatures (digest
// 5.1) build, and effects change nothing in the manifest.
func TestEffectBodies(t *testing.T) {
	tests := []struct{ name, text, want, ret string }{
		{"a pure body lifts into an effect row", "f :: Str -> <IO> Str\nf s = upper s", "upper($0)", "Str"},
		{"widening", "f :: Str -> <IO, Err> Str\nf s = readIO s", "readIO($0)", "Str"},
		{"a do block has the union of its effects", "f :: Str -> <IO, Err, Rand> Str\nf s = do\n  a <- readIO s\n  b <- risky a\n  roll b 2",
			"let(readIO($0) in let(risky($1) in roll($2, 2)))", "Str"},
		{"a bare statement runs", "f :: Str -> <IO> Str\nf s = do\n  readIO s\n  upper s", "let(readIO($0) in upper($0))", "Str"},
		{"let binds without running, <- runs", "f :: Str -> <IO> Str\nf s = do\n  let t = readIO s\n  x <- t\n  upper x", "let(readIO($0) in upper($1))", "Str"},
		{"@catch removes Err", "f :: Str -> <IO> Str\nf s = @catch (risky s) \"none\"", `@catch(risky($0), "none")`, "Str"},
		{"@catch of a pure @read is pure", "f :: Str -> Int\nf s = @catch (@read s :: <Err> Int) 0", "@catch(@read($0), 0)", "Int"},
		{"the prelude's map takes the effects of its function", "f :: [Str] -> <IO> [Str]\nf xs = map readIO xs", "", "[Str]"},
		{"and of a lambda", "f :: [Str] -> <IO> [Str]\nf xs = map (\\x -> readIO x) xs", "", "[Str]"},
		{"a row variable of the program's own", "mapE :: (Str -> <e> Str) -> Str -> <e> Str\nmapE g x = g x\nf :: Str -> <IO> Str\nf s = mapE readIO s", "readIO($0)", "Str"},
		{"a row variable beside a label", "twice :: (Str -> Int -> <Rand, e> Str) -> Str -> <Rand, e> Str\ntwice g x = do\n  y <- g x 1\n  g y 2\nf :: Str -> <Rand> Str\nf s = twice roll s",
			"let(roll($0, 1) in roll($1, 2))", "Str"},
		{"a definition without a signature carries its effects", "g x = readIO x\nf :: Str -> <IO> Str\nf s = g s", "readIO($0)", "Str"},
		{"through a where binding", "f :: Str -> <IO> Str\nf s = do\n  x <- r\n  upper x\n  where\n    r = readIO s", "let(readIO($0) in upper($1))", "Str"},
		{"an effectful parameter run in a do block", "f :: <Rand> Str -> <Rand> Str\nf s = do\n  x <- s\n  upper x", "let($0 in upper($1))", "Str"},
		{"an escapable effect of an argument may be dropped", "f :: <Err> Str -> Str\nf s = @catch s \"x\"", `@catch($0, "x")`, "Str"},
		{"guard branches lift", "f :: Str -> <IO> Str\nf s ? s == \"\" = readIO s : s", "", "Str"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == "" {
				compileOK(t, effHeader+tt.text)
				return
			}
			wantBodyOf(t, effHeader+tt.text, tt.want, tt.ret)
		})
	}
}

// TestEffectErrors: each typing rule of digest 5.1 broken, reported at
// its line and column with the effect and where it comes from.
func TestEffectErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"a pure signature with an effectful body", "f :: Str -> Str\nf s = readIO s",
			"13:7: f has effect IO (from readIO), but its signature's result Str is pure; declare it: <IO> Str"},
		{"narrowing", "f :: Str -> <IO> Str\nf s = risky s",
			"13:7: f has effect Err (from risky), but its signature declares only <IO>; add it: <IO, Err> Str"},
		{"a do block in a pure body", "f :: Str -> Str\nf s = do\n  x <- readIO s\n  upper x",
			"14:8: f has effect IO (from readIO)"},
		{"@catch leaves IO", "f :: Str -> Str\nf s = @catch (risky s) \"none\"",
			"13:15: f has effect IO (from risky)"},
		{"an effect dropped by a plain argument", "f :: Str -> <IO> Str\nf s = upper (readIO s)",
			"13:14: argument 1 of upper has effect IO (from readIO at 13:14), but a plain value is expected there: effects cannot be dropped; run it in a do block"},
		{"two effects dropped", "f :: Str -> <IO, Err> Str\nf s = upper (risky s)",
			"13:14: argument 1 of upper has effects <Err, IO> (from risky at 13:14), but a plain value is expected there"},
		{"an effect dropped by a bare type variable", "idT :: a -> a\nidT x = x\nf :: Str -> <IO> Str\nf s = idT (readIO s)",
			"15:12: argument 1 of idT has effect IO (from readIO at 15:12), but a plain value is expected there"},
		{"a let-bound computation used as a value", "f :: Str -> <IO> Str\nf s = let t = readIO s in upper t",
			"13:33: argument 1 of upper has effect IO (from readIO at 13:15)"},
		{"an effect in a tuple literal", "f :: Str -> <IO> (Str, Str)\nf s = (readIO s, s)",
			"13:8: a tuple literal's item; a tuple literal may not contain effects has effect IO"},
		{"an effect in a record literal", "f :: Str -> <IO> P\nf s = {a = readIO s}",
			"13:12: field 'a' of a record literal; a record literal may not contain effects has effect IO"},
		{"an effect in a list literal", "f :: Str -> <Err> Int\nf s = count [1, @throw \"no\"]",
			"13:17: a list element has effect Err (from @throw at 13:17)"},
		{"the prelude's map of an effectful function in a pure body", "f :: [Str] -> [Str]\nf xs = map readIO xs",
			"13:12: f has effect IO (from readIO)"},
		{"a function without a row variable given an effectful one", "app :: (Str -> Str) -> Str -> Str\napp g x = g x\nf :: Str -> <IO> Str\nf s = app readIO s",
			"15:11: the result of the function given as argument 1 of app has effect IO (from readIO at 15:11), but a plain value is expected there"},
		{"a row variable does not take a label it is beside", "mapE :: (Str -> <e> Str) -> Str -> <e> Str\nmapE g x = g x\nf :: Str -> <Rand> Str\nf s = mapE readIO s",
			"15:12: f has effect IO (from readIO), but its signature declares only <Rand>; add it: <Rand, IO> Str"},
		{"an inescapable effect of an argument dropped", "bad :: <Rand, e> Str -> <e> Str\nbad x = x\nf :: Str -> Str\nf s = s",
			"12:9: effect Rand of argument 1 of bad is not in its result's effects: an inescapable effect cannot be dropped; add it to the result (<e, Rand> ...) or declare it `escapable effect Rand`"},
		{"an inescapable effect of a function argument dropped", "bad :: (Str -> <Rand> Str) -> Str -> Str\nbad g x = x\nf :: Str -> Str\nf s = s",
			"12:17: effect Rand of argument 1 of bad is not in its result's effects"},
		{"an intrinsic waiting for arguments keeps its effects", "f :: Str -> ()\nf p = (@save 1) [1] p",
			"13:8: f has effects <Err, IO> (from @save), but its signature's result () is pure; declare it: <Err, IO> ()"},
		{"a definition without a signature passes its effects on", "g x = readIO x\nf :: Str -> Str\nf s = g s",
			"12:7: f has effect IO (from readIO)"},
		{"an effectful guard condition", "f :: Str -> <IO> Str\nf s ? readIO s == \"\" = s : s",
			"13:7: an operand of '==' has effect IO (from readIO at 13:7)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantError(t, effHeader+tt.text, tt.want) })
	}
}
