package jsonlex

import "testing"

func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		in  string
		end int
		ok  bool
	}{
		{"0", 1, true}, {"-0", 2, true}, {"12,", 2, true}, {"1.5]", 3, true},
		{"-1.25e+10 ", 9, true}, {"3E-2", 4, true}, {"01", 1, true},
		{"-", 1, false}, {"1.", 2, false}, {"1.e5", 2, false}, {"1e", 2, false},
		{"1e+", 3, false}, {".5", 0, false}, {"+1", 0, false}, {"", 0, false},
		// Runs of eight digits are checked a word at a time.
		{"1000000 ", 7, true}, {"12345678", 8, true}, {"123456789,", 9, true}, {"1234567/9", 7, true},
		{"1.2345678:", 9, true}, {"1.23456789012345678]", 19, true}, {"98765432e1234567 ", 16, true},
	} {
		end, ok := Number([]byte(tc.in), 0)
		if end != tc.end || ok != tc.ok {
			t.Errorf("Number(%q) = %d, %v; want %d, %v", tc.in, end, ok, tc.end, tc.ok)
		}
	}
}

func TestSpace(t *testing.T) {
	if got := Space([]byte(" \t\r\n x"), 0); got != 5 {
		t.Errorf("Space: %d, want 5", got)
	}
	if got := Space([]byte("  "), 1); got != 2 {
		t.Errorf("Space at the end: %d, want 2", got)
	}
}
