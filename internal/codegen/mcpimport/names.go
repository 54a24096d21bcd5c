package mcpimport

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/nexus-run/nexus/internal/codegen/check"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/mcpaddr"
)

// isRecordNameFree reports whether a record may be called name: not when
// a built-in type has it. Json is a built-in type whether or not the
// checker linked in knows it yet.
func isRecordNameFree(name string) bool {
	return name != "Json" && !check.IsBuiltinType(name)
}

// isFunctionName reports whether s can name a function of the program as
// it is: an ASCII identifier starting with a lowercase letter or `_`. An
// identifier starting with a capital letter is valid Morloc but reads as a
// type, and a non-ASCII one could not be a command (an MCP tool name).
func isFunctionName(s string) bool {
	if s == "" || syntax.IsKeyword(s) || s == "_" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z':
		case i > 0 && (r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
		default:
			return false
		}
	}
	return true
}

// words splits s into its ASCII letter-and-digit runs: "get-sum" is get,
// sum; "fetch_URL.v2" is fetch, URL, v2.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)))
	})
}

// upperFirst and lowerFirst change the case of an ASCII first letter.
func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]-'A'+'a') + s[1:]
}

// camel joins the words of s in lowerCamelCase: get-sum is getSum. It
// returns "" when s has no letter or digit.
func camel(s string) string {
	ws := words(s)
	for i := range ws {
		if i == 0 {
			ws[i] = lowerFirst(ws[i])
		} else {
			ws[i] = upperFirst(ws[i])
		}
	}
	return strings.Join(ws, "")
}

// typeName is s as the start of a record name: UpperCamelCase, "" when s
// has no letter or digit.
func typeName(s string) string {
	ws := words(s)
	for i := range ws {
		ws[i] = upperFirst(ws[i])
	}
	n := strings.Join(ws, "")
	if n != "" && n[0] >= '0' && n[0] <= '9' {
		n = "T" + n
	}
	return n
}

// maxName bounds the length of a function name: an exported function is
// a command, and an MCP tool name is at most 64 characters
// (manifest.ToolNamePattern).
const maxName = 64

// keepsName reports whether a tool's name can be its function's name as
// it is.
func keepsName(name string) bool {
	return isFunctionName(name) && len(name) <= maxName
}

// aliasFor is the program name of the tool called name: name itself when
// it keeps it and there is no prefix, else its words in camelCase after
// prefix, cut to maxName. It never returns "".
func aliasFor(name, prefix string) string {
	if prefix == "" && keepsName(name) {
		return name
	}
	c := camel(name)
	switch {
	case prefix != "":
		c = prefix + upperFirst(c)
	case c == "":
		c = "tool"
	case c[0] >= '0' && c[0] <= '9':
		c = "tool" + c
	}
	c = c[:min(len(c), maxName)]
	if syntax.IsKeyword(c) {
		c += "_"
	}
	return c
}

// unique returns name, or name followed by the first number from 2 on,
// that taken does not hold, and marks it taken. The number replaces the
// end of a name of maxName characters rather than lengthen it.
func unique(name string, taken map[string]bool) string {
	n := name
	for i := 2; taken[n]; i++ {
		num := strconv.Itoa(i)
		n = name[:min(len(name), maxName-len(num))] + num
	}
	taken[n] = true
	return n
}

// moduleName derives a module name from the server: an HTTP endpoint's
// host, or the command's program (its package for launchers such as npx,
// uvx or python -m), as lowercase words joined by '-'.
func moduleName(server string) string {
	// Splitting at spaces is enough to name it: quotes are not letters.
	argv := strings.Fields(server)
	var base string
	if mcpaddr.IsHTTP(server) {
		rest := server[strings.Index(server, "//")+2:]
		rest, _, _ = strings.Cut(rest, "/")
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			rest = rest[at+1:]
		}
		if strings.HasPrefix(rest, "[") {
			rest, _, _ = strings.Cut(rest[1:], "]")
		} else {
			rest, _, _ = strings.Cut(rest, ":")
		}
		base = rest
	} else if len(argv) > 0 {
		base = lastPart(argv[0])
		if launchers[strings.TrimSuffix(base, ".exe")] {
			base = launched(argv[1:], base)
		}
		for _, ext := range []string{".js", ".mjs", ".cjs", ".ts", ".py", ".exe"} {
			base = strings.TrimSuffix(base, ext)
		}
	}
	var parts []string
	for _, w := range words(strings.ToLower(base)) {
		if w[0] >= '0' && w[0] <= '9' && len(parts) > 0 {
			// "-2" would read as a number: glue it to the word before.
			parts[len(parts)-1] += "_" + w
			continue
		}
		parts = append(parts, w)
	}
	if !strings.ContainsFunc(base, func(r rune) bool { return r < unicode.MaxASCII && unicode.IsLetter(r) }) {
		return "mcp-tools" // an address, say, names nothing
	}
	if p := parts[0]; p[0] >= '0' && p[0] <= '9' {
		parts[0] = "mcp_" + p
	}
	return strings.Join(parts, "-")
}

// launchers are commands that run a server named by a later argument.
var launchers = map[string]bool{
	"npx": true, "uvx": true, "node": true, "python": true, "python3": true,
	"deno": true, "bun": true, "bunx": true, "pipx": true, "pnpm": true,
	"yarn": true, "docker": true, "podman": true, "uv": true, "go": true,
}

// launched is the name of what a launcher's arguments start: the first
// that is neither a flag nor a subcommand word such as run; def when
// there is none.
func launched(args []string, def string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !subcommands[a] {
			return lastPart(a)
		}
	}
	return def
}

// subcommands are the words launchers take before what they run
// (docker run, uv run, pnpm dlx, go run).
var subcommands = map[string]bool{"run": true, "exec": true, "dlx": true, "x": true, "tool": true}

// lastPart is the last element of a path or package name
// (@scope/pkg@1.2 is pkg).
func lastPart(s string) string {
	s = s[strings.LastIndexAny(s, `/\`)+1:]
	if at := strings.LastIndex(s, "@"); at > 0 {
		s = s[:at]
	}
	return s
}
