package integration

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var behaviourProgram = files{
	"lib/work.py": `
import os, sys, time

def double(x):
    return x * 2

def inc(x):
    return x + 1

def chatty(x):
    print("stray line on stdout")
    sys.stdout.write("more stray text\n")
    os.write(1, b"raw fd 1 write\n")
    print("to stderr", file=sys.stderr)
    return x

def fail(x):
    raise ValueError("bad value: " + str(x))

def die(code):
    sys.stderr.flush()
    os._exit(code)

def sigkill(x):
    os.kill(os.getpid(), 9)

def slow(x):
    print("slow started", file=sys.stderr, flush=True)
    time.sleep(60)
    return x

def read_rel(path):
    with open(path) as f:
        return f.read()
`,
	"main.loc": `
--' Behaviour under success and failure.
module behave (twice, plus, both, chatty, fail, thrown, die, sigkill, slow, pure, record, readrel)

import root-py

source Py from "lib/work.py" ("double", "inc", "chatty", "fail", "die", "sigkill", "slow", "read_rel")

double :: Int -> Int
inc :: Int -> Int
chatty :: Int -> Int
fail :: Int -> Int
die :: Int -> Int
sigkill :: Int -> Int
slow :: Int -> Int
read_rel :: Str -> Str

record Point where
  x :: Int
  y :: Int

--' Double a number
twice :: Int -> Int
twice x = double x

--' Double then increment: two calls composed
plus :: Int -> Int
plus x = inc (double x)

--' A tuple of two calls
both :: Int -> (Int, Int)
both x = (double x, inc x)

--' Always fails
thrown :: Int -> <Err> Int
thrown _ = @throw "this command always fails"

--' Computed without any pool
pure :: Int -> [Int]
pure x = [x, 1, 2]

--' A record built in the body
record :: Int -> Point
record a = {x = a, y = double a}

readrel :: Str -> Str
readrel p = read_rel p
`,
}

func TestCompositionAndPure(t *testing.T) {
	p := build(t, behaviourProgram)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"twice", "21"}, "42"},
		{[]string{"plus", "20"}, "41"},
		{[]string{"both", "5"}, "[10,6]"},
		{[]string{"pure", "7"}, "[7,1,2]"},
		{[]string{"record", "3"}, `{"x":3,"y":6}`},
	} {
		if got := p.ok(c.args...); got != c.want+"\n" {
			t.Errorf("%v = %q, want %q", c.args, got, c.want)
		}
	}
}

// TestPureCommandStartsNoPool: a pure command must work without Python at
// all (the interpreter the program was built with removed, and no python3
// on PATH), so it cannot have started a pool.
func TestPureCommandStartsNoPool(t *testing.T) {
	p, _ := buildThenRemovePython(t, behaviourProgram)
	res := runIn(t, t.TempDir(), nil, "env", "PATH=/nonexistent", "TMPDIR="+p.tmp, p.launcher, "pure", "1")
	if res.code != 0 || res.stdout != "[1,1,2]\n" {
		t.Fatalf("pure without python on PATH: exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
	}
	res = runIn(t, t.TempDir(), nil, "env", "PATH=/nonexistent", "TMPDIR="+p.tmp, p.launcher, "twice", "1")
	if res.code != 1 || !strings.Contains(res.stderr, "python") {
		t.Fatalf("twice without python: exit %d, stderr %q; want 1 and a message about python", res.code, res.stderr)
	}
}

func TestStdoutHoldsOnlyTheResult(t *testing.T) {
	p := build(t, behaviourProgram)
	res := p.run("chatty", "5")
	if res.code != 0 || res.stdout != "5\n" {
		t.Fatalf("chatty: exit %d stdout %q, want only the result", res.code, res.stdout)
	}
	for _, want := range []string{"stray line on stdout", "more stray text", "raw fd 1 write", "to stderr"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q: %q", want, res.stderr)
		}
	}
}

func TestFailures(t *testing.T) {
	p := build(t, behaviourProgram)

	stderr := p.fails(1, "fail", "3")
	for _, want := range []string{"ValueError", "bad value: 3", "Traceback", "work.py"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("exception: stderr lacks %q:\n%s", want, stderr)
		}
	}

	stderr = p.fails(1, "thrown", "1")
	if !strings.Contains(stderr, "this command always fails") {
		t.Errorf("@throw: stderr %q", stderr)
	}

	stderr = p.fails(1, "die", "3")
	if !strings.Contains(stderr, "python") || !strings.Contains(stderr, "exit status 3") {
		t.Errorf("pool exit: stderr should name the pool and how it died: %q", stderr)
	}
	stderr = p.fails(1, "sigkill", "1")
	if !strings.Contains(stderr, "python") || !strings.Contains(stderr, "kill") {
		t.Errorf("pool killed: stderr should name the pool and the signal: %q", stderr)
	}
}

// TestWorkingDirectory: a function sees the user's folder as its working
// directory, so relative paths mean what the user meant.
func TestWorkingDirectory(t *testing.T) {
	p := build(t, behaviourProgram)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte("payload"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runIn(t, dir, nil, "env", "TMPDIR="+p.tmp, p.launcher, "readrel", "data.txt")
	if res.code != 0 || res.stdout != `"payload"`+"\n" {
		t.Fatalf("readrel: exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
	}
}

// TestInterrupt: Ctrl-C during a call stops the pool and leaves nothing behind.
func TestInterrupt(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			p := build(t, behaviourProgram)
			cmd := exec.Command(p.launcher, "slow", "1")
			cmd.Env = append(os.Environ(), "TMPDIR="+p.tmp)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			started := make(chan bool, 1)
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					if strings.Contains(sc.Text(), "slow started") {
						started <- true
						io.Copy(io.Discard, stderr)
						return
					}
				}
				started <- false
			}()
			select {
			case ok := <-started:
				if !ok {
					t.Fatal("the slow function never started")
				}
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the slow function did not start in 30s")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("nexus did not exit within 10s of the signal")
			}
			if sig != syscall.SIGKILL {
				if code := cmd.ProcessState.ExitCode(); code == 0 {
					t.Errorf("exit code 0 after %v", sig)
				}
				p.checkClean()
				return
			}
			// SIGKILL gives the nexus no chance to clean up: the pool must
			// still die (parent-death signal); only its socket folder may
			// remain, which is unavoidable.
			deadline := time.Now().Add(5 * time.Second)
			for len(processesMentioning(p.launcher+"-build")) > 0 {
				if time.Now().After(deadline) {
					t.Fatalf("pool outlived a SIGKILLed nexus: %v", processesMentioning(p.launcher+"-build"))
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
