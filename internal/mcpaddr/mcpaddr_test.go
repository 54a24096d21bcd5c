package mcpaddr

import (
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
		bad  bool
	}{
		{line: "npx -y pkg", want: []string{"npx", "-y", "pkg"}},
		{line: `  a  'b c'  "d \"e\" \\" f'g'h `, want: []string{"a", "b c", `d "e" \`, "fgh"}},
		{line: `a ''`, want: []string{"a", ""}},
		{line: "a 'b", bad: true},
		{line: `a "b`, bad: true},
		{line: "   ", bad: true},
	} {
		got, err := Split(tc.line)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: got %q, want an error", tc.line, got)
			}
			continue
		}
		if err != nil || strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") || len(got) != len(tc.want) {
			t.Errorf("%q: got %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
}

func TestName(t *testing.T) {
	for _, tc := range []struct{ server, want string }{
		{"npx -y @modelcontextprotocol/server-everything", "server-everything"},
		{"npx -y @modelcontextprotocol/server-everything@2026.8.31", "server-everything"},
		{"/work/x/.venv/bin/mcp-server-time --local-timezone UTC", "mcp-server-time"},
		{"uvx mcp-server-time", "mcp-server-time"},
		{"python3 -m mcp_server_time", "mcp_server_time"},
		{"/usr/bin/python3.12 'my server.py'", "my server.py"},
		{"npx", "npx"},
		{"https://docs.example.com/mcp", "docs.example.com"},
		{"http://127.0.0.1:8080/mcp", "127.0.0.1:8080"},
		{"https://user:s3cret@docs.example.com/mcp", "docs.example.com"},
		{"https://user:s3cret@/mcp", "https://user:***@/mcp"},
	} {
		if got := Name(tc.server); got != tc.want {
			t.Errorf("Name(%q) = %q, want %q", tc.server, got, tc.want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://docs.example.com/mcp", true},
		{"http://127.0.0.1:8080/mcp", true},
		{"http://", false},
		{"https:///mcp", false},
		{"http://exa mple.com/", false},
	} {
		if err := CheckURL(tc.url); (err == nil) != tc.ok {
			t.Errorf("CheckURL(%q) = %v, want ok %v", tc.url, err, tc.ok)
		}
	}
}

// TestRedact: no password of an endpoint URL is shown, whether the URL
// parses or not; what is not a password is left as written.
func TestRedact(t *testing.T) {
	for _, tc := range []struct{ server, want string }{
		{"https://user:s3cret@docs.example.com/mcp", "https://user:***@docs.example.com/mcp"},
		{"http://user@127.0.0.1:8080/mcp", "http://user@127.0.0.1:8080/mcp"},
		{"https://docs.example.com/@scope/mcp", "https://docs.example.com/@scope/mcp"},
		{"https://user:s3cret@/mcp", "https://user:***@/mcp"},
		{"https://user:s3/cr et@host/mcp", "https://user:***@host/mcp"},
		{"https://user:s3cret@exa mple.com/mcp?q=@x", "https://user:***@exa mple.com/mcp?q=@x"},
		{"npx -y server --password=s3cret", "npx -y server --password=s3cret"},
		{"https://docs.example.com/mcp?api_key=s3cret&v=2", "https://docs.example.com/mcp?api_key=***&v=***"},
		{"https://u:s3cret@docs.example.com/mcp?token=s3cret", "https://u:***@docs.example.com/mcp?token=***"},
	} {
		if got := Redact(tc.server); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.server, got, tc.want)
		}
	}
	for _, bad := range []string{"https://user:s3cret@/mcp", "https://user:s3/cr et@host/mcp"} {
		if err := CheckURL(bad); err == nil || strings.Contains(err.Error(), "s3") {
			t.Errorf("CheckURL(%q) = %v, want an error without the password", bad, err)
		}
	}
}

func TestValidEnvName(t *testing.T) {
	for name, ok := range map[string]bool{"GITHUB_TOKEN": true, "_x1": true, "": false, "1A": false, "A-B": false, "A=B": false} {
		if ValidEnvName(name) != ok {
			t.Errorf("ValidEnvName(%q) = %v, want %v", name, !ok, ok)
		}
	}
}

func TestJoin(t *testing.T) {
	for _, args := range [][]string{
		{"npx", "-y", "@modelcontextprotocol/server-everything"},
		{"/a b/server", "--name", "it's", `say "hi" \ now`, ""},
		{`C:\tools\srv.exe`, "\t"},
	} {
		line := Join(args)
		got, err := Split(line)
		if err != nil || !slices.Equal(got, args) {
			t.Errorf("Split(Join(%q)) = Split(%s) = %q, %v", args, line, got, err)
		}
	}
	if got := Join([]string{"npx", "-y", "pkg"}); got != "npx -y pkg" {
		t.Errorf("Join quotes what needs no quotes: %s", got)
	}
}

func TestScrub(t *testing.T) {
	const server = "http://u:s3cret@127.0.0.1:1/mcp?token=s3cret"
	for _, text := range []string{
		`Post "` + server + `": dial tcp 127.0.0.1:1: connect: connection refused`,
		`Post "http://u:***@127.0.0.1:1/mcp?token=s3cret": dial tcp`,
	} {
		if got := Scrub(text, server); strings.Contains(got, "s3cret") || !strings.Contains(got, "127.0.0.1:1/mcp?token=***") {
			t.Errorf("Scrub(%q) = %q", text, got)
		}
	}
}

func TestParseHeader(t *testing.T) {
	for header, want := range map[string][2]string{
		"X-Org: acme":        {"X-Org", "acme"},
		" X-Team :  search ": {"X-Team", "search"},
		"X-Empty:":           {"X-Empty", ""},
	} {
		name, value, ok := ParseHeader(header)
		if !ok || name != want[0] || value != want[1] {
			t.Errorf("ParseHeader(%q) = %q, %q, %v; want %q, %q", header, name, value, ok, want[0], want[1])
		}
	}
	for _, bad := range []string{"X-Org acme", "X Org: acme", "X@Org: acme", ": acme", ""} {
		if _, _, ok := ParseHeader(bad); ok {
			t.Errorf("ParseHeader(%q) took it", bad)
		}
	}
}
