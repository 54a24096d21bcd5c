package integration

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// groupFiles is a program with command groups (issue 17): a multi-line
// export list with comments, `--*` group headers and descriptions, a
// Python and a Go command in group manage, a record given whole in group
// conf, and an ungrouped command after `--* group:`.
var groupFiles = files{
	"main.loc": `--' Arithmetic and settings, in groups.
module calc (
  -- the commands that change numbers
  --* group: manage
  --* Manage numbers
  --* \group: this line is text
  add,     -- in Python
  double   -- in Go
  ,
  --* group: conf
  --* Configured runs
  configure,

  --* group:
  version
)

--* a group line outside the export list is a comment

source Py from "ops.py" ("add", "describe", "total")
source Go from "ops.go" ("Double" as double)

--' Add two numbers.
add :: Int -> Int -> Int

--' Double a number.
double :: Int -> Int

describe :: ConfigWhole -> Str
total :: [Int] -> Int

--' A configuration.
--' unroll: true
--' arg: --config
record ConfigWhole where
  --' Input size
  --' default: 10
  size :: Int
  --' A name
  name :: Str

record Py => ConfigWhole = "dict"

--' Describe a configuration.
configure :: ConfigWhole -> Str
configure c = describe c

--' Sum some numbers.
version ::
  --' numbers to add
  --' arg: -x/--xs
  --' many: true
  [Int] -> Int
version xs = total xs
`,
	"ops.py": `def add(a, b):
    return a + b

def describe(c):
    return "%s:%d" % (c["name"], c["size"])

def total(xs):
    return sum(xs)
`,
	"ops.go": `package ops

func Double(x int) int { return 2 * x }
`,
}

// TestGroups builds the grouped program and runs it through the command
// line (dispatch, help, --json-help, a variadic option) and over MCP with
// the Go SDK (tool names, the schema of a record given whole, calls).
func TestGroups(t *testing.T) {
	p := build(t, groupFiles)

	// Dispatch.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"manage", "add", "1", "2"}, "3\n"},
		{[]string{"manage", "double", "21"}, "42\n"},
		{[]string{"conf", "configure", "--name", "a"}, "\"a:10\"\n"},
		{[]string{"conf", "configure", "--config", `{"name":"b","size":3}`}, "\"b:3\"\n"},
		{[]string{"version", "--xs", "1", "2", "3"}, "6\n"},
		{[]string{"version", "-x", "1", "-x", "2"}, "3\n"},
	} {
		if got := p.ok(c.args...); got != c.want {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}

	// Help.
	help := p.ok("--help")
	for _, w := range []string{
		"\n       prog [--keep-null] <group> <command> [arguments]\n",
		"\ncommands:\n  version ",
		"\ngroups:\n  manage ",
		"Manage numbers\n",
		"group: this line is text",
		"\n    add ",
		"Add two numbers.",
		"\n  conf ",
		"\n    configure ",
	} {
		if !strings.Contains(help, w) {
			t.Errorf("--help lacks %q:\n%s", w, help)
		}
	}
	ghelp := p.ok("manage", "--help")
	for _, w := range []string{"usage: prog manage <command> [arguments]", "Manage numbers", "  add ", "  double ", "Double a number."} {
		if !strings.Contains(ghelp, w) {
			t.Errorf("manage --help lacks %q:\n%s", w, ghelp)
		}
	}
	if strings.Contains(ghelp, "configure") {
		t.Errorf("manage --help lists another group's command:\n%s", ghelp)
	}
	if got := p.ok("manage", "add", "--help"); !strings.Contains(got, "usage: prog manage add <Int> <Int>") {
		t.Errorf("manage add --help:\n%s", got)
	}
	if got := p.fails(2, "manage"); !strings.Contains(got, "usage: prog manage <command>") || !strings.Contains(got, "error: group manage needs a command") {
		t.Errorf("manage alone:\n%s", got)
	}
	if got := p.fails(2, "manage", "ad", "1", "2"); !strings.Contains(got, "unknown command 'ad' in group manage (did you mean 'add'?)") {
		t.Errorf("manage ad:\n%s", got)
	}
	if got := p.fails(2, "add", "1", "2"); !strings.Contains(got, "command 'add' is in group manage") {
		t.Errorf("add without its group:\n%s", got)
	}

	// --json-help, whole and of one command.
	if got := p.ok("--json-help"); got != groupsJSONHelp {
		t.Errorf("--json-help:\n%s\nwant\n%s", got, groupsJSONHelp)
	}
	var entry map[string]any
	if err := json.Unmarshal([]byte(p.ok("manage", "double", "--json-help")), &entry); err != nil || entry["name"] != "double" || entry["group"] != "manage" {
		t.Errorf("manage double --json-help: %v %v", err, entry)
	}

	// MCP with the Go SDK.
	ctx := context.Background()
	s := startSDKSession(t, p, "2025-11-25")
	list, err := s.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	var confSchema []byte
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Name == "conf_configure" {
			confSchema = marshalJSON(t, tool.InputSchema)
		}
	}
	if got := strings.Join(names, " "); got != "manage_add manage_double conf_configure version" {
		t.Errorf("tool names: %s", got)
	}
	wantSchema := `{"type":"object","properties":{
		"configwhole":{"type":"object","description":"A configuration.","properties":{
			"size":{"type":"integer","description":"Input size (default: 10)","minimum":-9223372036854775808,"maximum":9223372036854775807,"default":10},
			"name":{"type":"string","description":"A name"}},
			"required":["name"],"additionalProperties":false}},
		"required":["configwhole"],"additionalProperties":false}`
	if !sameJSON(t, confSchema, []byte(wantSchema)) {
		t.Errorf("conf_configure inputSchema:\n%s\nwant\n%s", confSchema, compactJSON([]byte(wantSchema)))
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"manage_add", map[string]any{"_1": 2, "_2": 5}, "7"},
		{"manage_double", map[string]any{"_1": 4}, "8"},
		{"conf_configure", map[string]any{"configwhole": map[string]any{"name": "m"}}, `"m:10"`},
		{"conf_configure", map[string]any{"configwhole": map[string]any{"name": "m", "size": 2}}, `"m:2"`},
		{"version", map[string]any{"xs": []int{1, 2}}, "3"},
	} {
		res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Errorf("%s: %v", c.tool, err)
			continue
		}
		if res.IsError || len(res.Content) != 1 {
			t.Errorf("%s: %+v", c.tool, res)
			continue
		}
		if text, ok := res.Content[0].(*mcp.TextContent); !ok || text.Text != c.want {
			t.Errorf("%s: %+v, want %s", c.tool, res.Content[0], c.want)
		}
	}
	// The old per-field property is gone.
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "conf_configure", Arguments: map[string]any{"name": "m"}})
	if err == nil && (res == nil || !res.IsError) {
		t.Errorf("conf_configure with a per-field property: %+v, want an error", res)
	}
	if err := s.close(); err != nil {
		t.Errorf("nexus mcp did not exit cleanly: %v\n%s", err, s.stderr.String())
	}
	p.checkClean()
}

// TestGroupBuildErrors: a malformed group line and a group named like a
// command fail the build with their positions.
func TestGroupBuildErrors(t *testing.T) {
	for _, c := range []struct {
		edits []string
		want  string
	}{
		{[]string{"--* group: conf", "--* group conf"}, "main.loc:10:7: malformed group line: expected `--* group: NAME`"},
		{[]string{"--* group: conf", "--* group: version"}, "main.loc:10:14: group 'version' has the name of a command (at 15:3)"},
	} {
		if got := editFails(t, groupFiles, c.edits); !strings.Contains(got, c.want) {
			t.Errorf("%v: stderr lacks %q:\n%s", c.edits, c.want, got)
		}
	}
}

// groupsJSONHelp is the golden --json-help of groupFiles.
const groupsJSONHelp = `{
  "name": "prog",
  "description": [
    "Arithmetic and settings, in groups."
  ],
  "groups": [
    {
      "name": "manage",
      "description": [
        "Manage numbers",
        "group: this line is text"
      ]
    },
    {
      "name": "conf",
      "description": [
        "Configured runs"
      ]
    }
  ],
  "commands": [
    {
      "name": "add",
      "group": "manage",
      "description": [
        "Add two numbers."
      ],
      "return": {
        "type": "Int",
        "description": null
      },
      "args": [
        {
          "kind": "positional",
          "name": null,
          "type": "Int",
          "metavar": null,
          "short": null,
          "long": null,
          "default": null,
          "many": false,
          "stdin": false,
          "description": []
        },
        {
          "kind": "positional",
          "name": null,
          "type": "Int",
          "metavar": null,
          "short": null,
          "long": null,
          "default": null,
          "many": false,
          "stdin": false,
          "description": []
        }
      ],
      "actions": []
    },
    {
      "name": "double",
      "group": "manage",
      "description": [
        "Double a number."
      ],
      "return": {
        "type": "Int",
        "description": null
      },
      "args": [
        {
          "kind": "positional",
          "name": null,
          "type": "Int",
          "metavar": null,
          "short": null,
          "long": null,
          "default": null,
          "many": false,
          "stdin": false,
          "description": []
        }
      ],
      "actions": []
    },
    {
      "name": "configure",
      "group": "conf",
      "description": [
        "Describe a configuration."
      ],
      "return": {
        "type": "Str",
        "description": null
      },
      "args": [
        {
          "kind": "group",
          "name": "configwhole",
          "type": "ConfigWhole",
          "metavar": null,
          "short": null,
          "long": "config",
          "default": null,
          "many": false,
          "stdin": false,
          "description": [
            "A configuration."
          ],
          "fields": [
            {
              "kind": "option",
              "name": "size",
              "field": "size",
              "type": "Int",
              "metavar": null,
              "short": null,
              "long": "size",
              "default": 10,
              "many": false,
              "stdin": false,
              "description": [
                "Input size"
              ]
            },
            {
              "kind": "option",
              "name": "name",
              "field": "name",
              "type": "Str",
              "metavar": null,
              "short": null,
              "long": "name",
              "default": null,
              "many": false,
              "stdin": false,
              "description": [
                "A name"
              ]
            }
          ]
        }
      ],
      "actions": []
    },
    {
      "name": "version",
      "group": null,
      "description": [
        "Sum some numbers."
      ],
      "return": {
        "type": "Int",
        "description": null
      },
      "args": [
        {
          "kind": "option",
          "name": "xs",
          "type": "[Int]",
          "metavar": null,
          "short": "x",
          "long": "xs",
          "default": null,
          "many": true,
          "stdin": false,
          "description": [
            "numbers to add"
          ]
        }
      ],
      "actions": []
    }
  ]
}
`
