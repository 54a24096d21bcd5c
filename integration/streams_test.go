package integration

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// streamFiles writes a stream file and reads it back batch by batch,
// reads standard input lazily, writes standard output, and uses '!'.
var streamFiles = files{
	"main.loc": `module streams (writeRead, fileFacts, joined, countLines, sumInts, firstBatch, echoOut, forced, headLen)
import root

--' Write two batches to a stream file, then read three back: the third
--' is [], the end.
writeRead :: Str -> [Int] -> [Int] -> <IO, Err> [[Int]]
writeRead path xs ys = do
  o <- @open path :: <IO, Err> OStream Int
  @write 0 o xs
  @write 0 o ys
  @close o
  s <- @open path :: <IO, Err> IStream Int
  a <- @next s
  b <- @next s
  c <- @next s
  [a, b, c]

fileFacts :: Str -> <IO, Err> (Str, Int, [Int])
fileFacts path = do
  f <- @open path :: <IO, Err> IFile Int
  s <- @stream f
  (!(@fschema path), !(@flen f), !(@next s))

joined :: Str -> Str -> Str -> <IO, Err> Int
joined a b out = do
  more <- @append b :: <IO, Err> OStream Int
  @write 0 more [100]
  @flush more
  @close more
  @concat [a, b] out
  f <- @open out :: <IO, Err> IFile Int
  @flen f

--' Lines of standard input, read a batch at a time.
countLines :: <IO, Err> Int
countLines = do
  s <- @stdin :: <IO, Err> IStream Str
  countFrom s

--' The lines left in a stream, a batch at a time (recursive).
countFrom :: IStream Str -> <IO, Err> Int
countFrom s = do
  batch <- @next s
  ? length batch == 0 = 0 : length batch + !(countFrom s)

sumInts :: <IO, Err> Int
sumInts = do
  s <- @stdin :: <IO, Err> IStream Int
  sumFrom s

sumFrom :: IStream Int -> <IO, Err> Int
sumFrom s = do
  batch <- @next s
  ? length batch == 0 = 0 : sum batch + !(sumFrom s)

firstBatch :: <IO, Err> Int
firstBatch = length !(@next !(@stdin :: <IO, Err> IStream Str))

echoOut :: [Int] -> <IO, Err> Int
echoOut xs = do
  o <- @stdout :: <IO> OStream Int
  @write 0 o xs
  @write 0 o [0]
  @close o
  @tell

bump :: Str -> <IO, Err> Int
bump p = do
  n <- (@load p :: <IO, Err> Int)
  @savej p (n + 1)
  @load p

--' Two forces, run left to right.
forced :: Str -> <IO, Err> (Int, Int)
forced p = (!(bump p), !(bump p))

headLen :: Str -> <IO, Err> Int
headLen p = length !(@next !(@open p :: <IO, Err> IStream Str))
`,
}

// TestStreams: through the CLI, with standard input piped, and over MCP,
// where the commands reading standard input or writing standard output
// are not tools.
func TestStreams(t *testing.T) {
	p := build(t, streamFiles)
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"writeRead", path("s.jsonl"), "[1, 2, 3]", "[4]"}, "[[1,2,3],[4],[]]\n"},
		{[]string{"fileFacts", path("s.jsonl")}, `["j",4,[1,2,3]]` + "\n"},
		{[]string{"writeRead", path("b.jsonl"), "[5]", "[]"}, "[[5],[],[]]\n"},
		{[]string{"joined", path("s.jsonl"), path("b.jsonl"), path("all.jsonl")}, "6\n"},
		{[]string{"echoOut", "[7, 8]"}, "7\n8\n0\n3\n"},
	} {
		if out := p.ok(c.args...); out != c.want {
			t.Errorf("%v: %q, want %q", c.args, out, c.want)
		}
	}
	data, err := os.ReadFile(path("all.jsonl"))
	if want := "{\"nexus-stream\":1,\"schema\":\"j\"}\n[1,2,3]\n[4]\n[5]\n[100]\n"; err != nil || string(data) != want {
		t.Errorf("all.jsonl holds %q (%v), want %q", data, err, want)
	}

	// Standard input: 2500 lines (three batches), JSON numbers, text.
	many := strings.Repeat("a line\n", 2500)
	for _, c := range []struct {
		cmd, stdin, want string
	}{
		{"countLines", many, "2500\n"},
		{"countLines", "", "0\n"},
		{"countLines", "no newline at the end", "1\n"},
		{"sumInts", "1\n2\n\n40\n", "43\n"},
		{"firstBatch", many, "1024\n"},
	} {
		res := p.runStdin([]byte(c.stdin), c.cmd)
		if res.code != 0 || res.stdout != c.want {
			t.Errorf("%s with %d bytes of stdin: exit %d, %q, want %q\n%s", c.cmd, len(c.stdin), res.code, res.stdout, c.want, res.stderr)
		}
	}
	res := p.runStdin([]byte("1\nx\n"), "sumInts")
	if res.code != 1 || !strings.Contains(res.stderr, "@next: <stdin> line 2:") {
		t.Errorf("sumInts of a line that is no Int: exit %d, %q", res.code, res.stderr)
	}
	if msg := p.fails(1, "headLen", path("missing")); !strings.Contains(msg, "@open: open "+path("missing")+": no such file or directory") {
		t.Errorf("headLen of a missing file: %q", msg)
	}
	os.WriteFile(path("n.json"), []byte("0\n"), 0o644)
	if out := p.ok("forced", path("n.json")); out != "[1,2]\n" {
		t.Errorf("forced: %q, want [1,2]", out)
	}

	t.Run("lazy stdin", func(t *testing.T) { firstBatchOfOpenInput(t, p) })

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, stderr := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"writeRead", map[string]any{"_1": path("m.jsonl"), "_2": []int{9}, "_3": []int{8, 7}}, "[[9],[8,7],[]]"},
		{"fileFacts", map[string]any{"_1": path("m.jsonl")}, `["j",3,[9]]`},
		{"forced", map[string]any{"_1": path("n.json")}, "[3,4]"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError || toolText(res) != c.want {
			t.Errorf("%s over MCP: %s, %v; want %s", c.tool, toolText(res), err, c.want)
		}
	}
	res2, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "headLen", Arguments: map[string]any{"_1": path("missing")}})
	if err != nil || !res2.IsError || !strings.Contains(toolText(res2), "no such file or directory") {
		t.Errorf("headLen of a missing file over MCP: %s, %v", toolText(res2), err)
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		switch tool.Name {
		case "countLines", "sumInts", "firstBatch", "echoOut":
			t.Errorf("%s is a tool; it uses standard input or output", tool.Name)
		}
	}
	cs.Close()
	for _, line := range []string{
		"command countLines is not served as an MCP tool: it reads standard input",
		"command firstBatch is not served as an MCP tool: it reads standard input",
		"command echoOut is not served as an MCP tool: it writes standard output",
	} {
		if !strings.Contains(stderr.String(), line) {
			t.Errorf("MCP stderr lacks %q:\n%s", line, stderr)
		}
	}
	p.checkClean()
}

// firstBatchOfOpenInput: firstBatch answers from the first 1024 lines of
// a standard input that is still open; reading it all first would wait
// until the guard kills the command.
func firstBatchOfOpenInput(t *testing.T, p *program) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.launcher, "firstBatch")
	cmd.Env = append(os.Environ(), "TMPDIR="+p.tmp)
	cmd.Dir = t.TempDir()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := in.Write([]byte(strings.Repeat("x\n", 1500))); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil || out.String() != "1024\n" {
		t.Errorf("firstBatch of an open input: %v, %q, stderr %q", err, out.String(), errb.String())
	}
}

// TestStreamBuildErrors: a handle cannot reach a pool function, and '!'
// where it would run twice is an error, each at its line and column.
func TestStreamBuildErrors(t *testing.T) {
	for _, c := range []struct {
		loc, want string
	}{
		{"module m (g)\nsource Py from \"h.py\" (\"f\")\nf :: IStream Int -> Int\ng :: Int\ng = 1\n",
			"main.loc:3:6: 'f', a sourced function, takes a handle (IStream Int), which belongs to the call that opened it; take the path (a Str) and @open it"},
		{"module m (g)\ng :: Str -> <IO, Err> [Int]\ng p = do\n  s <- !(@open p :: <IO, Err> IStream Int)\n  @next s\n",
			"main.loc:4:8: a '!' on the right of '<-' is one run too many"},
	} {
		msg := makeFails(t, files{"main.loc": c.loc, "h.py": "def f(s):\n    return 1\n"})
		if !strings.Contains(msg, c.want) {
			t.Errorf("%q: %q, want %q", c.loc, msg, c.want)
		}
	}
}
