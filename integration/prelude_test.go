package integration

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// preludeFiles calls every function of Morloc's prelude (root, maybe and
// map as nexus has them) at least once, and every higher-order one the
// Python pool runs itself with Python functions.
var preludeFiles = files{
	"main.loc": `module prelude (combs, logic, tuples, order, folds, seqs1, seqs2, seqs3, seqs4, pylist, maybes, maps, nums, conv)
import root-py
import maybe-py
import map-py

source Py from "lib.py" ("score", "scale", "isBig", "add", "less", "same", "twice")
score :: Real -> Real
scale :: Real -> Real -> Real
isBig :: Real -> Bool
add :: Real -> Real -> Real
less :: Real -> Real -> Bool
same :: Real -> Real -> Bool
twice :: Real -> [Real]

combs :: Int -> (Int, Int, Int, Int, Int, Bool)
combs x = (id x, seq "ignored" x, const x "y", flip (\a b -> a - b) 1 x, starling (\a b -> a + b) (\a -> a * 2) (\a -> a * 3) x, on (\a b -> a == b) (\a -> a % 2) x 4)

logic :: Bool -> Bool -> (Bool, Bool, Bool)
logic a b = (not a, xor a b, nand a b)

tuples :: Int -> Int -> (Int, Int, (Int, Int), (Int, Int))
tuples a b = (curry (\p -> uncurry (\x y -> x * 10 + y) p) a b, curry3 (\t -> uncurry3 (\x y z -> x + y + z) t) a b 1, toSnd (\x -> x * 2) a, toFst (\x -> x * 2) b)

order :: Int -> Int -> (Int, Int, Str)
order a b = (min a b, max a b, max "pear" "apple")

folds :: [Int] -> (Int, Int, Bool, Bool, Bool, [Int], [Int], Int)
folds xs = (length xs, sum xs, any (\x -> x > 2) xs, all (\x -> x > 0) xs, elem 3 xs, concat [xs, [9]], concatMap (\x -> [x, x]) xs, fold (\acc x -> acc * 10 + x) 0 xs)

seqs1 :: [Int] -> ([Int], [(Int, [Str])], [Int], [Int], [Int], [Int], [Int])
seqs1 xs = (sort xs, groupSort [(2, "b"), (1, "a"), (2, "c")], sortBy (\a b -> a > b) xs, filter (\x -> x % 2 == 1) xs, takeWhile (\x -> x < 3) xs, dropWhile (\x -> x < 3) xs, scanl (\acc x -> acc + x) 0 xs)

seqs2 :: Int -> ([Int], [Int], [Int], [[Int]], [(Int, Str)], ?Int, ?Int, ([Int], [Int]), [Int])
seqs2 n = (intersperse 0 [1, 2, 3], replicate n 7, iterate n (\x -> x * 2) 1, groupBy (\a b -> a == b) [1, 1, 2, 3, 3], enumerate ["a", "b"], find (\x -> x > n) [1, 5, 9], find (\x -> x > 100) [1], partition (\x -> x > n) [1, 5, 9], unique [3, 1, 3, 2, 1])

seqs3 :: Int -> ([Int], [Int], [(Int, Str)], ([Int], [Str]), [Int], [Int], Int, ?Int, ?Int, [Int])
seqs3 n = (intercalate [0] [[1], [2, 3]], zipWith (\a b -> a * b) [1, 2, 3] [4, 5], zip [1, 2] ["a", "b", "c"], unzip [(1, "x"), (2, "y")], range 0 n, rangeStep 10 0 (0 - n), fold1 (\a b -> a - b) [10, 1, 2], safeFold1 (\a b -> a + b) (filter (\x -> x > 100) [n]), safeFold1 (\a b -> a + b) [n, n], reverse [1, 2, n])

seqs4 :: [Int] -> ([Int], (Int, [Int]), [Int], ([Int], Int), Int)
seqs4 xs = (cons 0 xs, uncons xs, snoc xs 9, unsnoc xs, size xs)

--' Higher-order functions over Python functions: each loop runs in the pool
pylist :: [Real] -> ([Real], [Real], Real, [Real], Bool, Bool, ?Real, [Real], ([Real], [Real]), [Real], [Real], [Real], [Real], [[Real]], [Real], [Real])
pylist xs = (map score xs, filter isBig xs, fold add 0.0 xs, zipWith add xs xs, any isBig xs, all isBig xs, find isBig xs, concatMap twice xs, partition isBig xs, takeWhile isBig xs, dropWhile isBig xs, scanl add 0.0 xs, sortBy less xs, groupBy same xs, map (scale 2.0) xs, map (\x -> scale x 3.0) xs)

maybes :: ?Int -> (Int, Bool, Int, ?Int, ?Int, [Int], [Int], ?Int, ?Int, Int, Int)
maybes x = (default 5 x, isNull x, tryMaybe (\v -> v * 2) 0 x, mapMaybe (\v -> v + 1) x, bindMaybe (\v -> find (\w -> w > 1) [v]) x, catMaybes [x, x], maybeToList x, listToMaybe [7, 8], liftMaybe2 (\a b -> a + b) x x, fromMaybeWith 9 x, require (listToMaybe [4]))

maps :: Int -> ([(Str, Int)], ?Int, ?Int, Bool, [Str], [Int], [(Str, Int)], [(Str, Int)], [(Str, Int)], [Str], [(Str, Int)], [(Str, Int)], [(Str, Str)], [Str], Int, [(Str, Int)])
maps n = (toList (insert "c" n m), lookup "b" m, lookup "z" m, member "a" m, keys (delete "a" m), values m, toList (union m (singleton "a" 9)), toList (unionWith (\x y -> x + y) m (singleton "a" n)), toList (intersectionWith (\x y -> x * y) m (fromList [("b", 10), ("q", 1)])), keys (difference m (singleton "a" 0)), toList (mapValues (\v -> v * 100) m), toList (mapKeys (\k -> k <> k) m), toList (mapWithKey (\k v -> k <> show v) m), keys (filterMap (\k v -> v > 1) m), foldWithKey (\acc k v -> acc + v) 0 m, toList (insert "x" 1 emptyMap))
  where
    m = fromList [("a", 1), ("b", 2)]

nums :: Int -> Real -> (Int, Int, Real, Real, Real, Str, Str, Int, Real, Str, [Int])
nums i r = (neg i, abs (0 - i), inv r, ln 1.0, toReal i, show [i], mempty, zero + i, zero + r, "x" <> mempty, mempty <> [i])

conv :: Str -> Int -> Real -> ([Int], Real, Int)
conv s n x = (read s, into n, tryInto x)
`,
	"lib.py": `def score(x):
    return x * 10

def scale(k, x):
    return k * x

def isBig(x):
    return x > 1.5

def add(a, b):
    return a + b

def less(a, b):
    return a > b

def same(a, b):
    return int(a) == int(b)

def twice(x):
    return [x, x]
`,
}

// TestPrelude: the prelude's functions give what Morloc's root, maybe
// and map define, through the CLI and over MCP. The expected values are
// worked out from the digest's definitions (section 8), not read off a run.
func TestPrelude(t *testing.T) {
	p := build(t, preludeFiles)
	p.okAll([]cliCase{
		{[]string{"combs", "10"}, "[10,10,10,9,50,true]\n"},
		{[]string{"logic", "true", "false"}, "[false,true,true]\n"},
		{[]string{"tuples", "3", "4"}, "[34,8,[3,6],[8,4]]\n"},
		{[]string{"order", "3", "4"}, "[3,4,\"pear\"]\n"},
		{[]string{"folds", "[1,2,3]"}, "[3,6,true,true,true,[1,2,3,9],[1,1,2,2,3,3],123]\n"},
		{[]string{"seqs1", "[1,2,5,3]"}, "[[1,2,3,5],[[1,[\"a\"]],[2,[\"b\",\"c\"]]],[5,3,2,1],[1,5,3],[1,2],[5,3],[0,1,3,8,11]]\n"},
		{[]string{"seqs2", "3"}, "[[1,0,2,0,3],[7,7,7],[1,2,4],[[1,1],[2],[3,3]],[[0,\"a\"],[1,\"b\"]],5,null,[[5,9],[1]],[3,1,2]]\n"},
		{[]string{"seqs3", "3"}, "[[1,0,2,3],[4,10],[[1,\"a\"],[2,\"b\"]],[[1,2],[\"x\",\"y\"]],[0,1,2],[10,7,4,1],7,null,6,[3,2,1]]\n"},
		{[]string{"seqs4", "[1,2]"}, "[[0,1,2],[1,[2]],[1,2,9],[[1],2],2]\n"},
		{[]string{"pylist", "[1.0,1.2,2.5,3.0]"}, "[[10,12,25,30],[2.5,3],7.7,[2,2.4,5,6],true,false,2.5,[1,1,1.2,1.2,2.5,2.5,3,3],[[2.5,3],[1,1.2]],[],[1,1.2,2.5,3],[0,1,2.2,4.7,7.7],[3,2.5,1.2,1],[[1,1.2],[2.5],[3]],[2,2.4,5,6],[3,3.5999999999999996,7.5,9]]\n"},
		{[]string{"maybes", "3"}, "[3,false,6,4,3,[3,3],[3],7,6,3,4]\n"},
		{[]string{"maybes", "null"}, "[5,true,0,null,null,[],[],7,null,9,4]\n"},
		{[]string{"maps", "3"}, "[[[\"a\",1],[\"b\",2],[\"c\",3]],2,null,true,[\"b\"],[1,2],[[\"a\",9],[\"b\",2]],[[\"a\",4],[\"b\",2]],[[\"b\",20]],[\"b\"],[[\"a\",100],[\"b\",200]],[[\"aa\",1],[\"bb\",2]],[[\"a\",\"a1\"],[\"b\",\"b2\"]],[\"b\"],3,[[\"x\",1]]]\n"},
		{[]string{"conv", "[3, 4]", "2", "5.0"}, "[[3,4],2,5]\n"},
		{[]string{"nums", "3", "4.0"}, "[-3,3,0.25,0,3,\"[3]\",\"\",3,4,\"x\",[3]]\n"},
	})
	if msg := p.fails(1, "conv", "[]", "1", "2.5"); !strings.Contains(msg, "tryInto: 2.5 is no Int") {
		t.Errorf("tryInto 2.5: %q", msg)
	}
	if msg := p.fails(1, "seqs3", "0"); !strings.Contains(msg, "rangeStep: a step of 0") {
		t.Errorf("rangeStep with a step of 0 did not fail")
	}

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pylist", Arguments: map[string]any{"_1": []float64{3, 0.5}}})
	want := "[[30,5],[3],3.5,[6,1],true,false,3,[3,3,0.5,0.5],[[3],[0.5]],[3],[0.5],[0,3,3.5],[3,0.5],[[3],[0.5]],[6,1],[9,1.5]]"
	if err != nil || res.IsError || toolText(res) != want {
		t.Errorf("pylist over MCP: %s, %v", toolText(res), err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "maybes", Arguments: map[string]any{"_1": nil}})
	if err != nil || res.IsError || toolText(res) != "[5,true,0,null,null,[],[],7,null,9,4]" {
		t.Errorf("maybes over MCP: %s, %v", toolText(res), err)
	}
	cs.Close()
	p.checkClean()
}
