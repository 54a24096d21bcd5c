// Command bench measures nexus against the costs it cannot avoid and prints
// the README's benchmark table. Run it with `make bench`.
//
// Start-up: the wall time of `./prog cmd` for a trivial Python function,
// beside `python3 -c 'import grpc, msgpack'` (what any Python pool must pay
// before it can serve a call), run alternately so that machine noise hits
// both alike.
//
// Calls: the round trip of a trivial Int -> Int call into each pool, and the
// throughput of a 1,000,000-element [Real] round trip, beside the time
// msgpack alone takes to encode and decode the same data in Go (the floor).
// These go through the same dispatch and supervisor code as `./prog`, in
// this process, with real pools.
//
// MCP: sequential tools/call throughput over stdio of `nexus mcp` for a
// trivial Go-pool and a trivial Python-pool function, beside an MCP server
// made with the official Go SDK that does the same work in-process (the
// ceiling for a server without pools), all driven by the SDK's client.
// `-only mcp` runs just this section.
//
// Prelude: `map` of a Python function over 100,000 reals (the loop runs in
// the pool) beside the same loop written in Python and called once
// (prelude.go); `-only prelude` runs just this section.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	nexus := flag.String("nexus", "bin/nexus", "the nexus binary to measure")
	runs := flag.Int("runs", 30, "runs of each command in the start-up benchmark")
	calls := flag.Int("calls", 2000, "trivial calls into each pool")
	langs := flag.String("langs", "py,cpp,go", "pools to measure in the call benchmark")
	mcpCalls := flag.Int("mcp-calls", 2000, "tools/call requests to each server in the MCP benchmark")
	only := flag.String("only", "", "run only one benchmark: startup, calls, mcp or prelude")
	rawSocket := flag.String("serve-raw", "", "internal: serve the raw gRPC baseline on this socket")
	mcpCeiling := flag.Bool("serve-mcp-ceiling", false, "internal: serve the MCP ceiling on stdio")
	flag.Parse()
	if *rawSocket != "" || *mcpCeiling {
		var err error
		if *mcpCeiling {
			err = serveMCPCeiling()
		} else {
			err = serveRaw(*rawSocket)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	switch *only {
	case "", "startup", "calls", "mcp", "prelude":
	default:
		fmt.Fprintf(os.Stderr, "bench: -only %q: want startup, calls, mcp or prelude\n", *only)
		os.Exit(2)
	}
	run := func(section string) bool { return *only == "" || *only == section }
	nexusPath, err := filepath.Abs(*nexus)
	if err == nil && run("startup") {
		err = benchStartup(nexusPath, *runs)
	}
	if err == nil && run("calls") {
		err = benchCalls(nexusPath, strings.Split(*langs, ","), *calls)
	}
	if err == nil && run("mcp") {
		err = benchMCP(nexusPath, *mcpCalls)
	}
	if err == nil && run("prelude") {
		err = benchPrelude(nexusPath)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

const trivialLoc = `
module trivial (ident)
import root-py
source Py from "trivial.py" ("ident")
ident :: Int -> Int
`

const trivialPy = `
def ident(x):
    return x
`

func benchStartup(nexus string, runs int) error {
	dir, err := os.MkdirTemp("", "nexus-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.loc"), []byte(trivialLoc), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "trivial.py"), []byte(trivialPy), 0o644); err != nil {
		return err
	}
	mk := exec.Command(nexus, "make", "-o", "trivial", "main.loc")
	mk.Dir = dir
	if out, err := mk.CombinedOutput(); err != nil {
		return fmt.Errorf("nexus make: %v\n%s", err, out)
	}
	prog := []string{filepath.Join(dir, "trivial"), "ident", "1"}
	floor := []string{"python3", "-c", "import grpc, msgpack"}

	// One warm-up run of each fills the page cache and Python's bytecode
	// caches, as on any machine after the first run.
	for _, argv := range [][]string{prog, floor} {
		if _, err := timeRun(argv); err != nil {
			return err
		}
	}
	var tp, tf []time.Duration
	for i := 0; i < runs; i++ {
		d, err := timeRun(prog)
		if err != nil {
			return err
		}
		tp = append(tp, d)
		if d, err = timeRun(floor); err != nil {
			return err
		}
		tf = append(tf, d)
	}
	mp, mf := median(tp), median(tf)
	fmt.Printf("start-up, median of %d runs each (alternating)\n\n", runs)
	fmt.Printf("| command | median | min |\n| --- | ---: | ---: |\n")
	fmt.Printf("| `./prog ident 1` (trivial Python function) | %s | %s |\n", ms(mp), ms(minimum(tp)))
	fmt.Printf("| `python3 -c 'import grpc, msgpack'` | %s | %s |\n", ms(mf), ms(minimum(tf)))
	fmt.Printf("\nratio ./prog / python3-import: %.2f (goal: under 1.5)\n", float64(mp)/float64(mf))
	return nil
}

func timeRun(argv []string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%v: %v\n%s", argv, err, out)
	}
	return d, nil
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func minimum(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds {
		m = min(m, d)
	}
	return m
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}
