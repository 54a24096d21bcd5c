package integration

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// classProgram has a class of its own with instances for a record (a
// Morloc definition), for Int (sourced from Python) and for every type (a
// generic one, the least specific), a constrained generic definition, the
// prelude's Show, Eq, Semigroup and Monoid given instances for the record
// while the builtins keep serving the built-in types, and a class whose
// instance lives in a local module.
var classProgram = files{
	"main.loc": `module main (greet, describeInt, describeStr, showPerson, joinPeople, samePerson, showBuiltins, shapeInfo)
import root
import .shapes (Shape, square)

record Person where
  name :: Str
  age :: Int

class Describe a where
  describe :: a -> Str

instance Describe Person where
  describe p = .name p <> " (" <> show (.age p) <> ")"

instance Describe Int where
  source Py from "describe.py" ("describe_int" as describe)

instance Describe a where
  describe x = "something"

instance Show Person where
  show p = "Person " <> .name p

instance Eq Person where
  (==) a b = .name a == .name b

instance Semigroup Person where
  (<>) a b = {name = .name a <> "&" <> .name b, age = .age a + .age b}

instance Monoid Person where
  mempty = {name = "nobody", age = 0}

twice :: Describe a => a -> Str
twice x = describe x <> "; " <> describe x

--' Describe a person, twice
greet :: Person -> Str
greet p = twice p

describeInt :: Int -> Str
describeInt n = twice n

describeStr :: Str -> Str
describeStr s = describe s

showPerson :: Person -> Str
showPerson p = show p

joinPeople :: Person -> Person -> Person
joinPeople a b = a <> b <> mempty

samePerson :: Person -> Person -> Bool
samePerson a b = a == b

showBuiltins :: [Int] -> Str
showBuiltins xs = show xs <> show (xs == [1, 2]) <> ("a" <> mempty)

shapeInfo :: Real -> (Str, Real)
shapeInfo s = (label (square s), area (square s))
`,
	"describe.py": "def describe_int(n):\n    return 'int ' + str(n)\n",
	"shapes/main.loc": `module shapes (square)
class Shape a where
  label :: a -> Str
  area :: a -> Real
record Square where
  side :: Real
square :: Real -> Square
square s = {side = s}
name :: Str
name = "square"
instance Shape Square where
  label s = name
  source Py from "shapes.py" ("py_area" as area)
`,
	"shapes/shapes.py": "def py_area(s):\n    return s['side'] ** 2\n",
}

// TestClasses: the class program through the CLI and MCP, each method use
// at its instance; a missing instance and an unmet constraint fail the
// build at the use.
func TestClasses(t *testing.T) {
	p := build(t, classProgram)
	ann, bob := `{"name": "ann", "age": 30}`, `{"name": "bob", "age": 25}`
	p.okAll([]cliCase{
		{[]string{"greet", ann}, "\"ann (30); ann (30)\"\n"},
		{[]string{"describeInt", "5"}, "\"int 5; int 5\"\n"},
		{[]string{"describeStr", "x"}, "\"something\"\n"},
		{[]string{"showPerson", ann}, "\"Person ann\"\n"},
		{[]string{"joinPeople", ann, bob}, "{\"name\":\"ann&bob&nobody\",\"age\":55}\n"},
		{[]string{"samePerson", ann, `{"name": "ann", "age": 31}`}, "true\n"},
		{[]string{"samePerson", ann, bob}, "false\n"},
		{[]string{"showBuiltins", "[1, 2]"}, "\"[1,2]truea\"\n"},
		{[]string{"shapeInfo", "3"}, "[\"square\",9]\n"},
	})

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"greet", map[string]any{"_1": map[string]any{"name": "cy", "age": 7}}, `"cy (7); cy (7)"`},
		{"describeInt", map[string]any{"_1": 12}, `"int 12; int 12"`},
		{"joinPeople", map[string]any{"_1": map[string]any{"name": "a", "age": 1}, "_2": map[string]any{"name": "b", "age": 2}}, `{"name":"a&b&nobody","age":3}`},
		{"shapeInfo", map[string]any{"_1": 2}, `["square",4]`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError || toolText(res) != c.want {
			t.Errorf("%s over MCP: %s, %v; want %s", c.tool, toolText(res), err, c.want)
		}
	}
	cs.Close()
	p.checkClean()

	generic := "instance Describe a where\n  describe x = \"something\"\n"
	for _, c := range []struct {
		edits []string // pairs: from, to
		want  string
	}{
		{[]string{generic, ""}, "main.loc:42:17: no instance Describe Str for 'describe' here"},
		{[]string{generic, "", "describeStr s = describe s", "describeStr s = twice s"}, "main.loc:42:17: 'twice' needs an instance Describe Str here"},
	} {
		if msg := editFails(t, classProgram, c.edits); !strings.Contains(msg, c.want) {
			t.Errorf("%v: %q, want %q", c.edits, msg, c.want)
		}
	}
}
