package integration

import (
	"strings"
	"testing"
)

// What pools do to an MCP server over stdio: functions that print on
// stdout, functions that kill their pool, slow calls run side by side,
// cancelled and timed out. The server's stdout must only ever carry
// JSON-RPC messages (mcpConn checks every line), and it must answer after
// each of these.

var pyPoolProgram = files{
	"work.py": `
import os, sys, time

# Before the pool has even started serving.
print("work.py imported")

def double(x):
    return 2 * x

def chatty(x):
    print("chatty print", x, flush=True)
    sys.stdout.write("chatty sys.stdout.write\n")
    sys.stdout.flush()
    os.write(1, b"chatty os.write to fd 1\n")
    print("chatty to stderr", file=sys.stderr, flush=True)
    return x

def die(code):
    sys.stderr.flush()
    os._exit(code)

def repeat(s, n):
    return s * n

def nap(seconds, tag):
    print("nap started " + tag, file=sys.stderr, flush=True)
    time.sleep(seconds)
    print("nap finished " + tag, file=sys.stderr, flush=True)
    return tag
`,
	"main.loc": `
module pymisbehave (double, chatty, die, repeat, nap)
import root-py
source Py from "work.py" ("double", "chatty", "die", "repeat", "nap")
double :: Int -> Int
repeat :: Str -> Int -> Str
chatty :: Int -> Int
die :: Int -> Int
nap :: Real -> Str -> Str
`,
}

var cppPoolProgram = files{
	"work.hpp": `#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

// Prints before the pool has even started serving.
struct announce_t {
  announce_t() { std::cout << "work.hpp initialized" << std::endl; }
};
inline announce_t announce;

inline std::int64_t twice(std::int64_t x) { return 2 * x; }

inline std::string chatty(const std::string& s) {
  std::cout << "chatty on cout " << s << std::endl;
  std::printf("chatty on printf\n");
  std::fflush(stdout);
  std::cerr << "chatty on cerr" << std::endl;
  return s;
}

inline std::int64_t crash(std::int64_t x) {
  volatile int* volatile p = nullptr;
  *p = static_cast<int>(x);
  return x;
}

inline std::int64_t stop(std::int64_t x) {
  std::abort();
  return x;
}
`,
	"main.loc": `
module cppmisbehave (twice, chatty, crash, stop)
import root-cpp
source Cpp from "work.hpp" ("twice", "chatty", "crash", "stop")
twice :: Int -> Int
chatty :: Str -> Str
crash :: Int -> Int
stop :: Int -> Int
`,
}

var goPoolProgram = files{
	"work.go": `package work

import (
	"fmt"
	"os"
)

// Prints before the pool has even started serving.
func init() { fmt.Println("work.go initialized") }

func Twice(x int) int { return 2 * x }

func Chatty(s string) string {
	fmt.Println("chatty println", s)
	fmt.Fprintln(os.Stdout, "chatty to os.Stdout")
	os.Stderr.WriteString("chatty to stderr\n")
	return s
}

func Boom(x int) int {
	var m map[string]int
	m["x"] = x
	return x
}

func Quit(code int) int {
	os.Exit(code)
	return code
}
`,
	"main.loc": `
module gomisbehave (twice, chatty, boom, quit)
import root-go
source Go from "work.go" ("Twice" as twice, "Chatty" as chatty, "Boom" as boom, "Quit" as quit)
twice :: Int -> Int
chatty :: Str -> Str
boom :: Int -> Int
quit :: Int -> Int
`,
}

// TestMCPPoolsMisbehave: in each language, a function that prints on
// stdout leaves the protocol stream clean (its output goes to stderr), and
// a function that fails or kills its pool is an isError result, after
// which the next call succeeds (on a new pool if the old one died).
func TestMCPPoolsMisbehave(t *testing.T) {
	type failure struct {
		tool string
		args map[string]any
		want []string // what the isError text must say
	}
	cases := []struct {
		lang    string
		program files
		// chatty is a call of the printing function and its result;
		// printed is what the program prints on stdout (when its pool
		// starts, and in chatty), which must all be on stderr instead.
		chattyTool string
		chattyArgs map[string]any
		chattyText string
		printed    []string
		failures   []failure
		// ok is a call that must succeed after each failure.
		okTool string
		okArgs map[string]any
		okText string
	}{
		{
			lang: "python", program: pyPoolProgram,
			chattyTool: "chatty", chattyArgs: map[string]any{"_1": 5}, chattyText: "5",
			printed: []string{"work.py imported", "chatty print 5", "chatty sys.stdout.write", "chatty os.write to fd 1", "chatty to stderr"},
			failures: []failure{
				{"die", map[string]any{"_1": 3}, []string{"python", "died", "exit status 3"}},
			},
			okTool: "double", okArgs: map[string]any{"_1": 21}, okText: "42",
		},
		{
			lang: "c++", program: cppPoolProgram,
			chattyTool: "chatty", chattyArgs: map[string]any{"_1": "hi"}, chattyText: `"hi"`,
			printed: []string{"work.hpp initialized", "chatty on cout hi", "chatty on printf", "chatty on cerr"},
			failures: []failure{
				{"crash", map[string]any{"_1": 1}, []string{"c++ pool died while running crash", "SIGSEGV"}},
				{"stop", map[string]any{"_1": 1}, []string{"c++ pool died while running stop", "SIGABRT"}},
			},
			okTool: "twice", okArgs: map[string]any{"_1": 21}, okText: "42",
		},
		{
			lang: "go", program: goPoolProgram,
			chattyTool: "chatty", chattyArgs: map[string]any{"_1": "hi"}, chattyText: `"hi"`,
			printed: []string{"work.go initialized", "chatty println hi", "chatty to os.Stdout", "chatty to stderr"},
			failures: []failure{
				// A panic is the function's failure; the pool lives on.
				{"boom", map[string]any{"_1": 1}, []string{"panicked: assignment to entry in nil map", "work.Boom("}},
				{"quit", map[string]any{"_1": 3}, []string{"go pool died while running quit", "exit status 3"}},
			},
			okTool: "twice", okArgs: map[string]any{"_1": 21}, okText: "42",
		},
	}
	for _, tc := range cases {
		t.Run(tc.lang, func(t *testing.T) {
			p := build(t, tc.program)
			c := startMCPConn(t, p)
			c.initialize("2025-06-18")

			if got := c.callTool("chatty", tc.chattyTool, tc.chattyArgs).text(t); got != tc.chattyText {
				t.Errorf("%s = %s, want %s", tc.chattyTool, got, tc.chattyText)
			}
			for i, f := range tc.failures {
				msg := c.callTool(i, f.tool, f.args).failure(t)
				for _, w := range f.want {
					if !strings.Contains(msg, w) {
						t.Errorf("%s: the failure %q does not say %q", f.tool, msg, w)
					}
				}
				if got := c.callTool("after "+f.tool, tc.okTool, tc.okArgs).text(t); got != tc.okText {
					t.Errorf("%s after %s = %s, want %s", tc.okTool, f.tool, got, tc.okText)
				}
			}
			c.closeAll() // also: every stdout line was a JSON-RPC message
			stderr := c.stderrText()
			for _, w := range tc.printed {
				if !strings.Contains(stderr, w) {
					t.Errorf("what %s printed is not on stderr: %q missing from\n%s", tc.chattyTool, w, stderr)
				}
			}
		})
	}
}

// TestMCPSlowCalls: calls run concurrently, can be cancelled, and are cut
// short by --timeout; none of it stops the server from answering.
func TestMCPSlowCalls(t *testing.T) {
	p := build(t, pyPoolProgram)
	nap := func(seconds float64, tag string) map[string]any {
		return map[string]any{"_1": seconds, "_2": tag}
	}

	t.Run("concurrent", func(t *testing.T) {
		c := startMCPConn(t, p.in(t))
		c.initialize("2025-06-18")
		// Sent together: the slow call first. Its reply must come after
		// the fast one's, which it could not if calls ran one at a time.
		c.send(
			rpcLine("slow", "tools/call", map[string]any{"name": "nap", "arguments": nap(3, "slow")}),
			rpcLine("fast", "tools/call", map[string]any{"name": "double", "arguments": map[string]any{"_1": 2}}),
		)
		slow, fast := c.recv("slow"), c.recv("fast")
		if got := fast.text(t); got != "4" {
			t.Errorf("double 2 = %s", got)
		}
		if got := slow.text(t); got != `"slow"` {
			t.Errorf("nap = %s", got)
		}
		if c.order(fast) > c.order(slow) {
			t.Errorf("the fast call's reply came after the slow one's: calls are not run concurrently")
		}
		c.closeAll()
	})

	t.Run("cancelled", func(t *testing.T) {
		c := startMCPConn(t, p.in(t))
		c.initialize("2025-06-18")
		c.send(rpcLine(50, "tools/call", map[string]any{"name": "nap", "arguments": nap(30, "cancelme")}))
		// Cancel only once the function runs, so that it is the running
		// call that is stopped, not one still waiting for its pool.
		c.waitStderr("nap started cancelme")
		c.send(rpcLine(nil, "notifications/cancelled", map[string]any{"requestId": 50, "reason": "the user changed their mind"}))
		if r := c.request(51, "ping", nil); string(r.Result) != "{}" {
			t.Errorf("ping after the cancellation: %s", r.Line)
		}
		if got := c.callTool(52, "double", map[string]any{"_1": 5}).text(t); got != "10" {
			t.Errorf("double 5 after the cancellation = %s", got)
		}
		// At EOF the server waits for the calls in flight: had the
		// cancelled one gone on, its reply would come now, or the nap
		// would finish.
		for _, r := range c.close() {
			t.Errorf("unexpected message (the cancelled call's reply?): %s", r.Line)
		}
		if strings.Contains(c.stderrText(), "nap finished cancelme") {
			t.Errorf("the cancelled call ran to its end")
		}
	})

	t.Run("in flight at EOF", func(t *testing.T) {
		c := startMCPConn(t, p.in(t))
		c.initialize("2025-06-18")
		c.send(rpcLine("eof", "tools/call", map[string]any{"name": "nap", "arguments": nap(1, "eof")}))
		c.waitStderr("nap started eof")
		// The client is done sending, not waiting: the call still ends
		// and is answered before the server exits.
		left := c.close()
		if len(left) != 1 || string(left[0].ID) != `"eof"` {
			t.Fatalf("want the reply to the call in flight, got %d messages", len(left))
		}
		if got := left[0].text(t); got != `"eof"` {
			t.Errorf("nap = %s", got)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		c := startMCPConn(t, p.in(t), "--timeout", "1s")
		c.initialize("2025-06-18")
		msg := c.callTool(60, "nap", nap(30, "timeout")).failure(t)
		if !strings.Contains(msg, "nap") || !strings.Contains(msg, "timed out") || !strings.Contains(msg, "1s") {
			t.Errorf("the timeout's failure %q should name the tool, say it timed out, and after how long", msg)
		}
		if r := c.request(61, "ping", nil); string(r.Result) != "{}" {
			t.Errorf("ping after the timeout: %s", r.Line)
		}
		if got := c.callTool(62, "double", map[string]any{"_1": 6}).text(t); got != "12" {
			t.Errorf("double 6 after the timeout = %s", got)
		}
		c.closeAll()
	})
}

// TestMCPLargeMessages: a request line of megabytes is read whole, and
// large replies written at the same time from concurrent calls each come
// whole, on a line of their own.
func TestMCPLargeMessages(t *testing.T) {
	p := build(t, pyPoolProgram)
	c := startMCPConn(t, p)
	c.initialize("2025-06-18")

	big := strings.Repeat("0123456789abcdef", 256<<10) // 4 MiB
	if got := c.callTool("big", "repeat", map[string]any{"_1": big, "_2": 1}).text(t); got != strJSON(big) {
		t.Errorf("a 4 MiB argument came back as %d bytes, want %d", len(got), len(strJSON(big)))
	}

	const calls = 16
	var lines []string
	for i := range calls {
		letter := string(rune('a' + i))
		lines = append(lines, rpcLine(letter, "tools/call", map[string]any{"name": "repeat", "arguments": map[string]any{"_1": letter, "_2": 256 << 10}}))
	}
	c.send(lines...)
	for i := range calls {
		letter := string(rune('a' + i))
		if got := c.recv(letter).text(t); got != strJSON(strings.Repeat(letter, 256<<10)) {
			t.Errorf("repeat %s: a reply of %d bytes that is not the %d letters", letter, len(got), 256<<10)
		}
	}
	c.closeAll() // and every line was one whole JSON-RPC message
}

// TestMCPNullaryFunctions: a function of no arguments, `() -> Int`, is a
// tool called with no arguments, in each language alike: Python's
// `def now():` takes none, as Go's `func Now() int` and C++'s `now_cpp()`.
func TestMCPNullaryFunctions(t *testing.T) {
	p := build(t, files{
		"now.py":  "def now():\n    return 42\n",
		"now.hpp": "#pragma once\n#include <cstdint>\ninline std::int64_t now_cpp() { return 43; }\n",
		"now.go":  "package now\n\nfunc Now() int { return 44 }\n",
		"main.loc": `
module nullary (nowpy, nowcpp, nowgo)
import root-py
import root-cpp
import root-go
source Py from "now.py" ("now" as nowpy)
source Cpp from "now.hpp" ("now_cpp" as nowcpp)
source Go from "now.go" ("Now" as nowgo)
nowpy :: () -> Int
nowcpp :: () -> Int
nowgo :: () -> Int
`,
	})
	c := startMCPConn(t, p)
	c.initialize("2025-06-18")
	for tool, want := range map[string]string{"nowpy": "42", "nowcpp": "43", "nowgo": "44"} {
		res := c.callTool(tool, tool, map[string]any{}).tool(t)
		if res.IsError || res.Content[0].Text != want {
			t.Errorf("%s {} = %+v, want %s", tool, res, want)
		}
	}
	c.closeAll()
}
