// Command hops measures what one more process on a call's path costs on
// this machine, with no MCP, JSON parsing or gRPC in the way: a client
// sends a line to an echo process over pipes and waits for it to come
// back, directly (two processes) or through a relay process (three, as
// a client, a nexus and a pool are), sequentially, and reports the median
// round trip of each, in rounds that alternate the two. It is the floor
// under a small call through nexus over stdio, against a server that
// answers in its own process (issue 15's closing note).
//
//	go run ./integration/hops [-n 20000] [-rounds 3]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 20000, "round trips per measurement")
	rounds := flag.Int("rounds", 3, "rounds, each measuring both paths")
	flag.Parse()
	switch flag.Arg(0) {
	case "echo":
		echo()
		return
	case "relay":
		relay()
		return
	}
	if *n < 1 || *n > 1_000_000 || *rounds < 1 || *rounds > 100 {
		fmt.Fprintln(os.Stderr, "usage: hops [-n 1..1000000] [-rounds 1..100]")
		os.Exit(2)
	}
	for r := 0; r < *rounds; r++ {
		direct, err := measure(*n, "echo")
		if err != nil {
			fmt.Fprintln(os.Stderr, "hops:", err)
			os.Exit(1)
		}
		relayed, err := measure(*n, "relay")
		if err != nil {
			fmt.Fprintln(os.Stderr, "hops:", err)
			os.Exit(1)
		}
		fmt.Printf("round %d: direct %.1f µs, through a relay %.1f µs (the hop: %.1f µs)\n", r+1,
			us(direct), us(relayed), us(relayed-direct))
	}
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

// echo writes back every line it reads.
func echo() {
	r := bufio.NewReader(os.Stdin)
	for {
		l, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		if _, err := os.Stdout.Write(l); err != nil {
			return
		}
	}
}

// relay passes every line it reads to an echo process of its own, and
// its answer back. It runs on one scheduler thread, as nexus mcp does
// over stdio; the echo process, like a pool, on the default.
func relay() {
	cmd := exec.Command(os.Args[0], "echo")
	cmd.Env = slices.DeleteFunc(os.Environ(), func(v string) bool { return strings.HasPrefix(v, "GOMAXPROCS=") })
	in, err := cmd.StdinPipe()
	if err != nil {
		return
	}
	out, err := cmd.StdoutPipe()
	if err != nil || cmd.Start() != nil {
		return
	}
	defer cmd.Wait()
	defer in.Close()
	back := bufio.NewReader(out)
	r := bufio.NewReader(os.Stdin)
	for {
		l, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		if _, err := in.Write(l); err != nil {
			return
		}
		answer, err := back.ReadBytes('\n')
		if err != nil {
			return
		}
		if _, err := os.Stdout.Write(answer); err != nil {
			return
		}
	}
}

// measure makes n sequential round trips through this program run as
// mode and returns their median.
func measure(n int, mode string) (time.Duration, error) {
	cmd := exec.Command(os.Args[0], mode)
	if mode == "relay" {
		cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer cmd.Wait()
	defer in.Close()
	r := bufio.NewReader(out)
	// A small tools/call, as the peers benchmark sends.
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"trivial","arguments":{"x":1}}}` + "\n")
	ds := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		t := time.Now()
		if _, err := in.Write(msg); err != nil {
			return 0, err
		}
		if _, err := r.ReadBytes('\n'); err != nil {
			return 0, fmt.Errorf("%s: %w", mode, err)
		}
		ds = append(ds, time.Since(t))
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}
