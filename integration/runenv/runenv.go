// Package runenv is what the benchmark and soak commands (`make peers`,
// `make soak`) share about their run: the repository they run in, the
// programs they build there with `nexus make`, and, for their reports, the
// command line as a user would type it, the machine (CPU, memory, OS, Go),
// the nexus binary (version and commit) and durations as people read them.
package runenv

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Row is one line of a report's machine table: what, and its value.
type Row [2]string

// RepoRoot is the nearest directory at or above the working directory
// holding this module's go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(data), "module github.com/nexus-run/nexus\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run this inside the nexus repository (no go.mod of github.com/nexus-run/nexus above the working directory)")
		}
		dir = parent
	}
}

// CommandLine is how a command was started, as a user would type it: `go
// run ./integration/NAME` (pkg) rather than the temporary binary go run
// made, with paths inside the repository at root made relative.
func CommandLine(argv []string, pkg, root string) string {
	args := append([]string{argv[0]}, argv[1:]...)
	if strings.Contains(argv[0], "go-build") {
		args[0] = "go run " + pkg
	}
	return strings.ReplaceAll(strings.Join(args, " "), root+string(filepath.Separator), "")
}

// Host describes the machine: CPU and cores, memory, OS and kernel, Go.
func Host() []Row {
	var rows []Row
	add := func(what, value string) {
		if value != "" {
			rows = append(rows, Row{what, value})
		}
	}
	add("CPU", ProcField("/proc/cpuinfo", "model name")+", "+strconv.Itoa(runtime.NumCPU())+" cores")
	if kb, err := strconv.ParseFloat(strings.TrimSuffix(ProcField("/proc/meminfo", "MemTotal"), " kB"), 64); err == nil {
		add("memory", strconv.FormatFloat(kb/(1<<20), 'f', 1, 64)+" GiB")
	}
	osName := strings.Trim(ProcField("/etc/os-release", "PRETTY_NAME"), `"`)
	if kernel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		osName += ", Linux " + strings.TrimSpace(string(kernel))
	}
	add("OS", osName)
	add("Go", runtime.Version())
	return rows
}

// Nexus is the version nexus reports, with the commit the binary was
// built from where go build stamped it (else the work tree's at root), and
// whether nexus's sources differed from that commit as the run began.
func Nexus(ctx context.Context, nexus, root string) string {
	v := FirstLine(ctx, nexus, "--version")
	commit := ""
	if info, err := buildinfo.ReadFile(nexus); err == nil {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				commit = s.Value[:7]
			}
		}
	}
	if commit == "" {
		commit = FirstLine(ctx, "git", "-C", root, "rev-parse", "--short", "HEAD")
	}
	if commit == "" {
		return v
	}
	v += ", commit " + commit
	// Changes elsewhere, to a benchmark or the docs, are not nexus's.
	cmd := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no", "--",
		"cmd", "internal", "pools", "manifest", "proto", "go.mod", "go.sum")
	cmd.Dir = root
	if status, _ := cmd.Output(); strings.TrimSpace(string(status)) != "" {
		v += " (its sources had uncommitted changes as the run began)"
	}
	return v
}

// MakeProgram copies the program in src (its .loc file and sources) to
// dst and builds it there with `nexus make -o NAME`; it returns the
// launcher's path.
func MakeProgram(ctx context.Context, nexus, src, dst, name string) (string, error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", err
	}
	files, err := os.ReadDir(src)
	if err != nil {
		return "", err
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dst, f.Name()), data, 0o644); err != nil {
			return "", err
		}
	}
	cmd := exec.CommandContext(ctx, nexus, "make", "-o", name, "main.loc")
	cmd.Dir = dst
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("nexus make %s: %w\n%s", src, err, out)
	}
	return filepath.Join(dst, name), nil
}

// Dur writes a duration as the reports do: µs below a millisecond, ms
// with two decimals below ten and one below a second, then seconds.
func Dur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// ProcField is the value of the first "key: value" (or key=value) line
// of a file such as /proc/cpuinfo.
func ProcField(path, key string) string {
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

// FirstLine is the first line a command prints, or "".
func FirstLine(ctx context.Context, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}
