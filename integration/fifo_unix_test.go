//go:build unix

package integration

import (
	"os"
	"syscall"
)

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// openFIFO opens a FIFO for writing, failing rather than waiting when no
// one has it open for reading.
func openFIFO(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
}
