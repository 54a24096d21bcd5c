package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// installedServer returns the absolute path of a test MCP server that make
// setup installs, failing (never skipping) when it is not there.
func installedServer(t *testing.T, rel ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(append([]string{"..", "..", "integration", "mcpservers"}, rel...)...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed (%v): run make setup", p, err)
	}
	return p
}

// TestMCPImportRealServers runs mcp-import against server-everything and
// mcp-server-time, real servers over stdio.
func TestMCPImportRealServers(t *testing.T) {
	everything := installedServer(t, "node_modules", ".bin", "mcp-server-everything")
	timeServer := installedServer(t, ".venv", "bin", "mcp-server-time")

	code, stdout, stderr := runCaptured(t, "mcp-import", everything+" stdio")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr %q, want nothing (the server's own stderr is shown only on failure)", stderr)
	}
	// The generator's own tests parse and check its output; here, the
	// command hands it the server's tools and the options.
	for _, want := range []string{
		"module mcp-server-everything (echo, getAnnotatedMessage, getEnv, ",
		"source MCP from \"" + everything + " stdio\" (\n  \"echo\",\n",
		"  \"get-sum\" as getSum,\n",
		"  \"get-structured-content\" as getStructuredContent,\n",
		"--' Echoes back the input string\necho ::\n  --' Message to echo\n  --' @name message\n  Str ->\n  Str\n",
		"getSum ::\n  --' First number\n  --' @name a\n  Real ->\n  --' Second number\n  --' @name b\n  Real ->\n  Str\n",
		"record GetStructuredContentResult where\n",
		"  --' @name location\n  Str ->\n  GetStructuredContentResult\n",
		"getEnv :: Str\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the output does not have\n%s\n---\n%s", want, stdout)
		}
	}
	if items, sigs := strings.Count(stdout, "\n  \"get-"), strings.Count(stdout, "\nget"); items < 8 || items != sigs {
		t.Errorf("%d get- tools imported, %d signatures of them; want the same, at least 8", items, sigs)
	}

	code, stdout, stderr = runCaptured(t, "mcp-import", everything+" stdio", "--as", "ev", "--fragment")
	if code != 0 {
		t.Fatalf("--as ev --fragment: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "\nmodule ") {
		t.Errorf("--fragment printed a module line:\n%s", stdout)
	}
	for _, want := range []string{"\"echo\" as evEcho,", "\"get-sum\" as evGetSum,", "record EvGetStructuredContentResult where"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--as ev: the output does not have %q\n%s", want, stdout)
		}
	}

	code, stdout, stderr = runCaptured(t, "mcp-import", timeServer, "--env", "TZ", "--env", "LOG_LEVEL=a,b", "--timeout", "30000", "--module", "clock")
	if code != 0 {
		t.Fatalf("mcp-server-time: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"module clock (get_current_time, convert_time)\n",
		"--' @env TZ\n--' @env LOG_LEVEL=a,b\n--' @timeout 30000\nsource MCP from \"" + timeServer + "\" (\n  \"get_current_time\",\n  \"convert_time\")\n",
		"get_current_time ::\n",
		"  --' @name timezone\n  Str ->\n  GetCurrentTimeResult\n",
		"  is_dst :: Bool\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("mcp-server-time: the output does not have\n%s\n---\n%s", want, stdout)
		}
	}
}

// TestMCPImportFailures: a server that cannot be reached is exit 1 with a
// message naming it; a mistake in the command line is exit 2, and nothing
// is started.
func TestMCPImportFailures(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"/no/such/mcp-server --stdio"}, 1, []string{`nexus: mcp server /no/such/mcp-server --stdio: cannot start command "/no/such/mcp-server"`}},
		{[]string{"sh -c 'echo cannot open the database >&2; exit 3'"}, 1, []string{"cannot open the database", "the server exited (exit status 3)"}},
		{[]string{"sleep 30", "--timeout", "300"}, 1, []string{"nexus: mcp server sleep 30: connect: no answer within 300ms"}},
		{[]string{"http://127.0.0.1:1/mcp"}, 1, []string{"nexus: mcp server http://127.0.0.1:1/mcp: connect:", "connection refused"}},
		{[]string{"http://user:s3cret@127.0.0.1:1/mcp"}, 1, []string{"nexus: mcp server http://user:***@127.0.0.1:1/mcp: connect:", "connection refused"}},
		{[]string{"http://127.0.0.1:1/mcp?token=s3cret"}, 1, []string{"connection refused", "?token=***"}},
		{[]string{"https://user:s3cret@/mcp"}, 2, []string{`nexus: mcp server "https://user:***@/mcp": not a valid http(s) URL`}},
		{[]string{"https://user:s3cret@127.0.0.1:1/mcp", "--cwd", "/tmp"}, 2, []string{"and https://user:***@127.0.0.1:1/mcp is an HTTP endpoint"}},
		{[]string{}, 2, []string{"nexus: mcp-import needs one server"}},
		{[]string{"uvx", "mcp-server-time"}, 2, []string{"nexus: mcp-import needs one server, quoted when it is a command with arguments"}},
		{[]string{"srv", "--as", "Ev"}, 2, []string{"nexus: --as Ev: a prefix is a lowercase letter"}},
		{[]string{"srv", "--module", "My Tools"}, 2, []string{"nexus: --module My Tools: a module name is lowercase words"}},
		{[]string{"srv", "--timeout", "-1"}, 2, []string{"nexus: --timeout must not be negative (got -1)"}},
		{[]string{"srv", "--env", "A B"}, 2, []string{`"A B" is not an environment variable`}},
		{[]string{"srv", "--bearer", "KEY"}, 2, []string{"nexus: --bearer and --header apply to an HTTP server, and srv is a command"}},
		{[]string{"http://127.0.0.1:1/mcp", "--cwd", "/tmp"}, 2, []string{"nexus: --env and --cwd apply to a server started as a command"}},
		{[]string{"http://127.0.0.1:1/mcp", "--header", "no colon"}, 2, []string{`nexus: --header "no colon": expected 'Name: value'`}},
		{[]string{"http://127.0.0.1:1/mcp", "--header", "X@Org: acme"}, 2, []string{`nexus: --header "X@Org: acme": expected 'Name: value' with an HTTP header name`}},
		{[]string{"http://127.0.0.1:1/mcp", "--bearer", "NEXUS_TEST_UNSET_VARIABLE"}, 1, []string{"nexus: --bearer NEXUS_TEST_UNSET_VARIABLE: the variable NEXUS_TEST_UNSET_VARIABLE is not set"}},
		{[]string{"srv 'unclosed"}, 2, []string{"is not closed"}},
		{[]string{"srv", "--fragmnet"}, 2, []string{"nexus: unknown flag --fragmnet for nexus mcp-import (did you mean --fragment?)"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCaptured(t, append([]string{"mcp-import"}, c.args...)...)
			if code != c.code || stdout != "" {
				t.Errorf("exit %d, stdout %q; want %d and nothing", code, stdout, c.code)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
			if strings.Contains(stderr, "s3cret") {
				t.Errorf("stderr shows the password: %q", stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Count(stderr, "\n") > 3 {
				t.Errorf("stderr is more than a message:\n%s", stderr)
			}
		})
	}
}
