package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"

	"github.com/nexus-run/nexus/internal/nexus/guard"
)

// DebugAddrVar names the environment variable that, set to a loopback
// address (127.0.0.1:6060), makes the nexus serve Go's profiler there:
// /debug/pprof/ with goroutine counts, heap statistics and CPU profiles.
// The load test reads it to check that nothing leaks.
const DebugAddrVar = "NEXUS_DEBUG_ADDR"

// startDebug serves the profiler when DebugAddrVar asks for it. It refuses
// any address beyond loopback: a profile shows a program's internals.
func startDebug() {
	addr := os.Getenv(DebugAddrVar)
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !guard.IsLoopback(host) {
		fmt.Fprintf(os.Stderr, "nexus: %s=%s ignored: it must be a loopback address such as 127.0.0.1:6060\n", DebugAddrVar, addr)
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "nexus: %s: %v\n", DebugAddrVar, err)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	fmt.Fprintf(os.Stderr, "nexus: profiler on http://%s/debug/pprof/\n", ln.Addr())
	go http.Serve(ln, mux) //nolint:errcheck // lives as long as the process
}
