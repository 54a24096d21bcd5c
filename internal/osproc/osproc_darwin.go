package osproc

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// waitExited waits until process pid has exited, without reaping it: a
// kqueue's EVFILT_PROC filter reports NOTE_EXIT when the process becomes a
// zombie. macOS refuses the filter (ESRCH) for a process that is already a
// zombie, which for our own unreaped child means it has exited too.
func waitExited(pid int) bool {
	kq, err := unix.Kqueue()
	if err != nil {
		return false
	}
	defer unix.Close(kq)
	var change unix.Kevent_t
	unix.SetKevent(&change, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	change.Fflags = unix.NOTE_EXIT
	events := make([]unix.Kevent_t, 1)
	for {
		n, err := unix.Kevent(kq, []unix.Kevent_t{change}, events, nil)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ESRCH):
			return true
		case err != nil:
			return false
		case n == 1 && events[0].Flags&unix.EV_ERROR != 0:
			return syscall.Errno(events[0].Data) == unix.ESRCH
		case n == 1:
			return true
		}
	}
}
