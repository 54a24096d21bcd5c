//go:build unix && !linux && !darwin

package osproc

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr asks for a group of its own only: these systems have no
// parent-death signal that Go's os/exec can ask for.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

func start(cmd *exec.Cmd) error { return cmd.Start() }

// waitExited cannot wait without reaping here; Wait reaps first.
func waitExited(int) bool { return false }

func dupTo(oldfd, newfd int) error {
	return unix.Dup2(oldfd, newfd)
}
