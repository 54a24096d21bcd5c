package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// effectFiles has commands typed with effects (digest 5.1): effectful
// Python functions run in do blocks, the prelude's map over one, a row
// variable of the program's own, @catch removing Err, a where binding and
// a let-bound computation run later. Effects change nothing at run time.
var effectFiles = files{
	"main.loc": `module eff (wordsOf, wordCount, safeCount, lengths, rolled, tagged, parsed)
import root-py

source Py from "io.py" ("read_text", "split_words", "noisy_len", "roll")

effect Rand

read_text :: Str -> <IO, Err> Str
split_words :: Str -> [Str]
noisy_len :: Str -> <IO> Int
roll :: Int -> <Rand> Int

--' The words of a file
wordsOf :: Str -> <IO, Err> [Str]
wordsOf path = do
  text <- read_text path
  split_words text

wordCount :: Str -> <IO, Err> Int
wordCount path = do
  ws <- wordsOf path
  length ws

--' -1 for a file that cannot be read
safeCount :: Str -> <IO> Int
safeCount path = @catch (wordCount path) (0 - 1)

lengths :: [Str] -> <IO> [Int]
lengths ws = map noisy_len ws

applyTo :: (Int -> <e> Int) -> Int -> <e> Int
applyTo g x = g x

rolled :: Int -> <Rand> Int
rolled seed = applyTo roll seed

tagged :: Str -> <IO, Err> (Str, Int)
tagged path = do
  let later = read_text path
  s <- later
  n <- noisy_len s
  (label, n)
  where
    label = "chars"

parsed :: Str -> Int
parsed s = @catch (@read s :: <Err> Int) 0
`,
	"io.py": `import sys


def read_text(path):
    with open(path) as f:
        return f.read()


def split_words(s):
    return s.split()


def noisy_len(s):
    print("len", s, file=sys.stderr)
    return len(s)


def roll(seed):
    return seed * 7 % 6 + 1
`,
}

// TestEffects: effect-typed commands build, run through the CLI and
// over MCP with the results of their bodies, and a body whose effects
// break its signature stops the build at the line and column of the
// effect.
func TestEffects(t *testing.T) {
	p := build(t, effectFiles)
	text := filepath.Join(t.TempDir(), "words.txt")
	if err := os.WriteFile(text, []byte("one two\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing.txt")
	p.okAll([]cliCase{
		{[]string{"wordsOf", text}, `["one","two","three"]` + "\n"},
		{[]string{"wordCount", text}, "3\n"},
		{[]string{"safeCount", text}, "3\n"},
		{[]string{"safeCount", missing}, "-1\n"},
		{[]string{"lengths", `["a", "bcd", ""]`}, "[1,3,0]\n"},
		{[]string{"rolled", "5"}, "6\n"},
		{[]string{"tagged", text}, `["chars",14]` + "\n"},
		{[]string{"parsed", "12"}, "12\n"},
		{[]string{"parsed", "twelve"}, "0\n"},
	})
	if msg := p.fails(1, "wordCount", missing); !strings.Contains(msg, "missing.txt") {
		t.Errorf("wordCount of a missing file: %q", msg)
	}

	p.toolsOK([]toolCall{
		{"wordCount", map[string]any{"_1": text}, "3"},
		{"safeCount", map[string]any{"_1": missing}, "-1"},
		{"lengths", map[string]any{"_1": []string{"xy", "z"}}, "[2,1]"},
		{"rolled", map[string]any{"_1": 2}, "3"},
	})
	p.checkClean()

	bad := files{"io.py": effectFiles["io.py"], "main.loc": strings.Replace(effectFiles["main.loc"],
		"lengths :: [Str] -> <IO> [Int]", "lengths :: [Str] -> [Int]", 1)}
	if msg := makeFails(t, bad); !strings.Contains(msg, "main.loc:29:18: lengths has effect IO (from noisy_len), but its signature's result [Int] is pure; declare it: <IO> [Int]") {
		t.Errorf("a pure signature over an effectful body: %q", msg)
	}
}
