package diag

import (
	"reflect"
	"testing"
)

func TestSink(t *testing.T) {
	s := &Sink{File: "main.loc"}
	if s.HasErrors() || s.Errors() != nil {
		t.Fatal("new sink has errors")
	}
	s.Errorf(Pos{Line: 3, Col: 2}, "second %s", "error")
	s.Errorf(Pos{Line: 1, Col: 9}, "first")
	s.Errorf(Pos{Line: 3, Col: 2}, "second error") // the same again: kept once
	s.Errorf(Pos{Line: 3, Col: 1}, "between")
	s.Warnf(Pos{Line: 2, Col: 1}, "later")
	s.Warnf(Pos{Line: 1, Col: 1}, "earlier")
	errs := s.Errors()
	want := "main.loc:1:9: first\nmain.loc:3:1: between\nmain.loc:3:2: second error"
	if !s.HasErrors() || errs.Error() != want {
		t.Errorf("errors:\n%s\nwant:\n%s", errs.Error(), want)
	}
	if e := errs[0]; e.File != "main.loc" || e.Line != 1 || e.Col != 9 || e.Msg != "first" {
		t.Errorf("error fields %+v", e)
	}
	wantW := []string{"main.loc:1:1: warning: earlier", "main.loc:2:1: warning: later"}
	if got := s.Warnings(); !reflect.DeepEqual(got, wantW) {
		t.Errorf("warnings %q", got)
	}
}

func TestPos(t *testing.T) {
	if (Pos{}).IsValid() || !(Pos{Line: 1, Col: 1}).IsValid() || (Pos{Line: 4, Col: 7}).String() != "4:7" {
		t.Error("Pos")
	}
}
