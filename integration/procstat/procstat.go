// Package procstat reads what Linux's /proc says about a process: its
// parent and state, children, resident set, threads, open files and
// environment. The integration tests and the load, peer and soak commands
// use it to find pools and to watch for leaks; off Linux every reading
// fails, as there is no /proc.
package procstat

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Stat reads the parent pid and the state ('R', 'S', 'Z', ...) from
// /proc/PID/stat; ok is false when the process is gone.
func Stat(pid int) (ppid int, state byte, ok bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// The command name may hold spaces and parentheses: the fields start
	// after the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 2 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(fields[1])
	return ppid, fields[0][0], err == nil
}

// clockTick is the unit of /proc/PID/stat's CPU times: USER_HZ, which is
// 100 on every Linux that Go supports (sysconf(_SC_CLK_TCK), which Go's
// standard library does not expose).
const clockTick = 10 * time.Millisecond

// CPU is the CPU time (user and system) pid has used, read from
// /proc/PID/stat; ok is false when the process is gone.
func CPU(pid int) (time.Duration, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false
	}
	// After the command: state (field 3 of the file) ... utime (14),
	// stime (15).
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * clockTick, true
}

// Alive reports whether pid is a process that has not ended (a zombie,
// ended but not yet reaped, has).
func Alive(pid int) bool {
	_, state, ok := Stat(pid)
	return ok && state != 'Z'
}

// PIDs lists every process, in pid order.
func PIDs() []int {
	var out []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if pid, err := strconv.Atoi(d.Name()); err == nil {
			out = append(out, pid)
		}
	}
	sort.Ints(out)
	return out
}

// Children lists the live processes whose parent is pid, in pid order: a
// nexus's pools.
func Children(pid int) []int {
	var out []int
	for _, child := range PIDs() {
		if ppid, state, ok := Stat(child); ok && ppid == pid && state != 'Z' {
			out = append(out, child)
		}
	}
	return out
}

// status is one "Name:  value" field of /proc/PID/status, as a number
// (kB fields are turned into bytes); ok is false when the process or the
// field is missing.
func status(pid int, field string) (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			rest = strings.TrimSpace(rest)
			kb := strings.HasSuffix(rest, " kB")
			n, err := strconv.ParseInt(strings.TrimSuffix(rest, " kB"), 10, 64)
			if kb {
				n <<= 10
			}
			return n, err == nil
		}
	}
	return 0, false
}

// RSS is a process's resident set in bytes, 0 when it is gone.
func RSS(pid int) int64 {
	n, _ := status(pid, "VmRSS")
	return n
}

// PeakRSS is a process's peak resident set (VmHWM) in bytes.
func PeakRSS(pid int) (int64, bool) { return status(pid, "VmHWM") }

// Threads is a process's thread count, 0 when it is gone.
func Threads(pid int) int {
	n, _ := status(pid, "Threads")
	return int(n)
}

// FDs is the number of a process's open file descriptors, 0 when it is
// gone.
func FDs(pid int) int {
	entries, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(entries)
}

// Cmdline is a process's arguments, empty when it is gone.
func Cmdline(pid int) []string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
}

// Environ reports whether a process's environment holds the entry kv
// ("NAME=value"). A pool inherits its nexus's environment, so a private
// TMPDIR marks every process of one run.
func Environ(pid int, kv string) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	for _, e := range strings.Split(string(data), "\x00") {
		if e == kv {
			return true
		}
	}
	return false
}

// PoolName names a pool by its command line: "python3 .../pools/py/pool.py"
// is "py", ".../pools/cpp/pool" is "cpp"; other processes go by the base
// name of their program.
func PoolName(pid int) string {
	args := Cmdline(pid)
	for _, a := range args {
		if i := strings.Index(a, "/pools/"); i >= 0 {
			return strings.SplitN(a[i+len("/pools/"):], "/", 2)[0]
		}
	}
	if len(args) == 0 {
		return "?"
	}
	return filepath.Base(args[0])
}
