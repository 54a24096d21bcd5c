// Package stepprofile profiles a nexus's cold start over stdio, step by
// step, and the stages of a small call after it. It starts `nexus mcp
// PROG` with NEXUS_STEPS=1 (package internal/steptrace), sends
// initialize, notifications/initialized and one tools/call, as the peers
// benchmark's cold start does, and takes the median time of each step the
// nexus marked, counted from just before the exec, over several starts.
// Given several nexus binaries, it alternates them start by start, so
// that a busy machine's drift weighs on each alike. With Calls each start
// then makes that many sequential calls, a raw client's (no SDK's) view
// of the stdio front end. With Stages each of those calls is preceded by
// three requests, each reaching one stage less far: a ping (stdin,
// parsing, dispatch, the reply written: the transport), a tools/call of
// an unknown tool (the call's own goroutine, its lookup and an error
// result) and one with an unknown argument (binding the arguments); the
// call itself adds encoding, the pool's round trip, decoding and the
// result. Used by integration/startsteps and the peers benchmark.
package stepprofile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is what to profile.
type Config struct {
	Nexus  []string        // the nexus binaries, alternated start by start
	Prog   string          // a launcher built with nexus make
	Tool   string          // the tool called, which takes Args
	Args   json.RawMessage // a JSON object
	Starts int             // starts per binary
	Calls  int             // sequential calls after the first, per start
	Stages bool            // each call preceded by the stages' requests
	Log    io.Writer       // where the nexus's other stderr lines go; nil: dropped
}

// Profile is what one nexus binary did.
type Profile struct {
	Nexus string
	// Steps are the nexus's marks and the client's "answer read", by
	// their median time from the exec, in order.
	Steps []Step
	// Calls are the sequential calls' latencies, sorted.
	Calls []time.Duration
	// CPUPerCall is the nexus's CPU time (its pools' included) over all
	// starts, per call made (each start's first included).
	CPUPerCall time.Duration
	// Stages are the median latency of each stage's request, and what it
	// adds to the one before, when Config.Stages.
	Stages []Stage
}

// Step is one step of a start.
type Step struct {
	Name string
	At   time.Duration // median, from just before the exec
}

// Stage is one stage of a small call.
type Stage struct {
	Name   string
	Median time.Duration
	Adds   time.Duration // over the stage before
}

// StageNames are the stages' requests, each reaching one stage further.
var StageNames = []string{"ping", "unknown tool", "unknown argument", "call"}

// Run profiles c.Prog with every binary of c.Nexus.
func Run(c Config) ([]Profile, error) {
	n := len(c.Nexus)
	steps := make([]map[string][]time.Duration, n)
	latencies := make([][]time.Duration, n)
	byStage := make([]map[string][]time.Duration, n)
	cpu := make([]time.Duration, n)
	for j := range n {
		steps[j], byStage[j] = map[string][]time.Duration{}, map[string][]time.Duration{}
	}
	for range c.Starts {
		for j, bin := range c.Nexus {
			marks, lat, used, err := start(bin, c)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", bin, err)
			}
			cpu[j] += used
			if c.Stages {
				var calls []time.Duration
				for k, d := range lat {
					name := StageNames[k%len(StageNames)]
					byStage[j][name] = append(byStage[j][name], d)
					if name == "call" {
						calls = append(calls, d)
					}
				}
				lat = calls
			}
			latencies[j] = append(latencies[j], lat...)
			for _, m := range marks {
				steps[j][m.name] = append(steps[j][m.name], m.at)
			}
		}
	}
	profiles := make([]Profile, n)
	for j, bin := range c.Nexus {
		p := Profile{Nexus: bin}
		for name, ds := range steps[j] {
			p.Steps = append(p.Steps, Step{name, median(ds)})
		}
		slices.SortFunc(p.Steps, func(a, b Step) int { return int(a.At - b.At) })
		p.Calls = latencies[j]
		slices.Sort(p.Calls)
		p.CPUPerCall = cpu[j] / time.Duration(len(p.Calls)+c.Starts)
		if c.Stages {
			prev := time.Duration(0)
			for _, name := range StageNames {
				m := median(byStage[j][name])
				p.Stages = append(p.Stages, Stage{name, m, m - prev})
				prev = m
			}
		}
		profiles[j] = p
	}
	return profiles, nil
}

// Write writes p as text: the steps, then the calls and their stages.
func (p Profile) Write(w io.Writer, prog string, starts int) {
	fmt.Fprintf(w, "%s with %s, median of %d starts (ms from exec)\n", prog, p.Nexus, starts)
	for _, s := range p.Steps {
		fmt.Fprintf(w, "  %7.2f  %s\n", float64(s.At.Microseconds())/1000, s.Name)
	}
	if lat := p.Calls; len(lat) > 0 {
		var sum time.Duration
		for _, d := range lat {
			sum += d
		}
		fmt.Fprintf(w, "  then %d sequential calls: median %d µs, p99 %d µs, %.0f calls/s; the nexus's CPU time %.1f µs a call (its pools' and its start included)\n", len(lat),
			lat[len(lat)/2].Microseconds(), lat[len(lat)*99/100].Microseconds(), float64(len(lat))/sum.Seconds(),
			float64(p.CPUPerCall.Nanoseconds())/1000)
	}
	if len(p.Stages) > 0 {
		fmt.Fprintf(w, "  stages, the median of each request (µs; what the stage adds):\n")
		for _, s := range p.Stages {
			fmt.Fprintf(w, "  %7.1f  %-16s %+7.1f\n", float64(s.Median.Nanoseconds())/1000, s.Name, float64(s.Adds.Nanoseconds())/1000)
		}
	}
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
func start(nexus string, c Config) ([]mark, []time.Duration, time.Duration, error) {
	cmd := exec.Command(nexus, "mcp", c.Prog)
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
	go func() { logged <- readMarks(stderr, t0, c.Log) }()

	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": c.Tool, "arguments": c.Args}})
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
	lat, err := sequential(r, stdin, c)
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
// each took, from its write to its answer's last byte. With -stages each
// call is preceded by the requests of the stages before it (stageNames),
// and every one is timed.
func sequential(r *bufio.Reader, w io.Writer, c Config) ([]time.Duration, error) {
	var lat []time.Duration
	id := 3
	send := func(method string, params any, fails bool) error {
		msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
		if params != nil {
			msg["params"] = params
		}
		id++
		line, err := json.Marshal(msg)
		if err != nil {
			return err
		}
		t := time.Now()
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
		answer, err := r.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("%s %d: %w", method, id, err)
		}
		lat = append(lat, time.Since(t))
		if failed := strings.Contains(string(answer), `"isError":true`) || strings.Contains(string(answer), `"error":`); failed != fails {
			return fmt.Errorf("%s %s: unexpected answer %s", method, line, answer)
		}
		return nil
	}
	for range c.Calls {
		if c.Stages {
			if err := send("ping", nil, false); err != nil {
				return nil, err
			}
			if err := send("tools/call", map[string]any{"name": "nexus-no-such-tool", "arguments": map[string]any{}}, true); err != nil {
				return nil, err
			}
			if err := send("tools/call", map[string]any{"name": c.Tool, "arguments": map[string]any{"nexus_no_such_argument": 1}}, true); err != nil {
				return nil, err
			}
		}
		if err := send("tools/call", map[string]any{"name": c.Tool, "arguments": c.Args}, false); err != nil {
			return nil, err
		}
	}
	return lat, nil
}

// readMarks reads the nexus's stderr to its end and returns its step
// marks, relative to t0; its other lines go to log.
func readMarks(r io.Reader, t0 time.Time, log io.Writer) []mark {
	var marks []mark
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 3)
		if len(f) != 3 || f[0] != "nexus-step" {
			if log != nil {
				fmt.Fprintln(log, sc.Text())
			}
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
