package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/manifest"
)

// bigN is the length of the [Real] payload: about 9 MB of msgpack.
const bigN = 1_000_000

// bigRuns is how many times the large payload goes round; few, since each
// moves 18 MB.
const bigRuns = 7

// callSources are, per pool language, the identity functions measured.
var callSources = map[string]struct{ file, body, lang string }{
	"py": {"ids.py", "def ident(x):\n    return x\n\ndef reals(xs):\n    return xs\n", "Py"},
	"cpp": {"ids.hpp", "#pragma once\n#include <cstdint>\n#include <vector>\n" +
		"inline int64_t ident(int64_t x) { return x; }\n" +
		"inline std::vector<double> reals(const std::vector<double>& xs) { return xs; }\n", "Cpp"},
	"go": {"ids.go", "package ids\n\nfunc Ident(x int) int { return x }\n\nfunc Reals(xs []float64) []float64 { return xs }\n", "Go"},
}

func callsProgram(lang string) (string, string) {
	src := callSources[lang]
	ident, reals := "ident", "reals"
	if lang == "go" {
		ident, reals = "Ident", "Reals"
	}
	loc := fmt.Sprintf(`
module calls (trivial, big)
source %s from %q (%q as ident, %q as reals)
ident :: Int -> Int
reals :: [Real] -> [Real]
trivial :: Int -> Int
trivial x = ident x
big :: [Real] -> [Real]
big xs = reals xs
`, src.lang, src.file, ident, reals)
	return loc, src.body
}

func benchCalls(nexus string, langs []string, calls int) error {
	floor, payload, err := msgpackFloor()
	if err != nil {
		return err
	}
	fmt.Printf("\ncalls through dispatch and the pool supervisor (%d trivial calls, %d round trips of %d reals = %.1f MB msgpack each way)\n\n",
		calls, bigRuns, bigN, float64(payload)/1e6)
	fmt.Printf("| pool | `Int -> Int` median | p99 | 1M `[Real]` round trip | throughput | share of floor |\n")
	fmt.Printf("| --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, lang := range langs {
		row, err := benchPool(nexus, lang, calls, payload, floor)
		if err != nil {
			return fmt.Errorf("%s pool: %w", lang, err)
		}
		fmt.Println(row)
	}
	raw, err := rawRoundTrip(calls)
	if err != nil {
		return fmt.Errorf("raw gRPC baseline: %w", err)
	}
	fmt.Printf("| raw gRPC, Go to Go over a Unix socket (no nexus) | %s | %s | | | |\n", us(median(raw)), us(percentile(raw, 0.99)))
	fmt.Printf("| msgpack alone (Go encode + decode) | | | %s | %.0f MB/s | 1 |\n", ms(floor), mbps(payload, floor))
	fmt.Printf("\ngoals: C++ and Go round trip under 100 µs median, Python under 300 µs; throughput at least 1/3 of the floor\n")
	return nil
}

func benchPool(nexus, lang string, calls, payload int, floor time.Duration) (string, error) {
	m, err := buildCalls(nexus, lang)
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(filepath.Dir(m.Dir))
	sup := pool.New(m, pool.Options{})
	defer sup.Close()
	ctx := context.Background()
	if err := sup.Start(ctx, lang); err != nil {
		return "", err
	}
	d := &dispatch.Dispatcher{M: m, Pools: sup}
	trivial, big := m.Command("trivial"), m.Command("big")

	// Warm up: the first calls pay for lazy set-up in every layer.
	for i := 0; i < 50; i++ {
		if _, err := d.Run(ctx, trivial, []any{int64(i)}); err != nil {
			return "", err
		}
	}
	lat := make([]time.Duration, calls)
	for i := range lat {
		start := time.Now()
		v, err := d.Run(ctx, trivial, []any{int64(i)})
		lat[i] = time.Since(start)
		if err != nil {
			return "", err
		}
		if v != int64(i) {
			return "", fmt.Errorf("ident %d returned %v", i, v)
		}
	}
	xs := bigList()
	var rt []time.Duration
	for i := 0; i < bigRuns; i++ {
		start := time.Now()
		v, err := d.Run(ctx, big, []any{xs})
		rt = append(rt, time.Since(start))
		if err != nil {
			return "", err
		}
		if ys, ok := v.([]float64); !ok || len(ys) != bigN || ys[bigN-1] != xs[bigN-1] {
			return "", fmt.Errorf("reals came back changed")
		}
	}
	med := median(rt)
	return fmt.Sprintf("| %s | %s | %s | %s | %.0f MB/s | %.2f |", pool.Name(lang), us(median(lat)), us(percentile(lat, 0.99)),
		ms(med), mbps(payload, med), float64(floor)/float64(med)), nil
}

// buildCalls builds the benchmark program for lang with `nexus make` and
// loads its manifest.
func buildCalls(nexus, lang string) (*manifest.Manifest, error) {
	launcher, err := makeCalls(nexus, lang)
	if err != nil {
		return nil, err
	}
	m, err := manifest.Load(launcher)
	if err != nil {
		os.RemoveAll(filepath.Dir(launcher))
	}
	return m, err
}

// makeCalls builds the benchmark program for lang with `nexus make` in a new
// temporary directory and returns the path of its launcher; the caller
// removes the launcher's directory.
func makeCalls(nexus, lang string) (string, error) {
	dir, err := os.MkdirTemp("", "nexus-bench-calls-")
	if err != nil {
		return "", err
	}
	loc, body := callsProgram(lang)
	err = os.WriteFile(filepath.Join(dir, "main.loc"), []byte(loc), 0o644)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, callSources[lang].file), []byte(body), 0o644)
	}
	if err == nil {
		mk := exec.Command(nexus, "make", "-o", "calls", "main.loc")
		mk.Dir = dir
		if out, merr := mk.CombinedOutput(); merr != nil {
			err = fmt.Errorf("nexus make: %v\n%s", merr, out)
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return filepath.Join(dir, "calls"), nil
}

func bigList() []float64 {
	xs := make([]float64, bigN)
	for i := range xs {
		xs[i] = float64(i) * 0.5
	}
	return xs
}

// msgpackFloor times encoding and decoding the large payload with the
// msgpack library alone, straight from and into a []float64, and returns
// the median time and the payload's size.
func msgpackFloor() (time.Duration, int, error) {
	xs := make([]float64, bigN)
	for i := range xs {
		xs[i] = float64(i) * 0.5
	}
	var ds []time.Duration
	size := 0
	for i := 0; i < bigRuns; i++ {
		start := time.Now()
		data, err := msgpack.Marshal(xs)
		if err != nil {
			return 0, 0, err
		}
		var ys []float64
		if err := msgpack.Unmarshal(data, &ys); err != nil {
			return 0, 0, err
		}
		ds = append(ds, time.Since(start))
		size = len(data)
	}
	return median(ds), size, nil
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s)-1)*p)]
}

func us(d time.Duration) string {
	return fmt.Sprintf("%.0f µs", float64(d.Nanoseconds())/1000)
}

func mbps(bytes int, d time.Duration) float64 {
	return float64(bytes) / 1e6 / d.Seconds()
}
