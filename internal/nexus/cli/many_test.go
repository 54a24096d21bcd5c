package cli

import (
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// manyProgram is the test program with a command tagged: a variadic
// option --xs/-x of [Int] and a positional name.
func manyProgram() *manifest.Manifest {
	m := testProgram()
	xs := opt("x", "xs", types.ListOf(I), "")
	xs.Many = true
	cmd(m, "tagged", []string{"A variadic option beside a positional."}, "show", xs, pos("name", S))
	if err := m.Validate(); err != nil {
		panic(err)
	}
	return m
}

// TestManyOptionTokens: a variadic option takes every following token
// that is not an option (a negative number is a value), up to `--`;
// `--xs=1` takes one; repeated uses add up.
func TestManyOptionTokens(t *testing.T) {
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"tagged", "--xs", "1", "2", "3", "--", "bob"}, `[[1,2,3],"bob"]`},
		{[]string{"tagged", "bob", "--xs", "1", "2", "3"}, `[[1,2,3],"bob"]`},
		{[]string{"tagged", "-x", "1", "-2", "--xs", "3", "--", "bob"}, `[[1,-2,3],"bob"]`},
		{[]string{"tagged", "--xs=1", "bob"}, `[[1],"bob"]`},
		{[]string{"tagged", "-x1", "bob"}, `[[1],"bob"]`},
		{[]string{"tagged", "--xs", "1", "--xs", "2", "--", "bob"}, `[[1,2],"bob"]`},
		{[]string{"tagged", "--xs", "[1,2]", "3", "--", "bob"}, `[[1,2,3],"bob"]`},
		{[]string{"tagged", "bob"}, `[[],"bob"]`},
	}
	for _, c := range cases {
		res := runCLI(manyProgram(), "", c.argv...)
		if res.code != ExitOK || res.stdout != js(c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %q", c.argv, res.code, res.stdout, res.stderr, js(c.want))
		}
	}
	// The positional is taken by the option when nothing ends it.
	res := runCLI(manyProgram(), "", "tagged", "--xs", "1", "bob")
	if res.code != ExitUsage || !strings.Contains(res.stderr, `invalid value for --xs`) {
		t.Errorf("--xs 1 bob: exit %d, stderr %q; want a usage error about --xs", res.code, res.stderr)
	}
	res = runCLI(manyProgram(), "", "tagged", "--xs=1", "2", "bob")
	if res.code != ExitUsage || !strings.Contains(res.stderr, "too many arguments") {
		t.Errorf("--xs=1 2 bob: exit %d, stderr %q; want too many arguments", res.code, res.stderr)
	}
}

// TestManyOptionEnds: a variadic option with no token before `--` or
// another option needs a value (it took "--" as one), and a positional it
// took says how to end the option.
func TestManyOptionEnds(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"tagged", "--xs", "--", "bob"}, "option '--xs' needs a value (<Int>)"},
		{[]string{"tagged", "-x", "--xs", "1", "--", "bob"}, "option '-x' needs a value (<Int>)"},
		{[]string{"tagged", "--xs", "1", "2", "bob"}, `invalid value for --xs: expected Int, got "bob"; --xs takes every token up to the next option, so a positional after it needs -- before it (--xs 1 2 -- bob)`},
		{[]string{"tagged", "--xs", "bob"}, `invalid value for --xs: expected Int, got "bob"`},
	} {
		res := runCLI(manyProgram(), "", c.argv...)
		if res.code != ExitUsage || !strings.Contains(res.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", c.argv, res.code, res.stderr, c.want)
		}
	}
	if res := runCLI(manyProgram(), "", "tagged", "--xs", "bob"); strings.Contains(res.stderr, "needs -- before it") {
		t.Errorf("the first token has no hint: %q", res.stderr)
	}
}
