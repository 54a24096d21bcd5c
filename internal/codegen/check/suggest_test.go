package check

import "testing"

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"Str", "Str", 0},
		{"Strng", "Str", 2}, {"kitten", "sitting", 3}, {"wieght", "weight", 2}, {"é", "e", 1},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	types := []string{"Int", "Real", "Str", "Bool", "Map", "Settings"}
	tests := []struct {
		name       string
		candidates []string
		want       string
	}{
		{"Strng", types, " (did you mean 'Str'?)"},
		{"str", types, " (did you mean 'Str'?)"},
		{"Setings", types, " (did you mean 'Settings'?)"},
		{"Float", types, ""},
		{"x", []string{"y", "f"}, ""},
		{"aa", []string{"a"}, " (did you mean 'a'?)"},
		{"weight", []string{"Weight", "weigh"}, " (did you mean 'Weight'?)"},
		{"weigth", []string{"Weigth", "weight"}, " (did you mean 'Weigth'?)"},
		{"upper", nil, ""},
		{"upper", []string{"upper"}, ""},
	}
	for _, tt := range tests {
		if got := didYouMean(tt.name, tt.candidates); got != tt.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
