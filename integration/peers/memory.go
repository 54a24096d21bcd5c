package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Peak memory of a server is the sum, over the server process and all its
// descendants alive (pools, interpreters), of each one's VmHWM: the peak
// resident set the kernel keeps for every process. Being a high-water
// mark, it needs reading only once, just before the server is stopped.
// Processes that ended before are left out: the helpers a launcher script
// runs on its way (pyenv's shim, for one) are no part of the server. The
// sum of the peaks may exceed the peak of the sum a little: the processes
// need not have peaked at the same moment.

// treePeak reads the peak memory of root and its live descendants.
func treePeak(root int) memPeak {
	var m memPeak
	for _, pid := range descendants(root, childrenByParent()) {
		if v, ok := vmHWM(pid); ok {
			m.bytes += v
			m.procs++
		}
	}
	return m
}

// childrenByParent maps each live process to its children.
func childrenByParent() map[int][]int {
	kids := map[int][]int{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses: fields start
		// after the last ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			kids[ppid] = append(kids[ppid], pid)
		}
	}
	return kids
}

// descendants is root and everything below it.
func descendants(root int, kids map[int][]int) []int {
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, kids[out[i]]...)
	}
	return out
}

// vmHWM is a process's peak resident set, from /proc/PID/status.
func vmHWM(pid int) (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
