package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"Str", "Str", 0},
		{"Strng", "Str", 2}, {"kitten", "sitting", 3}, {"é", "e", 1},
		{"wieght", "weight", 1}, // a swap is one edit
		{"ca", "abc", 3},        // but nothing is edited twice
	} {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	commands := []string{"weight", "capped", "stats", "scaled", "describe", "answer"}
	types := []string{"Int", "Real", "Str", "Bool", "Map", "Settings"}
	for _, tc := range []struct {
		word       string
		candidates []string
		want       string
	}{
		// The CLI's command names.
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
		{"de", []string{"describe", "delete"}, ""}, // begins several
		// The checker's names and types.
		{"Strng", types, "Str"},
		{"str", types, "Str"},
		{"Setings", types, "Settings"},
		{"Float", types, ""},
		{"x", []string{"y", "f"}, ""},
		{"aa", []string{"a"}, "a"},
		{"weight", []string{"Weight", "weigh"}, "Weight"},
		{"weight", []string{"weigh", "Weight"}, "Weight"}, // whatever the order
		{"weigth", []string{"Weigth", "weight"}, "Weigth"},
		{"wieght", []string{"Weight", "weight"}, "weight"}, // case breaks ties
		{"upper", nil, ""},
		{"upper", []string{"upper"}, ""}, // never the word itself
		{"upper", []string{"upper", "uppercase"}, "uppercase"},
		{"Sotinks", types, "Settings"}, // a long word may slip three times
	} {
		if got := Closest(tc.word, tc.candidates); got != tc.want {
			t.Errorf("Closest(%q, %q) = %q, want %q", tc.word, tc.candidates, got, tc.want)
		}
	}
}

func TestHint(t *testing.T) {
	if got, want := Hint("Strng", []string{"Str", "Int"}), " (did you mean 'Str'?)"; got != want {
		t.Errorf("Hint = %q, want %q", got, want)
	}
	if got := Hint("Float", []string{"Str", "Int"}); got != "" {
		t.Errorf("Hint = %q, want none", got)
	}
}
