package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// End-to-end tests of `source MCP from` in the form users write it: .loc
// programs built by `nexus make`, run from the command line and served by
// `nexus mcp`. They need the language's side of issue 13 (parsing `source
// MCP from` and its directives) and the Json codecs; until both are
// merged, nexus make refuses these programs and the tests fail.

// installedServer is the absolute path of a server make setup installed
// under integration/mcpservers; the test fails (never skips) without it.
func installedServer(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("mcpservers", rel))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed (%v): run make setup", p, err)
	}
	return p
}

// everythingProgram imports server-everything's tools, with a Python and a
// C++ function to compose them with.
func everythingProgram(t *testing.T) files {
	everything := installedServer(t, filepath.Join("node_modules", ".bin", "mcp-server-everything"))
	return files{
		"fns.py": "def shout(s):\n    return s.upper()\n",
		"fns.hpp": `#pragma once
#include <string>
inline std::string exclaim(const std::string& s) { return s + "!"; }
`,
		"main.loc": fmt.Sprintf(`
module gw (echo, getSum, weather, tinyImage, getEnv, missing, loud, bang, slowOp)
import root-py
import root-cpp
source Py from "fns.py" ("shout")
source Cpp from "fns.hpp" ("exclaim")

--' @env E2E_ALLOWED
--' @env E2E_SET=set-here
--' @timeout 60000
source MCP from "'%[1]s' stdio" ("echo", "get-sum" as getSum, "get-structured-content" as weather, "get-tiny-image" as tinyImage, "get-env" as getEnv, "no-such-tool" as missing)

--' @timeout 2000
source MCP from "'%[1]s' stdio" ("trigger-long-running-operation" as slowOp)

shout :: Str -> Str
exclaim :: Str -> Str

--' Weather of a city.
record Weather where
  temperature :: Real
  conditions :: ?Str
  humidity :: ?Real

echo :: --' @name message
        Str -> Str
getSum :: --' @name a
          Real -> --' @name b
          Real -> Str
weather :: --' @name location
           Str -> Weather
tinyImage :: Json
getEnv :: Str
missing :: Str
slowOp :: --' @name duration
          Real -> --' @name steps
          Real -> ()

--' The echo, in capitals (Python).
loud :: --' @name message
        Str -> Str
loud m = shout (echo m)

--' The echo, exclaimed (C++).
bang :: --' @name message
        Str -> Str
bang m = exclaim (echo m)
`, everything),
	}
}

// TestMCPSourceEverythingE2E: server-everything's tools as functions of a
// program, on the command line: each result shape, compositions with
// Python and C++, the clean environment, and a tool that does not exist.
func TestMCPSourceEverythingE2E(t *testing.T) {
	t.Setenv("E2E_SECRET", "e2e-do-not-leak")
	t.Setenv("E2E_ALLOWED", "e2e-passed")
	p := build(t, everythingProgram(t))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"echo", "héllo"}, `"Echo: héllo"`},
		{[]string{"getSum", "2", "3.5"}, `"The sum of 2 and 3.5 is 5.5."`},
		{[]string{"loud", "hi"}, `"ECHO: HI"`},
		{[]string{"bang", "hi"}, `"Echo: hi!"`},
	} {
		if got := p.ok(c.args...); got != c.want+"\n" {
			t.Errorf("%v = %q, want %q", c.args, got, c.want)
		}
	}
	var w struct{ Temperature *float64 }
	if out := p.ok("weather", "Chicago"); json.Unmarshal([]byte(out), &w) != nil || w.Temperature == nil {
		t.Errorf("weather Chicago = %q, want a Weather", out)
	}
	if out := p.ok("tinyImage"); !strings.Contains(out, `{"type":"image","mimeType":"image/png","data":"iVBOR`) {
		t.Errorf("tinyImage = %.200q, want the image object", out)
	}
	env := p.ok("getEnv")
	if !strings.Contains(env, "e2e-passed") || !strings.Contains(env, "set-here") || strings.Contains(env, "e2e-do-not-leak") {
		t.Errorf("getEnv = %s; want E2E_ALLOWED and E2E_SET only", env)
	}
	if stderr := p.fails(1, "missing"); !strings.Contains(stderr, `"no-such-tool"`) || !strings.Contains(stderr, "mcp-server-everything") || !strings.Contains(stderr, "get-sum") {
		t.Errorf("missing: stderr %q, want the server named and its tools listed", stderr)
	}
	if stderr := p.fails(1, "slowOp", "600", "600"); !strings.Contains(stderr, "no answer within 2s") {
		t.Errorf("slowOp 600 600: stderr %q, want the @timeout named", stderr)
	}
}

// TestMCPSourceTimeE2E: mcp-server-time's structured results as records.
func TestMCPSourceTimeE2E(t *testing.T) {
	server := installedServer(t, filepath.Join(".venv", "bin", "mcp-server-time"))
	p := build(t, files{"main.loc": fmt.Sprintf(`
module clock (now)
source MCP from "'%s' --local-timezone UTC" ("get_current_time" as now)

record TimeResult where
  timezone :: Str
  datetime :: Str
  day_of_week :: Str
  is_dst :: Bool

now :: --' @name timezone
       Str -> TimeResult
`, server)})
	var r struct{ Timezone string }
	if out := p.ok("now", "Europe/Paris"); json.Unmarshal([]byte(out), &r) != nil || r.Timezone != "Europe/Paris" {
		t.Errorf("now Europe/Paris = %q", out)
	}
}

// TestMCPSourceMissingServerE2E: nexus make starts no server, and a server
// command that does not exist is a clear error at the first call.
func TestMCPSourceMissingServerE2E(t *testing.T) {
	p := build(t, files{"main.loc": `
module ghost (boo)
source MCP from "no-such-mcp-server-e2e --flag" ("boo")
boo :: Str
`})
	if stderr := p.fails(1, "boo"); !strings.Contains(stderr, "no-such-mcp-server-e2e") || !strings.Contains(stderr, "not found") {
		t.Errorf("boo: stderr %q, want the missing command named", stderr)
	}
}

// TestMCPSourceGatewayE2E: a program imports nexus's own tools over HTTP
// with a bearer token, composes them with Python and C++, and is served
// by `nexus mcp` to the Go SDK's client.
func TestMCPSourceGatewayE2E(t *testing.T) {
	served := build(t, servedProgram())
	const token = "e2e-token-7d3e9a01"
	s := startHTTP(t, served.tmp, nil, "mcp", served.launcher, "--auth-token", token)
	t.Setenv("E2E_WORK_TOKEN", token)
	fs := files{}
	for k, v := range composer {
		fs[k] = v
	}
	fs["main.loc"] = strings.Replace(fs["main.loc"], "module client (describe, triple, showPoint)", "module client (describe, triple, showPoint, sumDescribed, sumTripled, pointShown, failing, evens)", 1)
	fs["main.loc"] += fmt.Sprintf(`
--' @bearer E2E_WORK_TOKEN
--' @header X-Org: acme
source MCP from "%s/mcp" ("add" as addMcp, "point" as pointMcp, "fail" as failMcp, "evens" as evensMcp)

addMcp :: --' @name a
          Int -> --' @name b
          Int -> Int
pointMcp :: --' @name x
            Int -> Point
failMcp :: --' @name x
           Int -> Int
evensMcp :: --' @name n
            Int -> [Int]

--' Describe a sum (Python).
sumDescribed :: --' @name a
                Int -> --' @name b
                Int -> Str
sumDescribed a b = describePy (addMcp a b)

--' Triple a sum (C++).
sumTripled :: --' @name a
              Int -> --' @name b
              Int -> Int
sumTripled a b = tripleCpp (addMcp a b)

--' Show the point at x (Python).
pointShown :: --' @name x
              Int -> Str
pointShown x = showPointPy (pointMcp x)

--' Always fails, in the server.
failing :: --' @name x
           Int -> Int
failing x = failMcp x

--' The first n even numbers, from the server.
evens :: --' @name n
         Int -> [Int]
evens n = evensMcp n
`, s.base)
	p := build(t, fs)
	if got := p.ok("sumDescribed", "20", "22"); got != "\"42 is even\"\n" {
		t.Errorf("sumDescribed 20 22 = %q", got)
	}
	if got := p.ok("evens", "3"); got != "[0,2,4]\n" {
		t.Errorf("evens 3 = %q", got)
	}
	if stderr := p.fails(1, "failing", "7"); !strings.Contains(stderr, "no good: 7") {
		t.Errorf("failing 7: stderr %q", stderr)
	}

	gw := startSDKSession(t, p, "")
	ctx := context.Background()
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"sumTripled", map[string]any{"a": 20, "b": 21}, "123"},
		{"pointShown", map[string]any{"x": 3}, `"(3, 6)"`},
	} {
		res, err := gw.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError || toolText(res) != c.want {
			t.Errorf("gateway %s %v: %+v, %v; want %s", c.tool, c.args, res, err, c.want)
		}
	}
	res, err := gw.cs.CallTool(ctx, &mcp.CallToolParams{Name: "failing", Arguments: map[string]any{"x": 8}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "no good: 8") {
		t.Errorf("gateway failing 8: %+v, %v; want isError", res, err)
	}
	if err := gw.close(); err != nil {
		t.Errorf("close: %v\n%s", err, gw.stderr)
	}
	s.stop()
}
