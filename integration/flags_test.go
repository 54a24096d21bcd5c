package integration

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUnknownFlags: a flag a nexus command does not have is named as such,
// with the flag most likely meant, before or after the programs, and is a
// usage error (exit 2) — not a program called --port.
func TestUnknownFlags(t *testing.T) {
	p := build(t, httpProgram)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"serve", p.launcher, "--port", "8080"}, "unknown flag --port for nexus serve (did you mean --http-port?)"},
		{[]string{"serve", p.launcher, "--http-port", "0", "--port", "8080"}, "unknown flag --port for nexus serve (did you mean --http-port?)"},
		{[]string{"serve", "--port=8080", p.launcher}, "unknown flag --port for nexus serve (did you mean --http-port?)"},
		{[]string{"mcp", p.launcher, "--http-prot", "8080"}, "unknown flag --http-prot for nexus mcp (did you mean --http-port?)"},
		{[]string{"mcp", p.launcher, "--max-sesions", "3", "--http-port", "0"}, "unknown flag --max-sesions for nexus mcp (did you mean --max-sessions?)"},
		{[]string{"make", filepath.Join(p.dir, "main.loc"), "--frobnicate"}, "unknown flag --frobnicate for nexus make;"},
	} {
		res := runIn(t, t.TempDir(), nil, "env", append([]string{"TMPDIR=" + p.tmp, nexusBin}, c.args...)...)
		if res.code != 2 || !strings.Contains(res.stderr, c.says) || strings.Contains(res.stderr, "no program") || strings.Contains(res.stderr, "serving") {
			t.Errorf("nexus %s: exit %d, stderr %q; want exit 2 saying %q", strings.Join(c.args, " "), res.code, res.stderr, c.says)
		}
	}
	p.checkClean()
}

// TestCommandHelp: every command's --help says what its flags really do
// when left out: nexus serve's --http-port says it is needed without
// --socket and shows no default port, nexus mcp
// without --http-port serves stdio (not port 0). --help after a program
// is help too.
func TestCommandHelp(t *testing.T) {
	p := build(t, httpProgram)
	helpLine := func(args []string, flag string) string {
		t.Helper()
		res := runIn(t, t.TempDir(), nil, nexusBin, args...)
		if res.code != 0 {
			t.Fatalf("nexus %s: exit %d, stderr %q", strings.Join(args, " "), res.code, res.stderr)
		}
		m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(flag) + `\b.*$`).FindString(res.stdout)
		if m == "" {
			t.Fatalf("nexus %s: no line for %s in\n%s", strings.Join(args, " "), flag, res.stdout)
		}
		return m
	}
	for _, args := range [][]string{{"serve", "--help"}, {"serve", p.launcher, "--help"}, {"serve", p.launcher, "-h"}} {
		// --http-port is needed unless --socket is given.
		if l := helpLine(args, "--http-port"); !strings.Contains(l, "needed unless --socket") || strings.Contains(l, "default: 0") {
			t.Errorf("nexus %s: %q, want --http-port said needed unless --socket, without a default port", strings.Join(args, " "), l)
		}
	}
	if l := helpLine([]string{"mcp", p.launcher, "--help"}, "--http-port"); !strings.HasSuffix(l, "(default: stdio)") {
		t.Errorf("nexus mcp --help: %q, want --http-port's default said to be stdio", l)
	}
	res := runIn(t, t.TempDir(), nil, nexusBin, "serve", p.launcher)
	if res.code != 2 || !strings.Contains(res.stderr, "--http-port N, --socket PATH") {
		t.Errorf("nexus serve without --http-port or --socket: exit %d, stderr %q; want exit 2 naming them", res.code, res.stderr)
	}
	p.checkClean()
}
