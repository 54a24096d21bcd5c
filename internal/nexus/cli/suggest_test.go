package cli

import "testing"

func TestSuggest(t *testing.T) {
	commands := []string{"weight", "capped", "stats", "scaled", "describe", "answer"}
	cases := []struct {
		word       string
		candidates []string
		want       string
	}{
		{"wieght", commands, "weight"},     // a swap counts as one edit
		{"weigth", commands, "weight"},     // at the end too
		{"scaeld", commands, "scaled"},     // and in the middle
		{"stat", commands, "stats"},        // a missing letter
		{"Describe", commands, "describe"}, // case does not count
		{"desc", commands, "describe"},     // the only candidate it begins
		{"sca", commands, "scaled"},
		{"s", commands, ""},        // too short to mean anything
		{"xyzzy", commands, ""},    // nothing close
		{"ab", []string{"cd"}, ""}, // two edits in two letters is no likeness
		{"count", nil, ""},
		{"cuont", []string{"label", "count"}, "count"},
	}
	for _, c := range cases {
		if got := suggest(c.word, c.candidates); got != c.want {
			t.Errorf("suggest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}
