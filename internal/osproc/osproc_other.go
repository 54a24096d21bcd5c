//go:build !unix

package osproc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// sysProcAttr is empty: these systems have no process groups as Unix has.
func sysProcAttr() *syscall.SysProcAttr { return nil }

func start(cmd *exec.Cmd) error { return cmd.Start() }

func waitExited(int) bool { return false }

// killGroup kills p alone: it has no group here. os.Process makes a kill
// after Wait harmless.
func killGroup(p *os.Process) {
	_ = p.Kill()
}

// termGroup kills p: these systems have no SIGTERM to send.
func termGroup(p *os.Process) {
	_ = p.Kill()
}

func describe(s *os.ProcessState) string {
	return fmt.Sprintf("exit status %d", s.ExitCode())
}

// moveStdout cannot move the descriptor here; it points os.Stdout at
// standard error, which covers what this process writes through os.Stdout.
// Children are not covered: give them their own standard output.
func moveStdout() (*os.File, error) {
	out := os.Stdout
	os.Stdout = os.Stderr
	return out, nil
}

func lockFile(*os.File) (func(), error) {
	return nil, fmt.Errorf("locking a file on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

// alive asks os.FindProcess, which on Windows opens the process and fails
// when there is none, and elsewhere here finds any pid (so alive).
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}

func ownedByMe(os.FileInfo) bool { return true }

func polledStdin() *os.File { return os.Stdin }
