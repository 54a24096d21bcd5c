package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// function is one of the three benchmark tools: how to make the arguments
// of the i-th call and how to check its answer, the text of the single
// text block every server answers with.
type function struct {
	name string // the tool's name, the same in every server
	sig  string // its type, as the .loc programs declare it
	what string // one line for the report
	big  bool   // a large payload: fewer calls
	args func(i int) []byte
	want func(i int, text string) error
}

// functions are the benchmark's three tools; n is the length of total's
// list.
func functions(n int) []*function {
	return []*function{
		{
			name: "trivial", sig: "Int -> Int", what: "the identity on an integer",
			args: func(i int) []byte { return []byte(`{"x":` + strconv.Itoa(i) + `}`) },
			want: func(i int, text string) error {
				if text != strconv.Itoa(i) {
					return fmt.Errorf("trivial(%d) answered %q", i, text)
				}
				return nil
			},
		},
		{
			name: "shout", sig: "Str -> Str", what: "a 48-character ASCII string reversed and upper-cased",
			args: func(i int) []byte {
				arg, _ := json.Marshal(shoutInput(i))
				return append(append([]byte(`{"s":`), arg...), '}')
			},
			want: func(i int, text string) error {
				var got string
				if err := json.Unmarshal([]byte(text), &got); err != nil || got != shouted(shoutInput(i)) {
					return fmt.Errorf("shout(%q) answered %q, want the JSON string %q", shoutInput(i), text, shouted(shoutInput(i)))
				}
				return nil
			},
		},
		bigSum(n),
	}
}

// shoutInput is shout's argument in the i-th call.
func shoutInput(i int) string {
	return fmt.Sprintf("the quick brown fox jumps over the lazy dog %04d", i%10000)
}

func shouted(s string) string {
	r := []byte(s)
	for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
		r[a], r[b] = r[b], r[a]
	}
	return strings.ToUpper(string(r))
}

// bigSum is total over n reals drawn once from a fixed seed: full-precision
// values in [0, 1000), about 20 bytes of JSON each. The arguments are
// encoded once; every call sends the same bytes. The answer must equal the
// sum up to rounding (the servers add in different orders and print reals
// their own way: 4999950000.0, 4999950000).
func bigSum(n int) *function {
	rng := rand.New(rand.NewPCG(6, 6))
	xs := make([]float64, n)
	sum := 0.0
	for i := range xs {
		xs[i] = rng.Float64() * 1000
		sum += xs[i]
	}
	list, _ := json.Marshal(xs)
	args := append(append([]byte(`{"xs":`), list...), '}')
	return &function{
		name: "total", sig: "[Real] -> Real", big: true,
		what: fmt.Sprintf("the sum of %d reals (%.1f MB of JSON arguments)", n, float64(len(args))/1e6),
		args: func(int) []byte { return args },
		want: func(_ int, text string) error {
			got, err := strconv.ParseFloat(text, 64)
			if err != nil || math.Abs(got-sum) > 1e-9*math.Abs(sum) {
				return fmt.Errorf("total answered %q, want %v", text, sum)
			}
			return nil
		},
	}
}

// proxyFunctions are server-everything's echo and get-sum as the proxies
// part calls them (in the order of proxyTools), sum being the name the
// server measured gives get-sum. Both answer one text block: the text
// itself from server-everything and the proxies that relay its result
// unchanged, the JSON of the string from nexus, whose Str results are JSON
// values like every other; either is taken.
func proxyFunctions(sum string) []*function {
	return []*function{
		{
			name: "echo", sig: "Str -> Str", what: "server-everything's echo of a 48-character ASCII string",
			args: func(i int) []byte {
				arg, _ := json.Marshal(shoutInput(i))
				return append(append([]byte(`{"message":`), arg...), '}')
			},
			want: textIs("echo", func(i int) string { return "Echo: " + shoutInput(i) }),
		},
		{
			name: sum, sig: "Real -> Real -> Str", what: "server-everything's get-sum of two numbers, which answers a sentence",
			args: func(i int) []byte { return []byte(fmt.Sprintf(`{"a":%d,"b":0.25}`, i)) },
			want: textIs(sum, func(i int) string { return fmt.Sprintf("The sum of %d and 0.25 is %d.25.", i, i) }),
		},
	}
}

// textIs checks that the i-th answer of tool is the text expected(i), as
// is or as a JSON string.
func textIs(tool string, expected func(i int) string) func(i int, text string) error {
	return func(i int, text string) error {
		want := expected(i)
		if text == want {
			return nil
		}
		var s string
		if json.Unmarshal([]byte(text), &s) == nil && s == want {
			return nil
		}
		return fmt.Errorf("%s answered %q in call %d, want %q", tool, text, i, want)
	}
}
