package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
)

// groupProgram is the test program with its add and hello-there commands
// in group manage and opts in group misc; the others stay ungrouped.
func groupProgram() *manifest.Manifest {
	m := testProgram()
	m.Groups = []manifest.CommandGroup{
		{Name: "manage", Doc: []string{"Manage numbers and words", "(two lines)"}},
		{Name: "misc", Doc: []string{"Odds and ends"}},
	}
	m.Command("add").Group = "manage"
	m.Command("hello-there").Group = "manage"
	m.Command("opts").Group = "misc"
	if err := m.Validate(); err != nil {
		panic(err)
	}
	return m
}

// TestGroupDispatch runs grouped commands.
func TestGroupDispatch(t *testing.T) {
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"manage", "add", "1", "2"}, "3\n"},
		{[]string{"--keep-null", "manage", "add", "1", "-2"}, "-1\n"},
		{[]string{"misc", "opts", "--count", "5"}, js(`["none",5]`)},
		{[]string{"pure", "7"}, "[7,1,2]\n"},
	}
	for _, c := range cases {
		res := runCLI(groupProgram(), "", c.argv...)
		if res.code != ExitOK || res.stdout != c.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, %q", c.argv, res.code, res.stdout, res.stderr, c.want)
		}
	}
}

// TestGroupHelp checks the program's help listing groups, a group's help,
// and a grouped command's help.
func TestGroupHelp(t *testing.T) {
	cases := []struct {
		argv []string
		want []string
	}{
		{[]string{"--help"}, []string{
			"usage: demo [--keep-null] <command> [arguments]\n       demo [--keep-null] <group> <command> [arguments]\n",
			"\ncommands:\n  scale ",
			"\ngroups:\n  manage            Manage numbers and words\n                    (two lines)\n    add             Add two numbers\n    hello-there     Echo a word\n  misc              Odds and ends\n    opts            Options in every spelling.\n",
			"'demo <group> --help' for the commands of a group",
		}},
		{[]string{"manage", "--help"}, []string{
			"usage: demo manage <command> [arguments]\n\nManage numbers and words\n(two lines)\n",
			"commands:\n  add              Add two numbers\n  hello-there      Echo a word\n",
			"Run 'demo manage <command> --help'",
		}},
		{[]string{"--help", "manage"}, []string{"usage: demo manage <command>"}},
		{[]string{"manage", "add", "--help"}, []string{"usage: demo manage add <Int> <Int>\n"}},
		{[]string{"manage", "--help", "add"}, []string{"usage: demo manage add <Int> <Int>\n"}},
	}
	for _, c := range cases {
		res := runCLI(groupProgram(), "", c.argv...)
		if res.code != ExitOK || res.stderr != "" || res.poolsStarted != 0 {
			t.Errorf("%q: exit %d, stderr %q, pools %d", c.argv, res.code, res.stderr, res.poolsStarted)
		}
		for _, w := range c.want {
			if !strings.Contains(res.stdout, w) {
				t.Errorf("%q: help lacks %q:\n%s", c.argv, w, res.stdout)
			}
		}
	}
	if res := runCLI(groupProgram(), "", "--help"); strings.Contains(res.stdout, "\n  add ") {
		t.Errorf("a grouped command is listed among the ungrouped ones:\n%s", res.stdout)
	}
}

// TestGroupErrors checks usage errors around groups: a group alone prints
// its help with exit 2, a wrong command in a group suggests the near name.
func TestGroupErrors(t *testing.T) {
	cases := []struct {
		argv   []string
		stdout string
		want   []string
	}{
		{[]string{"manage"}, "", []string{"usage: demo manage <command> [arguments]", "  add ", "error: group manage needs a command", "run 'demo manage --help' for usage"}},
		{[]string{"manage", "ad", "1"}, "", []string{"error: unknown command 'ad' in group manage (did you mean 'add'?)", "run 'demo manage --help' for usage"}},
		{[]string{"manage", "opts"}, "", []string{"unknown command 'opts' in group manage; its commands are add, hello-there"}},
		{[]string{"add", "1", "2"}, "", []string{"command 'add' is in group manage: demo manage add ..."}},
		{[]string{"manag"}, "", []string{"unknown command 'manag' (did you mean 'manage'?)"}},
		{[]string{"--count", "3"}, "", []string{"'--count' belongs to command opts and goes after its name: demo misc opts --count ..."}},
		{[]string{"manage", "add", "1"}, "", []string{"missing argument", "run 'demo manage add --help' for usage"}},
	}
	for _, c := range cases {
		res := runCLI(groupProgram(), "", c.argv...)
		if res.code != ExitUsage || res.stdout != c.stdout {
			t.Errorf("%q: exit %d, stdout %q; want 2, %q", c.argv, res.code, res.stdout, c.stdout)
		}
		for _, w := range c.want {
			if !strings.Contains(res.stderr, w) {
				t.Errorf("%q: stderr lacks %q:\n%s", c.argv, w, res.stderr)
			}
		}
	}
}

// TestJSONHelp checks --json-help of the program, of a group and of a
// command: valid JSON of the documented shape, with no pool started.
func TestJSONHelp(t *testing.T) {
	res := runCLI(groupProgram(), "", "--json-help")
	if res.code != ExitOK || res.poolsStarted != 0 {
		t.Fatalf("exit %d, pools %d, stderr %q", res.code, res.poolsStarted, res.stderr)
	}
	var prog struct {
		Name        string
		Description []string
		Groups      []struct {
			Name        string
			Description []string
		}
		Commands []map[string]any
	}
	if err := json.Unmarshal([]byte(res.stdout), &prog); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, res.stdout)
	}
	if prog.Name != "demo" || len(prog.Description) != 2 || len(prog.Groups) != 2 || prog.Groups[0].Name != "manage" || prog.Groups[1].Description[0] != "Odds and ends" {
		t.Errorf("program %+v", prog)
	}
	groups := map[string]any{}
	for _, c := range prog.Commands {
		groups[c["name"].(string)] = c["group"]
	}
	if groups["add"] != "manage" || groups["opts"] != "misc" || groups["pure"] != nil {
		t.Errorf("command groups %v", groups)
	}

	res = runCLI(groupProgram(), "", "misc", "opts", "--json-help")
	want := `{
  "name": "opts",
  "group": "misc",
  "description": [
    "Options in every spelling."
  ],
  "return": {
    "type": "Str",
    "description": null
  },
  "args": [
    {
      "kind": "option",
      "name": "label",
      "type": "Str",
      "metavar": null,
      "short": "l",
      "long": "label",
      "default": "none",
      "many": false,
      "stdin": false,
      "description": []
    },
    {
      "kind": "option",
      "name": "count",
      "type": "Int",
      "metavar": null,
      "short": null,
      "long": "count",
      "default": 3,
      "many": false,
      "stdin": false,
      "description": []
    }
  ],
  "actions": []
}
`
	if res.code != ExitOK || res.stdout != want {
		t.Errorf("opts --json-help: exit %d, stderr %q\n%s\nwant\n%s", res.code, res.stderr, res.stdout, want)
	}

	res = runCLI(groupProgram(), "", "manage", "--json-help")
	var g struct {
		Name     string
		Commands []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(res.stdout), &g); err != nil || g.Name != "manage" || len(g.Commands) != 2 || g.Commands[1].Name != "hello-there" {
		t.Errorf("manage --json-help: %v %+v\n%s", err, g, res.stdout)
	}

	// An unrolled record's fields are listed inside its group argument,
	// with the record's defaults and descriptions.
	res = runCLI(groupProgram(), "", "unrolled", "--json-help")
	for _, w := range []string{`"kind": "group"`, `"fields": [`, `"field": "tmp_dir"`, `"default": "/tmp"`, `"Where temporary files go"`, `"false_long": "quiet"`} {
		if !strings.Contains(res.stdout, w) {
			t.Errorf("unrolled --json-help lacks %s:\n%s", w, res.stdout)
		}
	}
}

// TestUnknownCommandNamesGroupsApart: a word that is neither a command
// nor a group, and like none, lists the commands and the groups each as
// such (a group was listed among "the commands").
func TestUnknownCommandNamesGroupsApart(t *testing.T) {
	res := runCLI(groupProgram(), "", "qqqqqqqqqqqq", "1")
	if res.code != ExitUsage {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	for _, want := range []string{"unknown command 'qqqqqqqqqqqq'; the commands are ", "; the groups are manage, misc"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr %q lacks %q", res.stderr, want)
		}
	}
	if i := strings.Index(res.stderr, "; the groups"); strings.Contains(res.stderr[:i], "manage") {
		t.Errorf("a group among the commands: %q", res.stderr)
	}
}

// TestJSONHelpSingleCommand: a program of one command (run without its
// name) still answers --json-help with the whole program, in Morloc's
// shape; it gave the command's entry. `adder add --json-help` is the
// command's.
func TestJSONHelpSingleCommand(t *testing.T) {
	var prog struct {
		Name     string            `json:"name"`
		Groups   []json.RawMessage `json:"groups"`
		Commands []struct {
			Name string `json:"name"`
		} `json:"commands"`
	}
	res := runCLI(singleProgram(), "", "--json-help")
	if err := json.Unmarshal([]byte(res.stdout), &prog); err != nil || res.code != ExitOK {
		t.Fatalf("exit %d, %v:\n%s", res.code, err, res.stdout)
	}
	if prog.Name != "adder" || prog.Groups == nil || len(prog.Commands) != 1 || prog.Commands[0].Name != "add" {
		t.Errorf("--json-help of a one-command program:\n%s", res.stdout)
	}
	var c struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}
	res = runCLI(singleProgram(), "", "add", "--json-help")
	if err := json.Unmarshal([]byte(res.stdout), &c); err != nil || c.Name != "add" || c.Args == nil {
		t.Errorf("add --json-help: %v\n%s", err, res.stdout)
	}
}
