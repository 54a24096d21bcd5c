package main

import (
	"context"
	"debug/buildinfo"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/nexus-run/nexus/integration/modversion"
)

// env is what the report says about the machine and the software.
type env struct {
	date    time.Time
	elapsed time.Duration
	command string
	rows    [][2]string // what, value
}

// describeEnv reads the machine from /proc and asks each tool its version.
func describeEnv(ctx context.Context, c config, root string, servers []*server) env {
	var e env
	add := func(what, value string) {
		if value != "" {
			e.rows = append(e.rows, [2]string{what, value})
		}
	}
	add("CPU", procField("/proc/cpuinfo", "model name")+", "+strconv.Itoa(runtime.NumCPU())+" cores")
	if kb, err := strconv.ParseFloat(strings.TrimSuffix(procField("/proc/meminfo", "MemTotal"), " kB"), 64); err == nil {
		add("memory", strconv.FormatFloat(kb/(1<<20), 'f', 1, 64)+" GiB")
	}
	osName := strings.Trim(procField("/etc/os-release", "PRETTY_NAME"), `"`)
	if kernel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		osName += ", Linux " + strings.TrimSpace(string(kernel))
	}
	add("OS", osName)
	add("Go", runtime.Version())

	has := map[string]*server{}
	for _, s := range servers {
		has[s.key] = s
	}
	if s := has["fastmcp"]; s != nil {
		python := s.stdio[0]
		v := firstLine(ctx, python, "-c", "import importlib.metadata as m, platform; print(platform.python_version(), m.version('fastmcp'), m.version('mcp'))")
		if f := strings.Fields(v); len(f) == 3 {
			add("FastMCP", "fastmcp "+f[1]+" (on the MCP Python SDK, mcp "+f[2]+"), Python "+f[0]+", in the venv integration/peers/.venv")
		}
	}
	if has["nexus-py"] != nil {
		v := firstLine(ctx, "python3", "-c", "import sys, grpc, msgpack; print(sys.version.split()[0], sys.executable, grpc.__version__, '.'.join(map(str, msgpack.version)))")
		if f := strings.Fields(v); len(f) == 4 {
			shim := ""
			if p, err := exec.LookPath("python3"); err == nil && isScript(p) {
				shim = "; `python3` on PATH is a script (" + p + ") that starts " + f[1] + ", which every start of the pool pays"
			}
			add("Python pool", "Python "+f[0]+" (`python3` on PATH), grpcio "+f[2]+", msgpack "+f[3]+shim)
		}
	}
	if s := has["ts"]; s != nil {
		sdk := filepath.Join(filepath.Dir(s.stdio[1]), "node_modules", "@modelcontextprotocol", "sdk", "package.json")
		var pkg struct{ Version string }
		if data, err := os.ReadFile(sdk); err == nil && json.Unmarshal(data, &pkg) == nil {
			add("TypeScript SDK", "@modelcontextprotocol/sdk "+pkg.Version+", Node "+firstLine(ctx, s.stdio[0], "--version"))
		}
	}
	if has["gosdk"] != nil {
		add("Go SDK", "github.com/modelcontextprotocol/go-sdk "+modversion.Of("github.com/modelcontextprotocol/go-sdk"))
	}
	if has["nexus-cpp"] != nil {
		add("C++ pool", firstLine(ctx, "g++", "--version"))
	}
	nexus := firstLine(ctx, c.nexus, "--version")
	// The commit the binary was built from, where go build stamped it, else
	// the work tree's; and whether nexus's sources differ from it at the
	// start of the run (changes elsewhere, to this benchmark or the docs,
	// are not nexus's).
	commit := ""
	if info, err := buildinfo.ReadFile(c.nexus); err == nil {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				commit = s.Value[:7]
			}
		}
	}
	if commit == "" {
		commit = firstLine(ctx, "git", "-C", root, "rev-parse", "--short", "HEAD")
	}
	if commit != "" {
		nexus += ", commit " + commit
		status, _ := runIn(ctx, root, "git", "status", "--porcelain", "--untracked-files=no", "--",
			"cmd", "nexus", "pools", "manifest", "codegen", "proto", "go.mod", "go.sum")
		if strings.TrimSpace(status) != "" {
			nexus += " (its sources had uncommitted changes as the run began)"
		}
	}
	add("nexus", nexus)
	return e
}

// procField is the value of the first "key: value" (or key=value) line
// of a file such as /proc/cpuinfo.
func procField(path, key string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
		if k, v, ok := strings.Cut(line, "="); ok && k == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// firstLine is the first line a command prints, or "".
func firstLine(ctx context.Context, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

func isScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return n == 2 && string(head) == "#!"
}
