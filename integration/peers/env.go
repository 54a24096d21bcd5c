package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nexus-run/nexus/integration/modversion"
	"github.com/nexus-run/nexus/integration/runenv"
)

// env is what the report says about the machine and the software.
type env struct {
	date    time.Time
	elapsed time.Duration
	command string
	rows    [][2]string // what, value
}

// describeEnv reads the machine from /proc and asks each tool its version,
// for the parts that run (b or pb nil: that part does not).
func describeEnv(ctx context.Context, c config, root string, b *bench, pb *proxyBench) env {
	var e env
	add := func(what, value string) {
		if value != "" {
			e.rows = append(e.rows, [2]string{what, value})
		}
	}
	for _, r := range runenv.Host() {
		add(r[0], r[1])
	}

	// The peers part's servers and the proxies part's proxies by key, as
	// their command lines.
	has := map[string][]string{}
	if b != nil {
		for _, s := range b.servers {
			has[s.key] = s.stdio
		}
	}
	if pb != nil {
		for _, x := range pb.proxies {
			has[x.key] = x.stdio
		}
		var pkg struct{ Version string }
		everything := filepath.Join(root, "integration", "mcpservers", "node_modules", "@modelcontextprotocol", "server-everything", "package.json")
		if data, err := os.ReadFile(everything); err == nil && json.Unmarshal(data, &pkg) == nil {
			add("server-everything", "@modelcontextprotocol/server-everything "+pkg.Version+" (integration/mcpservers), over stdio")
		}
	}
	fastmcp := has["fastmcp"]
	if fastmcp == nil {
		fastmcp = has["fastmcp-proxy"]
	}
	if fastmcp != nil {
		python := fastmcp[0]
		v := runenv.FirstLine(ctx, python, "-c", "import importlib.metadata as m, platform; print(platform.python_version(), m.version('fastmcp'), m.version('mcp'))")
		if f := strings.Fields(v); len(f) == 3 {
			add("FastMCP", "fastmcp "+f[1]+" (on the MCP Python SDK, mcp "+f[2]+"), Python "+f[0]+", in the venv integration/peers/.venv")
		}
	}
	if has["nexus-py"] != nil {
		v := runenv.FirstLine(ctx, "python3", "-c", "import sys, grpc, msgpack; print(sys.version.split()[0], sys.executable, grpc.__version__, '.'.join(map(str, msgpack.version)))")
		if f := strings.Fields(v); len(f) == 4 {
			shim := ""
			if p, err := exec.LookPath("python3"); err == nil && isScript(p) {
				shim = "; `python3` on PATH is a script (" + p + ") that starts " + f[1] + ", which every start of the pool pays"
			}
			add("Python pool", "Python "+f[0]+" (`python3` on PATH), grpcio "+f[2]+", msgpack "+f[3]+shim)
		}
	}
	if argv := has["ts"]; argv != nil {
		sdk := filepath.Join(filepath.Dir(argv[1]), "node_modules", "@modelcontextprotocol", "sdk", "package.json")
		var pkg struct{ Version string }
		if data, err := os.ReadFile(sdk); err == nil && json.Unmarshal(data, &pkg) == nil {
			add("TypeScript SDK", "@modelcontextprotocol/sdk "+pkg.Version+", Node "+runenv.FirstLine(ctx, argv[0], "--version"))
		}
	}
	if has["gosdk"] != nil || has["gosdk-proxy"] != nil {
		add("Go SDK", "github.com/modelcontextprotocol/go-sdk "+modversion.Of("github.com/modelcontextprotocol/go-sdk"))
	}
	if has["nexus-cpp"] != nil {
		add("C++ pool", runenv.FirstLine(ctx, "g++", "--version"))
	}
	add("nexus", runenv.Nexus(ctx, c.nexus, root))
	return e
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
