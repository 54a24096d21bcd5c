// Command startsteps profiles a nexus's cold start over stdio, step by
// step: it starts `nexus mcp PROG` with NEXUS_STEPS=1 (package
// internal/steptrace), sends initialize, notifications/initialized and
// one tools/call, as the peers benchmark's cold start does, and reports
// the median time of each step the nexus marked, counted from just before
// the exec, over -n starts. Given several nexus binaries (-nexus A,B), it
// alternates them start by start, so that a busy machine's drift weighs
// on each alike, and reports each. With -calls N each start then makes N
// more sequential calls, a raw client's (no SDK's) view of the stdio front
// end, and their median and 99th percentile are reported too; with
// NEXUS_DEBUG_ADDR set the nexus serves its profiler meanwhile.
//
//	go run ./integration/startsteps -nexus bin/nexus -n 10 PROG...
//
// PROG is a launcher built with nexus make whose tool -tool takes -args.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	nexus := flag.String("nexus", "bin/nexus", "the nexus binary, or several, comma-separated")
	n := flag.Int("n", 10, "starts per program")
	tool := flag.String("tool", "trivial", "the tool called")
	args := flag.String("args", `{"x":1}`, "its arguments, a JSON object")
	calls := flag.Int("calls", 0, "sequential calls after the first, per start")
	flag.Parse()
	if *n < 1 || *n > 1000 || *calls < 0 || *calls > 1_000_000 || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: startsteps [-nexus BIN] [-n 1..1000] [-calls 0..1000000] [-tool T -args JSON] PROG...")
		os.Exit(2)
	}
	for _, prog := range flag.Args() {
		if err := profile(strings.Split(*nexus, ","), prog, *tool, json.RawMessage(*args), *n, *calls); err != nil {
			fmt.Fprintf(os.Stderr, "startsteps: %s: %v\n", prog, err)
			os.Exit(1)
		}
	}
}

// profile starts prog n times with each nexus and prints the median of
// each step.
func profile(nexus []string, prog, tool string, args json.RawMessage, n, calls int) error {
	steps := make([]map[string][]time.Duration, len(nexus))
	latencies := make([][]time.Duration, len(nexus))
	cpu := make([]time.Duration, len(nexus)) // the nexus's, all starts
	for i := range steps {
		steps[i] = map[string][]time.Duration{}
	}
	for i := 0; i < n; i++ {
		for j, bin := range nexus {
			marks, lat, used, err := start(bin, prog, tool, args, calls)
			if err != nil {
				return fmt.Errorf("%s: %w", bin, err)
			}
			cpu[j] += used
			latencies[j] = append(latencies[j], lat...)
			for _, m := range marks {
				steps[j][m.name] = append(steps[j][m.name], m.at)
			}
		}
	}
	for j, bin := range nexus {
		var order []string
		for name := range steps[j] {
			order = append(order, name)
		}
		slices.SortFunc(order, func(a, b string) int { return int(median(steps[j][a]) - median(steps[j][b])) })
		fmt.Printf("%s with %s, median of %d starts (ms from exec)\n", prog, bin, n)
		for _, name := range order {
			fmt.Printf("  %7.2f  %s\n", float64(median(steps[j][name]).Microseconds())/1000, name)
		}
		if lat := latencies[j]; len(lat) > 0 {
			slices.Sort(lat)
			var sum time.Duration
			for _, d := range lat {
				sum += d
			}
			fmt.Printf("  then %d sequential calls: median %d µs, p99 %d µs, %.0f calls/s; the nexus's CPU time %.1f µs a call (its start included)\n", len(lat),
				lat[len(lat)/2].Microseconds(), lat[len(lat)*99/100].Microseconds(), float64(len(lat))/sum.Seconds(),
				float64(cpu[j].Nanoseconds())/1000/float64(len(lat)+n))
		}
	}
	return nil
}

type mark struct {
	name string
	at   time.Duration
}

// stepTimeout bounds one start: a nexus answers its first call within
// milliseconds, and a hung one must not hang the profile.
const stepTimeout = 20 * time.Second

// start runs one cold start and returns the nexus's marks and the
// client's own ("answer read"), and the latencies of the calls that
// follow.
func start(nexus, prog, tool string, args json.RawMessage, calls int) ([]mark, []time.Duration, time.Duration, error) {
	cmd := exec.Command(nexus, "mcp", prog)
	cmd.Env = append(os.Environ(), "NEXUS_STEPS=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, 0, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, nil, 0, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, nil, 0, err
	}
	timer := time.AfterFunc(stepTimeout, func() { cmd.Process.Kill() })
	defer timer.Stop()
	logged := make(chan []mark, 1)
	go func() { logged <- readMarks(stderr, t0) }()

	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"startsteps","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	r := bufio.NewReader(stdout)
	if _, err := io.WriteString(stdin, msgs[0]+"\n"); err != nil {
		return nil, nil, 0, err
	}
	if _, err := r.ReadBytes('\n'); err != nil {
		return nil, nil, 0, fmt.Errorf("initialize: %w", err)
	}
	if _, err := io.WriteString(stdin, msgs[1]+"\n"+string(call)+"\n"); err != nil {
		return nil, nil, 0, err
	}
	answer, err := r.ReadBytes('\n')
	if err != nil {
		return nil, nil, 0, fmt.Errorf("tools/call: %w", err)
	}
	answered := time.Since(t0)
	if strings.Contains(string(answer), `"isError":true`) || strings.Contains(string(answer), `"error"`) {
		return nil, nil, 0, fmt.Errorf("tools/call failed: %s", answer)
	}
	lat, err := sequential(r, stdin, tool, args, calls)
	if err != nil {
		return nil, nil, 0, err
	}
	stdin.Close()
	marks := <-logged
	if err := cmd.Wait(); err != nil {
		return nil, nil, 0, fmt.Errorf("nexus ended with %w", err)
	}
	used := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return append(marks, mark{"answer read (client)", answered}), lat, used, nil
}

// sequential makes n calls of tool, one at a time, and returns how long
// each took, from its write to its answer's last byte.
func sequential(r *bufio.Reader, w io.Writer, tool string, args json.RawMessage, n int) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		call, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3 + i, "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": args}})
		if err != nil {
			return nil, err
		}
		t := time.Now()
		if _, err := w.Write(append(call, '\n')); err != nil {
			return nil, err
		}
		answer, err := r.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("call %d: %w", i, err)
		}
		lat = append(lat, time.Since(t))
		if strings.Contains(string(answer), `"isError":true`) {
			return nil, fmt.Errorf("call %d failed: %s", i, answer)
		}
	}
	return lat, nil
}

// readMarks reads the nexus's stderr to its end and returns its step
// marks, relative to t0.
func readMarks(r io.Reader, t0 time.Time) []mark {
	var marks []mark
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 3)
		if len(f) != 3 || f[0] != "nexus-step" {
			fmt.Fprintln(os.Stderr, sc.Text())
			continue
		}
		us, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		marks = append(marks, mark{f[2], time.UnixMicro(us).Sub(t0)})
	}
	return marks
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
