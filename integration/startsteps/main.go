// Command startsteps profiles a nexus's cold start over stdio, step by
// step, and with -calls N -stages the stages of a small call: see package
// integration/stepprofile. Given several nexus binaries (-nexus A,B), it
// alternates them start by start, and reports each; with NEXUS_DEBUG_ADDR
// set the nexus serves its profiler meanwhile. The peers benchmark runs
// the same profile for its report.
//
//	go run ./integration/startsteps -nexus bin/nexus -n 10 [-calls 2000 -stages] PROG...
//
// PROG is a launcher built with nexus make whose tool -tool takes -args.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/nexus-run/nexus/integration/stepprofile"
)

func main() {
	nexus := flag.String("nexus", "bin/nexus", "the nexus binary, or several, comma-separated")
	n := flag.Int("n", 10, "starts per program")
	tool := flag.String("tool", "trivial", "the tool called")
	args := flag.String("args", `{"x":1}`, "its arguments, a JSON object")
	calls := flag.Int("calls", 0, "sequential calls after the first, per start")
	stages := flag.Bool("stages", false, "with -calls N, N rounds of a ping, a call of an unknown tool, one with an unknown argument and the call, each reported")
	flag.Parse()
	if *n < 1 || *n > 1000 || *calls < 0 || *calls > 1_000_000 || flag.NArg() == 0 || !json.Valid([]byte(*args)) {
		fmt.Fprintln(os.Stderr, "usage: startsteps [-nexus BIN] [-n 1..1000] [-calls 0..1000000 [-stages]] [-tool T -args JSON] PROG...")
		os.Exit(2)
	}
	for _, prog := range flag.Args() {
		c := stepprofile.Config{Nexus: strings.Split(*nexus, ","), Prog: prog, Tool: *tool, Args: json.RawMessage(*args),
			Starts: *n, Calls: *calls, Stages: *stages, Log: os.Stderr}
		profiles, err := stepprofile.Run(c)
		if err != nil {
			fmt.Fprintf(os.Stderr, "startsteps: %s: %v\n", prog, err)
			os.Exit(1)
		}
		for _, p := range profiles {
			p.Write(os.Stdout, prog, *n)
		}
	}
}
