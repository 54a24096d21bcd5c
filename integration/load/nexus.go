package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nexus-run/nexus/integration/procstat"
	"github.com/nexus-run/nexus/integration/profiler"
	"github.com/nexus-run/nexus/internal/pooltest"
)

// nexusServer is the running nexus server.
type nexusServer struct {
	cmd      *exec.Cmd
	base     string // http://127.0.0.1:PORT
	endpoint string // base + "/mcp"
	debug    string // http://127.0.0.1:PORT/debug/pprof/, or "" without the profiler
	stderr   *pooltest.Buffer
	exited   chan error
}

// cpuTimes are CPU times used so far: by this process, by nexus, by the
// pools nexus runs now (a pool that ended takes its time with it; the
// load fails if a pool restarts).
type cpuTimes struct{ self, nexus, pools time.Duration }

// cpu reads the CPU times of this process, nexus and its pools.
func (s *nexusServer) cpu() cpuTimes {
	var c cpuTimes
	c.self, _ = procstat.CPU(os.Getpid())
	pid := s.cmd.Process.Pid
	c.nexus, _ = procstat.CPU(pid)
	for _, p := range procstat.Children(pid) {
		d, _ := procstat.CPU(p)
		c.pools += d
	}
	return c
}

// startNexus starts `nexus mcp PROG` or `nexus serve PROG` on a free
// loopback port, with Go's profiler on another (NEXUS_DEBUG_ADDR), and
// waits for the addresses it prints.
func startNexus(ctx context.Context, c config, nexus, launcher string) (*nexusServer, error) {
	args := []string{c.server, launcher, "--http-port", "0", "--pool-calls", strconv.Itoa(c.poolCalls)}
	cmd := exec.Command(nexus, args...)
	cmd.Dir = filepath.Dir(launcher)
	// Without a line per call: the whole stderr is kept for the report,
	// and the load would grow it by a line a call.
	cmd.Env = append(os.Environ(), profiler.Env, "NEXUS_LOG_CALLS=false")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &nexusServer{cmd: cmd, stderr: &pooltest.Buffer{}, exited: make(chan error, 1)}
	serving := regexp.MustCompile(`msg=serving .*url=(http://\S+)`) // nexus's log line saying where it listens
	type addrs struct{ base, debug string }
	ready := make(chan addrs, 1)
	go func() {
		var debug string
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(s.stderr, line)
			if m := profiler.Announced.FindStringSubmatch(line); m != nil {
				debug = m[1] // printed before the server starts
			}
			if m := serving.FindStringSubmatch(line); m != nil {
				select {
				case ready <- addrs{m[1], debug}:
				default:
				}
			}
		}
		io.Copy(s.stderr, pipe)
		s.exited <- cmd.Wait()
	}()
	select {
	case a := <-ready:
		s.base, s.endpoint, s.debug = a.base, a.base+"/mcp", a.debug
		return s, nil
	case err := <-s.exited:
		return nil, fmt.Errorf("nexus %s exited before serving: %v\n%s", c.server, err, s.stderr.String())
	case <-time.After(time.Minute):
		s.cmd.Process.Kill()
		return nil, fmt.Errorf("nexus %s printed no address within a minute\n%s", c.server, s.stderr.String())
	case <-ctx.Done():
		s.cmd.Process.Kill()
		return nil, ctx.Err()
	}
}

// stop sends SIGTERM and waits for the server to exit.
func (s *nexusServer) stop() error {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		return err
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
		return errors.New("did not stop within 30 s of SIGTERM; killed")
	}
}

// snapshot is what the server looks like at one moment.
type snapshot struct {
	rss        int64 // nexus itself, bytes
	pools      []proc
	goroutines int   // -1 without the profiler
	heap       int64 // HeapAlloc after a GC, bytes; -1 without the profiler or in a light snapshot
	sessions   int   // from /health; -1 under nexus mcp, which has none
}

type proc struct {
	pid  int
	name string
	rss  int64
}

var mcpSessions = regexp.MustCompile(`"mcp_sessions":\s*(\d+)`)

// snapshot reads the server's state. Only a full one forces a GC to read
// the live heap: the samples taken during the load must not disturb it.
func (s *nexusServer) snapshot(ctx context.Context, full bool) snapshot {
	pid := s.cmd.Process.Pid
	snap := snapshot{rss: procstat.RSS(pid), goroutines: -1, heap: -1, sessions: -1}
	for _, child := range procstat.Children(pid) {
		snap.pools = append(snap.pools, proc{pid: child, name: procstat.PoolName(child), rss: procstat.RSS(child)})
	}
	if s.debug != "" {
		snap.goroutines = profiler.Goroutines(ctx, s.debug)
		if full {
			snap.heap = profiler.LiveHeap(ctx, s.debug)
		}
	}
	if body, err := profiler.Get(ctx, s.base+"/health"); err == nil {
		if m := mcpSessions.FindStringSubmatch(body); m != nil {
			snap.sessions, _ = strconv.Atoi(m[1])
		}
	}
	return snap
}

// backProblems says how after differs from before in what must come back:
// the same pool processes (none new, none restarted), goroutines no more
// than before, no session left, and the live Go heap no more than before
// plus a little (1 MiB or 10%, for buffers and tables that fill once).
// RSS is reported but not judged: the Go runtime and CPython keep freed
// memory for reuse and return it to the system lazily.
func backProblems(before, after snapshot) []string {
	var out []string
	if pids(before.pools) != pids(after.pools) {
		out = append(out, fmt.Sprintf("pool processes %s before, %s after", pids(before.pools), pids(after.pools)))
	}
	if before.goroutines >= 0 && after.goroutines > before.goroutines {
		out = append(out, fmt.Sprintf("%d goroutines after, %d before", after.goroutines, before.goroutines))
	}
	if after.sessions > 0 {
		out = append(out, fmt.Sprintf("/health reports %d MCP sessions, want 0", after.sessions))
	}
	if before.heap >= 0 && after.heap > before.heap+max(1<<20, before.heap/10) {
		out = append(out, fmt.Sprintf("live Go heap %s after, %s before", mib(after.heap), mib(before.heap)))
	}
	return out
}

// peak keeps the largest of each figure over the samples.
func peak(a, b snapshot) snapshot {
	a.rss = max(a.rss, b.rss)
	a.goroutines = max(a.goroutines, b.goroutines)
	a.sessions = max(a.sessions, b.sessions)
	byPID := map[int]int64{}
	for _, p := range b.pools {
		byPID[p.pid] = p.rss
	}
	pools := make([]proc, len(a.pools))
	for i, p := range a.pools {
		p.rss = max(p.rss, byPID[p.pid])
		pools[i] = p
	}
	a.pools = pools
	return a
}

func pids(ps []proc) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p.pid)
	}
	return "[" + strings.Join(s, " ") + "]"
}
