package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/manifest"
)

// intrinsicFiles uses every intrinsic nexus has, and type ascription,
// around two Python functions (one always raising).
var intrinsicFiles = files{
	"main.loc": `module intr (showAll, hashOf, readTwice, safeRead, roundTrip, jsonTrip, mpkTrip, oldOrder, cached, facts, poolFail, failing, viaLet, viaDef)
source Py from "helpers.py" ("boom", "double")
boom :: Int -> Int
double :: Int -> Int

record Pt where
  x :: Int
  y :: Real

showAll :: Real -> Str -> [Str]
showAll r s = [@show [r, 0.5], @show s, @show {x = 1, y = r}, @show (1, True)]

hashOf :: Int -> Str
hashOf n = @hash n

readTwice :: Str -> <Err> Int
readTwice s = do
  n <- (@read s :: <Err> Int)
  n * 2

safeRead :: Str -> Int
safeRead s = @catch (@read s :: <Err> Int) 0

roundTrip :: Int -> Str -> [Int] -> <IO, Err> [Int]
roundTrip level path xs = do
  @save level xs path
  @load path

jsonTrip :: Str -> [Str] -> <IO, Err> [Str]
jsonTrip path xs = do
  @savej path xs
  @load path

mpkTrip :: Str -> Pt -> <IO, Err> Pt
mpkTrip path p = do
  @savem path p
  @load path

--' @savej value path, the order before Morloc 0.91
oldOrder :: Str -> Int -> <IO, Err> Int
oldOrder path n = do
  @savej n path
  @load path

cached :: Str -> <IO> Int
cached p = @catch (@load p :: <IO, Err> Int) 42

facts :: Str -> (Str, Str, Str, Str, Str, Str)
facts p = (@version, @lang, @datafile p, @schema [1, 2], @typeof (p, [1.5]), @compiled)

poolFail :: Int -> Int
poolFail n = @catch (boom n) (double n)

failing :: Str -> <Err> Int
failing s = @read s

viaLet :: Str -> [Int] -> <IO, Err> [Int]
viaLet path xs = do
  let saver = @savej path
  saver xs
  @load path

applyTo f v = f v

viaDef :: Int -> Str
viaDef n = applyTo @show n
`,
	"helpers.py": "def boom(n):\n    raise ValueError(f\"boom {n}\")\n\ndef double(n):\n    return 2 * n\n",
}

// TestIntrinsics: every intrinsic through the CLI and MCP, files written
// in a temporary folder, failures caught by @catch or ending the command
// with exit 1 and the message on stderr.
func TestIntrinsics(t *testing.T) {
	p := build(t, intrinsicFiles)
	files := t.TempDir()
	path := func(name string) string { return filepath.Join(files, name) }
	p.okAll([]cliCase{
		// A whole Real shows as Morloc shows it: 4, not 4.0.
		{[]string{"showAll", "4", "a/b"}, `["[4,0.5]","\"a/b\"","{\"x\":1,\"y\":4}","[1,true]"]` + "\n"},
		{[]string{"hashOf", "1"}, fmt.Sprintf("%q\n", fmt.Sprintf("%016x", xxhash.Sum64([]byte{0x01})))},
		{[]string{"hashOf", "300"}, fmt.Sprintf("%q\n", fmt.Sprintf("%016x", xxhash.Sum64([]byte{0xcd, 0x01, 0x2c})))},
		{[]string{"readTwice", " 21 "}, "42\n"},
		{[]string{"safeRead", "7"}, "7\n"},
		{[]string{"safeRead", "seven"}, "0\n"},
		{[]string{"roundTrip", "0", path("plain.bin"), "[1, 2, 3]"}, "[1,2,3]\n"},
		{[]string{"roundTrip", "9", path("packed.bin"), "[4, 5]"}, "[4,5]\n"},
		{[]string{"jsonTrip", path("s.json"), `["a", "é"]`}, `["a","é"]` + "\n"},
		{[]string{"mpkTrip", path("p.mpk"), `{"x": 3, "y": -1.5}`}, `{"x":3,"y":-1.5}` + "\n"},
		{[]string{"oldOrder", path("n.json"), "5"}, "5\n"},
		{[]string{"cached", path("missing.json")}, "42\n"},
		{[]string{"cached", path("n.json")}, "5\n"},
		{[]string{"poolFail", "4"}, "8\n"},
		{[]string{"viaLet", path("l.json"), "[9]"}, "[9]\n"},
		{[]string{"viaDef", "12"}, `"12"` + "\n"},
	})
	for name, want := range map[string]string{"s.json": "[\"a\",\"é\"]\n", "n.json": "5\n", "l.json": "[9]\n"} {
		if data, err := os.ReadFile(path(name)); err != nil || string(data) != want {
			t.Errorf("%s holds %q (%v), want %q", name, data, err, want)
		}
	}
	var facts []string
	if err := json.Unmarshal([]byte(p.ok("facts", "data/x.csv")), &facts); err != nil || len(facts) != 6 {
		t.Fatalf("facts: %v %v", facts, err)
	}
	if want := []string{manifest.NexusVersion, "morloc", "data/x.csv", "aj", "(Str, [Real])"}; strings.Join(facts[:5], "|") != strings.Join(want, "|") || !strings.HasPrefix(facts[5], "20") {
		t.Errorf("facts: %q, want %q and a compile time", facts, want)
	}
	if msg := p.fails(1, "failing", "x1"); !strings.Contains(msg, `@read: cannot read "x1" as Int`) {
		t.Errorf("failing x1: %q", msg)
	}
	if msg := p.fails(1, "roundTrip", "12", path("bad.bin"), "[1]"); !strings.Contains(msg, "@save: compression level 12 is not between 0 and 9") {
		t.Errorf("roundTrip 12: %q", msg)
	}

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"roundTrip", map[string]any{"_1": 3, "_2": path("mcp.bin"), "_3": []int{7, 8}}, "[7,8]"},
		{"safeRead", map[string]any{"_1": "nope"}, "0"},
		{"poolFail", map[string]any{"_1": 5}, "10"},
		{"cached", map[string]any{"_1": path("mcp.bin")}, "42"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError || toolText(res) != c.want {
			t.Errorf("%s over MCP: %s, %v; want %s", c.tool, toolText(res), err, c.want)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "failing", Arguments: map[string]any{"_1": "x"}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), `@read: cannot read "x" as Int`) {
		t.Errorf("failing over MCP: %s, %v", toolText(res), err)
	}
	cs.Close()
	p.checkClean()
}
