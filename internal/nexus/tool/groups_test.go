package tool

import (
	"strings"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/dispatch"
	"github.com/nexus-run/nexus/internal/pooltest"
)

// TestGroupedToolNames: a grouped command's tool is GROUP_COMMAND, and
// nexus serve's prefix goes before that.
func TestGroupedToolNames(t *testing.T) {
	m := pooltest.Compile(t, `module calc (
  --* group: manage
  add,
  --* group:
  show
)
source Py from "fns.py" ("show2" as add, "show1" as show)
add :: Int -> Int -> Str
show :: Int -> Str
`, surfacePy)
	for prefix, want := range map[string]string{"": "manage_add show", "calc__": "calc__manage_add calc__show"} {
		tools, skipped := FromProgram(m, &dispatch.Dispatcher{M: m}, prefix)
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		if got := strings.Join(names, " "); got != want || len(skipped) != 0 {
			t.Errorf("prefix %q: tools %s, skipped %v; want %s", prefix, got, skipped, want)
		}
	}
}
