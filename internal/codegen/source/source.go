// Package source answers one question about a user's source file: does it
// define a given name? The checker asks it for every sourced name, so a
// misspelt function is reported at the `source` line of the program rather
// than as a compiler or import error from a generated pool.
//
// The scan reads the text, it does not compile it: it recognises the usual
// ways each language defines a name at top level, and it errs on the side
// of accepting what it cannot rule out.
package source

import (
	"regexp"
	"strings"

	"github.com/nexus-run/nexus/internal/lazyre"
	"github.com/nexus-run/nexus/manifest"
)

// Defines reports whether text, a source file of pool language lang
// (manifest.Python, manifest.Cpp or manifest.Go), defines name.
func Defines(lang, text, name string) bool {
	switch lang {
	case manifest.Python:
		return pythonDefines(text, name)
	case manifest.Cpp:
		return cppDefines(text, name)
	case manifest.Go:
		return goDefines(text, name)
	}
	return false
}

// Python: a def, class, assignment or import at module level, which
// includes the inside of a module-level if, try or with block (a fallback
// definition after `except ImportError:` is common) but not the inside of a
// class or a function.
var (
	pyDef    = lazyre.New(`^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*[(\[]`)
	pyClass  = lazyre.New(`^class\s+([A-Za-z_]\w*)\s*[(:\[]`)
	pyAssign = lazyre.New(`^([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]`)
	pyFrom   = lazyre.New(`^from\s+\S+\s+import\s+(.*)$`)
	pyImport = lazyre.New(`^import\s+(.*)$`)
)

// pyBlock is an enclosing block: its indentation and whether it is a
// class or function body, whose names are not the module's.
type pyBlock struct {
	indent int
	scoped bool
}

func pythonDefines(text, name string) bool {
	// A dotted name ("np.mean") is defined when its first part is.
	name, _, _ = strings.Cut(name, ".")
	lines := strings.Split(text, "\n")
	var blocks []pyBlock
	for i := 0; i < len(lines); i++ {
		raw := strings.TrimRight(stripPyComment(lines[i]), " \t\r")
		line := strings.TrimLeft(raw, " \t")
		if line == "" {
			continue
		}
		indent := len(raw) - len(line)
		for len(blocks) > 0 && blocks[len(blocks)-1].indent >= indent {
			blocks = blocks[:len(blocks)-1]
		}
		inScope := false
		for _, b := range blocks {
			inScope = inScope || b.scoped
		}
		if strings.HasSuffix(line, ":") {
			scoped := pyDef().MatchString(line) || pyClass().MatchString(line)
			blocks = append(blocks, pyBlock{indent: indent, scoped: scoped})
		}
		if inScope {
			continue
		}
		if pyLineDefines(line, name, lines, &i) {
			return true
		}
	}
	return false
}

// pyLineDefines reports whether one module-level line defines name. A
// parenthesised import list may continue on the following lines; *next
// is moved past them.
func pyLineDefines(line, name string, lines []string, next *int) bool {
	for _, re := range []*regexp.Regexp{pyDef(), pyClass(), pyAssign()} {
		if m := re.FindStringSubmatch(line); m != nil && m[1] == name {
			return true
		}
	}
	if m := pyFrom().FindStringSubmatch(line); m != nil {
		list := m[1]
		if strings.HasPrefix(list, "(") {
			for !strings.Contains(list, ")") && *next+1 < len(lines) {
				*next++
				list += " " + stripPyComment(lines[*next])
			}
			list = strings.Trim(list, "() \t")
		}
		for _, entry := range strings.Split(list, ",") {
			if bound := importedName(entry, false); bound == name || bound == "*" {
				return true
			}
		}
	}
	if m := pyImport().FindStringSubmatch(line); m != nil {
		for _, entry := range strings.Split(m[1], ",") {
			if importedName(entry, true) == name {
				return true
			}
		}
	}
	return false
}

// importedName is the name an import entry ("a.b as c", "a") binds. For
// `import a.b` that is the first part, a.
func importedName(entry string, module bool) string {
	f := strings.Fields(strings.Trim(entry, "() \t\\"))
	switch {
	case len(f) == 3 && f[1] == "as":
		return f[2]
	case len(f) == 1 && module:
		first, _, _ := strings.Cut(f[0], ".")
		return first
	case len(f) == 1:
		return f[0]
	}
	return ""
}

func stripPyComment(line string) string {
	if i := strings.IndexByte(line, '#'); i >= 0 && !strings.ContainsAny(line[:i], `"'`) {
		return line[:i]
	}
	return line
}

// cppNotType are words that may stand right before a call but never before
// the name of a function being defined.
var cppNotType = map[string]bool{
	"return": true, "else": true, "case": true, "throw": true, "new": true,
	"delete": true, "sizeof": true, "alignof": true, "co_return": true,
	"co_await": true, "co_yield": true, "goto": true, "do": true, "typeid": true,
	"and": true, "or": true, "not": true,
}

var cppWordBefore = lazyre.New(`([A-Za-z_]\w*)$`)

// cppDefines looks for name( preceded by what can end a return type: a
// type name, a template's '>', a '*' or '&'. This finds plain, inline,
// static and template functions, declarations included (their definition
// may be in the .cpp beside the header).
func cppDefines(text, name string) bool {
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	code := stripCpp(text)
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*\(`)
	for _, loc := range re.FindAllStringIndex(code, -1) {
		before := strings.TrimRight(code[:loc[0]], " \t\r\n")
		if before == "" {
			continue
		}
		switch c := before[len(before)-1]; {
		case c == '>':
			if !strings.HasSuffix(before, "->") {
				return true
			}
		case c == '*' || c == '&':
			return true
		default:
			if m := cppWordBefore().FindString(before); m != "" && !cppNotType[m] {
				// A word right before: a return type or a specifier,
				// unless it is a member access (a.name() is not a word).
				return true
			}
		}
	}
	return false
}

// stripCpp blanks out comments, string and character literals, keeping
// every other byte, so a name inside a comment is not taken for code.
func stripCpp(text string) string {
	b := []byte(text)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				b[i] = ' '
				i++
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			for i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/') {
				if b[i] != '\n' {
					b[i] = ' '
				}
				i++
			}
			if i+1 < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		case b[i] == '"' || b[i] == '\'':
			q := b[i]
			i++
			for i < len(b) && b[i] != q && b[i] != '\n' {
				if b[i] == '\\' && i+1 < len(b) {
					b[i] = ' '
					i++
				}
				b[i] = ' '
				i++
			}
		}
	}
	return string(b)
}

// goDefines looks for a top-level func (generic or not) or var.
func goDefines(text, name string) bool {
	q := regexp.QuoteMeta(name)
	re := regexp.MustCompile(`(?m)^(?:func\s+` + q + `\s*[\[(]|var\s+` + q + `\b)`)
	return re.MatchString(text)
}
