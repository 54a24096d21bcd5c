// Package faults is the Go side of the fault program
// (integration/fault_test.go): each function misbehaves in one way a
// user's code can.
package faults

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"syscall"
	"time"
	"unsafe"
)

func Ok(x int) int { return 2 * x }

func Nap(seconds float64) string {
	time.Sleep(time.Duration(seconds * float64(time.Second)))
	return "slept"
}

// Crash ends the pool. The signal's action is set to the default first
// (Go's runtime would print a traceback and exit 2), so that the pool
// dies by it as a C program would: what cgo code or a kill from outside
// does.
func Crash(how string) int {
	sig := map[string]syscall.Signal{"segv": syscall.SIGSEGV, "abort": syscall.SIGABRT, "kill": syscall.SIGKILL}
	if how == "exit" {
		os.Exit(3)
	}
	if s, ok := sig[how]; ok {
		var dfl [4]uint64 // struct sigaction, all zero: SIG_DFL, no flags, empty mask
		syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(s), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
		syscall.Kill(os.Getpid(), s)
	}
	time.Sleep(5 * time.Second)
	return 0
}

func Alloc(mb int) int {
	block := make([]byte, mb<<20)
	for i := range block {
		block[i] = 'x'
	}
	return len(block) >> 20
}

func Huge(mb int) string {
	b := make([]byte, mb<<20)
	for i := range b {
		b[i] = 'x'
	}
	return string(b)
}

// Recurse overflows the stack for a large n; the limit is lowered from
// Go's 1 GB so the pool dies before it holds that much.
func Recurse(n int) int {
	debug.SetMaxStack(64 << 20)
	return recurse(n)
}

func recurse(n int) int {
	var frame [512]byte
	frame[n%512] = 1
	if n == 0 {
		return int(frame[0])
	}
	return recurse(n-1) + int(frame[n%512])
}

func Chatty(x int) int {
	fmt.Println("chatty println", x)
	os.Stdout.WriteString("chatty to os.Stdout\n")
	syscall.Write(1, []byte("chatty write to fd 1\n"))
	return x
}

func Nonfinite(kind string) float64 {
	switch kind {
	case "nan":
		return math.NaN()
	case "inf":
		return math.Inf(1)
	}
	return math.Inf(-1)
}

func Nonfinites(kind string) []float64 { return []float64{1, Nonfinite(kind)} }
