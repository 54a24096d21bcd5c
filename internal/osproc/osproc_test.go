//go:build unix

package osproc_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/osproc"
)

// startSh starts a shell script as a group, with its stdout on a pipe that
// every process of the group inherits: the pipe ends only when all of them
// are gone.
func startSh(t *testing.T, script string) (*osproc.Group, *exec.Cmd, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdout = w
	g, err := osproc.Start(cmd)
	w.Close()
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return g, cmd, r
}

// A leader that exits leaves no child behind: Wait kills the group. Were it
// not killed, the sleep would hold the pipe open for 1000 s and the test
// would time out.
func TestWaitKillsTheGroup(t *testing.T) {
	g, cmd, r := startSh(t, "sleep 1000 & exit 3")
	if err := g.Wait(); err == nil {
		t.Error("Wait: no error for exit status 3")
	}
	if got := osproc.Describe(cmd.ProcessState); got != "exit status 3" {
		t.Errorf("Describe: %q, want exit status 3", got)
	}
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	g.Kill() // after Wait: does nothing, and must not fail
}

func TestKillKillsTheGroup(t *testing.T) {
	g, cmd, r := startSh(t, "sleep 1000 & sleep 1000")
	g.Kill()
	g.Wait()
	if got := osproc.Describe(cmd.ProcessState); got != "killed by signal SIGKILL" {
		t.Errorf("Describe: %q, want killed by signal SIGKILL", got)
	}
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
}

// Terminate sends SIGTERM to the whole group: the leader's trap runs (it
// says so on the pipe) and its child, which has no trap, dies of it.
func TestTerminateSignalsTheGroup(t *testing.T) {
	g, cmd, r := startSh(t, "trap 'echo term; exit 7' TERM; sleep 1000 & echo ready; wait")
	line := make([]byte, 6)
	if _, err := io.ReadFull(r, line); err != nil || string(line) != "ready\n" {
		t.Fatalf("read %q, %v", line, err)
	}
	g.Terminate()
	g.Wait()
	if got := osproc.Describe(cmd.ProcessState); got != "exit status 7" {
		t.Errorf("Describe: %q, want exit status 7 (the TERM trap)", got)
	}
	rest, err := io.ReadAll(r) // ends once the sleep is gone too
	if err != nil {
		t.Fatal(err)
	}
	if string(rest) != "term\n" {
		t.Errorf("after ready: %q, want the trap's line", rest)
	}
	g.Terminate() // after Wait: does nothing, and must not fail
}

func TestDescribeStillRunning(t *testing.T) {
	if got := osproc.Describe(nil); got != "still running" {
		t.Errorf("Describe(nil) = %q", got)
	}
}

const (
	moveStdoutEnv  = "OSPROC_TEST_MOVE_STDOUT"
	polledStdinEnv = "OSPROC_TEST_POLLED_STDIN"
)

// TestMain runs the children of TestMoveStdout and TestPolledStdin when
// asked to.
func TestMain(m *testing.M) {
	if os.Getenv(polledStdinEnv) != "" {
		// Whether the poller has stdin shows in whether it takes a
		// deadline; then what stdin holds, intact.
		in := osproc.PolledStdin()
		if err := in.SetReadDeadline(time.Time{}); err != nil {
			fmt.Println("not polled:", err)
		} else {
			fmt.Println("polled")
		}
		io.Copy(os.Stdout, in)
		os.Exit(0)
	}
	if os.Getenv(moveStdoutEnv) != "" {
		out, err := osproc.MoveStdout()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("stray from the process")
		child := exec.Command("sh", "-c", "echo stray from a child")
		child.Stdout, child.Stderr = os.Stdout, os.Stderr
		if err := child.Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintln(out, "protocol")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Only what is written to MoveStdout's file reaches the real standard
// output; the process's and its children's other output lands on stderr.
func TestMoveStdout(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), moveStdoutEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if stdout.String() != "protocol\n" {
		t.Errorf("stdout %q, want only the protocol line", stdout.String())
	}
	for _, want := range []string{"stray from the process\n", "stray from a child\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q lacks %q", stderr.String(), want)
		}
	}
}

// PolledStdin puts a pipe or a socket on standard input under the poller,
// and leaves a file as it is; either way the data comes through whole.
func TestPolledStdin(t *testing.T) {
	file := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(file, []byte("from a file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what  string
		stdin func(cmd *exec.Cmd) (write func())
		want  string
	}{
		{"a pipe", func(cmd *exec.Cmd) func() {
			w, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			return func() {
				// Written once the child waits on it, in two pieces.
				time.Sleep(50 * time.Millisecond)
				io.WriteString(w, "from ")
				time.Sleep(20 * time.Millisecond)
				io.WriteString(w, "a pipe\n")
				w.Close()
			}
		}, "polled\nfrom a pipe\n"},
		{"a socket", func(cmd *exec.Cmd) func() {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
			if err != nil {
				t.Fatal(err)
			}
			// Else the child inherits our end too, and never sees the end
			// of its input.
			syscall.CloseOnExec(fds[0])
			syscall.CloseOnExec(fds[1])
			ours, theirs := os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "theirs")
			cmd.Stdin = theirs
			t.Cleanup(func() { theirs.Close() })
			return func() {
				theirs.Close()
				io.WriteString(ours, "from a socket\n")
				ours.Close()
			}
		}, "polled\nfrom a socket\n"},
		{"a file", func(cmd *exec.Cmd) func() {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			cmd.Stdin = f
			return func() {}
		}, "not polled: file type does not support deadline\nfrom a file\n"},
	} {
		t.Run(c.what, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), polledStdinEnv+"=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			write := c.stdin(cmd)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			write()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			if stdout.String() != c.want {
				t.Errorf("stdout %q, want %q", stdout.String(), c.want)
			}
		})
	}
}

// Alive tells a running process, ours or not, from one that is gone.
func TestAlive(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		pid  int
		want bool
	}{
		{"this process", os.Getpid(), true},
		{"init", 1, true},
		{"a reaped child", cmd.Process.Pid, false},
		{"no pid", 0, false},
	} {
		if got := osproc.Alive(c.pid); got != c.want {
			t.Errorf("Alive(%s, %d) = %v, want %v", c.what, c.pid, got, c.want)
		}
	}
}

func TestOwnedByMe(t *testing.T) {
	fi, err := os.Lstat(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !osproc.OwnedByMe(fi) {
		t.Errorf("a folder this process made is not its user's")
	}
	if os.Getuid() != 0 {
		if fi, err := os.Lstat("/"); err == nil && osproc.OwnedByMe(fi) {
			t.Errorf("/ is the user's")
		}
	}
}
