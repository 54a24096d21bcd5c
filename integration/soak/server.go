package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nexus-run/nexus/integration/procstat"
	"github.com/nexus-run/nexus/integration/profiler"
)

// server is one `nexus mcp` under soak, over stdio or HTTP, with a
// TMPDIR of its own (so that what it leaves behind is told apart) and its
// profiler on, for goroutine counts.
type server struct {
	name   string // "stdio" or "HTTP"
	cmd    *exec.Cmd
	tmp    string
	debug  string // the profiler's base URL
	stderr *tail
	exited chan error

	stdin    io.WriteCloser // stdio only
	client   *stdioClient   // stdio only
	endpoint string         // HTTP only
	hc       *http.Client   // HTTP only

	mu     sync.Mutex
	deaths map[string][]time.Time // per language: when a fault killed its pool
}

// servingLine is nexus's log line saying where it listens (msg=serving).
var servingLine = regexp.MustCompile(`msg=serving .*url=(http://\S+)`)

// startServer starts `nexus mcp LAUNCHER --timeout T`, over HTTP on a
// free loopback port when overHTTP is set, and waits until it is ready.
func startServer(ctx context.Context, c config, launcher, tmp, name string, overHTTP bool, corrupt func(error)) (*server, error) {
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	args := []string{"mcp", launcher, "--timeout", c.timeout.String()}
	if overHTTP {
		args = append(args, "--http-port", "0", "--http-host", "127.0.0.1")
	}
	cmd := exec.Command(c.nexus, args...)
	cmd.Dir = filepath.Dir(launcher)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, profiler.Env)
	s := &server{name: name, cmd: cmd, tmp: tmp, stderr: &tail{}, exited: make(chan error, 1), deaths: map[string][]time.Time{}}
	var stdout io.Reader
	if !overHTTP {
		var err error
		if s.stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
		if stdout, err = cmd.StdoutPipe(); err != nil {
			return nil, err
		}
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	type addrs struct{ debug, base string }
	ready := make(chan addrs, 1)
	go func() {
		var a addrs
		br := bufio.NewReader(errPipe)
		for {
			line, err := br.ReadString('\n')
			s.stderr.add(line)
			if m := profiler.Announced.FindStringSubmatch(line); m != nil {
				a.debug = m[1]
			}
			if m := servingLine.FindStringSubmatch(line); m != nil {
				a.base = m[1]
			}
			if a.debug != "" && (a.base != "" || !overHTTP) {
				select {
				case ready <- a:
				default:
				}
			}
			if err != nil {
				break
			}
		}
		s.exited <- cmd.Wait()
	}()
	if !overHTTP {
		s.client = newStdioClient(s.stdin, stdout, corrupt)
	}
	select {
	case a := <-ready:
		s.debug, s.endpoint = a.debug, a.base+"/mcp"
	case err := <-s.exited:
		return nil, fmt.Errorf("nexus mcp (%s) exited before serving: %v\n%s", name, err, s.stderr)
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		return nil, fmt.Errorf("nexus mcp (%s) was not ready within a minute\n%s", name, s.stderr)
	}
	if overHTTP {
		s.hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
		return s, nil
	}
	hctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := s.client.handshake(hctx); err != nil {
		cmd.Process.Kill()
		return nil, fmt.Errorf("nexus mcp (stdio): %w", err)
	}
	return s, nil
}

// died notes that a fault is about to kill lang's pool.
func (s *server) died(lang string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deaths[lang] = append(s.deaths[lang], time.Now())
}

// diedDuring reports whether a fault killed lang's pool while a call that
// ran from start to end was in flight.
func (s *server) diedDuring(lang string, start, end time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.deaths[lang] {
		if !d.Before(start.Add(-200*time.Millisecond)) && !d.After(end) {
			return true
		}
	}
	return false
}

// recentDeaths counts the deaths of lang's pool in the last window.
func (s *server) recentDeaths(lang string, window time.Duration) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, d := range s.deaths[lang] {
		if time.Since(d) < window {
			n++
		}
	}
	return n
}

// pool is the pid of lang's pool, 0 when none runs.
func (s *server) pool(lang string) int {
	for _, pid := range procstat.Children(s.cmd.Process.Pid) {
		if procstat.PoolName(pid) == lang {
			return pid
		}
	}
	return 0
}

// stop ends the server as its client would (stdin closed; SIGTERM over
// HTTP) and waits for it, bounded.
func (s *server) stop(bound time.Duration) (time.Duration, error) {
	began := time.Now()
	if s.stdin != nil {
		s.stdin.Close()
	} else {
		s.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case err := <-s.exited:
		if err != nil {
			return time.Since(began), fmt.Errorf("nexus mcp (%s) exited with %v\n%s", s.name, err, s.stderr)
		}
		return time.Since(began), nil
	case <-time.After(bound):
		s.cmd.Process.Kill()
		<-s.exited
		return time.Since(began), fmt.Errorf("nexus mcp (%s) still ran %v after it was told to stop; killed", s.name, bound)
	}
}

// leftovers lists what a stopped server left: processes carrying its
// TMPDIR (its pools inherit it) and files in that folder.
func leftovers(tmp string) []string {
	var left []string
	deadline := time.Now().Add(5 * time.Second)
	for {
		left = nil
		for _, pid := range procstat.PIDs() {
			if procstat.Alive(pid) && procstat.Environ(pid, "TMPDIR="+tmp) {
				left = append(left, fmt.Sprintf("process %d (%s)", pid, strings.Join(procstat.Cmdline(pid), " ")))
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		left = append(left, "file "+filepath.Join(tmp, e.Name()))
	}
	return left
}

// usage is what one process holds at one moment.
type usage struct {
	pid, fds, threads int
	rss               int64
}

func usageOf(pid int) usage {
	return usage{pid: pid, rss: procstat.RSS(pid), fds: procstat.FDs(pid), threads: procstat.Threads(pid)}
}

// snapshot is a server and its pools at one moment.
type snapshot struct {
	nexus      usage
	goroutines int              // -1 when the profiler did not answer
	liveHeap   int64            // bytes in use after a collection; -1 when the profiler did not answer
	pools      map[string]usage // by language
}

func (s *server) snapshot(ctx context.Context) snapshot {
	snap := snapshot{nexus: usageOf(s.cmd.Process.Pid), goroutines: profiler.Goroutines(ctx, s.debug),
		liveHeap: profiler.LiveHeap(ctx, s.debug), pools: map[string]usage{}}
	for _, pid := range procstat.Children(s.cmd.Process.Pid) {
		snap.pools[procstat.PoolName(pid)] = usageOf(pid)
	}
	return snap
}

// tail keeps the last lines written to it: a server's stderr, which its
// pools write to as well, for an error message.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(line string) {
	if line == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(line) > 500 {
		line = line[:500] + "...\n"
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > 40 {
		t.lines = t.lines[len(t.lines)-40:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "")
}
