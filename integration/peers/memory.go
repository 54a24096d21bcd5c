package main

import "github.com/nexus-run/nexus/integration/procstat"

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
		if v, ok := procstat.PeakRSS(pid); ok {
			m.bytes += v
			m.procs++
		}
	}
	return m
}

// childrenByParent maps each live process to its children.
func childrenByParent() map[int][]int {
	kids := map[int][]int{}
	for _, pid := range procstat.PIDs() {
		if ppid, state, ok := procstat.Stat(pid); ok && state != 'Z' {
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
