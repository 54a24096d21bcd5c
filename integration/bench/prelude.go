package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nexus-run/nexus/internal/pooltest"
)

// The prelude's higher-order functions over a Python function (issue 16):
// `map score xs` runs its whole loop in the Python pool, so it should cost
// no more than twice the same loop written in Python and called once.
// Both are called over MCP stdio, in alternating turns, with the same
// 100,000 reals; a map whose function the pool cannot run itself (a
// lambda doing more than call score) loops in the nexus, one pool call per
// element, measured on 1,000 reals for scale.
const preludeLoc = `
module loops (mapped, looped, stepped)
import root-py
source Py from "loops.py" ("score", "score_all")
score :: Real -> Real
score_all :: [Real] -> [Real]

--' map over a Python function: the loop runs in the pool
mapped :: [Real] -> [Real]
mapped xs = map score xs

--' the same loop written in Python, called once
looped :: [Real] -> [Real]
looped xs = score_all xs

--' a lambda the pool cannot run itself: the nexus loops, one call each
stepped :: [Real] -> [Real]
stepped xs = map (\x -> score x + 0.0) xs
`

const preludePy = `
def score(x):
    return x * 2.0 + 1.0

def score_all(xs):
    return [score(x) for x in xs]
`

const (
	preludeItems      = 100_000
	preludeSmallItems = 1_000
	preludeRounds     = 15
)

func benchPrelude(nexus string) error {
	dir, err := os.MkdirTemp("", "nexus-bench-loops-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for name, text := range map[string]string{"main.loc": preludeLoc, "loops.py": preludePy} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	mk := exec.Command(nexus, "make", "-o", "loops", "main.loc")
	mk.Dir = dir
	if out, err := mk.CombinedOutput(); err != nil {
		return fmt.Errorf("nexus make: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), mcpDeadline)
	defer cancel()
	cmd := exec.Command(nexus, "mcp", filepath.Join(dir, "loops"))
	stderr := &pooltest.Buffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "nexus-bench", Version: "bench"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: mcpProtocol})
	if err != nil {
		return fmt.Errorf("connect: %w\n%s", err, stderr)
	}
	defer cs.Close()

	big := make([]float64, preludeItems)
	for i := range big {
		big[i] = float64(i) / 7
	}
	small := big[:preludeSmallItems]
	call := func(tool string, xs []float64) (time.Duration, []float64, error) {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"_1": xs}})
		d := time.Since(start)
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w\n%s", tool, err, stderr)
		}
		if res.IsError || len(res.Content) != 1 {
			return 0, nil, fmt.Errorf("%s failed: %v", tool, res.Content)
		}
		var out []float64
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
			return 0, nil, fmt.Errorf("%s: %w", tool, err)
		}
		return d, out, nil
	}
	var tm, tl, ts []time.Duration
	for round := -1; round < preludeRounds; round++ { // round -1 warms up
		dm, om, err := call("mapped", big)
		if err != nil {
			return err
		}
		dl, ol, err := call("looped", big)
		if err != nil {
			return err
		}
		ds, ost, err := call("stepped", small)
		if err != nil {
			return err
		}
		if len(om) != len(big) || len(ol) != len(big) || len(ost) != len(small) || om[len(om)-1] != ol[len(ol)-1] || ost[9] != ol[9] {
			return fmt.Errorf("the three tools disagree")
		}
		if round >= 0 {
			tm, tl, ts = append(tm, dm), append(tl, dl), append(ts, ds)
		}
	}
	mm, ml, mst := median(tm), median(tl), median(ts)
	fmt.Printf("\nprelude higher-order functions over a Python function, MCP tools/call over stdio (median of %d alternating turns)\n\n", preludeRounds)
	fmt.Printf("| tool | items | median per call | per item |\n| --- | ---: | ---: | ---: |\n")
	fmt.Printf("| `mapped xs = map score xs` (loop in the Python pool) | %d | %s | %s |\n", preludeItems, msf(mm), usf(mm/preludeItems))
	fmt.Printf("| `looped xs = score_all xs` (the loop written in Python) | %d | %s | %s |\n", preludeItems, msf(ml), usf(ml/preludeItems))
	fmt.Printf("| `stepped xs = map (\\x -> score x + 0.0) xs` (loop in the nexus) | %d | %s | %s |\n", preludeSmallItems, msf(mst), usf(mst/preludeSmallItems))
	r := float64(mm) / float64(ml)
	verdict := "met"
	if r > 2 {
		verdict = "not met"
	}
	fmt.Printf("\nratio mapped / looped: %.2f (goal of issue 16: at most 2: %s)\n", r, verdict)
	return nil
}

func msf(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
func usf(d time.Duration) string { return fmt.Sprintf("%.2f µs", float64(d)/1e3) }
