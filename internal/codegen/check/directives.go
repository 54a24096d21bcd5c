package check

import (
	"encoding/json"
	"fmt"

	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest/types"
)

// warnUnknown warns about directives this nexus does not know (they stay
// in the description), with the known key nearest a misspelt one, and
// refuses those of Morloc's table nexus does not implement yet. Every
// position a docstring may stand in calls it.
func (c *checker) warnUnknown(d doc.Doc) {
	for _, dir := range d.Unknown {
		c.sink.Warnf(dir.Pos, "unknown directive '%s'; kept as description text%s", dir.Key, suggest.Hint(dir.Key, doc.KnownKeys()))
	}
	for _, dir := range d.Directives {
		if doc.Unsupported[dir.Key] {
			c.sink.Errorf(dir.Pos, "%s is Morloc's, and not supported yet by nexus", dir.Spelled())
		}
	}
}

// valueError reports a malformed directive value, pointing at the part of
// the value that is wrong.
func (c *checker) valueError(dir doc.Directive, err error) {
	pos := dir.ValuePos
	if ve, ok := err.(*doc.ValueError); ok {
		pos.Col += len([]rune(dir.Value[:min(ve.Offset, len(dir.Value))]))
	}
	c.sink.Errorf(pos, "%s: %v", dir.Key, err)
}

// textual reports whether t's values are texts (a Str, or an optional
// one), whose default a user may write without JSON's quotes.
func textual(t *types.Type) bool {
	if t.Kind == types.Optional {
		t = t.Elem
	}
	return t.Kind == types.Str
}

// parseDefault checks a `default:` value against t and returns it as
// canonical JSON.
func (c *checker) parseDefault(dir *doc.Directive, t *types.Type) ([]byte, bool) {
	v, err := types.FromJSON(t, []byte(dir.Value))
	if err != nil {
		msg := fmt.Sprintf("default: %s is not a valid %s: %v", quoteValue(dir.Value), t, err)
		if textual(t) && dir.Value != "" && !json.Valid([]byte(dir.Value)) {
			// A default is JSON, so a text needs its quotes (Morloc's rule).
			q, _ := json.Marshal(dir.Value)
			msg += fmt.Sprintf("; a default is JSON, so a text is quoted: %s %s", dir.Spelled(), q)
		}
		c.sink.Errorf(dir.ValuePos, "%s", msg)
		return nil, false
	}
	out, err := types.ToJSON(t, v)
	if err != nil {
		c.sink.Errorf(dir.ValuePos, "default: %v", err)
		return nil, false
	}
	return out, true
}

func quoteValue(v string) string {
	if v == "" {
		return "(empty)"
	}
	return fmt.Sprintf("'%s'", v)
}
