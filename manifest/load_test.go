package manifest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest/types"
)

// buildFolder writes m the way `nexus make` lays out a program: the build
// folder NAME-build holding the manifest, and the launcher NAME beside it.
// It returns the launcher's path and the build folder.
func buildFolder(t *testing.T, m *Manifest) (launcher, build string) {
	t.Helper()
	dir := t.TempDir()
	launcher = filepath.Join(dir, m.Name)
	build = launcher + "-build"
	if err := os.Mkdir(build, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := m.Write(build); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nexec nexus run " + filepath.Join(build, FileName) + " \"$@\"\n"
	if err := os.WriteFile(launcher, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return launcher, build
}

// writeManifest stores text as the manifest of a fresh build folder.
func writeManifest(t *testing.T, text string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// compact is m as compact JSON, the form in which two manifests compare.
func compact(t *testing.T, m *Manifest) string {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestLoadRoundTrip(t *testing.T) {
	want := validManifest()
	launcher, build := buildFolder(t, want)
	file := filepath.Join(build, FileName)

	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(data), "}\n") || !strings.Contains(string(data), "\n  \"name\": \"demo\",\n") {
		t.Errorf("Write did not store indented JSON ending in a newline:\n%.200s", data)
	}
	if strings.Contains(string(data), build) || strings.Contains(string(data), `"Dir"`) {
		t.Error("Write stored the build folder; a build folder must stay movable")
	}

	for _, path := range []string{file, build, launcher} {
		m, err := Load(path)
		if err != nil {
			t.Fatalf("Load(%s): %v", path, err)
		}
		if m.Dir != build {
			t.Errorf("Load(%s).Dir = %q, want %q", path, m.Dir, build)
		}
		if got := m.PoolCommand(m.Pool(Cpp)); len(got) != 1 || got[0] != filepath.Join(build, "pools", "cpp", "pool") {
			t.Errorf("Load(%s): cpp pool command %q", path, got)
		}
		m.Dir = ""
		if got, want := compact(t, m), compact(t, want); got != want {
			t.Errorf("Load(%s) changed the manifest:\n got %s\nwant %s", path, got, want)
		}
		// Spot checks of what compact JSON equality rests on.
		if c := m.Command("norm"); c == nil || !types.Equal(c.Args[0].Type, tPoint) || c.Args[0].Fields[1].Field != "y" ||
			c.Actions[0].Kind != "with" || c.Actions[0].Body.Ref != fnShow {
			t.Errorf("Load(%s): command norm = %+v", path, c)
		}
		if c := m.Command("nothing"); c == nil || string(c.Body.Value) != "null" {
			t.Errorf("Load(%s): a null literal did not survive: %+v", path, c.Body)
		}
	}
}

func TestLoadRelativePath(t *testing.T) {
	launcher, build := buildFolder(t, validManifest())
	t.Chdir(filepath.Dir(launcher))
	for _, path := range []string{"demo", "./demo", "demo-build", "demo-build/manifest.json"} {
		m, err := Load(path)
		if err != nil {
			t.Fatalf("Load(%s): %v", path, err)
		}
		if m.Dir != build {
			t.Errorf("Load(%s).Dir = %q, want the absolute %q", path, m.Dir, build)
		}
	}
}

func TestResolve(t *testing.T) {
	launcher, build := buildFolder(t, validManifest())
	dir := filepath.Dir(launcher)
	manifest := filepath.Join(build, FileName)
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(dir, "orphan")
	if err := os.WriteFile(orphan, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	source := filepath.Join(dir, "main.loc")
	if err := os.WriteFile(source, []byte("module m (x)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(bin, "tool")
	if err := os.Symlink(launcher, linked); err != nil {
		linked = launcher // symbolic links need privileges on Windows
	}

	cases := []struct {
		name, path, want, wantErr string
	}{
		{"manifest file", manifest, manifest, ""},
		{"build folder", build, manifest, ""},
		{"build folder with slash", build + "/", manifest, ""},
		{"launcher", launcher, manifest, ""},
		{"any json file", other, other, ""},
		{"launcher through a link", linked, manifest, ""},
		{"source", source, "",
			source + " is a program's source, not a program: build it with `nexus make " + source + "`, and name the program it builds (./NAME)"},
		{"launcher without build folder", orphan, "",
			"no manifest for " + orphan + " (looked for " + orphan + "-build/manifest.json); build the program with `nexus make`"},
		{"folder without manifest", empty, "",
			"no manifest for " + empty + " (looked for " + filepath.Join(empty, FileName) + "); build the program with `nexus make`"},
		{"missing program", missing, "", "no program at " + missing},
		{"missing manifest file", missing + ".json", "", "no program at " + missing + ".json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(c.path)
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Errorf("Resolve(%s) = %q, %v; want error %q", c.path, got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("Resolve(%s) = %q, %v; want %q", c.path, got, err, c.want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	versioned := func(version string) string {
		m := validManifest()
		m.Nexus = version
		return compact(t, m)
	}
	twice := validManifest()
	twice.Commands[1].Name = "add"

	cases := []struct {
		name string
		text string
		want string // after "manifest FILE"
	}{
		{"older nexus", versioned("0.0.9"),
			" was built by nexus 0.0.9, but this is nexus " + NexusVersion + ": rebuild the program with `nexus make`"},
		{"newer nexus", versioned("9.0.0"),
			" was built by nexus 9.0.0, but this is nexus " + NexusVersion + ": rebuild the program with `nexus make`"},
		{"no version", versioned(""),
			" was built by nexus (unknown version), but this is nexus " + NexusVersion + ": rebuild the program with `nexus make`"},
		{"not JSON", "{not json", " is not valid: invalid character 'n' looking for beginning of object key string"},
		{"truncated", compact(t, validManifest())[:100], " is not valid: unexpected end of JSON input"},
		{"empty file", "", " is not valid: unexpected end of JSON input"},
		{"wrong field type", `{"nexus": 1}`, " is not valid: json: cannot unmarshal number into Go struct field Manifest.nexus of type string"},
		{"not an object", `[]`, " is not valid: json: cannot unmarshal array into Go value of type manifest.Manifest"},
		{"fails validation", compact(t, twice), ": command add defined twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := writeManifest(t, c.text)
			m, err := Load(file)
			if err == nil {
				t.Fatalf("Load = %+v, want an error", m)
			}
			if want := "manifest " + file + c.want; err.Error() != want {
				t.Errorf("Load error:\n got %q\nwant %q", err, want)
			}
		})
	}
}

func TestLoadUnreadable(t *testing.T) {
	dir := t.TempDir()
	// A folder where the manifest should be passes Resolve but cannot be read.
	if err := os.Mkdir(filepath.Join(dir, FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	if err == nil || !strings.HasPrefix(err.Error(), "read manifest: ") || !strings.Contains(err.Error(), filepath.Join(dir, FileName)) {
		t.Errorf("Load of an unreadable manifest: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "nothing-here")); err == nil || err.Error() != "no program at "+filepath.Join(dir, "nothing-here") {
		t.Errorf("Load of a missing program: %v", err)
	}
}

func TestValidateGood(t *testing.T) {
	cases := []struct {
		name   string
		change func(m *Manifest)
	}{
		{"as built", func(m *Manifest) {}},
		{"name only", func(m *Manifest) { *m = Manifest{Name: "empty"} }},
		{"python pool built before interpreters were recorded", func(m *Manifest) { m.Pools[0].Interpreter = "" }},
		// The pool's start says when it is gone; the tools still list.
		{"interpreter that does not exist", func(m *Manifest) { m.Pools[0].Interpreter = "/nonexistent/bin/python3" }},
		{"no pools for pure commands", func(m *Manifest) {
			m.Pools, m.Functions = nil, nil
			m.Commands = []Command{*m.Command("pure"), *m.Command("origin"), *m.Command("fail")}
		}},
		{"flag named only by its negation", func(m *Manifest) {
			a := &m.Command("shout").Args[1]
			a.Long, a.FalseLong, a.FalseShort = "", "", "Q"
		}},
		{"option with short name only", func(m *Manifest) { m.Command("add").Args[1].Long = "" }},
		{"group with no per-field options", func(m *Manifest) { m.Command("norm").Args[0].Fields = nil }},
		{"record default", func(m *Manifest) { m.Command("get_x").Args[0].Default = json.RawMessage(`{"x": 1}`) }},
		{"action with short name only", func(m *Manifest) { m.Command("norm").Actions[0].Long = "" }},
		{"function of no arguments", func(m *Manifest) {
			m.Functions = append(m.Functions, Function{ID: 4, Name: "now", Pool: Go, Return: tReal})
			m.Command("fail").Body = call(4, tReal)
		}},
		{"longest command name", func(m *Manifest) { m.Commands[0].Name = strings.Repeat("a", 64) }},
		{"command name characters", func(m *Manifest) { m.Commands[0].Name = "Get-x_2" }},
	}
	for _, c := range cases {
		m := validManifest()
		c.change(m)
		if err := m.Validate(); err != nil {
			t.Errorf("%s: Validate() = %v", c.name, err)
		}
	}
}

func TestValidateErrors(t *testing.T) {
	cases := []struct {
		name   string
		change func(m *Manifest)
		want   string
	}{
		{"no name", func(m *Manifest) { m.Name = "" }, "program has no name"},

		// Pools.
		{"pool with unknown language", func(m *Manifest) {
			m.Pools = append(m.Pools, Pool{Lang: "rust", Command: []string{"pool"}})
		}, `pool with unknown language "rust"`},
		{"pool without language", func(m *Manifest) { m.Pools[0].Lang = "" }, `pool with unknown language ""`},
		{"duplicate pool", func(m *Manifest) {
			m.Pools = append(m.Pools, Pool{Lang: Python, Command: []string{"python3"}})
		}, "two py pools"},
		{"pool without command", func(m *Manifest) { m.Pools[1].Command = nil }, "cpp pool has no launch command"},
		{"pool with empty command", func(m *Manifest) { m.Pools[2].Command = []string{} }, "go pool has no launch command"},
		{"interpreter of a C++ pool", func(m *Manifest) { m.Pools[1].Interpreter = "/usr/bin/python3" },
			"cpp pool has an interpreter (/usr/bin/python3); only a Python pool has one"},
		{"relative interpreter", func(m *Manifest) { m.Pools[0].Interpreter = "bin/python3" },
			`python pool interpreter "bin/python3" is not an absolute path`},
		{"interpreter by name", func(m *Manifest) { m.Pools[0].Interpreter = "python3" },
			`python pool interpreter "python3" is not an absolute path`},

		// Functions.
		{"function id mismatch", func(m *Manifest) { m.Functions[2].ID = 5 }, "function shout has id 5 at index 2"},
		{"functions out of order", func(m *Manifest) {
			m.Functions[0], m.Functions[1] = m.Functions[1], m.Functions[0]
		}, "function norm has id 1 at index 0"},
		{"function with a missing pool", func(m *Manifest) { m.Pools = m.Pools[:2] }, `function shout: no "go" pool`},
		{"function with an unknown pool", func(m *Manifest) { m.Functions[0].Pool = "js" }, `function add: no "js" pool`},
		{"function argument type bad", func(m *Manifest) {
			m.Functions[0].Args = []*types.Type{tInt, types.TupleOf(tInt)}
		}, "function add argument 2: tuple type with 1 items"},
		{"function argument type missing", func(m *Manifest) {
			m.Functions[1].Args = []*types.Type{nil}
		}, "function norm argument 1: missing type"},
		{"function result type missing", func(m *Manifest) { m.Functions[3].Return = nil }, "function show result: missing type"},
		{"function result record bad", func(m *Manifest) {
			m.Functions[3].Return = &types.Type{Kind: types.Record, Name: "R", Fields: []types.Field{{Name: "a", Type: tInt}, {Name: "a", Type: tStr}}}
		}, `function show result: record R: field "a" twice`},

		// Commands.
		{"command name with a space", func(m *Manifest) { m.Commands[0].Name = "add numbers" },
			`command "add numbers": name must match ^[a-zA-Z0-9_-]{1,64}$`},
		{"command name with a dot", func(m *Manifest) { m.Commands[0].Name = "add.x" },
			`command "add.x": name must match ^[a-zA-Z0-9_-]{1,64}$`},
		{"command name not ASCII", func(m *Manifest) { m.Commands[0].Name = "addé" },
			`command "addé": name must match ^[a-zA-Z0-9_-]{1,64}$`},
		{"command name empty", func(m *Manifest) { m.Commands[0].Name = "" },
			`command "": name must match ^[a-zA-Z0-9_-]{1,64}$`},
		{"command name too long", func(m *Manifest) { m.Commands[0].Name = strings.Repeat("a", 65) },
			`command "` + strings.Repeat("a", 65) + `": name must match ^[a-zA-Z0-9_-]{1,64}$`},
		{"duplicate command", func(m *Manifest) { m.Commands[3].Name = "add" }, "command add defined twice"},
		{"command result type bad", func(m *Manifest) { m.Commands[0].Return = types.ListOf(nil) },
			"command add: result: list type without an element type"},
		{"command result type missing", func(m *Manifest) { m.Commands[0].Return = nil }, "command add: result: missing type"},

		// Arguments.
		{"argument without type", func(m *Manifest) { m.Commands[0].Args[0].Type = nil },
			"command add: argument 1: missing type"},
		{"argument of unknown kind", func(m *Manifest) { m.Commands[0].Args[0].Kind = "switch" },
			`command add: argument 1: unknown argument kind "switch"`},
		{"argument without kind", func(m *Manifest) { m.Commands[0].Args[1].Kind = "" },
			`command add: argument 2: unknown argument kind ""`},
		{"flag not Bool", func(m *Manifest) {
			a := &m.Command("shout").Args[1]
			a.Type, a.Default = tInt, nil
		}, "command shout: argument 2: flag of type Int; flags are Bool"},
		{"flag of optional Bool", func(m *Manifest) {
			a := &m.Command("shout").Args[1]
			a.Type, a.Default = types.OptionalOf(tBool), nil
		}, "command shout: argument 2: flag of type ?Bool; flags are Bool"},
		{"flag without name", func(m *Manifest) {
			a := &m.Command("shout").Args[1]
			a.Long, a.FalseLong = "", ""
		}, "command shout: argument 2: flag without a name"},
		{"option without name", func(m *Manifest) {
			a := &m.Commands[0].Args[1]
			a.Short, a.Long = "", ""
		}, "command add: argument 2: option without a name"},
		{"group not a record", func(m *Manifest) {
			a := &m.Command("norm").Args[0]
			a.Type = tInt
		}, "command norm: argument 1: unrolled argument of type Int; only records unroll"},
		{"group of a list of records", func(m *Manifest) {
			a := &m.Command("norm").Args[0]
			a.Type = types.ListOf(tPoint)
		}, "command norm: argument 1: unrolled argument of type [Point]; only records unroll"},
		{"group field naming an unknown record field", func(m *Manifest) {
			m.Command("norm").Args[0].Fields[1].Field = "z"
		}, `command norm: argument 1: record Point has no field "z"`},
		{"group field naming no field", func(m *Manifest) {
			m.Command("norm").Args[0].Fields[0].Field = ""
		}, `command norm: argument 1: record Point has no field ""`},
		{"group field without name", func(m *Manifest) {
			f := &m.Command("norm").Args[0].Fields[1]
			f.Short, f.Long = "", ""
		}, "command norm: argument 1: field y: option without a name"},
		{"group field without type", func(m *Manifest) {
			m.Command("norm").Args[0].Fields[0].Type = nil
		}, "command norm: argument 1: field x: missing type"},
		{"group field with bad default", func(m *Manifest) {
			m.Command("norm").Args[0].Fields[1].Default = json.RawMessage(`1.5`)
		}, "command norm: argument 1: field y: default 1.5: expected an integer, got the number 1.5"},
		{"bad default", func(m *Manifest) { m.Commands[0].Args[1].Default = json.RawMessage(`"two"`) },
			`command add: argument 2: default "two": expected an integer, got the string "two"`},
		{"default not JSON", func(m *Manifest) { m.Commands[0].Args[1].Default = json.RawMessage(`[1`) },
			"command add: argument 2: default [1: not valid JSON: unexpected EOF"},
		{"flag default not Bool", func(m *Manifest) { m.Command("shout").Args[1].Default = json.RawMessage(`0`) },
			"command shout: argument 2: default 0: expected true or false, got the number 0"},
		{"record default missing field", func(m *Manifest) { m.Command("get_x").Args[0].Default = json.RawMessage(`{"y": 1}`) },
			`command get_x: argument 1: default {"y": 1}: record Point is missing field "x"`},

		// Expressions.
		{"missing body", func(m *Manifest) { m.Commands[0].Body = nil }, "command add: body: missing expression"},
		{"expression without type", func(m *Manifest) { m.Command("fail").Body.Type = nil }, "command fail: body: missing type"},
		{"expression with bad type", func(m *Manifest) { m.Command("fail").Body.Type = &types.Type{Kind: "void"} },
			`command fail: body: unknown type kind "void"`},
		{"unknown expression kind", func(m *Manifest) { m.Command("fail").Body.Kind = "closure" },
			`command fail: body: unknown expression kind "closure"`},
		{"var out of range", func(m *Manifest) { m.Commands[0].Body.Args[1].Ref = 2 }, "command add: body: variable 2 out of range"},
		{"negative var", func(m *Manifest) { m.Commands[0].Body.Args[0].Ref = -1 }, "command add: body: variable -1 out of range"},
		{"var in a command without arguments", func(m *Manifest) {
			m.Command("words").Body.Args[1].Args[0] = variable(0, tStr)
		}, "command words: body: variable 0 out of range"},
		{"call of unknown function", func(m *Manifest) { m.Commands[0].Body.Ref = 4 }, "command add: body: call of unknown function 4"},
		{"call of negative function", func(m *Manifest) { m.Commands[0].Body.Ref = -1 }, "command add: body: call of unknown function -1"},
		{"call with too few arguments", func(m *Manifest) {
			m.Commands[0].Body.Args = m.Commands[0].Body.Args[:1]
		}, "command add: body: call of add with 1 arguments; it takes 2"},
		{"call with too many arguments", func(m *Manifest) {
			b := m.Command("shout").Body
			b.Args = append(b.Args, lit(tStr, `"x"`))
		}, "command shout: body: call of shout with 2 arguments; it takes 1"},
		{"bad call nested in a list", func(m *Manifest) {
			m.Command("words").Body.Args[1].Ref = 99
		}, "command words: body: call of unknown function 99"},
		{"lit that does not type-check", func(m *Manifest) { m.Command("pure").Body.Args[0].Value = json.RawMessage(`"one"`) },
			`command pure: body: literal "one": expected an integer, got the string "one"`},
		{"lit null of a non-optional type", func(m *Manifest) { m.Command("nothing").Body.Type = tInt },
			"command nothing: body: literal null: expected an integer, got null"},
		{"lit without value", func(m *Manifest) { m.Command("pure").Body.Args[0].Value = nil },
			"command pure: body: literal : not valid JSON: EOF"},
		{"lit with two values", func(m *Manifest) { m.Command("pure").Body.Args[0].Value = json.RawMessage(`1 2`) },
			"command pure: body: literal 1 2: not valid JSON: more than one value"},
		{"record construction with fewer names", func(m *Manifest) { m.Command("origin").Body.Fields = []string{"x"} },
			"command origin: body: record construction with unnamed values"},
		{"record construction with more names", func(m *Manifest) { m.Command("origin").Body.Fields = []string{"x", "y", "z"} },
			"command origin: body: record construction with unnamed values"},
		{"field access without field", func(m *Manifest) { m.Command("get_x").Body.Field = "" },
			"command get_x: body: field access needs one record and a field"},
		{"field access of two values", func(m *Manifest) {
			b := m.Command("get_x").Body
			b.Args = append(b.Args, variable(0, tPoint))
		}, "command get_x: body: field access needs one record and a field"},
		{"field access of nothing", func(m *Manifest) { m.Command("get_x").Body.Args = nil },
			"command get_x: body: field access needs one record and a field"},
		{"missing list element", func(m *Manifest) { m.Command("words").Body.Args[0] = nil },
			"command words: body: missing expression"},

		// Output actions.
		{"action of unknown kind", func(m *Manifest) { m.Command("norm").Actions[0].Kind = "print" },
			`command norm: output action of unknown kind "print"`},
		{"action without kind", func(m *Manifest) { m.Command("norm").Actions[0].Kind = "" },
			`command norm: output action of unknown kind ""`},
		{"action without a flag name", func(m *Manifest) {
			a := &m.Command("norm").Actions[0]
			a.Short, a.Long = "", ""
		}, "command norm: output action without a flag name"},
		{"action without body", func(m *Manifest) { m.Command("norm").Actions[0].Body = nil },
			"command norm: output action --show: missing expression"},
		{"action sees only the result", func(m *Manifest) { m.Command("norm").Actions[0].Body.Args[0].Ref = 1 },
			"command norm: output action --show: variable 1 out of range"},
		{"action calls an unknown function", func(m *Manifest) { m.Command("echo").Actions[0].Body.Ref = 7 },
			"command echo: output action --loud: call of unknown function 7"},
		{"action without result type", func(m *Manifest) { m.Command("norm").Actions[0].Return = nil },
			"command norm: output action --show result: missing type"},
		{"action with bad result type", func(m *Manifest) { m.Command("norm").Actions[0].Return = types.MapOf(tStr, nil) },
			"command norm: output action --show result: map type without key or value type"},
		{"two default actions", func(m *Manifest) {
			c := m.Command("echo")
			c.Actions[0].Default = true
			c.Actions = append(c.Actions, c.Actions[0])
			c.Actions[1].Long = "louder"
		}, "command echo: 2 output actions are the default; at most one may be"},
		{"malformed mime", func(m *Manifest) { m.Command("echo").Mime = "png" },
			"command echo: mime: 'png' is not a media type: expected type/subtype, such as image/png"},
		{"mime on a result that is no Str", func(m *Manifest) { m.Command("words").Mime = "image/png" },
			"command words: mime image/png on a result of type [Str]; only a Str result is raw content"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := validManifest()
			c.change(m)
			err := m.Validate()
			if err == nil {
				t.Fatalf("Validate() = nil, want %q", c.want)
			}
			if err.Error() != c.want {
				t.Errorf("Validate():\n got %q\nwant %q", err, c.want)
			}
		})
	}
}

// Every Validate failure reaches the caller of Load, naming the file.
func TestLoadRejectsInvalid(t *testing.T) {
	m := validManifest()
	m.Command("norm").Args[0].Fields[1].Field = "z"
	file := writeManifest(t, compact(t, m))
	_, err := Load(file)
	want := "manifest " + file + `: command norm: argument 1: record Point has no field "z"`
	if err == nil || err.Error() != want {
		t.Errorf("Load error:\n got %v\nwant %q", err, want)
	}
}

func TestIsToolName(t *testing.T) {
	re := regexp.MustCompile(ToolNamePattern)
	names := []string{"", "a", "gc_content", "seq-tools", "A9", "with space", "dot.ted", "é", "x\n",
		strings.Repeat("a", 64), strings.Repeat("a", 65), "semi;colon", "slash/ed", "-", "_"}
	for _, name := range names {
		if got, want := IsToolName(name), re.MatchString(name); got != want {
			t.Errorf("IsToolName(%q) = %v, the pattern says %v", name, got, want)
		}
	}
}
