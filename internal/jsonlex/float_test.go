package jsonlex

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// checkFloat compares Float on s with Number and strconv.ParseFloat.
func checkFloat(t *testing.T, s string) {
	t.Helper()
	d := []byte(s)
	f, end, ok := Float(d, 0)
	wantEnd, number := Number(d, 0)
	if !number {
		if ok {
			t.Fatalf("Float(%q) = %v, true; Number says it is no number", s, f)
		}
		return
	}
	want, err := strconv.ParseFloat(s[:wantEnd], 64)
	if ok != (err == nil) {
		t.Fatalf("Float(%q) ok %v; strconv.ParseFloat: %v", s, ok, err)
	}
	if end != wantEnd {
		t.Fatalf("Float(%q) ends at %d; Number at %d", s, end, wantEnd)
	}
	if ok && math.Float64bits(f) != math.Float64bits(want) {
		t.Fatalf("Float(%q) = %v (%#x); strconv.ParseFloat: %v (%#x)", s, f, math.Float64bits(f), want, math.Float64bits(want))
	}
}

func TestFloat(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "0.0", "-0.0e5", "1", "-1", "0.1", "0.3", "123.456", "1e22", "1e23", "9007199254740993",
		"9007199254740992", "18014398509481985", "1.7976931348623157e308", "1.7976931348623159e308", "1e309",
		"-1e400", "4.9e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "1e-400", "2.2250738585072011e-308",
		"2.2250738585072014e-308", "0.000000000000000000000000000001", "123456789012345678901234567890",
		"1234567890123456789", "12345678901234567890", "0.12345678901234567890123", "1.00000000000000011102230246251565404236316680908203125",
		"1.00000000000000011102230246251565404236316680908203124", "7.038531e-26", "5e-324", "1e-1000000000",
		"1e1000000000", "100000000000000000000000e-23", "3.", "1.e5", "-", "", "01", "1e", "1e+", "1E-7,", "5]", "-x",
		"523.4567890123456", "999.9999999999999", "0e10", "0.00e-3", "1000000 ", "0.1234567/", "0.12345678:",
		"0.0000000012345678901234567", "1.23456789012345678901", "12345678.12345678e-8",
	} {
		checkFloat(t, s)
	}
	// The numbers a large call carries: random reals printed shortest.
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		x := math.Float64frombits(r.Uint64())
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		checkFloat(t, strconv.FormatFloat(x, 'g', -1, 64))
		checkFloat(t, strconv.FormatFloat(r.Float64()*1000, 'f', -1, 64))
		checkFloat(t, strconv.FormatFloat(r.NormFloat64(), 'e', r.IntN(20), 64))
	}
}

func FuzzFloat(f *testing.F) {
	for _, s := range []string{"0", "-1.5e3", "523.4567890123456", "1e23", "4.9e-324", "12345678901234567890", "1.e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkFloat(t, s) })
}

func BenchmarkFloat(b *testing.B) {
	r := rand.New(rand.NewPCG(6, 6))
	var nums [][]byte
	for range 1000 {
		nums = append(nums, []byte(strconv.FormatFloat(r.Float64()*1000, 'g', -1, 64)))
	}
	b.Run("Float", func(b *testing.B) {
		for b.Loop() {
			for _, n := range nums {
				Float(n, 0)
			}
		}
	})
	b.Run("Number+strconv", func(b *testing.B) {
		for b.Loop() {
			for _, n := range nums {
				end, _ := Number(n, 0)
				strconv.ParseFloat(string(n[:end]), 64)
			}
		}
	})
}
