package clientconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

var (
	chem = Server{Name: "chem", Command: "/opt/nexus/bin/nexus", Args: []string{"mcp", "/home/u/chem-build/manifest.json"}}
	seq  = Server{Name: "seq", Command: "/opt/nexus/bin/nexus", Args: []string{"mcp", "/home/u/seq-build/manifest.json"}}
)

func TestMerge(t *testing.T) {
	cases := []struct {
		name     string
		old      string
		servers  []Server
		typed    bool
		want     string
		replaced []string
	}{
		{"no file", "", []Server{chem, seq}, false, `{
  "mcpServers": {
    "chem": {
      "command": "/opt/nexus/bin/nexus",
      "args": [
        "mcp",
        "/home/u/chem-build/manifest.json"
      ]
    },
    "seq": {
      "command": "/opt/nexus/bin/nexus",
      "args": [
        "mcp",
        "/home/u/seq-build/manifest.json"
      ]
    }
  }
}
`, nil},
		{"blank file", " \n\t\n", []Server{chem}, true, `{
  "mcpServers": {
    "chem": {
      "type": "stdio",
      "command": "/opt/nexus/bin/nexus",
      "args": [
        "mcp",
        "/home/u/chem-build/manifest.json"
      ]
    }
  }
}
`, nil},
		// Unknown keys before and after, in their order, with their
		// values exactly (a big number, escapes, nesting); other servers
		// stay first.
		{"other keys and servers", `{"zeta": 1e400, "mcpServers": {"other": {"command": "x", "env": {"K": "<v>"}}}, "alpha": ["\u00e9", {"b": null}]}`,
			[]Server{seq}, false, `{
  "zeta": 1e400,
  "mcpServers": {
    "other": {
      "command": "x",
      "env": {
        "K": "<v>"
      }
    },
    "seq": {
      "command": "/opt/nexus/bin/nexus",
      "args": [
        "mcp",
        "/home/u/seq-build/manifest.json"
      ]
    }
  },
  "alpha": [
    "\u00e9",
    {
      "b": null
    }
  ]
}
`, nil},
		// An entry of the same name is replaced where it stands.
		{"replace in place", `{"mcpServers": {"a": {}, "seq": {"command": "old"}, "z": {}}}`, []Server{seq}, false, `{
  "mcpServers": {
    "a": {},
    "seq": {
      "command": "/opt/nexus/bin/nexus",
      "args": [
        "mcp",
        "/home/u/seq-build/manifest.json"
      ]
    },
    "z": {}
  }
}
`, []string{"seq"}},
		{"null servers", `{"mcpServers": null, "k": true}`, []Server{seq}, false, `{
  "mcpServers": {
    "seq": {
      "command": "/opt/nexus/bin/nexus",
      "args": [
        "mcp",
        "/home/u/seq-build/manifest.json"
      ]
    }
  },
  "k": true
}
`, nil},
	}
	for _, c := range cases {
		got, replaced, err := Merge([]byte(c.old), c.servers, c.typed)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
		if !slices.Equal(replaced, c.replaced) {
			t.Errorf("%s: replaced %q, want %q", c.name, replaced, c.replaced)
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	cases := []struct{ old, want string }{
		{`{"mcpServers": {}`, "not valid JSON (line 1:"},
		{"{\n  \"a\": 1,\n  \"b\": 2,\n}\n", "comma before a closing bracket (line 4)"},
		{`{"a": 1} {"b": 2}`, "not valid JSON"},
		{`// comment` + "\n{}", "has a comment (line 1)"},
		{`[1, 2]`, "the file is not a JSON object"},
		{`"mcpServers"`, "the file is not a JSON object"},
		{`{"mcpServers": []}`, `its "mcpServers" is not a JSON object`},
		{`{"mcpServers": "chem"}`, `its "mcpServers" is not a JSON object`},
	}
	for _, c := range cases {
		got, _, err := Merge([]byte(c.old), []Server{chem}, false)
		if err == nil {
			t.Errorf("Merge(%q) = %s, want an error", c.old, got)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Merge(%q): error %q does not contain %q", c.old, err, c.want)
		}
	}
}

// readFile returns the contents of path, failing the test if it is not there.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// backups lists the backups of file.
func backups(t *testing.T, file string) []string {
	t.Helper()
	found, err := filepath.Glob(file + ".nexus-backup-*")
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestInstallCreates(t *testing.T) {
	file := filepath.Join(t.TempDir(), "Claude", "claude_desktop_config.json")
	res, err := Install(file, []Server{chem}, false)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := Merge(nil, []Server{chem}, false)
	if got := readFile(t, file); got != string(want) {
		t.Errorf("created file:\n%s\nwant\n%s", got, want)
	}
	if res.File != file || res.Backup != "" || len(res.Replaced) != 0 {
		t.Errorf("Install = %+v, want file %s, no backup, nothing replaced", res, file)
	}
	if b := backups(t, file); len(b) != 0 {
		t.Errorf("backups of a new file: %v", b)
	}
	if st, err := os.Stat(file); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm() != newFileMode) {
		t.Errorf("created file: %v, %v; want mode %v", st.Mode(), err, os.FileMode(newFileMode))
	}
}

// Installing into a file keeps a backup of it as it was, every time, and
// keeps its permissions.
func TestInstallBacksUp(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mcp.json")
	first := `{"theme": "dark", "mcpServers": {"other": {"command": "x"}}}`
	if err := os.WriteFile(file, []byte(first), 0o640); err != nil {
		t.Fatal(err)
	}
	res, err := Install(file, []Server{chem}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Backup == "" || readFile(t, res.Backup) != first {
		t.Fatalf("backup %q does not hold the old file", res.Backup)
	}
	afterFirst := readFile(t, file)
	want, _, _ := Merge([]byte(first), []Server{chem}, false)
	if afterFirst != string(want) {
		t.Errorf("installed file:\n%s\nwant\n%s", afterFirst, want)
	}
	if st, _ := os.Stat(file); runtime.GOOS != "windows" && st.Mode().Perm() != 0o640 {
		t.Errorf("mode after install %v, want the old file's 0640", st.Mode().Perm())
	}

	// Again, at once: a second backup, the first one untouched.
	res2, err := Install(file, []Server{chem, seq}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Backup == res.Backup || readFile(t, res2.Backup) != afterFirst || readFile(t, res.Backup) != first {
		t.Errorf("second install: backup %s, first backup %s; want a new backup of the first result", res2.Backup, res.Backup)
	}
	if !slices.Equal(res2.Replaced, []string{"chem"}) {
		t.Errorf("second install replaced %q, want [chem]", res2.Replaced)
	}
	if b := backups(t, file); len(b) != 2 {
		t.Errorf("backups: %v, want 2", b)
	}
	if left, _ := filepath.Glob(file + ".tmp-*"); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A file that is not valid JSON is left alone: not changed, not backed up.
func TestInstallRefusesInvalid(t *testing.T) {
	file := filepath.Join(t.TempDir(), ".claude.json")
	bad := "{\"mcpServers\": {\"a\": {}},\n\"oops\"\n}"
	if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Install(file, []Server{chem}, true)
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "not valid JSON (line 3") || !strings.Contains(err.Error(), "not changed") {
		t.Errorf("Install into invalid JSON: %v; want an error naming the file and the line", err)
	}
	if got := readFile(t, file); got != bad {
		t.Errorf("the invalid file changed:\n%s", got)
	}
	if b := backups(t, file); len(b) != 0 {
		t.Errorf("backups of a refused file: %v", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(file))
	if len(entries) != 1 {
		t.Errorf("files beside the refused one: %v", entries)
	}
}

// A configuration file kept as a link (in a dotfiles repository, say)
// stays a link; the file it points at changes.
func TestInstallFollowsLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte(`{"mcpServers": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "mcp.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	res, err := Install(link, []Server{seq}, false)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if res.File != target || !strings.Contains(readFile(t, target), `"seq"`) {
		t.Errorf("Install wrote %s; want the link's target %s, holding seq", res.File, target)
	}
}

func TestClientFiles(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	desktop := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	switch runtime.GOOS {
	case "darwin":
		desktop = filepath.Join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
	case "windows":
		t.Skip("the Windows folders come from APPDATA and USERPROFILE")
	}
	for name, want := range map[string]string{
		"claude-desktop": desktop,
		"claude-code":    filepath.Join(home, ".claude.json"),
		"cursor":         filepath.Join(home, ".cursor", "mcp.json"),
	} {
		c, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.File(); err != nil || got != want {
			t.Errorf("%s: File() = %q, %v; want %q", name, got, err, want)
		}
	}
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, "cc"))
	if c, _ := Lookup("claude-code"); c != nil {
		if got, _ := c.File(); got != filepath.Join(home, "cc", ".claude.json") {
			t.Errorf("claude-code with CLAUDE_CONFIG_DIR: File() = %q", got)
		}
	}
	if _, err := Lookup("vscode"); err == nil || !strings.Contains(err.Error(), `"vscode"`) || !strings.Contains(err.Error(), "claude-desktop, claude-code, cursor") {
		t.Errorf("Lookup(vscode): %v; want an error listing the known clients", err)
	}
}

// A client name differing only in case is that client; a misspelt one is
// answered with the likely name.
func TestLookupForgives(t *testing.T) {
	if c, err := Lookup("Claude-Desktop"); err != nil || c.Name != "claude-desktop" {
		t.Errorf("Lookup(Claude-Desktop) = %v, %v; want claude-desktop", c, err)
	}
	_, err := Lookup("claude-dekstop")
	if err == nil || !strings.Contains(err.Error(), "did you mean 'claude-desktop'?") {
		t.Errorf("Lookup(claude-dekstop): %v; want a did-you-mean naming claude-desktop", err)
	}
}

// A merge keeps the file's layout: its indent, its Windows line endings,
// its byte-order mark; only the added entry is new.
func TestMergeKeepsLayout(t *testing.T) {
	const bom = "\ufeff"
	entry := func(indent, nl string) string {
		lines := []string{
			`"chem": {`,
			indent + `"command": "/opt/nexus/bin/nexus",`,
			indent + `"args": [`,
			indent + indent + `"mcp",`,
			indent + indent + `"/home/u/chem-build/manifest.json"`,
			indent + `]`,
			`}`,
		}
		for i := range lines {
			lines[i] = indent + indent + lines[i]
		}
		return strings.Join(lines, nl)
	}
	cases := []struct{ name, old, want string }{
		{"four spaces",
			"{\n    \"a\": {\n        \"b\": 1\n    }\n}\n",
			"{\n    \"a\": {\n        \"b\": 1\n    },\n    \"mcpServers\": {\n" + entry("    ", "\n") + "\n    }\n}\n"},
		{"tabs",
			"{\n\t\"mcpServers\": {}\n}",
			"{\n\t\"mcpServers\": {\n" + entry("\t", "\n") + "\n\t}\n}\n"},
		{"CRLF",
			"{\r\n  \"mcpServers\": {}\r\n}\r\n",
			"{\r\n  \"mcpServers\": {\r\n" + entry("  ", "\r\n") + "\r\n  }\r\n}\r\n"},
		{"byte-order mark",
			bom + "{\"mcpServers\": {}}",
			bom + "{\n  \"mcpServers\": {\n" + entry("  ", "\n") + "\n  }\n}\n"},
		{"byte-order mark, empty", bom,
			bom + "{\n  \"mcpServers\": {\n" + entry("  ", "\n") + "\n  }\n}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := Merge([]byte(c.old), []Server{chem}, false)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("merged:\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// JSON with comments or trailing commas (JSONC, which some editors and
// clients accept) is refused with a message that says so.
func TestMergeNamesJSONC(t *testing.T) {
	cases := []struct{ name, old, want string }{
		{"line comment", "{\n  // servers\n  \"mcpServers\": {}\n}", "has a comment (line 2)"},
		{"block comment", "{\"a\": 1 /* one */}", "has a comment (line 1)"},
		{"trailing comma in object", "{\"a\": 1,\n}", "comma before a closing bracket (line 2)"},
		{"trailing comma in array", "{\"a\": [1, 2, ]}", "comma before a closing bracket (line 1)"},
		{"slashes in a string are no comment", "{\"a\": \"//\" \"b\"}", "not valid JSON (line 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Merge([]byte(c.old), []Server{chem}, false)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Merge(%q): %v; want an error saying %q", c.old, err, c.want)
			}
		})
	}
}

// A folder or a read-only file is refused, and left as it was.
func TestInstallRefusesFolderAndReadOnly(t *testing.T) {
	dir := t.TempDir()
	if _, err := Install(dir, []Server{chem}, false); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("Install into a folder: %v; want an error saying it is a folder", err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	file := filepath.Join(dir, "mcp.json")
	const old = `{"mcpServers": {}}`
	if err := os.WriteFile(file, []byte(old), 0o444); err != nil {
		t.Fatal(err)
	}
	_, err := Install(file, []Server{chem}, false)
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Install into a read-only file: %v; want an error saying it is read-only", err)
	}
	if got := readFile(t, file); got != old {
		t.Errorf("the read-only file changed:\n%s", got)
	}
	if b := backups(t, file); len(b) != 0 {
		t.Errorf("backups of a refused file: %v", b)
	}
}

// Installs into one file at the same time all land: none reads the file
// while another is replacing it, and so none drops another's entry.
func TestInstallConcurrent(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no file locks on Windows")
	}
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers": {"other": {"command": "x"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := Server{Name: fmt.Sprintf("p%d", i), Command: "/bin/nexus", Args: []string{"mcp", "m.json"}}
			_, errs[i] = Install(file, []Server{s}, false)
		}()
	}
	wg.Wait()
	got := readFile(t, file)
	for i, err := range errs {
		if err != nil {
			t.Errorf("install %d: %v", i, err)
		}
		if !strings.Contains(got, fmt.Sprintf(`"p%d"`, i)) {
			t.Errorf("entry p%d is missing", i)
		}
	}
	if !strings.Contains(got, `"other"`) {
		t.Errorf("entry other is missing")
	}
}
