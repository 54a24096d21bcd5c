//go:build unix

package gopool

import (
	"os"
	"syscall"
)

// claimStdout keeps a private copy of fd 1 and points fd 1 at stderr.
func claimStdout() error {
	fd, err := syscall.Dup(1)
	if err != nil {
		return err
	}
	// No other goroutine forks this early, so the copy cannot leak into a
	// child between Dup and CloseOnExec; a child holding it would keep the
	// nexus waiting for the end of the pool's stdout.
	syscall.CloseOnExec(fd)
	if err := dupTo(2, 1); err != nil {
		syscall.Close(fd)
		return err
	}
	handshake = os.NewFile(uintptr(fd), "/dev/stdout")
	return nil
}
