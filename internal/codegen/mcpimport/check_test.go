package mcpimport

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/internal/codegen/check"
	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
)

// sourceLine matches the source MCP line Generate writes, and an item of it.
var (
	sourceLine = regexp.MustCompile(`(?s)source MCP from "(?:[^"\\]|\\.)*" \((.*?)\)\n`)
	sourceItem = regexp.MustCompile(`"(?:[^"\\]|\\.)*"(?: as (\w+))?`)
)

// checkAsPython runs the checker on text with its source MCP line swapped
// for a Python source of the same names (a file defining each), so that
// the records, signatures and docstrings around it are checked as a
// build checks them: the language part of `source MCP` is not this
// package's. Json, which the checker may not know yet, is checked as Str.
func checkAsPython(t *testing.T, text string) {
	t.Helper()
	m := sourceLine.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no source MCP line in\n%s", text)
	}
	var names, quoted, defs []string
	for _, it := range sourceItem.FindAllStringSubmatch(m[1], -1) {
		name := it[1]
		if name == "" {
			name = strings.Trim(it[0], `"`)
		}
		names = append(names, name)
		quoted = append(quoted, `"`+name+`"`)
		defs = append(defs, "def "+name+"(*args):\n    return None\n")
	}
	py := strings.Replace(text, m[0], `source Py from "lib.py" (`+strings.Join(quoted, ", ")+")\n", 1)
	py = regexp.MustCompile(`\bJson\b`).ReplaceAllString(py, "Str")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.py"), []byte(strings.Join(defs, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	sink := &diag.Sink{File: "main.loc"}
	res := check.Check(syntax.Parse(py, sink), dir, sink)
	if errs := sink.Errors(); errs != nil || res == nil {
		t.Fatalf("the output does not check:\n%v\n%s", errs, py)
	}
	if ws := sink.Warnings(); len(ws) > 0 {
		t.Errorf("the output checks with warnings:\n%s", strings.Join(ws, "\n"))
	}
	if got := len(res.Manifest.Commands); got != len(names) {
		t.Errorf("%d commands for %d tools", got, len(names))
	}
}

// TestOutputChecks: what Generate writes for the real servers, and for a
// tool using every mapping of TestTypes and TestOutputSchemas at once,
// passes the checker.
func TestOutputChecks(t *testing.T) {
	for _, f := range []string{"testdata/everything.tools.json", "testdata/time.tools.json"} {
		t.Run(f, func(t *testing.T) {
			for _, prefix := range []string{"", "ev"} {
				out, _ := Generate(Options{Server: "srv", Prefix: prefix}, loadTools(t, f))
				checkAsPython(t, out)
			}
		})
	}
	t.Run("every mapping", func(t *testing.T) {
		var props []string
		for i, s := range []string{
			`{"type":"integer"}`, `{"type":"number"}`, `{"type":"string"}`, `{"type":"boolean"}`,
			`{"type":"array","items":{"type":"array","items":{"type":"string"}}}`,
			`{"type":"object","properties":{"lat":{"type":"number","description":"default: 1"},"in_":{"type":"string"}},"required":["lat"]}`,
			`{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}}`,
			`{"type":"object","additionalProperties":{"additionalProperties":{"type":"integer"}}}`,
			`{"type":"object"}`, `{"enum":[1,2]}`, `{"type":["string","null"]}`,
			`{"anyOf":[{"type":"array","items":{"type":"number"}},{"type":"null"}]}`, `{"oneOf":[{"type":"integer"},{"type":"string"}]}`,
			`{"$ref":"#/$defs/Place"}`,
		} {
			props = append(props, `"p`+string(rune('a'+i))+`":`+s)
		}
		in := `{"type":"object","$defs":{"Place":{"type":"object","properties":{"city":{"type":"string"},"next":{"$ref":"#/$defs/Place"}},"required":["city"]}},
			"properties":{` + strings.Join(props, ",") + `},"required":["pa","pc","pf"]}`
		out := `{"type":"object","properties":{"n":{"type":"integer"},"m":{"additionalProperties":{"type":"number"}},"l":{"type":"array","items":{"type":"boolean"}}},"required":["n"]}`
		text, skipped := Generate(Options{Server: "srv"}, []*mcp.Tool{
			tool(t, "every-mapping", "All of them.\nname: not a directive", in, out),
			tool(t, "returns-nothing-known", "", `{"type":"object"}`, `{"type":"object"}`),
			tool(t, strings.Repeat("long", 20), "", `{"type":"object"}`, ""),
			tool(t, strings.Repeat("long", 20)+"!", "", `{"type":"object"}`, ""),
		})
		if len(skipped) > 0 {
			t.Fatalf("skipped %v", skipped)
		}
		checkAsPython(t, text)
	})
}
