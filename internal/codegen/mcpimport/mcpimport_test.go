package mcpimport

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
)

// loadTools reads a tools/list result captured from a real server
// (testdata/*.tools.json: @modelcontextprotocol/server-everything
// 2026.8.31 and mcp-server-time, as mcpsrc.Source.Tools returned them).
func loadTools(t *testing.T, file string) []*mcp.Tool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var l struct{ Tools []*mcp.Tool }
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return l.Tools
}

// tool is a tool with the given schemas, written as JSON.
func tool(t *testing.T, name, desc, in, out string) *mcp.Tool {
	t.Helper()
	tl := &mcp.Tool{Name: name, Description: desc}
	if err := json.Unmarshal([]byte(in), &tl.InputSchema); err != nil {
		t.Fatalf("input schema of %s: %v", name, err)
	}
	if out != "" {
		if err := json.Unmarshal([]byte(out), &tl.OutputSchema); err != nil {
			t.Fatalf("output schema of %s: %v", name, err)
		}
	}
	return tl
}

// parse parses text as a `.loc` file and fails the test on any error or
// warning the parser reports.
func parse(t *testing.T, text string) *syntax.File {
	t.Helper()
	sink := &diag.Sink{File: "import.loc"}
	f := syntax.Parse(text, sink)
	if errs := sink.Errors(); errs != nil {
		t.Fatalf("the output does not parse:\n%v\n%s", errs, text)
	}
	if ws := sink.Warnings(); len(ws) > 0 {
		t.Fatalf("the output parses with warnings:\n%s\n%s", strings.Join(ws, "\n"), text)
	}
	return f
}

// signature is the written form of sig: its argument names (from @name)
// and types, and its result type, as "name :: a Int -> ?Str -> R".
func signature(sig *syntax.Signature) string {
	parts := []string{}
	for _, p := range sig.Params {
		n := ""
		for _, l := range p.Doc {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l.Text), "@name "); ok {
				n = v + " "
			}
		}
		parts = append(parts, n+typeText(p.Type))
	}
	parts = append(parts, typeText(sig.Result.Type))
	return sig.Name.Name + " :: " + strings.Join(parts, " -> ")
}

// typeText writes a parsed type back as text.
func typeText(t syntax.Type) string {
	switch t := t.(type) {
	case *syntax.UnitType:
		return "()"
	case *syntax.ListType:
		return "[" + typeText(t.Elem) + "]"
	case *syntax.OptionalType:
		e := typeText(t.Elem)
		if strings.Contains(e, " ") && !strings.HasPrefix(e, "[") {
			e = "(" + e + ")"
		}
		return "?" + e
	case *syntax.NamedType:
		s := t.Name
		for _, a := range t.Args {
			at := typeText(a)
			if strings.Contains(at, " ") {
				at = "(" + at + ")"
			}
			s += " " + at
		}
		return s
	}
	return "?unknown"
}

func signatures(f *syntax.File) map[string]string {
	m := map[string]string{}
	for _, s := range f.Signatures {
		m[s.Name.Name] = signature(s)
	}
	return m
}

func records(f *syntax.File) map[string]string {
	m := map[string]string{}
	for _, r := range f.Records {
		var fs []string
		for _, fd := range r.Fields {
			fs = append(fs, fd.Name.Name+" :: "+typeText(fd.Type))
		}
		m[r.Name.Name] = strings.Join(fs, ", ")
	}
	return m
}

// checkSignatures checks that f has each signature of want, written as
// signature writes them.
func checkSignatures(t *testing.T, f *syntax.File, want ...string) {
	t.Helper()
	sigs := signatures(f)
	for _, w := range want {
		name, _, _ := strings.Cut(w, " ")
		if sigs[name] != w {
			t.Errorf("got  %s\nwant %s", sigs[name], w)
		}
	}
}

// checkRecords checks that f declares exactly the records of want, each
// with the fields written as records writes them.
func checkRecords(t *testing.T, f *syntax.File, want map[string]string) {
	t.Helper()
	got := records(f)
	if len(got) != len(want) {
		t.Errorf("records %v, want %v", got, want)
	}
	for n, fields := range want {
		if got[n] != fields {
			t.Errorf("record %s: %q, want %q", n, got[n], fields)
		}
	}
}

func TestServerEverything(t *testing.T) {
	tools := loadTools(t, "testdata/everything.tools.json")
	out, skipped := Generate(Options{Server: "mcp-server-everything"}, tools)
	if len(skipped) > 0 {
		t.Errorf("skipped %v", skipped)
	}
	f := parse(t, out)
	if f.Module == nil || f.Module.Name.Name != "mcp-server-everything" || len(f.Module.Exports) != len(tools) {
		t.Fatalf("module line: %+v\n%s", f.Module, out)
	}
	if len(f.Sources) != 1 || f.Sources[0].Lang.Name != "MCP" || f.Sources[0].Path.Value != "mcp-server-everything" {
		t.Fatalf("source line: %+v", f.Sources)
	}
	aliases := map[string]string{}
	for i, it := range f.Sources[0].Items {
		aliases[it.Name.Value] = it.Alias.Name
		if it.Name.Value != tools[i].Name {
			t.Errorf("item %d is %q, want %q (the server's order)", i, it.Name.Value, tools[i].Name)
		}
		if f.Module.Exports[i].Name != it.Alias.Name {
			t.Errorf("export %d is %s, want %s", i, f.Module.Exports[i].Name, it.Alias.Name)
		}
	}
	for name, alias := range map[string]string{"echo": "echo", "get-sum": "getSum", "get-structured-content": "getStructuredContent", "get-env": "getEnv"} {
		if aliases[name] != alias {
			t.Errorf("%s is imported as %q, want %q", name, aliases[name], alias)
		}
	}
	sigs := signatures(f)
	if len(sigs) != len(tools) {
		t.Errorf("%d signatures for %d tools", len(sigs), len(tools))
	}
	checkSignatures(t, f,
		"echo :: message Str -> Str",
		"getSum :: a Real -> b Real -> Str",
		"getEnv :: Str",
		"getAnnotatedMessage :: messageType Str -> includeImage ?Bool -> Str",
		"getStructuredContent :: location Str -> GetStructuredContentResult",
		"getResourceReference :: resourceId ?Real -> resourceType ?Str -> Str")
	if got, want := records(f)["GetStructuredContentResult"], "temperature :: Real, conditions :: Str, humidity :: Real"; got != want {
		t.Errorf("record GetStructuredContentResult: %s, want %s", got, want)
	}
	for _, s := range f.Signatures {
		if s.Name.Name == "echo" && (len(s.Doc) != 1 || s.Doc[0].Text != " Echoes back the input string") {
			t.Errorf("echo's docstring: %+v", s.Doc)
		}
	}
}

func TestServerTime(t *testing.T) {
	tools := loadTools(t, "testdata/time.tools.json")
	out, _ := Generate(Options{Server: "uvx mcp-server-time", Env: []string{"TZ", "LOG_LEVEL=warn"}, Cwd: "data", Timeout: 5000}, tools)
	f := parse(t, out)
	if f.Module.Name.Name != "mcp-server-time" {
		t.Errorf("module %s, want mcp-server-time (uvx's package)", f.Module.Name.Name)
	}
	var dirs []string
	for _, l := range f.Sources[0].Doc {
		dirs = append(dirs, strings.TrimSpace(l.Text))
	}
	if got, want := strings.Join(dirs, "|"), "@env TZ|@env LOG_LEVEL=warn|@cwd data|@timeout 5000"; got != want {
		t.Errorf("source directives %q, want %q", got, want)
	}
	checkSignatures(t, f,
		"get_current_time :: timezone Str -> GetCurrentTimeResult",
		// The output schema has a field called source, a keyword: a
		// record cannot hold it, so the result is Json.
		"convert_time :: source_timezone Str -> time Str -> target_timezone Str -> Json")
	if got, want := records(f)["GetCurrentTimeResult"], "timezone :: Str, datetime :: Str, day_of_week :: Str, is_dst :: Bool"; got != want {
		t.Errorf("record: %s, want %s", got, want)
	}
}

func TestAliases(t *testing.T) {
	tools := []*mcp.Tool{
		tool(t, "echo", "", `{"type":"object"}`, ""),
		tool(t, "get-sum", "", `{"type":"object"}`, ""),
		tool(t, "get_sum", "", `{"type":"object"}`, ""),
		tool(t, "getSum", "", `{"type":"object"}`, ""),
		tool(t, "GetWeather", "", `{"type":"object"}`, ""),
		tool(t, "import", "", `{"type":"object"}`, ""),
		tool(t, "3d.render", "", `{"type":"object"}`, ""),
		tool(t, "überprüfen", "", `{"type":"object"}`, ""),
		tool(t, "--", "", `{"type":"object"}`, ""),
		tool(t, strings.Repeat("x", 300), "", `{"type":"object"}`, ""),
		tool(t, strings.Repeat("y", 64), "", `{"type":"object"}`, ""),
		tool(t, strings.Repeat("y", 65), "", `{"type":"object"}`, ""),
	}
	x64, y63, y64 := strings.Repeat("x", 64), strings.Repeat("y", 63), strings.Repeat("y", 64)
	for _, c := range []struct {
		prefix string
		want   []string
	}{
		// getSum keeps its own name; get-sum, the first to want it as an
		// alias, takes getSum2, and get_sum, valid as it is, stays.
		// A command's name is at most 64 characters: a longer one is cut,
		// and a number replaces its end.
		{"", []string{"echo", "getSum2", "get_sum", "getSum", "getWeather", "import_", "tool3dRender", "berprFen", "tool", x64, y64, y63 + "2"}},
		{"ev", []string{"evEcho", "evGetSum", "evGetSum2", "evGetSum3", "evGetWeather", "evImport", "ev3dRender", "evBerprFen", "ev",
			"evX" + x64[:61], "evY" + y64[:61], "evY" + y64[:60] + "2"}},
	} {
		out, _ := Generate(Options{Server: "srv", Prefix: c.prefix}, tools)
		f := parse(t, out)
		var got []string
		for _, it := range f.Sources[0].Items {
			got = append(got, it.Alias.Name)
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("prefix %q: aliases\n%v, want\n%v", c.prefix, got, c.want)
		}
		if len(signatures(f)) != len(tools) {
			t.Errorf("prefix %q: %d signatures, want %d", c.prefix, len(signatures(f)), len(tools))
		}
	}
}

// TestTypes covers every mapping from JSON Schema, each as the type of an
// argument named x of a tool t.
func TestTypes(t *testing.T) {
	for _, c := range []struct {
		name, schema, want string
		records            map[string]string
	}{
		{"integer", `{"type":"integer"}`, "Int", nil},
		{"number", `{"type":"number"}`, "Real", nil},
		{"string", `{"type":"string","format":"uri"}`, "Str", nil},
		{"boolean", `{"type":"boolean"}`, "Bool", nil},
		{"null", `{"type":"null"}`, "()", nil},
		{"array", `{"type":"array","items":{"type":"integer"}}`, "[Int]", nil},
		{"nested array", `{"type":"array","items":{"type":"array","items":{"type":"string"}}}`, "[[Str]]", nil},
		{"array of anything", `{"type":"array"}`, "[Json]", nil},
		{"tuple", `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}`, "Json", nil},
		{"record", `{"type":"object","properties":{"lat":{"type":"number"},"label":{"type":"string"},"id":{"type":"integer"}},"required":["lat","id"]}`,
			"TX", map[string]string{"TX": "lat :: Real, id :: Int, label :: ?Str"}},
		{"nested record", `{"properties":{"p":{"type":"object","properties":{"q":{"type":"boolean"}},"required":["q"]}},"required":["p"]}`,
			"TX", map[string]string{"TX": "p :: TXP", "TXP": "q :: Bool"}},
		{"list of records", `{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}}`,
			"[TXItem]", map[string]string{"TXItem": "k :: Str"}},
		{"object without properties", `{"type":"object"}`, "Json", nil},
		{"empty properties", `{"type":"object","properties":{}}`, "Json", nil},
		{"map", `{"type":"object","additionalProperties":{"type":"integer"}}`, "Map Str Int", nil},
		{"map of lists", `{"type":"object","additionalProperties":{"type":"array","items":{"type":"number"}}}`, "Map Str [Real]", nil},
		{"map of maps", `{"additionalProperties":{"additionalProperties":{"type":"string"}}}`, "Map Str (Map Str Str)", nil},
		{"optional map", `{"type":["object","null"],"additionalProperties":{"type":"integer"}}`, "?(Map Str Int)", nil},
		{"property not a name", `{"type":"object","properties":{"user-id":{"type":"string"}}}`, "Json", nil},
		{"property a keyword", `{"type":"object","properties":{"in":{"type":"string"}}}`, "Json", nil},
		{"string enum", `{"enum":["a","b"]}`, "Str", nil},
		{"typed string enum", `{"type":"string","enum":["a","b"]}`, "Str", nil},
		{"integer enum", `{"enum":[1,2,3]}`, "Int", nil},
		{"number enum", `{"enum":[1,2.5]}`, "Real", nil},
		{"mixed enum", `{"enum":["a",1]}`, "Json", nil},
		{"enum against its type", `{"type":"integer","enum":["a"]}`, "Json", nil},
		{"const", `{"const":true}`, "Bool", nil},
		{"nullable type list", `{"type":["string","null"]}`, "?Str", nil},
		{"type list of one", `{"type":["integer"]}`, "Int", nil},
		{"type list of several", `{"type":["string","integer"]}`, "Json", nil},
		{"anyOf with null", `{"anyOf":[{"type":"integer"},{"type":"null"}]}`, "?Int", nil},
		{"oneOf with null first", `{"oneOf":[{"type":"null"},{"type":"array","items":{"type":"string"}}]}`, "?[Str]", nil},
		{"anyOf of several types", `{"anyOf":[{"type":"integer"},{"type":"string"}]}`, "Json", nil},
		{"oneOf", `{"oneOf":[{"type":"integer"},{"type":"string"},{"type":"null"}]}`, "Json", nil},
		{"allOf of one", `{"allOf":[{"type":"string"}]}`, "Str", nil},
		{"not", `{"not":{"type":"string"}}`, "Json", nil},
		{"no type", `{"description":"anything"}`, "Json", nil},
		{"boolean schema", `true`, "Json", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := `{"type":"object","properties":{"x":` + c.schema + `},"required":["x"]}`
			out, skipped := Generate(Options{Server: "srv"}, []*mcp.Tool{tool(t, "t", "", in, "")})
			if len(skipped) > 0 {
				t.Fatalf("skipped: %v", skipped)
			}
			f := parse(t, out)
			if got, want := signatures(f)["t"], "t :: x "+c.want+" -> Str"; got != want {
				t.Errorf("got  %s\nwant %s\n%s", got, want, out)
			}
			checkRecords(t, f, c.records)
		})
	}
}

func TestOptionalArguments(t *testing.T) {
	in := `{"type":"object","properties":{
		"z":{"type":"string"}, "a":{"type":["integer","null"]}, "m":{"type":"boolean"},
		"b":{"type":"number"}, "j":{"type":"object"}},
		"required":["b","z"]}`
	out, _ := Generate(Options{Server: "srv"}, []*mcp.Tool{tool(t, "t", "", in, "")})
	// Required first, in the order of "required"; then the others by name;
	// an optional ?T stays ?T, and Json becomes ?Json, left out when null.
	if got, want := signatures(parse(t, out))["t"], "t :: b Real -> z Str -> a ?Int -> j ?Json -> m ?Bool -> Str"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestOutputSchemas(t *testing.T) {
	for _, c := range []struct {
		name, out, want string
		records         map[string]string
	}{
		{"record", `{"type":"object","properties":{"n":{"type":"integer"},"note":{"type":"string"}},"required":["n"]}`,
			"WeatherNowResult", map[string]string{"WeatherNowResult": "n :: Int, note :: ?Str"}},
		{"refs to one definition", `{"type":"object","$defs":{"Place":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
			"properties":{"from":{"$ref":"#/$defs/Place"},"to":{"$ref":"#/$defs/Place"}},"required":["from","to"]}`,
			"WeatherNowResult", map[string]string{"WeatherNowResult": "from :: Place, to :: Place", "Place": "city :: Str"}},
		{"definitions", `{"definitions":{"n":{"type":"integer"}},"type":"object","properties":{"v":{"$ref":"#/definitions/n"}},"required":["v"]}`,
			"WeatherNowResult", map[string]string{"WeatherNowResult": "v :: Int"}},
		{"recursive ref", `{"$defs":{"Node":{"type":"object","properties":{"next":{"$ref":"#/$defs/Node"}}}},"$ref":"#/$defs/Node"}`,
			"Node", map[string]string{"Node": "next :: ?Json"}},
		{"remote ref", `{"type":"object","properties":{"v":{"$ref":"https://example.com/s.json"}},"required":["v"]}`,
			"WeatherNowResult", map[string]string{"WeatherNowResult": "v :: Json"}},
		{"dangling ref", `{"$ref":"#/$defs/Nothing"}`, "Json", nil},
		{"a record named like a built-in type", `{"$defs":{"Map":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}},"$ref":"#/$defs/Map"}`,
			"MapRecord", map[string]string{"MapRecord": "k :: Str"}},
		{"object without properties", `{"type":"object"}`, "Json", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _ := Generate(Options{Server: "srv"}, []*mcp.Tool{tool(t, "weather/now", "", `{"type":"object"}`, c.out)})
			f := parse(t, out)
			if got, want := signatures(f)["weatherNow"], "weatherNow :: "+c.want; got != want {
				t.Errorf("got  %s\nwant %s\n%s", got, want, out)
			}
			checkRecords(t, f, c.records)
		})
	}
}

// TestRecordNames checks that two tools whose records would share a name
// get different ones, and that a record equal to one already declared
// under its name is that one.
func TestRecordNames(t *testing.T) {
	rec := `{"type":"object","properties":{"%s":{"type":"string"}},"required":["%s"]}`
	in := func(field string) string {
		return `{"type":"object","properties":{"opts":` + strings.ReplaceAll(rec, "%s", field) + `},"required":["opts"]}`
	}
	tools := []*mcp.Tool{
		tool(t, "a-b", "", in("x"), ""),
		tool(t, "a_b", "", in("y"), ""),
		tool(t, "c", "", in("x"), `{"$defs":{"P":`+strings.ReplaceAll(rec, "%s", "x")+`},"$ref":"#/$defs/P"}`),
		tool(t, "d", "", `{"type":"object"}`, `{"$defs":{"P":`+strings.ReplaceAll(rec, "%s", "x")+`},"$ref":"#/$defs/P"}`),
	}
	out, _ := Generate(Options{Server: "srv"}, tools)
	f := parse(t, out)
	checkRecords(t, f, map[string]string{"ABOpts": "x :: Str", "ABOpts2": "y :: Str", "COpts": "x :: Str", "P": "x :: Str"})
	checkSignatures(t, f, "aB :: opts ABOpts -> Str", "a_b :: opts ABOpts2 -> Str", "c :: opts COpts -> P", "d :: P")
}

// TestDocstrings checks that descriptions become docstrings and that a
// description line reading like a directive stays text.
func TestDocstrings(t *testing.T) {
	desc := "Looks things up.\n\nname: not a directive\n@many lines\nNote: prose"
	in := `{"type":"object","properties":{"q":{"type":"string","description":"default: 3\r\nthe query","default":"x"},
		"k":{"type":"string","enum":["a","b"]}},"required":["q"]}`
	out, _ := Generate(Options{Server: "srv"}, []*mcp.Tool{tool(t, "find", desc, in, "")})
	f := parse(t, out)
	sig := f.Signatures[0]
	var lines []string
	for _, l := range sig.Doc {
		lines = append(lines, strings.TrimSpace(l.Text))
	}
	if got, want := strings.Join(lines, "|"), `Looks things up.||\name: not a directive|\@many lines|\Note: prose`; got != want {
		t.Errorf("docstring %q, want %q", got, want)
	}
	// Read back, the escaped lines are the description as the server
	// wrote it, and no directive.
	if d := doc.Parse(sig.Doc); len(d.Directives) != 0 || len(d.Unknown) != 0 || strings.Join(d.Lines, "|") != strings.ReplaceAll(desc, "\n", "|") {
		t.Errorf("read back: %q, directives %v, unknown %v", d.Lines, d.Directives, d.Unknown)
	}
	lines = nil
	for _, l := range sig.Params[0].Doc {
		lines = append(lines, strings.TrimSpace(l.Text))
	}
	if got, want := strings.Join(lines, "|"), `\default: 3|the query|Default on the server: "x".|@name q`; got != want {
		t.Errorf("argument docstring %q, want %q", got, want)
	}
	if !strings.Contains(out, `--' One of "a", "b".`) {
		t.Errorf("the enum values are not documented:\n%s", out)
	}
}

// TestDocstringControls: control characters of a server's descriptions
// and tool names (a terminal escape, a NUL) are not written into the
// program, where its --help would print them.
func TestDocstringControls(t *testing.T) {
	in := `{"type":"object","properties":{"q":{"type":"string","description":"nul\u0000 here"}}}`
	out, _ := Generate(Options{Server: "srv"}, []*mcp.Tool{
		tool(t, "find", "red \x1b[31mtext\x07 and\ttab", in, ""),
		tool(t, "bad\x1b[2J", "", `{"type":"object","properties":{"_x":{}}}`, ""),
	})
	if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && r != '\t' && unicode.IsControl(r) }); i >= 0 {
		t.Errorf("control character %q in the output:\n%q", out[i], out)
	}
	sig := parse(t, out).Signatures[0]
	if got, want := strings.TrimSpace(sig.Doc[0].Text), "red  [31mtext  and\ttab"; got != want {
		t.Errorf("docstring %q, want %q", got, want)
	}
}

// TestTitle: a tool without a description is described by its title.
func TestTitle(t *testing.T) {
	tl := tool(t, "t", "", `{"type":"object"}`, "")
	tl.Title = "The Tool"
	out, _ := Generate(Options{Server: "srv"}, []*mcp.Tool{tl})
	if !strings.Contains(out, "--' The Tool\nt :: Str\n") {
		t.Errorf("the title is not the docstring:\n%s", out)
	}
}

func TestFragment(t *testing.T) {
	out, _ := Generate(Options{Server: `node "my server.js"`, Fragment: true}, []*mcp.Tool{tool(t, "echo", "", `{"type":"object"}`, "")})
	f := parse(t, out)
	if f.Module != nil {
		t.Errorf("a fragment has a module line:\n%s", out)
	}
	if len(f.Sources) != 1 || f.Sources[0].Path.Value != `node "my server.js"` {
		t.Errorf("source: %+v\n%s", f.Sources, out)
	}
}

func TestSkipped(t *testing.T) {
	tools := []*mcp.Tool{
		tool(t, "ok", "", `{"type":"object","properties":{"a":{"type":"string"}}}`, ""),
		tool(t, "bad", "", `{"type":"object","properties":{"_meta":{"type":"string"}}}`, ""),
		tool(t, "spaced", "", `{"type":"object","properties":{"two words":{"type":"string"}}}`, ""),
		tool(t, "", "", `{"type":"object"}`, ""),
	}
	out, skipped := Generate(Options{Server: "srv"}, tools)
	if len(skipped) != 3 || skipped[0].Tool != "bad" || skipped[1].Tool != "spaced" || skipped[2].Tool != "" {
		t.Fatalf("skipped %v", skipped)
	}
	f := parse(t, out)
	if len(f.Sources[0].Items) != 1 || len(f.Module.Exports) != 1 || len(f.Signatures) != 1 {
		t.Errorf("a skipped tool is still imported:\n%s", out)
	}
	if !strings.Contains(out, `-- Not imported: bad (its argument "_meta" cannot be named`) {
		t.Errorf("the output does not say what it left out:\n%s", out)
	}
}

func TestModuleName(t *testing.T) {
	for server, want := range map[string]string{
		"npx -y @modelcontextprotocol/server-everything": "server-everything",
		"/x/node_modules/.bin/mcp-server-everything":     "mcp-server-everything",
		"uvx mcp-server-time --local-timezone UTC":       "mcp-server-time",
		"docker run -i --rm mcp/time":                    "time",
		".venv/bin/mcp-server-time":                      "mcp-server-time",
		"python -m mcp_server_time":                      "mcp-server-time",
		"node build/index.js":                            "index",
		"https://docs.example.com/mcp":                   "docs-example-com",
		"http://user@127.0.0.1:8080/mcp":                 "mcp-tools",
		"http://[::1]:9/mcp":                             "mcp-tools",
		"./server-2":                                     "server_2",
		"npx -y @scope/weather@1.2.3":                    "weather",
	} {
		if got := ModuleName(server); got != want {
			t.Errorf("ModuleName(%q) = %q, want %q", server, got, want)
		}
		out, _ := Generate(Options{Server: server}, []*mcp.Tool{tool(t, "echo", "", `{"type":"object"}`, "")})
		if f := parse(t, out); f.Module == nil || f.Module.Name.Name != ModuleName(server) {
			t.Errorf("%q: module line of\n%s", server, out)
		}
	}
}

// TestPasswordOnlyInTheSourceLine: a URL's password is needed by the
// source line, and is not repeated in the comments and docstring.
func TestPasswordOnlyInTheSourceLine(t *testing.T) {
	const server = "https://me:s3cret@docs.example.com/mcp"
	out, _ := Generate(Options{Server: server}, []*mcp.Tool{tool(t, "echo", "", `{"type":"object"}`, "")})
	if n := strings.Count(out, "s3cret"); n != 1 || parse(t, out).Sources[0].Path.Value != server {
		t.Errorf("the password appears %d times (want once, in the source line):\n%s", n, out)
	}
}
