// Package profiler reads a nexus's Go profiler, which it serves on a
// loopback address when started with NEXUS_DEBUG_ADDR=127.0.0.1:0: the
// load and soak commands count its goroutines and its live heap there.
package profiler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// Env is the environment entry that makes nexus serve its profiler on a
// free loopback port.
const Env = "NEXUS_DEBUG_ADDR=127.0.0.1:0"

// Announced is how nexus says, on stderr, where its profiler is; the
// submatch is the base URL, ending in /debug/pprof/.
var Announced = regexp.MustCompile(`nexus: profiler on (http://\S+)`)

var (
	goroutineTotal = regexp.MustCompile(`goroutine profile: total (\d+)`)
	heapAlloc      = regexp.MustCompile(`(?m)^# HeapAlloc = (\d+)`)
)

// Goroutines is the nexus's goroutine count, -1 when it cannot be read.
func Goroutines(ctx context.Context, base string) int {
	return int(number(ctx, base+"goroutine?debug=1", goroutineTotal))
}

// LiveHeap is the nexus's HeapAlloc right after a garbage collection
// (gc=1 runs one first), in bytes; -1 when it cannot be read.
func LiveHeap(ctx context.Context, base string) int64 {
	return number(ctx, base+"heap?debug=1&gc=1", heapAlloc)
}

// number is the number re finds in the page at url, -1 if none.
func number(ctx context.Context, url string, re *regexp.Regexp) int64 {
	body, err := Get(ctx, url)
	if err != nil {
		return -1
	}
	m := re.FindStringSubmatch(body)
	if m == nil {
		return -1
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// Get fetches url on a connection of its own, bounded to 10 seconds.
func Get(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(body), err
}
