package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// What happens to a pool's work when nobody waits for it any more: calls
// that time out, and a nexus killed outright.

var napCppProgram = files{
	"nap.hpp": `#pragma once
#include <chrono>
#include <cstdint>
#include <thread>

inline std::int64_t sleep_cpp(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  return 1;
}

inline std::int64_t ident_cpp(std::int64_t x) { return x; }
`,
	"main.loc": `
module napcpp (sleep_cpp, ident_cpp)
import root-cpp
source Cpp from "nap.hpp" ("sleep_cpp", "ident_cpp")
sleep_cpp :: Real -> Int
ident_cpp :: Int -> Int
`,
}

// TestMCPTimeoutsInABatch: a batch of calls that all outlive --timeout
// fails with one message, whichever layer noticed the timeout first (the
// wait for the pool's place or the call in the pool); the calls, which the
// C++ pool cannot stop, do not clog it: the next call is answered.
func TestMCPTimeoutsInABatch(t *testing.T) {
	p := build(t, napCppProgram)
	c := startMCPConn(t, p, "--timeout", "1s")
	c.initialize("2025-06-18")
	const calls = 40 // more than the calls allowed in flight in a pool
	for round := 0; round < 2; round++ {
		var lines []string
		for i := 0; i < calls; i++ {
			lines = append(lines, rpcLine(i, "tools/call", map[string]any{"name": "sleep_cpp", "arguments": map[string]any{"_1": 600}}))
		}
		c.send(lines...)
		for i := 0; i < calls; i++ {
			if msg := c.recv(i).failure(t); msg != "sleep_cpp timed out after 1s" {
				t.Errorf("round %d, call %d: %q, want %q", round, i, msg, "sleep_cpp timed out after 1s")
			}
		}
		if got := c.callTool(100+round, "ident_cpp", map[string]any{"_1": 7}).text(t); got != "7" {
			t.Errorf("round %d: ident_cpp 7 after the timeouts = %s", round, got)
		}
	}
	c.closeAll()
}

// TestSocketFolderSweptAfterSIGKILL: a nexus killed by SIGKILL cannot
// remove its pools' socket folder; the next nexus to start a pool in the
// same temporary folder does, and leaves nothing either.
func TestSocketFolderSweptAfterSIGKILL(t *testing.T) {
	p := build(t, pyPoolProgram)
	c := startMCPConn(t, p)
	c.initialize("2025-06-18")
	if got := c.callTool(1, "double", map[string]any{"_1": 2}).text(t); got != "4" {
		t.Fatalf("double 2 = %s", got)
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.waitFor("the end of the killed nexus and its pool", func() bool { return c.exited && c.stdoutEOF && c.stderrEOF })
	left, err := os.ReadDir(p.tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || !strings.HasPrefix(left[0].Name(), "nexus-") {
		t.Fatalf("after SIGKILL the temp folder holds %v, want the killed nexus's socket folder", left)
	}
	owner, err := os.ReadFile(filepath.Join(p.tmp, left[0].Name(), "owner"))
	if want := fmt.Sprintf("%d\n", c.cmd.Process.Pid); err != nil || string(owner) != want {
		t.Errorf("the socket folder's owner file holds %q (%v), want %q", owner, err, want)
	}

	next := startMCPConn(t, p)
	next.initialize("2025-06-18")
	if got := next.callTool(1, "double", map[string]any{"_1": 3}).text(t); got != "6" {
		t.Fatalf("double 3 = %s", got)
	}
	next.closeAll() // checks that nothing is left in the temp folder
}
