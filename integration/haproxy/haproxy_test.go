package haproxy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Config keeps deploy/haproxy.cfg as it is but for the bind address and
// the server lines, and HAProxy accepts the result.
func TestConfigOfDeploy(t *testing.T) {
	tmpl, err := os.ReadFile(filepath.Join("..", "..", "deploy", "haproxy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Config(tmpl, 18080, []string{"127.0.0.1:9001", "127.0.0.1:9002"})
	if err != nil {
		t.Fatal(err)
	}
	var kept, want []string
	for _, line := range strings.Split(string(tmpl), "\n") {
		if f := strings.Fields(line); len(f) > 0 && (f[0] == "server" || f[0] == "bind") {
			continue
		}
		want = append(want, line)
	}
	var servers []string
	for _, line := range strings.Split(string(cfg), "\n") {
		switch f := strings.Fields(line); {
		case len(f) > 0 && f[0] == "server":
			servers = append(servers, strings.Join(f, " "))
		case len(f) > 0 && f[0] == "bind":
			if got := strings.Join(f, " "); got != "bind 127.0.0.1:18080" {
				t.Errorf("bind line %q, want bind 127.0.0.1:18080", got)
			}
		default:
			kept = append(kept, line)
		}
	}
	if strings.Join(kept, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines other than bind and server changed:\n%s\nwant:\n%s", strings.Join(kept, "\n"), strings.Join(want, "\n"))
	}
	if got, wantS := strings.Join(servers, "; "), "server r1 127.0.0.1:9001 check; server r2 127.0.0.1:9002 check"; got != wantS {
		t.Errorf("server lines %q, want %q", got, wantS)
	}
	binary, err := exec.LookPath("haproxy")
	if err != nil {
		t.Skipf("haproxy is not installed (scripts/setup.sh installs it): %v", err)
	}
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(binary, "-c", "-f", path).CombinedOutput(); err != nil {
		t.Errorf("haproxy -c: %v\n%s", err, out)
	}
}

func TestConfigRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, tmpl string
		backends   []string
		want       string
	}{
		{"no server line", "frontend f\n    bind 127.0.0.1:1\n", []string{"127.0.0.1:2"}, "0 server lines"},
		{"no bind line", "backend b\n    server r1 127.0.0.1:1 check\n", []string{"127.0.0.1:2"}, "found 0 bind"},
		{"two bind lines", "    bind a:1\n    bind b:1\n    server r1 x:1\n", []string{"127.0.0.1:2"}, "found 2 bind"},
		{"no backend", "    bind a:1\n    server r1 x:1\n", nil, "no backend"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Config([]byte(tc.tmpl), 1, tc.backends)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Config: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
