package integration

import (
	"net/http"
	"strings"
	"testing"
)

// realFiles makes reals in the nexus (literals, arithmetic, @show, a
// record) and in a Python pool, to check they print as Morloc prints them
// (digest section 9) wherever a value is printed.
var realFiles = files{
	"main.loc": `module reals (lits, sum3, third, big, small, halved, echoed, shown, at)
source Py from "reals.py" ("halve", "echo")

record Loc where
  lat :: Real
  lon :: Real

halve :: Real -> Real
echo :: [Real] -> [Real]

lits :: [Real]
lits = [3.14, 4.2E5, 1e3, 42.0, 0.0, 42]

sum3 :: Real
sum3 = 0.1 + 0.2

third :: Real
third = 1.0 / 3.0

big :: [Real]
big = [1.0e15, 999999999999999.0, 6.022e23, 1e15 + 0.5]

small :: [Real]
small = [1.5e-7, 0.0001, 0.00001, 0.042]

halved :: Real -> Real
halved x = halve x

echoed :: [Real] -> [Real]
echoed xs = echo xs

shown :: Real -> Str
shown x = @show [x, 2.5]

at :: Real -> Loc
at x = {lat = x, lon = halve x}
`,
	"reals.py": "def halve(x):\n    return x / 2\n\ndef echo(xs):\n    return [float(x) for x in xs]\n",
}

// TestRealsPrint: a whole real below 1e15 prints as an integer, -0.0 as
// -0, other reals in their shortest exact digits with an exponent below
// 1e-4 and from 1e15, whether the nexus or a pool made them, through the
// CLI, MCP (text and structuredContent) and nexus serve's JSON API.
func TestRealsPrint(t *testing.T) {
	p := build(t, realFiles)
	p.okAll([]cliCase{
		{[]string{"lits"}, "[3.14,420000,1000,42,0,42]\n"},
		{[]string{"sum3"}, "0.30000000000000004\n"},
		{[]string{"third"}, "0.3333333333333333\n"},
		{[]string{"big"}, "[1e+15,999999999999999,6.022e+23,1.0000000000000005e+15]\n"},
		{[]string{"small"}, "[1.5e-07,0.0001,1e-05,0.042]\n"},
		{[]string{"halved", "84"}, "42\n"},
		{[]string{"halved", "--", "-18.0"}, "-9\n"},
		{[]string{"halved", "1"}, "0.5\n"},
		{[]string{"echoed", "[1.0, 2.5, -0.0, 1e20, 3]"}, "[1,2.5,-0,1e+20,3]\n"},
		{[]string{"shown", "4.0"}, `"[4,2.5]"` + "\n"},
		{[]string{"at", "3"}, `{"lat":3,"lon":1.5}` + "\n"},
	})
	p.toolsOK([]toolCall{
		{"lits", map[string]any{}, "[3.14,420000,1000,42,0,42]"},
		{"halved", map[string]any{"_1": 84.0}, "42"},
		{"echoed", map[string]any{"_1": []any{1.0, 2.5, 1e20}}, "[1,2.5,1e+20]"},
		{"shown", map[string]any{"_1": 4}, `"[4,2.5]"`},
		{"at", map[string]any{"_1": 3.0}, `{"lat":3,"lon":1.5}`},
	})

	// structuredContent is written by the same printer: its bytes, not
	// just its value, are checked on the wire.
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher)
	sid := s.initialize()
	r := s.rpc(sid, 2, "tools/call", map[string]any{"name": "at", "arguments": map[string]any{"_1": 8}})
	if want := `"structuredContent":{"lat":8,"lon":4}`; r.status != http.StatusOK || !strings.Contains(string(r.body), want) {
		t.Errorf("tools/call at 8 over HTTP: %v; want %s", r, want)
	}
	s.stop()

	s = startHTTP(t, p.tmp, nil, "serve", p.launcher)
	if r := s.do(http.MethodPost, "/call/reals/halved", `{"_1":-18}`); r.status != http.StatusOK || string(r.body) != `{"result":-9}`+"\n" {
		t.Errorf("POST /call/reals/halved: %v; want 200 {\"result\":-9}", r)
	}
	s.stop()
	p.checkClean()
}
