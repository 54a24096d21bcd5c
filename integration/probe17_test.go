package integration

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// probe17Files is a program with what probing issue 17 found broken end
// to end: two options of one record type given whole (the command was no
// MCP tool: both were the property "cfg"), an output action known only
// by its short name (-f could not ask for it), and a group whose
// description starts with a blank line.
var probe17Files = files{
	"main.loc": `--' Probe of issue 17.
module probe (
  --* group: cfg
  --*
  --* Copy settings
  copy,
  --* group:
  loud
)

source Py from "ops.py" ("copy_cfg" as copyCfg, "upper")

--' @unroll
record Cfg where
  --' @default 1
  size :: Int

record Py => Cfg = "dict"

copyCfg :: Cfg -> Cfg -> Str
upper :: Str -> Str

--' Copy one configuration over another.
copy ::
  --' @arg --src
  --' @unroll false
  Cfg ->
  --' @arg --dst
  --' @unroll false
  Cfg ->
  Str
copy s d = copyCfg s d

--' Loud by default.
--' @render -u=upper @default
loud :: Str -> Str
loud s = s
`,
	"ops.py": `def copy_cfg(src, dst):
    return "%d>%d" % (src["size"], dst["size"])

def upper(s):
    return s.upper()
`,
}

func TestProbe17(t *testing.T) {
	p := build(t, probe17Files)

	// The command line.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"cfg", "copy", "--src", "{}", "--dst", `{"size":3}`}, "\"1>3\"\n"},
		{[]string{"loud", "hi"}, "HI\n"},
		{[]string{"loud", "-f", "u", "hi"}, "HI\n"},
		{[]string{"loud", "-f", "json", "hi"}, "\"hi\"\n"},
	} {
		if got := p.ok(c.args...); got != c.want {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
	if help := p.ok("--help"); !strings.Contains(help, "\n  cfg               Copy settings\n") {
		t.Errorf("--help: the group's description is not on its line:\n%s", help)
	}
	if help := p.ok("loud", "--help"); !strings.Contains(help, "print the result as json, u, raw (json: the result itself as JSON; default: u)") {
		t.Errorf("loud --help:\n%s", help)
	}

	// MCP: both commands are tools; the records are src and dst.
	ctx := context.Background()
	s := startSDKSession(t, p, "2025-11-25")
	list, err := s.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Name == "cfg_copy" {
			var schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(marshalJSON(t, tool.InputSchema), &schema); err != nil || schema.Properties["src"] == nil || schema.Properties["dst"] == nil || len(schema.Properties) != 2 {
				t.Errorf("cfg_copy properties: %v %s", err, marshalJSON(t, tool.InputSchema))
			}
		}
	}
	if got := strings.Join(names, " "); got != "cfg_copy loud" {
		t.Errorf("tools %s, want cfg_copy loud", got)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"cfg_copy", map[string]any{"src": map[string]any{"size": 4}, "dst": map[string]any{}}, `"4>1"`},
		{"loud", map[string]any{"_1": "hi"}, "HI"},
		{"loud", map[string]any{"_1": "hi", "_render": "u"}, "HI"},
		{"loud", map[string]any{"_1": "hi", "_render": "raw"}, `"hi"`},
	} {
		res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError || toolText(res) != c.want {
			t.Errorf("%s %v: %v %+v, want %s", c.tool, c.args, err, res, c.want)
		}
	}
	if err := s.close(); err != nil {
		t.Errorf("nexus mcp did not exit cleanly: %v\n%s", err, s.stderr.String())
	}
	if strings.Contains(s.stderr.String(), "not served") {
		t.Errorf("a command was left out:\n%s", s.stderr.String())
	}
	p.checkClean()
}
