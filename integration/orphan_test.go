package integration

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/proto"
)

// TestPoolsEndWhenOrphaned: a pool of each language whose nexus is gone
// ends by itself. Each pool is started by a shell that exits once the pool
// has written its handshake, so Linux's parent-death signal (which a fork
// does not inherit) is not what ends it: this is how every pool ends on
// macOS, which has no such signal.
func TestPoolsEndWhenOrphaned(t *testing.T) {
	p := build(t, exampleFiles(t, "chem"))
	m, err := manifest.Load(p.launcher)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Pools) != 3 {
		t.Fatalf("the chem example has %d pools, want 3", len(m.Pools))
	}
	for i := range m.Pools {
		pool := &m.Pools[i]
		t.Run(pool.Lang, func(t *testing.T) {
			handshake := filepath.Join(t.TempDir(), "handshake")
			cmd := exec.Command("sh", append([]string{"-c", `"$@" >"$HANDSHAKE" & i=0; while [ ! -s "$HANDSHAKE" ] && [ $i -lt 6000 ]; do sleep 0.01; i=$((i+1)); done; echo $!`, "sh"}, m.PoolCommand(pool)...)...)
			cmd.Dir = p.dir
			cmd.Env = append(os.Environ(), "HANDSHAKE="+handshake,
				proto.MagicCookieKey+"="+proto.MagicCookieValue,
				"PLUGIN_PROTOCOL_VERSIONS=1",
				"PLUGIN_UNIX_SOCKET_DIR="+t.TempDir())
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cmd.Stderr = w // the pool's stderr: closed when it ends
			out, err := cmd.Output()
			w.Close()
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
			if err != nil {
				t.Fatalf("the shell printed no pid: %q", out)
			}
			ended := make(chan string, 1)
			go func() {
				b, _ := io.ReadAll(r)
				ended <- string(b)
			}()
			select {
			case stderr := <-ended:
				// It served: it wrote its handshake, and nothing went wrong.
				if data, _ := os.ReadFile(handshake); !strings.HasPrefix(string(data), "1|1|unix|") {
					t.Errorf("no handshake from the pool: %q (stderr %q)", data, stderr)
				}
				if stderr != "" {
					t.Errorf("pool stderr: %q", stderr)
				}
			case <-time.After(time.Minute):
				if proc, err := os.FindProcess(pid); err == nil {
					proc.Kill()
				}
				t.Fatalf("pool %d still runs a minute after its parent exited", pid)
			}
		})
	}
}
