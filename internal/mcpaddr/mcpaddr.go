// Package mcpaddr reads the string that names another MCP server in a
// `source MCP from "..."` declaration: a Streamable HTTP endpoint when it
// starts with http:// or https://, else a command line. `nexus make`
// checks it with this package and the runtime (internal/nexus/mcpsrc)
// connects with it, so both read the string the same way.
package mcpaddr

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// IsHTTP reports whether server names a Streamable HTTP endpoint rather
// than a command.
func IsHTTP(server string) bool {
	return strings.HasPrefix(server, "http://") || strings.HasPrefix(server, "https://")
}

// CheckURL rejects an endpoint URL that cannot be requested. The error
// shows the URL without its password (see Redact).
func CheckURL(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("mcp server %q: not a valid http(s) URL", Redact(endpoint))
	}
	return nil
}

// Redact is server as errors and logs may show it: an endpoint URL with
// its password and the values of its query replaced by "***" (net/http's
// errors write the password so), even when
// the URL does not parse (a careless https://user:pa/ss@host/ included);
// a command as it is.
func Redact(server string) string {
	return redact(server)
}

// Scrub replaces in text each form of server that net/http's errors may
// write (as given, or with its password as "***") with Redact(server).
func Scrub(text, server string) string {
	if !IsHTTP(server) {
		return text
	}
	safe := Redact(server)
	text = strings.ReplaceAll(text, server, safe)
	if u, err := url.Parse(server); err == nil {
		if _, has := u.User.Password(); has {
			text = strings.ReplaceAll(text, strings.Replace(u.Redacted(), ":xxxxx@", ":***@", 1), safe)
		}
	}
	return text
}

func redact(server string) string {
	if !IsHTTP(server) {
		return server
	}
	if u, err := url.Parse(server); err == nil && u.Host != "" {
		// A query may hold a token (?api_key=...): its values go too.
		if u.RawQuery != "" {
			q := u.Query()
			for k := range q {
				q[k] = []string{"***"}
			}
			u.RawQuery = strings.ReplaceAll(q.Encode(), "%2A%2A%2A", "***")
		}
		// Redacted writes xxxxx, which url.UserPassword would not let
		// be ***; the first ":xxxxx@" is in the userinfo.
		return strings.Replace(u.Redacted(), ":xxxxx@", ":***@", 1)
	}
	scheme, rest, _ := strings.Cut(server, "://")
	// Without a parse to go by, the userinfo ends at the last @ before
	// the query: hiding too much of a broken URL is harmless.
	end := strings.IndexAny(rest, "?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndexByte(rest[:end], '@')
	if at < 0 {
		return server
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return server
	}
	return scheme + "://" + user + ":***" + rest[at:]
}

// Split splits a command line into arguments at unquoted spaces and tabs.
// '...' quotes everything up to the next '; "..." likewise, with \" and
// \\ standing for " and \. There is no shell: no variables, globs or
// pipes.
func Split(line string) ([]string, error) {
	var (
		args  []string
		cur   strings.Builder
		inArg bool
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("command %q: a ' is not closed", line)
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inArg = true
		case c == '"':
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' && j+1 < len(line) && (line[j+1] == '"' || line[j+1] == '\\') {
					j++
				}
				cur.WriteByte(line[j])
			}
			if j == len(line) {
				return nil, fmt.Errorf("command %q: a \" is not closed", line)
			}
			i = j
			inArg = true
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if inArg {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("the command line is empty")
	}
	return args, nil
}

// launchers run the program named by a later argument; a server started
// through one is named after that program.
var launchers = map[string]bool{
	"npx": true, "uvx": true, "uv": true, "pipx": true, "bunx": true, "pnpx": true,
	"node": true, "deno": true, "bun": true, "run": true, "exec": true, "dlx": true,
	"docker": true, "podman": true, "go": true, "env": true,
}

// Join is the inverse of Split: a command line that Split turns into
// args. An argument is quoted only when it must be.
func Join(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case a != "" && !strings.ContainsAny(a, " \t'\"\\"):
			out[i] = a
		case !strings.Contains(a, "'"):
			out[i] = "'" + a + "'"
		default:
			out[i] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(a) + `"`
		}
	}
	return strings.Join(out, " ")
}

// Name is the short name of a server, for errors and the prefix of its
// stderr lines: for a URL its host and port; for a command the base name
// of the first argument that is neither an option nor a launcher such as
// npx, uvx or python3 (any python*), without an @version suffix (server-everything for
// "npx -y @modelcontextprotocol/server-everything@2026.8.31"). A command
// that is only a launcher and options is named after its first argument.
func Name(server string) string {
	if IsHTTP(server) {
		if u, err := url.Parse(server); err == nil && u.Host != "" {
			return u.Host
		}
		return Redact(server)
	}
	argv, err := Split(server)
	if err != nil {
		return strings.TrimSpace(server)
	}
	for _, a := range argv {
		base := programName(a)
		if base == "" || strings.HasPrefix(a, "-") || launchers[base] || strings.HasPrefix(base, "python") {
			continue
		}
		return base
	}
	return programName(argv[0])
}

// programName is the base name of a program argument without an @version
// suffix: "@scope/pkg@1.2" is "pkg", "/usr/bin/python3.12" "python3.12".
func programName(arg string) string {
	if at := strings.LastIndexByte(arg, '@'); at > 0 {
		arg = arg[:at]
	}
	base := path.Base(strings.TrimRight(arg, "/"))
	if base == "." || base == "/" {
		return ""
	}
	return base
}

// ValidEnvName reports whether name can be an environment variable's name
// (letters, digits and _, not starting with a digit).
func ValidEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && !(r >= 'A' && r <= 'Z') && !(r >= 'a' && r <= 'z') && !(i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// ParseHeader reads an extra HTTP header written "Name: value" (the
// @header directive, mcp-import's --header): the name an RFC 9110 token,
// the value trimmed. ok is false when header is not of that form.
func ParseHeader(header string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(header, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || !isHeaderName(name) {
		return "", "", false
	}
	return name, value, true
}

// isHeaderName reports whether name is an HTTP header name (an RFC 9110
// token).
func isHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}
