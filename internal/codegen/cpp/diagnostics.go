package cpp

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/nexus-run/nexus/internal/lazyre"
)

// maxRemainder bounds how much of the compiler's output follows the
// diagnostics shown first: g++'s template errors run to hundreds of lines,
// and the first of them say what is wrong.
const maxRemainder = 40

// diagnosticLine is a g++ diagnostic: "file:line:col: severity: message".
var diagnosticLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(.+?):(\d+):(\d+): (fatal error|error|warning|note): (.*)$`)
})

// locationLine is any line that opens with a place: diagnostics, and the
// "required from here" lines of template instantiation chains.
var locationLine = lazyre.New(`^(.+?):(\d+):(\d+):`)

// excerptLine is a line of source code g++ quotes under a diagnostic
// ("   12 |     foo();") or its caret line ("      |     ^~~").
var excerptLine = lazyre.New(`^\s*\d*\s+\|`)

// explainer turns a failed compile into the message the user reads: the
// diagnostics in the user's own files first, then the rest of the
// compiler's output, trimmed.
type explainer struct {
	poolDir string   // the generated files' folder
	main    *source  // the generated main.cpp
	roots   []string // folders of the user's sources: diagnostics there are the user's
	cwd     string   // paths under it are shown relative to it
}

// explain returns the error for err, which may be a *compileError.
func (x *explainer) explain(err error) error {
	var ce *compileError
	if !errors.As(err, &ce) {
		return err
	}
	lines := strings.Split(ce.output, "\n")
	shown := make([]bool, len(lines))
	var first []string

	// The user's own errors, each with its quoted source.
	for i, line := range lines {
		m := diagnosticLine().FindStringSubmatch(line)
		if m == nil || !strings.Contains(m[4], "error") || !x.isUsers(m[1]) {
			continue
		}
		first = append(first, x.show(line))
		shown[i] = true
		for j := i + 1; j < len(lines) && excerptLine().MatchString(lines[j]); j++ {
			first = append(first, lines[j])
			shown[j] = true
		}
	}
	// Without any, the errors in generated code, told as what they are
	// about: a function or record of the user's.
	if len(first) == 0 {
		seen := map[string]bool{}
		for i, line := range lines {
			m := diagnosticLine().FindStringSubmatch(line)
			if m == nil || !strings.Contains(m[4], "error") {
				continue
			}
			msg := m[4] + ": " + m[5]
			if p := x.partFor(lines, i); p != nil {
				msg = fmt.Sprintf("%s: %s: %s", x.show(p.file), p.what, msg)
			} else {
				msg = x.show(line)
			}
			shown[i] = true
			if !seen[msg] {
				seen[msg] = true
				first = append(first, msg)
			}
		}
	}
	if undefined := undefinedReferences(lines, shown); len(undefined) > 0 {
		for _, u := range undefined {
			first = append(first, ce.step+": "+u)
		}
		first = append(first, "(a function declared in a header must be defined there, or in the .cpp file of the same name beside the header)")
	}
	if missing := missingLibrary(ce.output); missing != "" {
		first = append(first, fmt.Sprintf("%s: %s is not installed; %s", ce.step, missing, setupHint))
	}

	var rest []string
	for i, line := range lines {
		if !shown[i] {
			rest = append(rest, x.show(line))
		}
	}
	var b strings.Builder
	if len(first) == 0 {
		b.WriteString(ce.step + " failed")
	} else {
		b.WriteString(strings.Join(first, "\n"))
	}
	if len(rest) > 0 {
		fmt.Fprintf(&b, "\n(%s; the compiler's output:)\n", ce.step)
		if len(rest) > maxRemainder {
			more := len(rest) - maxRemainder
			rest = append(rest[:maxRemainder], fmt.Sprintf("... %d more lines", more))
		}
		b.WriteString(strings.Join(rest, "\n"))
	}
	return errors.New(b.String())
}

// partFor finds what of main.cpp the error at lines[i] is about: its own
// place if that is main.cpp, else the nearest "required from" place in
// main.cpp above it (the instantiation that led to it).
func (x *explainer) partFor(lines []string, i int) *part {
	if x.main == nil {
		return nil
	}
	mainPath := filepath.Join(x.poolDir, MainName)
	for j := i; j >= 0; j-- {
		m := locationLine().FindStringSubmatch(lines[j])
		if m == nil || filepath.Clean(m[1]) != mainPath {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		if p := x.main.partAt(n); p != nil {
			return p
		}
	}
	return nil
}

// isUsers reports whether a path in a diagnostic is one of the user's files
// (not generated, not a system header).
func (x *explainer) isUsers(path string) bool {
	path = filepath.Clean(path)
	if x.poolDir != "" && strings.HasPrefix(path, x.poolDir+string(filepath.Separator)) {
		return false
	}
	for _, r := range x.roots {
		if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// show rewrites a line of compiler output with shorter paths: generated
// files by name, the user's relative to the working folder.
func (x *explainer) show(line string) string {
	if x.poolDir != "" {
		line = strings.ReplaceAll(line, x.poolDir+string(filepath.Separator), "")
	}
	if x.cwd != "" && x.cwd != string(filepath.Separator) {
		line = strings.ReplaceAll(line, x.cwd+string(filepath.Separator), "")
	}
	return line
}

// undefinedReference is the linker's complaint about a function declared
// but defined nowhere.
var undefinedReference = lazyre.New("undefined reference to `[^']*'")

// undefinedReferences returns the distinct undefined references in lines,
// marking the lines shown.
func undefinedReferences(lines []string, shown []bool) []string {
	var out []string
	seen := map[string]bool{}
	for i, line := range lines {
		u := undefinedReference().FindString(line)
		if u == "" {
			continue
		}
		shown[i] = true
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// missingLibrary recognizes the compiler not finding the pool's libraries,
// for a hint on installing them.
func missingLibrary(output string) string {
	for _, lib := range []struct{ header, name string }{
		{"msgpack/pack.hpp", "msgpack-cxx (libmsgpack-cxx-dev)"},
		{"grpcpp/grpcpp.h", "gRPC for C++ (libgrpc++-dev)"},
	} {
		if strings.Contains(output, lib.header) && strings.Contains(output, "No such file or directory") {
			return lib.name
		}
	}
	return ""
}
