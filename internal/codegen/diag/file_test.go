package diag

import (
	"strings"
	"testing"
)

// TestPositionsInOtherFiles: a position naming a file is reported in it,
// after the program's own file's errors, and prints with its file.
func TestPositionsInOtherFiles(t *testing.T) {
	s := &Sink{File: "main.loc"}
	s.Errorf(Pos{Line: 2, Col: 1, File: "lib/b.loc"}, "b")
	s.Errorf(Pos{Line: 9, Col: 1}, "main")
	s.Errorf(Pos{Line: 1, Col: 1, File: "a.loc"}, "a")
	s.Warnf(Pos{Line: 3, Col: 4, File: "a.loc"}, "w")
	want := "main.loc:9:1: main\na.loc:1:1: a\nlib/b.loc:2:1: b"
	if got := s.Errors().Error(); got != want {
		t.Errorf("errors:\n%s\nwant:\n%s", got, want)
	}
	if w := strings.Join(s.Warnings(), "\n"); w != "a.loc:3:4: warning: w" {
		t.Errorf("warnings %q", w)
	}
	if p := (Pos{Line: 3, Col: 4, File: "a.loc"}).String(); p != "a.loc:3:4" {
		t.Errorf("String() = %q", p)
	}
}
