package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/internal/pooltest"
)

// What an MCP client that is not a shell gets: Claude Desktop on macOS
// starts servers with a bare environment, without the user's PATH.

// trioProgram has one tool per pool language.
var trioProgram = files{
	"trio.py": `
def shout(s):
    return s.upper() + "!"
`,
	"trio.hpp": `#pragma once
inline double add(double a, double b) { return a + b; }
`,
	"trio.go": `package trio

import "strings"

func Repeat(s string, n int) string { return strings.Repeat(s, n) }
`,
	"main.loc": `
module trio (shout, add, repeat)
import root-py
import root-cpp
import root-go
source Py from "trio.py" ("shout")
source Cpp from "trio.hpp" ("add")
source Go from "trio.go" ("Repeat" as repeat)
shout :: Str -> Str
add :: Real -> Real -> Real
repeat :: Str -> Int -> Str
`,
}

// mcpServerEntry is one entry of an mcpServers object.
type mcpServerEntry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// configEntry is the entry `./prog --mcp-config` prints for p, which must
// be one server named prog, the launcher's name.
func configEntry(t *testing.T, p *program) mcpServerEntry {
	t.Helper()
	var cfg struct {
		MCPServers map[string]mcpServerEntry `json:"mcpServers"`
	}
	out := p.ok("--mcp-config")
	if err := json.Unmarshal([]byte(out), &cfg); err != nil {
		t.Fatalf("--mcp-config: %v\n%s", err, out)
	}
	entry, ok := cfg.MCPServers["prog"]
	if len(cfg.MCPServers) != 1 || !ok {
		t.Fatalf("--mcp-config: want one server named prog:\n%s", out)
	}
	return entry
}

// TestMCPConfigEmptyEnvironment: the command `--mcp-config` prints,
// started with no environment at all (no PATH, no HOME), serves a Python,
// a C++ and a Go tool to the Go SDK's client.
func TestMCPConfigEmptyEnvironment(t *testing.T) {
	p := build(t, trioProgram)
	entry := configEntry(t, p)

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.Command(entry.Command, entry.Args...)
	cs, stderr := connectCommand(ctx, t, cmd, []string{})
	t.Cleanup(func() { cmd.Process.Kill() })
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"shout", map[string]any{"_1": "hi"}, `"HI!"`},
		{"add", map[string]any{"_1": 1.5, "_2": 2}, "3.5"},
		{"repeat", map[string]any{"_1": "ab", "_2": 3}, `"ababab"`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v\nstderr:\n%s", c.tool, err, stderr)
		}
		if got := toolText(res); res.IsError || got != c.want {
			t.Errorf("%s %v with an empty environment = %q (error: %v), want %q\nstderr:\n%s", c.tool, c.args, got, res.IsError, c.want, stderr)
		}
	}
	if err := cs.Close(); err != nil {
		t.Errorf("the server did not exit cleanly when its stdin closed: %v\nstderr:\n%s", err, stderr)
	}
	if left := processesMentioning(p.launcher + "-build"); len(left) > 0 {
		t.Errorf("pools left running: %v", left)
	}
}

// TestMCPConfigServerCommands: a program that starts an MCP server by a
// command found on PATH (`source MCP from "mcp-server-everything"`) gets
// the PATH it was configured with in its entry's env, and served with that
// environment alone, as a GUI client that does not load the user's shell
// would, calls the server's tool. A program without such a server gets no
// env.
func TestMCPConfigServerCommands(t *testing.T) {
	if entry := configEntry(t, build(t, trioProgram)); entry.Env != nil {
		t.Errorf("a program without MCP servers got env %v", entry.Env)
	}
	bin := filepath.Dir(installedServer(t, filepath.Join("node_modules", ".bin", "mcp-server-everything")))
	p := build(t, files{"main.loc": `
module prog (echo)
source MCP from "mcp-server-everything" ("echo")
echo :: --' @name message
        Str -> Str
`})
	res := runIn(t, t.TempDir(), nil, "env", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), p.launcher, "--mcp-config")
	var cfg struct {
		MCPServers map[string]mcpServerEntry `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &cfg); res.code != 0 || err != nil {
		t.Fatalf("--mcp-config: exit %d, %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	entry := cfg.MCPServers["prog"]
	if !strings.HasPrefix(entry.Env["PATH"], bin) {
		t.Fatalf("entry env %v: want the PATH the program was configured with", entry.Env)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, stderr := connectCommand(ctx, t, exec.Command(entry.Command, entry.Args...), []string{"PATH=" + entry.Env["PATH"]})
	defer cs.Close()
	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
	if err != nil || out.IsError || toolText(out) != `"Echo: hi"` {
		t.Errorf("echo through the configured entry: %+v, %v\nstderr:\n%s", out, err, stderr)
	}
}

// connectCommand starts cmd as a stdio MCP server in a folder of its own
// with environment env, its stderr kept, and connects the Go SDK's client.
func connectCommand(ctx context.Context, t *testing.T, cmd *exec.Cmd, env []string) (*mcp.ClientSession, *pooltest.Buffer) {
	t.Helper()
	cmd.Env = env
	cmd.Dir = t.TempDir()
	stderr := &pooltest.Buffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "nexus-integration", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: hangGuard}, nil)
	if err != nil {
		t.Fatalf("connect to %v with environment %q: %v\nstderr:\n%s", cmd.Args, env, err, stderr)
	}
	return cs, stderr
}

// toolText is the text of a tool result's content.
func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if text, ok := c.(*mcp.TextContent); ok {
			b.WriteString(text.Text)
		}
	}
	return b.String()
}

// venv makes a Python virtual environment in a new folder and returns its
// interpreter. With packages, it sees the packages of the Python it is
// made from (python3 on PATH, which has grpcio and msgpack); without, it
// has none of its own.
func venv(t *testing.T, packages bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "venv")
	args := []string{"-m", "venv", "--without-pip", dir}
	if packages {
		args = append(args, "--system-site-packages")
	}
	if out, err := exec.Command("python3", args...).CombinedOutput(); err != nil {
		t.Fatalf("python3 %v: %v\n%s", args, err, out)
	}
	return filepath.Join(dir, "bin", "python3")
}

// buildThenRemovePython builds fs with --python naming the interpreter of
// a virtual environment, then removes the environment, as a user cleaning
// up might. It returns the program and the interpreter that is gone.
func buildThenRemovePython(t *testing.T, fs files) (*program, string) {
	t.Helper()
	python := venv(t, true)
	p := build(t, fs, "--python", python)
	if err := os.RemoveAll(filepath.Dir(filepath.Dir(python))); err != nil {
		t.Fatal(err)
	}
	return p, python
}

// recordedInterpreter is the Python interpreter p's manifest records.
func recordedInterpreter(t *testing.T, p *program) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(p.launcher+"-build", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Pools []struct {
			Lang        string `json:"lang"`
			Interpreter string `json:"interpreter"`
		} `json:"pools"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, pool := range m.Pools {
		if pool.Lang == "py" {
			return pool.Interpreter
		}
	}
	t.Fatal("the manifest has no Python pool")
	return ""
}

// TestMakePythonInterpreter: `nexus make` records the interpreter named by
// --python or NEXUS_PYTHON as it is (a virtual environment's python is a
// link, whose own place picks the environment's packages), and refuses
// one without the pool's packages, saying how to install them.
func TestMakePythonInterpreter(t *testing.T) {
	withPackages := venv(t, true)
	p := build(t, trioProgram, "--python", withPackages)
	if got := recordedInterpreter(t, p); got != withPackages {
		t.Errorf("make --python %s recorded %q", withPackages, got)
	}
	if got := p.ok("shout", "venv"); got != `"VENV!"`+"\n" {
		t.Errorf("shout under the virtual environment = %q", got)
	}

	// NEXUS_PYTHON, when --python is not given.
	res := runIn(t, p.dir, nil, "env", "NEXUS_PYTHON="+withPackages, nexusBin, "make", "-o", "other", "main.loc")
	if res.code != 0 {
		t.Fatalf("make with NEXUS_PYTHON: exit %d\n%s", res.code, res.stderr)
	}
	other := &program{t: t, launcher: filepath.Join(p.dir, "other")}
	if got := recordedInterpreter(t, other); got != withPackages {
		t.Errorf("make with NEXUS_PYTHON=%s recorded %q", withPackages, got)
	}

	bare := venv(t, false)
	fs := files{}
	for name, body := range trioProgram {
		fs[name] = body
	}
	for _, flags := range [][]string{{"--python", bare}, {"--python=" + bare}} {
		dir := writeFiles(t, fs)
		res := runIn(t, dir, nil, nexusBin, append(append([]string{"make", "-o", "prog"}, flags...), "main.loc")...)
		if res.code != 1 {
			t.Fatalf("make %v with a Python without grpcio: exit %d, want 1\n%s", flags, res.code, res.stderr)
		}
		for _, want := range []string{bare + " cannot import grpc, msgpack", "`" + bare + " -m pip install grpcio msgpack`"} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("make %v with a Python without grpcio: %q does not say %q", flags, res.stderr, want)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "prog")); err == nil {
			t.Errorf("make %v with a Python without grpcio left a launcher", flags)
		}
	}
}

// TestPythonInterpreterGone: when the interpreter recorded at build time
// is removed, a Python tool says which one is gone and how to rebuild, on
// the command line and over MCP, and the other pools still serve.
func TestPythonInterpreterGone(t *testing.T) {
	p, python := buildThenRemovePython(t, trioProgram)
	wants := []string{python, "is gone", "nexus make --python"}
	stderr := p.fails(1, "shout", "x")
	for _, want := range wants {
		if !strings.Contains(stderr, want) {
			t.Errorf("shout after its interpreter was removed: %q does not say %q", stderr, want)
		}
	}
	if got := p.ok("add", "1", "2"); got != "3\n" {
		t.Errorf("add (C++) after the Python interpreter was removed = %q", got)
	}

	c := startMCPServing(t, p, p.launcher)
	c.initialize("2025-06-18")
	msg := c.callTool(1, "shout", map[string]any{"_1": "x"}).failure(t)
	for _, want := range wants {
		if !strings.Contains(msg, want) {
			t.Errorf("shout over MCP after its interpreter was removed: %q does not say %q", msg, want)
		}
	}
	if got := c.callTool(2, "repeat", map[string]any{"_1": "a", "_2": 2}).text(t); got != strJSON(`aa`) {
		t.Errorf("repeat (Go) over MCP after the Python interpreter was removed = %s", got)
	}
	c.closeAll()
}

// pureProgram needs no pool, so it builds fast.
var pureProgram = files{"main.loc": `
module pure (answer)
answer :: Int
answer = 42
`}

// buildAs builds fs with its launcher at dir/name.
func buildAs(t *testing.T, fs files, dir, name string) string {
	t.Helper()
	src := writeFiles(t, fs)
	launcher := filepath.Join(dir, name)
	if res := runIn(t, src, nil, nexusBin, "make", "-o", launcher, "main.loc"); res.code != 0 {
		t.Fatalf("nexus make -o %s: exit %d\n%s", launcher, res.code, res.stderr)
	}
	return launcher
}

// TestMCPConfigSeveralPrograms: `nexus mcp-config A B` prints one
// mcpServers object, an entry per program in order, named after the
// launchers; two programs of one name are refused.
func TestMCPConfigSeveralPrograms(t *testing.T) {
	dir := t.TempDir()
	alpha := buildAs(t, pureProgram, dir, "alpha")
	beta := buildAs(t, pureProgram, dir, "beta")
	res := runIn(t, dir, nil, nexusBin, "mcp-config", beta, "alpha", beta+"-build")
	if res.code != 0 {
		t.Fatalf("mcp-config: exit %d\n%s", res.code, res.stderr)
	}
	entry := func(launcher string) string {
		return `{"command":` + strJSON(nexusBin) + `,"args":["mcp",` + strJSON(launcher+"-build/manifest.json") + `]}`
	}
	want := `{"mcpServers":{"beta":` + entry(beta) + `,"alpha":` + entry(alpha) + `}}`
	var got bytes.Buffer
	if err := json.Compact(&got, []byte(res.stdout)); err != nil || got.String() != want {
		t.Errorf("mcp-config beta alpha beta = %s (%v), want %s", res.stdout, err, want)
	}

	// A launcher linked from a bin folder, and the same program through
	// a linked folder, are the program itself.
	if runtime.GOOS != "windows" {
		bin, linkedDir := filepath.Join(dir, "bin"), filepath.Join(t.TempDir(), "linked")
		if err := os.Mkdir(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(alpha, filepath.Join(bin, "alpha")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(dir, linkedDir); err != nil {
			t.Fatal(err)
		}
		res = runIn(t, dir, nil, nexusBin, "mcp-config", "bin/alpha", alpha, filepath.Join(linkedDir, "alpha"))
		if res.code != 0 || strings.Count(res.stdout, `"alpha"`) != 1 || !strings.Contains(res.stdout, strJSON(alpha+"-build/manifest.json")) {
			t.Errorf("mcp-config of alpha through links: exit %d, %s\n%s; want one entry, alpha", res.code, res.stdout, res.stderr)
		}
	}

	other := buildAs(t, pureProgram, filepath.Join(dir, "sub"), "alpha")
	res = runIn(t, dir, nil, nexusBin, "mcp-config", alpha, other)
	if res.code != 1 || res.stdout != "" || !strings.Contains(res.stderr, "both named alpha") {
		t.Errorf("mcp-config of two programs named alpha: exit %d, %q, %q; want 1 and an error", res.code, res.stdout, res.stderr)
	}
}

// TestInstallClient: `nexus install-client` adds a program to a client's
// file, keeping the rest and a backup; --dry-run writes nothing; a file
// that is not JSON is refused and left alone.
func TestInstallClient(t *testing.T) {
	dir := t.TempDir()
	alpha := buildAs(t, pureProgram, dir, "alpha")
	config := filepath.Join(dir, "claude_desktop_config.json")
	old := `{"globalShortcut": "Ctrl+Space", "mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-filesystem"]}}}`
	if err := os.WriteFile(config, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	want := `{"globalShortcut":"Ctrl+Space","mcpServers":{"fs":{"command":"npx","args":["-y","server-filesystem"]},` +
		`"alpha":{"command":` + strJSON(nexusBin) + `,"args":["mcp",` + strJSON(alpha+"-build/manifest.json") + `]}}}`
	compact := func(s string) string {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(s)); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, s)
		}
		return b.String()
	}

	res := runIn(t, dir, nil, nexusBin, "install-client", "claude-desktop", alpha, "--config", config, "--dry-run")
	if res.code != 0 || compact(res.stdout) != want {
		t.Errorf("install-client --dry-run: exit %d, %s\n%s\nwant %s", res.code, res.stdout, res.stderr, want)
	}
	if data, _ := os.ReadFile(config); string(data) != old {
		t.Errorf("--dry-run changed the file:\n%s", data)
	}

	res = runIn(t, dir, nil, nexusBin, "install-client", "claude-desktop", "--config", config, alpha)
	if res.code != 0 || !strings.Contains(res.stdout, "Restart Claude Desktop") {
		t.Fatalf("install-client: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	data, err := os.ReadFile(config)
	if err != nil || compact(string(data)) != want {
		t.Errorf("installed file %s (%v), want %s", data, err, want)
	}
	backups, _ := filepath.Glob(config + ".nexus-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups %v, want one", backups)
	}
	if data, _ := os.ReadFile(backups[0]); string(data) != old {
		t.Errorf("the backup holds %s, want the old file", data)
	}

	bad := `{"mcpServers": {"fs": {}},}`
	if err := os.WriteFile(config, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	res = runIn(t, dir, nil, nexusBin, "install-client", "cursor", alpha, "--config", config)
	if res.code != 1 || !strings.Contains(res.stderr, "comma before a closing bracket") {
		t.Errorf("install-client into invalid JSON: exit %d, %q; want 1 and an error", res.code, res.stderr)
	}
	if data, _ := os.ReadFile(config); string(data) != bad {
		t.Errorf("install-client changed the invalid file:\n%s", data)
	}
	res = runIn(t, dir, nil, nexusBin, "install-client", "vscode", alpha)
	if res.code != 2 || !strings.Contains(res.stderr, "claude-desktop, claude-code, cursor") {
		t.Errorf("install-client vscode: exit %d, %q; want 2 and the known clients", res.code, res.stderr)
	}
}
