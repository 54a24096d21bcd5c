package integration

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// hangGuard bounds every wait on a nexus server under test. It is not a
// measure of speed: it only turns a hung server into a failure that shows
// the server's stderr, instead of a bare `go test` timeout much later.
const hangGuard = 2 * time.Minute

// watched is what the tests follow of a nexus server process: its stderr,
// whether and how it exited, and a channel closed (then replaced) on every
// change, which wakes the waiters. mcpConn and httpServer embed it.
type watched struct {
	t   *testing.T
	cmd *exec.Cmd
	// over, called under the lock, says that nothing more can change, so a
	// wait for anything not there yet fails at once; dump is what such a
	// failure shows of the server.
	over func() bool
	dump func() string

	mu        sync.Mutex
	stderr    strings.Builder
	stderrEOF bool
	exited    bool
	exitCode  int
	changed   chan struct{}
}

// start starts cmd with its stderr followed here and its exit awaited. It
// closes parentCopies, the child's ends of other pipes the caller gave
// cmd, once the child has them. The process is killed when the test ends
// if it still runs.
func (w *watched) start(t *testing.T, cmd *exec.Cmd, parentCopies ...*os.File) {
	t.Helper()
	w.t, w.cmd, w.changed = t, cmd, make(chan struct{})
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = errW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	errW.Close()
	for _, f := range parentCopies {
		f.Close()
	}
	go w.readStderr(errR)
	go func() {
		err := cmd.Wait()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			code = -1
		}
		w.update(func() { w.exited, w.exitCode = true, code })
	}()
	t.Cleanup(func() {
		if !w.hasExited() {
			cmd.Process.Kill()
		}
	})
}

func (w *watched) readStderr(r *os.File) {
	defer r.Close()
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			chunk := string(buf[:n])
			w.update(func() { w.stderr.WriteString(chunk) })
		}
		if err != nil {
			w.update(func() { w.stderrEOF = true })
			return
		}
	}
}

// update changes the state under the lock and wakes the waiters.
func (w *watched) update(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f()
	close(w.changed)
	w.changed = make(chan struct{})
}

func (w *watched) hasExited() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.exited
}

// stderrText is the server's stderr so far.
func (w *watched) stderrText() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stderr.String()
}

// waitFor waits until cond, called under the lock, holds. It fails the
// test when over says nothing more can change, or at the hang guard.
func (w *watched) waitFor(what string, cond func() bool) {
	w.t.Helper()
	guard := time.NewTimer(hangGuard)
	defer guard.Stop()
	for {
		w.mu.Lock()
		ok, over, code, changed := cond(), w.over(), w.exitCode, w.changed
		w.mu.Unlock()
		switch {
		case ok:
			return
		case over:
			w.t.Fatalf("waiting for %s: the server ended (exit status %d)\n%s", what, code, w.dump())
		}
		select {
		case <-changed:
		case <-guard.C:
			w.t.Fatalf("waiting for %s: nothing after %v\n%s", what, hangGuard, w.dump())
		}
	}
}

// waitStderr waits until the server's stderr (which carries its pools'
// output too) contains s.
func (w *watched) waitStderr(s string) {
	w.t.Helper()
	w.waitFor(fmt.Sprintf("%q on stderr", s), func() bool {
		return strings.Contains(w.stderr.String(), s)
	})
}
