package manifest

import (
	"strings"
	"testing"
)

// TestValidateIntrinsic: an Intrinsic must name one the nexus knows,
// with its number of arguments; its arguments are validated too.
func TestValidateIntrinsic(t *testing.T) {
	cases := []struct {
		name string
		body *Expr
		want string // "" for a valid body
	}{
		{"show", &Expr{Kind: Intrinsic, Op: "show", Type: tStr, Args: []*Expr{variable(0, tStr)}}, ""},
		{"catch", &Expr{Kind: Intrinsic, Op: "catch", Type: tStr, Args: []*Expr{variable(0, tStr), lit(tStr, `"x"`)}}, ""},
		{"unknown", &Expr{Kind: Intrinsic, Op: "shw", Type: tStr, Args: []*Expr{variable(0, tStr)}}, "intrinsic @shw with 1 arguments is not one the nexus knows"},
		{"too few arguments", &Expr{Kind: Intrinsic, Op: "save", Type: tStr, Args: []*Expr{variable(0, tStr)}}, "intrinsic @save with 1 arguments is not one the nexus knows"},
		{"bad argument", &Expr{Kind: Intrinsic, Op: "show", Type: tStr, Args: []*Expr{variable(3, tStr)}}, "variable 3 out of range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := validManifest()
			m.Command("echo").Body = c.body
			err := m.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("Validate() = %v, want %q", err, c.want)
			}
		})
	}
}
