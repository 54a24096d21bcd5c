package osproc

import (
	"errors"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Setpgid: true,
		// The kernel kills the child when the nexus dies, even by SIGKILL.
		Pdeathsig: syscall.SIGKILL,
	}
}

// start starts cmd from one OS thread that never exits. The kernel sends
// the parent-death signal when the *thread* that started a child exits,
// not the process, and Go may end threads (golang/go#27505); a thread kept
// for this alone lives as long as the nexus.
func start(cmd *exec.Cmd) error {
	starterOnce.Do(func() { go starter() })
	done := make(chan error)
	starts <- startRequest{cmd, done}
	return <-done
}

type startRequest struct {
	cmd  *exec.Cmd
	done chan<- error
}

var (
	starterOnce sync.Once
	starts      = make(chan startRequest)
)

func starter() {
	runtime.LockOSThread() // never unlocked: the thread must outlive its children
	for r := range starts {
		r.done <- r.cmd.Start()
	}
}

// waitExited waits until process pid has exited, without reaping it.
func waitExited(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err == nil
		}
	}
}

// dupTo makes fd newfd a copy of oldfd (some Linux ports have no dup2).
func dupTo(oldfd, newfd int) error {
	return unix.Dup3(oldfd, newfd, 0)
}
