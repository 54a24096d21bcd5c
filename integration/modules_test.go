package integration

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// moduleProgram is a program of four modules: main.loc holds two (util
// and the program's own), imports helpers/main.loc, which sources a Python
// function from the file beside it, and lib/math.loc qualified.
var moduleProgram = files{
	"main.loc": `module util (exclaim)
exclaim :: Str -> Str
exclaim s = s <> "!"

module main (quad, cubed, label, double)
import .helpers
import .lib.math as m
import util (exclaim as loud)

--' Four times a number, through the Python helper
quad :: Int -> Int
quad x = double (double x)

--' A cube and a square of the math module, qualified
cubed :: Int -> Int
cubed x = m.cube x + m.square 2

label :: Str -> Str
label s = loud (greet s)
`,
	"helpers/main.loc": `module helpers (double, greet)
source Py from "helpers.py" ("py_double" as pyDouble, "greet")
pyDouble :: Int -> Int
greet :: Str -> Str

--' Twice a number
double :: Int -> Int
double x = pyDouble x + zero

zero :: Int
zero = 0
`,
	"helpers/helpers.py": "def py_double(x):\n    return 2 * x\n\ndef greet(name):\n    return 'hello ' + name\n",
	"lib/math.loc": `module math (square, cube)
square :: Int -> Int
square x = x * x

cube :: Int -> Int
cube x = x * square x
`,
}

// TestModules: local, qualified and renaming imports across files and
// within one, through the CLI and MCP; a source path relative to its
// module's file; a build error reported in the module's file.
func TestModules(t *testing.T) {
	p := build(t, moduleProgram)
	p.okAll([]cliCase{
		{[]string{"quad", "3"}, "12\n"},
		{[]string{"cubed", "3"}, "31\n"},
		{[]string{"label", "bo"}, "\"hello bo!\"\n"},
		{[]string{"double", "5"}, "10\n"},
	})

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	for _, c := range []struct {
		tool string
		arg  any
		want string
	}{
		{"quad", 4, "16"},
		{"cubed", 2, "12"},
		{"label", "al", `"hello al!"`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{"_1": c.arg}})
		if err != nil || res.IsError || toolText(res) != c.want {
			t.Errorf("%s over MCP: %s, %v; want %s", c.tool, toolText(res), err, c.want)
		}
	}
	cs.Close()
	p.checkClean()

	broken := files{}
	for k, v := range moduleProgram {
		broken[k] = v
	}
	broken["helpers/main.loc"] = strings.Replace(moduleProgram["helpers/main.loc"], "pyDouble x + zero", "pyDouble x + \"zero\"", 1)
	if msg := makeFails(t, broken); !strings.Contains(msg, "helpers/main.loc:8:") {
		t.Errorf("an error in helpers/main.loc: %q", msg)
	}
}
