package manifest

import (
	"fmt"
	"mime"
	"strings"

	"github.com/nexus-run/nexus/internal/lazyre"
)

// restrictedName is a type or subtype name of a media type (RFC 6838,
// section 4.2).
var restrictedName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$`)

// CheckMime checks a media type as a `mime:` directive gives it:
// type/subtype, optionally with parameters (`text/csv; charset=utf-8`).
// It is the one rule for the checker (at build time) and Load.
func CheckMime(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("needs a media type such as image/png")
	}
	full, _, err := mime.ParseMediaType(s)
	if err != nil {
		return fmt.Errorf("'%s' is not a media type (type/subtype, such as image/png): %v", s, err)
	}
	top, sub, ok := strings.Cut(full, "/")
	if !ok || !restrictedName().MatchString(top) || !restrictedName().MatchString(sub) {
		return fmt.Errorf("'%s' is not a media type: expected type/subtype, such as image/png", s)
	}
	return nil
}
