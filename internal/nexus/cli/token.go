package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/nexus-run/nexus/manifest/types"
)

// A command-line token becomes a value of an argument's type by the first
// of these that works:
//
//  1. the token is JSON of the type: `42`, `[1,2]`, `"quoted"`, `null`;
//  2. the token names a file holding JSON of the type;
//  3. the type is Str (or ?Str) and the token is taken as it is.
//
// A Json takes JSON text of any shape (or a file holding it) and nothing
// else: a bare word is an error rather than a string, since `true`, `3` and
// `null` would be JSON while `truth` would not, and one token must not
// change type on a typo.
//
// So `hello`, `42` and `"hello"` all work for a Str, and a long list or a
// record can live in a file. A Str file is read only when it looks like a
// JSON string, so a path given to a function that takes a path stays a
// path.

// valueError is a token, file or standard input that does not hold a value
// of the type wanted. The parser adds which argument it was for.
type valueError struct {
	want   *types.Type
	given  string // the token, or the file name when from is a file
	from   string // "", "file" or "stdin"
	reason error  // what types.FromJSON said, when the input was JSON
}

func (e *valueError) Error() string {
	switch e.from {
	case "file":
		return fmt.Sprintf("file %s does not hold %s: %v", e.given, e.want, e.reason)
	case "stdin":
		if e.reason != nil && json.Valid([]byte(e.given)) {
			return fmt.Sprintf("standard input does not hold %s: %v", e.want, e.reason)
		}
		return fmt.Sprintf("expected %s on standard input, got %s", expectation(e.want), showToken(e.given))
	}
	msg := fmt.Sprintf("expected %s, got %s", expectation(e.want), showToken(e.given))
	if e.reason != nil && json.Valid([]byte(e.given)) && informative(e.reason) {
		msg += " (" + e.reason.Error() + ")"
	}
	return msg
}

// informative reports whether a types.FromJSON error says more than
// "expected X, got Y" about the top of the value, which the message
// already says.
func informative(err error) bool {
	var pe *types.PathError
	if errors.As(err, &pe) && pe.Path == "" && strings.HasPrefix(pe.Msg, "expected ") {
		return false
	}
	return true
}

// expectation names what a token for t must be, with a hint on how to
// write the types that need JSON.
func expectation(t *types.Type) string {
	base := t
	if base.Kind == types.Optional {
		base = base.Elem
	}
	switch base.Kind {
	case types.List, types.Tuple, types.Map, types.Record:
		return t.String() + " as JSON or a file holding it"
	case types.JSON:
		return t.String() + ` (JSON text or a file holding it; a string needs its quotes, like '"text"')`
	}
	return t.String()
}

// isJSON reports whether t is Json or ?Json.
func isJSON(t *types.Type) bool {
	return t.Kind == types.JSON || (t.Kind == types.Optional && t.Elem.Kind == types.JSON)
}

// showToken writes a token for a message: as it is when it is short JSON
// text on one line, quoted otherwise.
func showToken(tok string) string {
	const max = 60
	short := tok
	if len(short) > max {
		short = short[:max] + "..."
	}
	if json.Valid([]byte(tok)) && !strings.ContainsFunc(short, unicode.IsControl) {
		return short
	}
	return strconv.Quote(short)
}

// readToken reads one command-line token as a value of type t.
func readToken(t *types.Type, tok string) (any, error) {
	v, jerr := types.FromJSON(t, []byte(tok))
	if jerr == nil {
		return v, nil
	}
	if isText(t) {
		if v, ok := textFile(t, tok); ok {
			return v, nil
		}
		return tok, nil
	}
	if isFile(tok) {
		return readFile(t, tok)
	}
	return nil, &valueError{want: t, given: tok, reason: jerr}
}

// readJSONOrFile reads tok as JSON of t, or as the JSON in the file it
// names, with no literal fallback. ok is false when tok is neither.
func readJSONOrFile(t *types.Type, tok string) (v any, ok bool) {
	if v, err := types.FromJSON(t, []byte(tok)); err == nil {
		return v, true
	}
	if isFile(tok) {
		if v, err := readFile(t, tok); err == nil {
			return v, true
		}
	}
	return nil, false
}

// readStdin reads all of in as a value of t: JSON of t, or for a Str the
// text itself without its final line break (as the shell's $(...) does),
// so `echo ACGT | prog gc` means "ACGT".
func readStdin(t *types.Type, in io.Reader) (any, error) {
	data, err := io.ReadAll(in)
	if err != nil {
		return nil, fmt.Errorf("read standard input: %w", err)
	}
	v, jerr := types.FromJSON(t, data)
	if jerr == nil {
		return v, nil
	}
	if isText(t) {
		s := string(data)
		if rest, ok := strings.CutSuffix(s, "\n"); ok {
			s = strings.TrimSuffix(rest, "\r")
		}
		return s, nil
	}
	return nil, &valueError{want: t, given: strings.TrimSpace(string(data)), from: "stdin", reason: jerr}
}

// readObject reads tok as a JSON object, or the JSON object in the file it
// names, for the whole-record option of an unrolled record. The fields are
// checked by the caller, which merges them with per-field options.
func readObject(t *types.Type, tok string) (map[string]any, error) {
	if obj, err := decodeObject([]byte(tok)); err == nil {
		return obj, nil
	}
	if !isFile(tok) {
		return nil, &valueError{want: t, given: tok}
	}
	data, err := os.ReadFile(tok)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", tok, err)
	}
	obj, err := decodeObject(data)
	if err != nil {
		return nil, &valueError{want: t, given: tok, from: "file", reason: err}
	}
	return obj, nil
}

func decodeObject(data []byte) (map[string]any, error) {
	v, err := types.DecodeJSON(data)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return obj, nil
}

// isText reports whether a token for t that is not JSON is taken as text.
func isText(t *types.Type) bool {
	return t.Kind == types.Str || (t.Kind == types.Optional && t.Elem.Kind == types.Str)
}

// isFile reports whether tok names something readable as a file: not a
// folder, and existing (a regular file, or a pipe like <(cmd)).
func isFile(tok string) bool {
	if tok == "" || strings.ContainsRune(tok, 0) {
		return false
	}
	st, err := os.Stat(tok)
	return err == nil && !st.IsDir()
}

func readFile(t *types.Type, path string) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	v, err := types.FromJSON(t, data)
	if err != nil {
		return nil, &valueError{want: t, given: path, from: "file", reason: err}
	}
	return v, nil
}

// textPeek is how much of a file textFile looks at before deciding whether
// it holds a JSON string: enough to skip leading white space, little
// enough that passing a large file's path to a Str argument costs nothing.
const textPeek = 512

// textFile reads the regular file path as JSON of t (Str or ?Str) when it
// starts like a JSON string (or null); ok is false when it does not, and
// the caller takes the path itself as the text.
func textFile(t *types.Type, path string) (any, bool) {
	if path == "" || strings.ContainsRune(path, 0) {
		return nil, false
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	head := make([]byte, textPeek)
	n, _ := io.ReadFull(f, head)
	trimmed := bytes.TrimLeft(head[:n], " \t\r\n")
	if len(trimmed) == 0 || (trimmed[0] != '"' && !(t.Kind == types.Optional && trimmed[0] == 'n')) {
		return nil, false
	}
	rest, err := io.ReadAll(f)
	if err != nil {
		return nil, false
	}
	v, err := types.FromJSON(t, append(head[:n], rest...))
	if err != nil {
		return nil, false
	}
	return v, true
}
