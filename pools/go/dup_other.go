//go:build unix && !linux

package gopool

import "golang.org/x/sys/unix"

// dupTo makes fd newfd a copy of oldfd.
func dupTo(oldfd, newfd int) error {
	return unix.Dup2(oldfd, newfd)
}
