// Package diag holds the build diagnostics of the `.loc` front end: source
// positions, the one-line errors a build reports ("file:line:col: message"),
// and the Sink that collects errors and warnings while a program is parsed
// and checked, so a build can report several problems at once.
package diag

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Pos is a position in a `.loc` file: 1-based line and column, the column
// counted in characters (runes). The zero Pos means "no position".
type Pos struct {
	Line, Col int
	// File is the file of a module the program imports, as shown in
	// errors; empty for the program's own file, the Sink's File.
	File string
}

// IsValid reports whether p names a place in a file.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String is "line:col", or "file:line:col" in an imported module's file.
func (p Pos) String() string {
	if p.File != "" {
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}

// DisplayPath shortens an absolute path to one relative to the working
// folder when it is inside it, as compilers do: the form every
// file:line:col of a build shows, of the `.loc` file or of a pool's source.
func DisplayPath(path string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(path) {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

// Error is one build error.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

// Error returns "file:line:col: message".
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// ErrorList is every error of a failed build, sorted by position.
type ErrorList []*Error

// Error returns the errors one a line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Sink collects the errors and warnings of one program. The zero Sink is
// ready to use but names no file; set File first. A position naming a file
// of its own (an imported module's) is reported in that file.
type Sink struct {
	File     string
	errs     ErrorList
	warnings []warning
	seen     map[string]bool
}

type warning struct {
	pos  Pos
	text string
}

// Errorf records an error at pos. The same message at the same place is
// recorded once, since a definition inlined twice would report it twice.
func (s *Sink) Errorf(pos Pos, format string, args ...any) {
	e := &Error{File: s.fileOf(pos), Line: pos.Line, Col: pos.Col, Msg: fmt.Sprintf(format, args...)}
	key := e.Error()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if s.seen[key] {
		return
	}
	s.seen[key] = true
	s.errs = append(s.errs, e)
}

// Warnf records a warning at pos.
func (s *Sink) Warnf(pos Pos, format string, args ...any) {
	text := fmt.Sprintf("%s:%d:%d: warning: %s", s.fileOf(pos), pos.Line, pos.Col, fmt.Sprintf(format, args...))
	for _, w := range s.warnings {
		if w.text == text {
			return
		}
	}
	s.warnings = append(s.warnings, warning{pos, text})
}

func (s *Sink) fileOf(pos Pos) string {
	if pos.File != "" {
		return pos.File
	}
	return s.File
}

// HasErrors reports whether any error was recorded.
func (s *Sink) HasErrors() bool { return len(s.errs) > 0 }

// Errors returns the recorded errors sorted by position, or nil when there
// are none. The result is an error only when it is not empty, so callers
// write `if errs := s.Errors(); errs != nil { return errs }`.
func (s *Sink) Errors() ErrorList {
	if len(s.errs) == 0 {
		return nil
	}
	out := append(ErrorList(nil), s.errs...)
	sort.SliceStable(out, func(i, j int) bool {
		if fi, fj := out[i].File, out[j].File; fi != fj {
			// The program's own file first, then the modules' by name.
			if fi == s.File || fj == s.File {
				return fi == s.File
			}
			return fi < fj
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Col < out[j].Col
	})
	return out
}

// Warnings returns the recorded warnings, formatted, sorted by position.
func (s *Sink) Warnings() []string {
	ws := append([]warning(nil), s.warnings...)
	sort.SliceStable(ws, func(i, j int) bool {
		if ws[i].pos.File != ws[j].pos.File {
			return ws[i].pos.File < ws[j].pos.File
		}
		if ws[i].pos.Line != ws[j].pos.Line {
			return ws[i].pos.Line < ws[j].pos.Line
		}
		return ws[i].pos.Col < ws[j].pos.Col
	})
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.text
	}
	return out
}
