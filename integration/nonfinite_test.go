package integration

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/integration/rpcmsg"
)

// JSON has no NaN and no infinities: a result holding one fails the call,
// naming where the value was, on every surface, and nothing that is not
// strict JSON reaches a client (mcp.md, "Non-finite reals").

// nonFiniteProgram returns non-finite reals at the top, in a record, in a
// list of records and in a map, and finite ones from the same commands.
var nonFiniteProgram = files{
	"nf.py": `
def mean(xs):
    return sum(xs) / len(xs)

def stats(xs):
    return {"mean": sum(xs) / len(xs), "sd": 0.0}

def points(n):
    return [{"x": float(i) if i < 2 else float("inf"), "y": 1.0} for i in range(n)]

def table(key):
    return {"a": 1.0, key: float("nan")}
`,
	"main.loc": `
--' Non-finite results.
module nf (mean, stats, points, table)

import root-py

source Py from "nf.py" ("mean" as meanPy, "stats" as statsPy, "points" as pointsPy, "table" as tablePy)

record Summary where
  mean :: Real
  sd   :: Real

record Py => Summary = "dict"

record Point where
  x :: Real
  y :: Real

record Py => Point = "dict"

meanPy   :: [Real] -> Real
statsPy  :: [Real] -> Summary
pointsPy :: Int -> [Point]
tablePy  :: Str -> Map Str Real

--' The mean.
mean :: [Real] -> Real
mean xs = meanPy xs

--' The mean and sd.
stats :: [Real] -> Summary
stats xs = statsPy xs

--' Points, the third at infinity.
points :: Int -> [Point]
points n = pointsPy n

--' A table with a NaN under key.
table :: Str -> Map Str Real
table k = tablePy k
`,
}

// nonFiniteCalls are the calls that must fail, with the message each must
// give, and beside each a call of the same command that must succeed.
var nonFiniteCalls = []struct {
	command string
	args    map[string]any // by MCP property
	cli     []string
	want    string
	okArgs  map[string]any
	okCLI   []string
	okReply string
}{
	{"mean", map[string]any{"_1": []any{1e308, 1e308}}, []string{"[1e308,1e308]"},
		"mean: result is Infinity, which JSON cannot represent",
		map[string]any{"_1": []any{1, 2}}, []string{"[1,2]"}, "1.5"},
	{"stats", map[string]any{"_1": []any{1e308, 1e308}}, []string{"[1e308,1e308]"},
		"stats: result.mean is Infinity, which JSON cannot represent",
		map[string]any{"_1": []any{1, 2}}, []string{"[1,2]"}, `{"mean":1.5,"sd":0}`},
	{"points", map[string]any{"_1": 3}, []string{"3"},
		"points: result[2].x is Infinity, which JSON cannot represent",
		map[string]any{"_1": 2}, []string{"2"}, `[{"x":0,"y":1},{"x":1,"y":1}]`},
	{"table", map[string]any{"_1": "the key"}, []string{"the key"},
		`table: result["the key"] is NaN, which JSON cannot represent`,
		nil, nil, ""},
}

func TestNonFiniteResults(t *testing.T) {
	p := build(t, nonFiniteProgram)

	t.Run("cli", func(t *testing.T) {
		p := p.in(t)
		for _, c := range nonFiniteCalls {
			stderr := p.fails(1, append([]string{c.command}, c.cli...)...)
			if want := "error: " + c.want + "\n"; stderr != want {
				t.Errorf("%s %v: stderr %q, want %q", c.command, c.cli, stderr, want)
			}
			if c.okCLI != nil {
				if got := p.ok(append([]string{c.command}, c.okCLI...)...); got != c.okReply+"\n" {
					t.Errorf("%s %v: %q, want %s", c.command, c.okCLI, got, c.okReply)
				}
			}
		}
		// Arguments cannot carry one in either: a usage error, nothing runs.
		for _, c := range []struct{ token, says string }{
			{"[1,1e999]", "the number 1e999 is beyond the range of a Real"},
			{"nan", `expected [Real]`},
			{"[1,Infinity]", `expected [Real]`},
		} {
			if stderr := p.fails(2, "mean", c.token); !strings.Contains(stderr, c.says) {
				t.Errorf("mean %s: stderr %q, want it to say %q", c.token, stderr, c.says)
			}
		}
	})

	t.Run("stdio mcp", func(t *testing.T) {
		c := startMCPConn(t, p.in(t))
		c.initialize("2025-06-18")
		id := 1
		for _, nc := range nonFiniteCalls {
			id++
			if got := c.callTool(id, nc.command, nc.args).failure(t); got != nc.want {
				t.Errorf("%s: %q, want %q", nc.command, got, nc.want)
			}
			if nc.okArgs != nil {
				id++
				if got := c.callTool(id, nc.command, nc.okArgs).text(t); got != nc.okReply {
					t.Errorf("%s %v: %q, want %s", nc.command, nc.okArgs, got, nc.okReply)
				}
			}
		}
		// 1e999 is valid JSON, but no Real.
		c.send(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"mean","arguments":{"_1":[1,1e999]}}}`)
		c.recv("big").rpcError(t, -32602, "the number 1e999 is beyond the range of a Real")
		c.closeAll() // fails on any stdout line that is not strict JSON-RPC
	})

	t.Run("serve", func(t *testing.T) {
		p := p.in(t)
		s := startHTTP(t, p.tmp, nil, "serve", p.launcher)
		for _, c := range nonFiniteCalls {
			r := s.do(http.MethodPost, "/call/nf/"+c.command, string(marshalJSON(t, c.args)))
			var reply struct {
				Error string `json:"error"`
			}
			if r.status != http.StatusInternalServerError || json.Unmarshal(r.body, &reply) != nil || reply.Error != c.want {
				t.Errorf("JSON API %s: %v, want 500 {\"error\": %q}", c.command, r, c.want)
			}
			if c.okArgs != nil {
				r := s.do(http.MethodPost, "/call/nf/"+c.command, string(marshalJSON(t, c.okArgs)))
				if want := `{"result":` + c.okReply + "}\n"; r.status != http.StatusOK || string(r.body) != want {
					t.Errorf("JSON API %s %v: %v, want 200 %s", c.command, c.okArgs, r, want)
				}
			}
		}
		// MCP over HTTP, with structuredContent for the record.
		sid := s.initialize()
		for i, c := range nonFiniteCalls {
			r := s.rpc(sid, i, "tools/call", map[string]any{"name": "nf__" + c.command, "arguments": c.args})
			m := rpcOf(t, r)
			var res rpcmsg.ToolResult
			if r.status != http.StatusOK || json.Unmarshal(m.Result, &res) != nil || !res.IsError ||
				len(res.Content) != 1 || res.Content[0].Text != c.want || res.StructuredContent != nil {
				t.Errorf("MCP over HTTP %s: %v, want a tool error %q", c.command, r, c.want)
			}
		}
		s.stop()
		p.checkClean()
	})
}
