package jsonlex

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

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

func TestItemEnd(t *testing.T) {
	for _, tc := range []struct {
		in       string
		next     int
		more, ok bool
	}{
		{",1", 1, true, true}, {" \n, 1", 3, true, true}, {"]", 1, false, true}, {"  ]x", 3, false, true},
		{"}", 0, false, false}, {" x", 1, false, false}, {"", 0, false, false}, {"  ", 2, false, false},
	} {
		next, more, ok := ItemEnd([]byte(tc.in), 0, ']')
		if next != tc.next || more != tc.more || ok != tc.ok {
			t.Errorf("ItemEnd(%q) = %d, %v, %v; want %d, %v, %v", tc.in, next, more, ok, tc.next, tc.more, tc.ok)
		}
	}
}

func TestValue(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	limit := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	for _, tc := range []struct {
		in       string
		end      int
		ok, deep bool
	}{
		{`{"a": [1, "x\"]", null]} tail`, 24, true, false},
		{`"é\u00e9" ,`, 10, true, false},
		{`[1,]`, 3, false, false},
		{`{"a" 1}`, 5, false, false},
		{`nul`, 0, false, false},
		{`"a` + "\n" + `"`, 2, false, false},
		{limit, len(limit), true, false},
		{deep, MaxDepth, false, true},
	} {
		end, ok, deep := Value([]byte(tc.in), 0)
		if ok != tc.ok || deep != tc.deep || (ok && end != tc.end) {
			t.Errorf("Value(%.40q) = %d, %v, %v; want %d, %v, %v", tc.in, end, ok, deep, tc.end, tc.ok, tc.deep)
		}
		if ok && !json.Valid([]byte(tc.in[:end])) {
			t.Errorf("Value(%.40q) accepted %.40q, which json.Valid refuses", tc.in, tc.in[:end])
		}
	}
}

func TestCompact(t *testing.T) {
	for _, in := range []string{
		` { "a b" : [ 1 , 2.5e3 ] ,` + "\n\t" + `"c\" d":"x \\ y" , "e": "\u2028 é" } `,
		`[]`, `"  "`, ` true `,
	} {
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(in)); err != nil {
			t.Fatal(err)
		}
		if got := Compact(nil, []byte(in)); string(got) != want.String() {
			t.Errorf("Compact(%q) = %q, want %q", in, got, want.String())
		}
	}
}
