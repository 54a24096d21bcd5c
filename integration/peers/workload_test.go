package main

import "testing"

// The proxies part takes an answer as server-everything writes it or as
// the JSON string nexus writes a Str as, and nothing else.
func TestProxyFunctionsCheckAnswers(t *testing.T) {
	fns := proxyFunctions("getSum")
	echo, sum := fns[0], fns[1]
	cases := []struct {
		f    *function
		i    int
		text string
		ok   bool
	}{
		{echo, 7, "Echo: " + shoutInput(7), true},
		{echo, 7, `"Echo: ` + shoutInput(7) + `"`, true},
		{echo, 7, "Echo: " + shoutInput(8), false},
		{echo, 7, `"Echo: ` + shoutInput(7), false},
		{sum, 12, "The sum of 12 and 0.25 is 12.25.", true},
		{sum, 12, `"The sum of 12 and 0.25 is 12.25."`, true},
		{sum, 12, "The sum of 12 and 0.25 is 12.5.", false},
		{sum, 12, "12.25", false},
	}
	for _, c := range cases {
		err := c.f.want(c.i, c.text)
		if (err == nil) != c.ok {
			t.Errorf("%s(%d) answering %q: error %v, want ok=%v", c.f.name, c.i, c.text, err, c.ok)
		}
	}
	if got := string(sum.args(12)); got != `{"a":12,"b":0.25}` {
		t.Errorf("getSum's arguments of call 12 = %s", got)
	}
}
