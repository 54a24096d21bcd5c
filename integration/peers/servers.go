package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nexus-run/nexus/integration/runenv"
	"github.com/nexus-run/nexus/integration/stepprofile"
)

// server is one MCP server under measurement, and what was measured of it.
type server struct {
	key  string // for -servers
	name string // in the tables
	lang string // the language its functions are written in
	peer bool   // a hand-written server; else nexus
	// baseline is a nexus row of -baseline, the nexus before.
	baseline bool
	// steps is a nexus row's profile of a cold start and a small call.
	steps *stepprofile.Profile
	dir   string // working directory
	// stdio and http are its command lines; http serves on a port it picks.
	stdio, http []string

	cold     map[string][]time.Duration // per function
	seq      map[string]*series         // stdio, sequential, per function
	conc     map[string]*series         // HTTP, sessions at once, per function
	memStdio memPeak
	memHTTP  memPeak
	errs     []string
	failed   map[string]bool // "stdio", "http": stop measuring it there
}

type memPeak struct {
	bytes int64
	procs int
}

// series is one measurement repeated over rounds.
type series struct {
	rates []float64       // calls/s of each round
	lat   []time.Duration // every call of every round
}

func (s *server) fail(phase, format string, args ...any) {
	s.errs = append(s.errs, phase+": "+fmt.Sprintf(format, args...))
	s.failed[phase] = true
}

// prepare installs what the peers need (the first run only), builds the
// nexus programs, and returns the servers to measure (those -servers
// names), peers first.
func prepare(ctx context.Context, c config, root, work string) ([]*server, error) {
	peers := filepath.Join(root, "integration", "peers")
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	all := []*server{
		{key: "fastmcp", name: "FastMCP", lang: "Python", peer: true},
		{key: "ts", name: "TypeScript SDK", lang: "TypeScript", peer: true},
		{key: "gosdk", name: "Go SDK, in-process", lang: "Go", peer: true,
			stdio: []string{self, "-serve-gosdk", "stdio"}, http: []string{self, "-serve-gosdk", "http", "-port", "0"}},
		{key: "nexus-py", name: "nexus, Python pool", lang: "Python"},
		{key: "nexus-go", name: "nexus, Go pool", lang: "Go"},
		{key: "nexus-cpp", name: "nexus, C++ pool", lang: "C++"},
	}
	if c.baseline != "" {
		for _, s := range all[3:6] {
			all = append(all, &server{key: baselineKey(s.key), name: "nexus before, " + strings.TrimPrefix(s.name, "nexus, "), lang: s.lang, baseline: true})
		}
	}
	all = append(all, &server{key: tracedKey, name: "nexus, Go pool, tracing on", lang: "Go"})
	var servers []*server
	for _, s := range all {
		if selected(c.servers, s.key) {
			s.cold, s.seq, s.conc, s.failed = map[string][]time.Duration{}, map[string]*series{}, map[string]*series{}, map[string]bool{}
			s.dir = work
			servers = append(servers, s)
		}
	}
	for _, s := range servers {
		switch s.key {
		case "fastmcp":
			if s.stdio, s.http, err = fastmcpCommands(ctx, peers, "fastmcp_server.py"); err != nil {
				return nil, err
			}
		case "ts":
			dir := filepath.Join(peers, "servers", "ts")
			if err := ensureNodeModules(ctx, dir); err != nil {
				return nil, fmt.Errorf("TypeScript SDK: %w", err)
			}
			node, err := exec.LookPath("node")
			if err != nil {
				return nil, err
			}
			script := filepath.Join(dir, "server.mjs")
			s.stdio, s.http = []string{node, script, "stdio"}, []string{node, script, "http", "0"}
		case "nexus-py", "nexus-go", "nexus-cpp", baselineKey("nexus-py"), baselineKey("nexus-go"), baselineKey("nexus-cpp"):
			nexus, key, out := c.nexus, s.key, ""
			if s.baseline {
				nexus, key, out = c.baseline, strings.TrimPrefix(s.key, "before-"), "before-"
			}
			lang := map[string]string{"nexus-py": "python", "nexus-go": "go", "nexus-cpp": "cpp"}[key]
			start := time.Now()
			launcher, err := runenv.MakeProgram(ctx, nexus, filepath.Join(peers, "servers", "nexus", lang), filepath.Join(work, out+lang), "peers")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			logf("built the %s program with %s in %.1f s", s.lang, nexus, time.Since(start).Seconds())
			s.dir = filepath.Dir(launcher)
			s.stdio = []string{nexus, "mcp", launcher}
			s.http = []string{nexus, "mcp", launcher, "--http-port", "0"}
		case tracedKey:
			launcher, err := runenv.MakeProgram(ctx, c.nexus, filepath.Join(peers, "servers", "nexus", "go"), filepath.Join(work, "traced"), "peers")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			s.dir = filepath.Dir(launcher)
			if s.stdio, err = tracedCommand([]string{c.nexus, "mcp", launcher}); err != nil {
				return nil, err
			}
			if s.http, err = tracedCommand([]string{c.nexus, "mcp", launcher, "--http-port", "0"}); err != nil {
				return nil, err
			}
		}
	}
	return servers, nil
}

// baselineKey is the key of the -baseline row of nexus row key.
func baselineKey(key string) string { return "before-" + key }

// fastmcpCommands are the command lines serving the FastMCP script in
// servers over stdio and over HTTP on a port it picks, the script's
// arguments args before the transport, from the venv ensureVenv makes.
func fastmcpCommands(ctx context.Context, peers, script string, args ...string) (stdio, http []string, err error) {
	python, err := ensureVenv(ctx, peers)
	if err != nil {
		return nil, nil, fmt.Errorf("FastMCP: %w", err)
	}
	argv := append([]string{python, filepath.Join(peers, "servers", script)}, args...)
	stdio = append(append([]string(nil), argv...), "stdio")
	http = append(append([]string(nil), argv...), "http", "0")
	return stdio, http, nil
}

// ensureVenv makes integration/peers/.venv with the pinned FastMCP of
// servers/requirements.txt, unless it is there already with exactly those
// requirements, and returns its python.
func ensureVenv(ctx context.Context, peers string) (string, error) {
	venv := filepath.Join(peers, ".venv")
	python := filepath.Join(venv, "bin", "python")
	reqs, err := os.ReadFile(filepath.Join(peers, "servers", "requirements.txt"))
	if err != nil {
		return "", err
	}
	// The marker holds the requirements installed: a changed pin installs
	// again.
	marker := filepath.Join(venv, "peers-requirements.txt")
	if have, err := os.ReadFile(marker); err == nil && bytes.Equal(have, reqs) {
		if _, err := os.Stat(python); err == nil {
			return python, nil
		}
	}
	logf("installing FastMCP into %s (first run only)", venv)
	// A venv without pip (one python3 -m venv left half made, say) is made
	// anew.
	if _, err := runIn(ctx, peers, python, "-m", "pip", "--version"); err != nil {
		os.RemoveAll(venv)
		if err := makeVenv(ctx, peers, venv); err != nil {
			return "", err
		}
	}
	if _, err := runIn(ctx, peers, python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
		"-r", filepath.Join(peers, "servers", "requirements.txt")); err != nil {
		return "", err
	}
	if err := os.WriteFile(marker, reqs, 0o644); err != nil {
		return "", err
	}
	return python, nil
}

// makeVenv runs python3 -m venv, installing Debian's python3-venv first if
// that is what it lacks (as root, as scripts/setup.sh installs packages).
func makeVenv(ctx context.Context, peers, venv string) error {
	_, err := runIn(ctx, peers, "python3", "-m", "venv", venv)
	if err == nil {
		return nil
	}
	if _, aerr := exec.LookPath("apt-get"); aerr != nil || os.Geteuid() != 0 {
		return fmt.Errorf("%w (python3 -m venv needs Debian's python3-venv or the like)", err)
	}
	logf("python3 -m venv failed; installing python3-venv")
	os.RemoveAll(venv)
	if _, err := runIn(ctx, peers, "apt-get", "update", "-qq"); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "apt-get", "install", "-y", "-qq", "python3-venv")
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("apt-get install python3-venv: %w\n%s", err, out)
	}
	_, err = runIn(ctx, peers, "python3", "-m", "venv", venv)
	return err
}

// ensureNodeModules runs `npm ci` in dir unless its packages are there
// already from the same lock file (npm writes node_modules/.package-lock.json
// when it installs), as scripts/setup.sh does for the other npm folders.
func ensureNodeModules(ctx context.Context, dir string) error {
	lock, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	installed, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	_, sdkErr := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	if err == nil && sdkErr == nil && !lock.ModTime().After(installed.ModTime()) {
		return nil
	}
	logf("installing the npm packages of %s (first run only)", dir)
	_, err = runIn(ctx, dir, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	return err
}

// runIn runs a command in dir and returns its stdout; its failure carries
// what it printed.
func runIn(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String() + "\n" + out.String())
		if len(msg) > 4000 {
			msg = "..." + msg[len(msg)-4000:]
		}
		return "", fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, msg)
	}
	return out.String(), nil
}
