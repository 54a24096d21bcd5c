package doc

import (
	"fmt"
	"strings"

	"github.com/nexus-run/nexus/internal/lazyre"
)

// Names are the names of a command-line option or flag, without dashes.
type Names struct {
	Short string // one letter, or empty
	Long  string // or empty
	// ShortAt and LongAt are the byte offsets of the names' dashes in the
	// directive value, to point an error at the right one.
	ShortAt, LongAt int
}

// ValueError is a malformed directive value. Offset is the byte offset in
// the value where the problem is, so the error can point at it.
type ValueError struct {
	Offset int
	Msg    string
}

func (e *ValueError) Error() string { return e.Msg }

// longName is what may follow `--`.
var longName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// ParseNames parses `-s/--long`, `--long`, `-s` or `--long/-s`. The names
// may also be separated by a comma or spaces.
func ParseNames(value string) (Names, error) {
	var n Names
	if strings.TrimSpace(value) == "" {
		return n, &ValueError{Msg: "expected an option name: -s, --long or -s/--long"}
	}
	off := 0
	for _, part := range splitNames(value) {
		start := off + strings.Index(value[off:], part)
		off = start + len(part)
		switch {
		case strings.HasPrefix(part, "--"):
			name := part[2:]
			if !longName().MatchString(name) {
				return n, &ValueError{Offset: start, Msg: fmt.Sprintf("long option '%s' must start with a letter or a digit after '--', then letters, digits, '-' and '_'", part)}
			}
			if n.Long != "" {
				return n, &ValueError{Offset: start, Msg: fmt.Sprintf("two long names: --%s and %s", n.Long, part)}
			}
			n.Long, n.LongAt = name, start
		case strings.HasPrefix(part, "-") && len(part) > 1:
			name := part[1:]
			if len(name) != 1 {
				return n, &ValueError{Offset: start, Msg: fmt.Sprintf("short option '%s' must be one letter; write --%s for a long option", part, name)}
			}
			if c := name[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return n, &ValueError{Offset: start, Msg: fmt.Sprintf("short option '%s' is not a letter", part)}
			}
			if n.Short != "" {
				return n, &ValueError{Offset: start, Msg: fmt.Sprintf("two short names: -%s and %s", n.Short, part)}
			}
			n.Short, n.ShortAt = name, start
		default:
			return n, &ValueError{Offset: start, Msg: fmt.Sprintf("expected an option name such as -s or --long, got '%s'", part)}
		}
	}
	return n, nil
}

func splitNames(value string) []string {
	return strings.FieldsFunc(value, func(r rune) bool {
		return r == '/' || r == ',' || r == ' ' || r == '\t'
	})
}

// ParseAction parses an output action `-l/--lines=fn`: the flag's names,
// the function text after '=', and the byte offset of that text in value.
func ParseAction(value string) (names Names, fn string, fnOffset int, err error) {
	eq := strings.IndexByte(value, '=')
	if eq < 0 {
		return names, "", 0, &ValueError{Offset: len(value), Msg: "expected -s/--long=function: the flag, '=' and the function to apply to the result"}
	}
	names, err = ParseNames(value[:eq])
	if err != nil {
		return names, "", 0, err
	}
	fn = strings.TrimSpace(value[eq+1:])
	if fn == "" {
		return names, "", 0, &ValueError{Offset: eq + 1, Msg: "expected a function after '='"}
	}
	fnOffset = eq + 1 + strings.Index(value[eq+1:], fn)
	return names, fn, fnOffset, nil
}

// ParseBool parses the value of a yes/no directive such as `many: true`.
// A bare `@many` (empty value) means true.
func ParseBool(value string) (bool, error) {
	switch value {
	case "", "true", "yes":
		return true, nil
	case "false", "no":
		return false, nil
	}
	return false, &ValueError{Msg: fmt.Sprintf("expected true or false, got '%s'", value)}
}
