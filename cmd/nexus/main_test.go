package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCaptured runs the nexus command line in-process and returns its exit
// code and what it wrote to standard output and standard error.
func runCaptured(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	outFile, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	errFile, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	savedOut, savedErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = outFile, errFile
	code = run(append([]string{"nexus"}, args...))
	os.Stdout, os.Stderr = savedOut, savedErr
	outFile.Close()
	errFile.Close()
	o, _ := os.ReadFile(outFile.Name())
	e, _ := os.ReadFile(errFile.Name())
	return code, string(o), string(e)
}

// A flag a command does not know is a usage error like any other: exit
// code 2 and one line naming the flag, not urfave/cli's "Incorrect Usage"
// with the whole help and exit code 1.
func TestUnknownFlagIsUsageError(t *testing.T) {
	for _, args := range [][]string{
		{"--bogus"},
		{"make", "--bogus", "main.loc"},
		{"mcp", "--bogus", "./prog"},
		{"mcp-config", "--bogus", "./prog"},
		{"install-client", "--bogus", "cursor", "./prog"},
		{"serve", "--bogus", "./prog"},
		{"version", "--bogus"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runCaptured(t, args...)
			if code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			want := "nexus: unknown flag --bogus; nexus --help lists its flags and commands\n"
			if cmd := args[0]; cmd != "--bogus" {
				want = "nexus: unknown flag --bogus for nexus " + cmd + "; nexus " + cmd + " --help lists its flags\n"
			}
			if stderr != want {
				t.Errorf("stderr %q, want %q", stderr, want)
			}
		})
	}
}

// An empty --config is a mistake (an unset variable, say), not a request
// for the client's usual file.
func TestInstallClientEmptyConfig(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	code, _, stderr := runCaptured(t, "install-client", "cursor", "--config", "", "./prog")
	if code != 2 || !strings.Contains(stderr, "--config") {
		t.Errorf("exit code %d, stderr %q; want 2 and a message about --config", code, stderr)
	}
}

// The help of the commands a new user meets first shows an example, and
// install-client's names the file it would change for each client.
func TestHelpShowsExamples(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"Example:", "nexus make -o chem main.loc", "nexus install-client claude-desktop ./chem"}},
		{[]string{"make", "--help"}, []string{"Examples:", "nexus make --python ~/venvs/chem/bin/python main.loc", "3.7 or later"}},
		{[]string{"mcp-config", "--help"}, []string{"Example:", "nexus mcp-config ./chem ./seq"}},
		{[]string{"install-client", "--help"}, []string{"Examples:", "nexus install-client claude-desktop ./chem",
			filepath.Join(home, ".claude.json"), filepath.Join(home, ".cursor", "mcp.json")}},
	}
	for _, c := range cases {
		code, stdout, stderr := runCaptured(t, c.args...)
		if code != 0 {
			t.Errorf("nexus %s: exit %d, %s", strings.Join(c.args, " "), code, stderr)
		}
		for _, want := range c.want {
			if !strings.Contains(stdout, want) {
				t.Errorf("nexus %s does not say %q:\n%s", strings.Join(c.args, " "), want, stdout)
			}
		}
	}
}

// --python for a program without Python functions builds it, and says
// the interpreter was not used; NEXUS_PYTHON, set for every build, does
// not warn.
func TestMakePythonUnused(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "main.loc")
	if err := os.WriteFile(src, []byte("module pure (answer)\nanswer :: Int\nanswer = 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "pure")
	t.Setenv("NEXUS_PYTHON", "")
	code, _, stderr := runCaptured(t, "make", "--python", "/no/such/python", "-o", out, src)
	if code != 0 || !strings.Contains(stderr, "--python /no/such/python is not used: the program has no Python functions") {
		t.Errorf("make --python of a program without Python: exit %d, stderr %q; want 0 and a warning", code, stderr)
	}
	t.Setenv("NEXUS_PYTHON", "/no/such/python")
	code, _, stderr = runCaptured(t, "make", "-o", out, src)
	if code != 0 || stderr != "" {
		t.Errorf("make with NEXUS_PYTHON of a program without Python: exit %d, stderr %q; want 0 and no warning", code, stderr)
	}
}

// A negative bound is a mistake, refused at start as one (exit 2, naming
// the flag), rather than silently read as the default ("--max-line -5"
// served lines of 64 MiB) or shown back as nonsense ("finishing the calls
// in flight (up to -1s)").
func TestNegativeBoundIsUsageError(t *testing.T) {
	for _, args := range [][]string{
		{"mcp", "./prog", "--max-line", "-5"},
		{"mcp", "./prog", "--max-backlog", "-1"},
		{"mcp", "./prog", "--pool-calls", "-1"},
		{"mcp", "./prog", "--timeout", "-1s"},
		{"mcp", "./prog", "--shutdown-grace", "-1s"},
		{"mcp", "./prog", "--http-port", "0", "--max-sessions", "-1"},
		{"mcp", "./prog", "--http-port", "0", "--max-client-sessions", "-1"},
		{"mcp", "./prog", "--http-port", "0", "--max-conns", "-1"},
		{"mcp", "./prog", "--http-port", "0", "--max-body", "-1"},
		{"mcp", "./prog", "--http-port", "0", "--session-idle", "-1s"},
		{"mcp", "./prog", "--http-port", "0", "--session-unused", "-1s"},
		{"serve", "./prog", "--http-port", "0", "--shutdown-grace", "-1s"},
		{"serve", "./prog", "--http-port", "0", "--pool-calls", "-3"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, stderr := runCaptured(t, args...)
			flag := args[len(args)-2]
			want := "nexus: " + flag + " must not be negative (got " + args[len(args)-1] + ")\n"
			if code != 2 || stderr != want {
				t.Errorf("exit code %d, stderr %q; want 2 and %q", code, stderr, want)
			}
		})
	}
}
