// Package osproc is the operating-system-specific part of running pools and
// serving over stdio: starting a command in a process group of its own,
// killing that group, having the kernel kill a pool when the nexus dies,
// moving standard output aside, and locking a file between processes.
//
// Each operation has the same contract on every system; what a system
// cannot do is said in the doc comment and, where it matters to a caller,
// returned as an error wrapping errors.ErrUnsupported. What holds where:
//
//   - Linux: everything. A pool has its own process group and the kernel
//     kills it with SIGKILL when the nexus dies, however it dies.
//   - macOS and the other Unix systems: process groups as on Linux; there
//     is no parent-death signal, so a nexus killed by SIGKILL or a crash
//     leaves its pools to notice by themselves that their parent changed
//     (every pool runtime checks once a second). A nexus that exits
//     normally, or on SIGINT or SIGTERM, stops its pools first.
//   - Windows and other systems: it compiles; a command is one process,
//     not a group, so killing a pool does not kill what it started, and
//     nothing kills a pool when the nexus dies. File locks are not
//     supported.
package osproc

import (
	"os"
	"os/exec"
	"sync"
)

// Group is a command started as the leader of a process group of its own:
// terminal signals (Ctrl-C) reach only the nexus, and the command and the
// processes it started can be killed as one.
//
// Its methods may be called concurrently.
type Group struct {
	cmd *exec.Cmd

	mu     sync.Mutex
	reaped bool
}

// Start starts cmd in a group of its own, killed when this process dies
// where the system can do that (see the package comment). cmd.SysProcAttr
// is replaced.
func Start(cmd *exec.Cmd) (*Group, error) {
	cmd.SysProcAttr = sysProcAttr()
	if err := start(cmd); err != nil {
		return nil, err
	}
	return &Group{cmd: cmd}, nil
}

// Wait waits for the group's leader to exit, kills what is left of its
// group (the processes it started), and reaps it; then cmd.ProcessState
// says how it ended. It returns what cmd.Wait returned. Call it once.
//
// Where the system can wait for a process without reaping it, the group is
// killed while the leader is a zombie, so its pid (the group's id) cannot
// have been reused: the kill cannot reach another group.
func (g *Group) Wait() error {
	p := g.cmd.Process
	if waitExited(p.Pid) {
		g.mu.Lock()
		defer g.mu.Unlock()
		killGroup(p)
		g.reaped = true
		return g.cmd.Wait()
	}
	err := g.cmd.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	killGroup(p) // POSIX keeps the id while any process of the group lives
	g.reaped = true
	return err
}

// Kill kills the whole group at once. Once Wait has reaped the leader it
// does nothing.
func (g *Group) Kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.reaped {
		killGroup(g.cmd.Process)
	}
}

// Terminate asks the whole group to stop: SIGTERM where the system has
// it, else a kill as Kill. Once Wait has reaped the leader it does
// nothing.
func (g *Group) Terminate() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.reaped {
		termGroup(g.cmd.Process)
	}
}

// Describe says how a process ended: "exit status 3", "killed by signal
// SIGKILL", "killed by signal SIGSEGV, core dumped"; "still running" for
// nil.
func Describe(s *os.ProcessState) string {
	if s == nil {
		return "still running"
	}
	return describe(s)
}

// MoveStdout moves the process's standard output aside: it returns a file
// open on the real standard output, not inherited by children, and points
// standard output at standard error, so that whatever else writes to it,
// this process or the children that inherit it, lands on standard error.
// Call it before starting any child.
func MoveStdout() (*os.File, error) {
	return moveStdout()
}

// PolledStdin returns standard input as a file the Go runtime's poller
// waits on, where it can be: on Unix, when standard input is a pipe or a
// socket, a non-blocking copy of descriptor 0; otherwise os.Stdin.
//
// Why: a read of a blocking descriptor holds its thread (and the
// scheduler's P) in the system call, so whatever a line read there makes
// runnable (a call's goroutine) waits until the runtime's monitor takes
// the P back, tens of microseconds later; on the poller, the reader parks
// and the call runs at once. A tools/call over stdio that fails before
// any pool is reached answered in 90-105 µs from a blocking stdin and
// 9 µs from a polled one (the same machine, one run, medians).
//
// The non-blocking mode belongs to the open pipe, which the nexus alone
// reads; a terminal or a file is left as it is.
func PolledStdin() *os.File {
	return polledStdin()
}

// LockFile takes an exclusive lock on f, shared with other processes,
// waiting while another holds it, and returns its release.
func LockFile(f *os.File) (unlock func(), err error) {
	return lockFile(f)
}

// Alive reports whether a process with id pid exists, whoever owns it. A
// zombie counts as alive. Where a system cannot tell (neither Unix nor
// Windows), it reports true: callers use it to decide whether what a
// process left behind may go, and must then leave it.
func Alive(pid int) bool {
	return pid > 0 && alive(pid)
}

// OwnedByMe reports whether fi, from os.Lstat or os.Stat, describes a file
// owned by the user this process runs as. On systems without Unix owners
// (Windows, whose temporary folder is the user's own) it reports true.
func OwnedByMe(fi os.FileInfo) bool {
	return ownedByMe(fi)
}
