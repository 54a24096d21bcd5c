//go:build unix && !linux

package osproc

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr asks for a group of its own only: macOS and the Unix systems
// other than Linux have no parent-death signal that os/exec can ask for.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

func start(cmd *exec.Cmd) error { return cmd.Start() }

func dupTo(oldfd, newfd int) error {
	return unix.Dup2(oldfd, newfd)
}
