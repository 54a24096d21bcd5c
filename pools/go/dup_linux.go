package gopool

import "syscall"

// dupTo makes fd newfd a copy of oldfd (some Linux ports have no dup2).
func dupTo(oldfd, newfd int) error {
	return syscall.Dup3(oldfd, newfd, 0)
}
