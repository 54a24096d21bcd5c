package pool

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
		// A group of its own: terminal signals go to the nexus only, and
		// the pool with its children can be killed as one.
		Setpgid: true,
		// The kernel kills the pool when the nexus dies, even by SIGKILL.
		Pdeathsig: syscall.SIGKILL,
	}
}

// startProcess starts cmd from one OS thread that never exits. The kernel
// sends the parent-death signal when the *thread* that started a child
// exits, not the process, and Go may end threads (golang/go#27505); a
// thread kept for this alone lives as long as the nexus.
func startProcess(cmd *exec.Cmd) error {
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

// waitExited waits until process pid has exited, without reaping it: while
// it is a zombie its pid, and so its process group id, cannot be reused,
// which makes killing the rest of the group safe.
func waitExited(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// killGroup kills every process in process group pgid.
func killGroup(pgid int) {
	_ = unix.Kill(-pgid, unix.SIGKILL)
}

func signalName(s syscall.Signal) string {
	if name := unix.SignalName(s); name != "" {
		return name
	}
	return s.String()
}
