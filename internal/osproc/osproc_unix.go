//go:build unix

package osproc

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// killGroup kills every process in the group that p leads.
func killGroup(p *os.Process) {
	_ = unix.Kill(-p.Pid, unix.SIGKILL)
}

// termGroup sends SIGTERM to every process in the group that p leads.
func termGroup(p *os.Process) {
	_ = unix.Kill(-p.Pid, unix.SIGTERM)
}

func describe(s *os.ProcessState) string {
	if ws, ok := s.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		how := "killed by signal " + signalName(ws.Signal())
		if ws.CoreDump() {
			how += ", core dumped"
		}
		return how
	}
	return fmt.Sprintf("exit status %d", s.ExitCode())
}

func signalName(s syscall.Signal) string {
	if name := unix.SignalName(s); name != "" {
		return name
	}
	return s.String()
}

func moveStdout() (*os.File, error) {
	fd, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("keep a copy of stdout: %w", err)
	}
	if err := dupTo(2, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("point stdout at stderr: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/stdout"), nil
}

func polledStdin() *os.File {
	var st unix.Stat_t
	if unix.Fstat(0, &st) != nil {
		return os.Stdin
	}
	if kind := st.Mode & unix.S_IFMT; kind != unix.S_IFIFO && kind != unix.S_IFSOCK {
		return os.Stdin
	}
	fd, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return os.Stdin
	}
	if unix.SetNonblock(fd, true) != nil {
		unix.Close(fd)
		return os.Stdin
	}
	// os.NewFile sees the descriptor is non-blocking and registers it
	// with the poller.
	return os.NewFile(uintptr(fd), "/dev/stdin")
}

func lockFile(f *os.File) (func(), error) {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EINTR) {
			return nil, err
		}
	}
	return func() { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }, nil
}

// alive sends pid the null signal: EPERM means it exists under another
// user.
func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid == uint32(os.Getuid())
}
