package jsonlex

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"unsafe"
)

// Float reads the JSON number that starts at d[i] as a float64, in the
// same pass that checks its grammar (the one Number checks), and returns
// it with the index where the number ends. ok is false when no number
// starts there, or when it is out of float64's range (strconv.ParseFloat's
// ErrRange). The value is always exactly strconv.ParseFloat's.
//
// A list of a hundred thousand reals spent twice as long in strconv's own
// pass over each number's digits as in everything else: here the digits
// are read once, and a number of up to 19 significant digits is converted
// by Clinger's exact fast path or by the Eisel-Lemire algorithm, the two
// steps strconv.ParseFloat itself tries first. Other numbers go to
// strconv.ParseFloat.
func Float(d []byte, i int) (f float64, end int, ok bool) {
	start := i
	neg := false
	if i < len(d) && d[i] == '-' {
		neg = true
		i++
	}
	var (
		man   uint64 // the first 19 significant digits
		nd    int    // how many of them
		exp10 int    // the power of ten man is to be scaled by
		exact = true // no non-zero digit was dropped beyond the 19
	)
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for ; i < len(d) && isDigit(d[i]); i++ {
			if nd < 19 {
				man = man*10 + uint64(d[i]-'0')
				nd++
			} else {
				exp10++ // dropped, but its place counts
				exact = exact && d[i] == '0'
			}
		}
	default:
		return 0, i, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return 0, i, false
		}
		if man == 0 {
			// Leading zeros: not significant.
			for ; i < len(d) && d[i] == '0'; i++ {
				exp10--
			}
		}
		for nd <= 19-8 {
			v, ok := eightDigits(d, i)
			if !ok {
				break
			}
			man = man*100_000_000 + v
			nd += 8
			exp10 -= 8
			i += 8
		}
		for ; i < len(d) && isDigit(d[i]); i++ {
			if nd < 19 {
				man = man*10 + uint64(d[i]-'0')
				nd++
				exp10--
			} else {
				exact = exact && d[i] == '0'
			}
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		eneg := false
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			eneg = d[i] == '-'
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return 0, i, false
		}
		e := 0
		for ; i < len(d) && isDigit(d[i]); i++ {
			if e < 100_000 { // far past any float64; keeps e from overflowing
				e = e*10 + int(d[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
		exp10 += e
	}
	end = i
	if exact {
		if f, ok := fastFloat(man, exp10, neg); ok {
			return f, end, true
		}
	}
	tok := d[start:end]
	// strconv keeps the string only in the error, which is dropped.
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(tok), len(tok)), 64)
	return f, end, err == nil
}

// eightDigits reports whether d[i:i+8] are eight ASCII digits, and reads
// them, a word at a time (the SWAR steps of Lemire's fast_float).
func eightDigits(d []byte, i int) (uint64, bool) {
	if len(d)-i < 8 {
		return 0, false
	}
	x := binary.LittleEndian.Uint64(d[i:])
	if !allDigits(x) {
		return 0, false
	}
	x = (x & 0x0F0F0F0F0F0F0F0F) * 2561 >> 8
	x = (x & 0x00FF00FF00FF00FF) * 6553601 >> 16
	return (x & 0x0000FFFF0000FFFF) * 42949672960001 >> 32, true
}

// fastFloat is man × 10^exp10 when one of strconv's fast steps gives it
// exactly: zero, Clinger's fast path (man and 10^exp10 both exact in a
// float64, so one rounding), or the Eisel-Lemire algorithm.
func fastFloat(man uint64, exp10 int, neg bool) (float64, bool) {
	if man == 0 {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	if man>>53 == 0 && -22 <= exp10 && exp10 <= 22 {
		f := float64(man)
		if exp10 >= 0 {
			f *= exactPow10[exp10]
		} else {
			f /= exactPow10[-exp10]
		}
		if neg {
			f = -f
		}
		return f, true
	}
	return eiselLemire64(man, exp10, neg)
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
	1e20, 1e21, 1e22,
}

// The rest of this file is Go's src/internal/strconv/atofeisel.go and
// math.go (Go 1.26), the float64 parts, unchanged but for names:
//
// Copyright 2020 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the GO_LICENSE file.
//
// The Eisel-Lemire ParseFloat algorithm, published in 2020 and discussed
// at https://nigeltao.github.io/blog/2020/eisel-lemire.html

const (
	float64MantBits = 52
	float64Bias     = -1023
)

// A uint128 is a 128-bit uint.
type uint128 struct {
	Hi uint64
	Lo uint64
}

// pow10 returns the 128-bit mantissa and binary exponent of 10**e.
// That is, 10^e = mant/2^128 * 2**exp.
// If e is out of range, pow10 returns ok=false.
func pow10(e int) (mant uint128, exp int, ok bool) {
	if e < pow10Min || e > pow10Max {
		return
	}
	return pow10Tab[e-pow10Min], 1 + mulLog2_10(e), true
}

// mulLog2_10 returns math.Floor(x * log(10)/log(2)) for an integer x in
// the range -500 <= x && x <= +500.
func mulLog2_10(x int) int {
	// log(10)/log(2) ≈ 3.32192809489 ≈ 108853 / 2^15
	return (x * 108853) >> 15
}

func eiselLemire64(man uint64, exp10 int, neg bool) (f float64, ok bool) {
	// The terse comments in this function body refer to sections of the
	// https://nigeltao.github.io/blog/2020/eisel-lemire.html blog post.

	// Exp10 Range.
	if man == 0 {
		if neg {
			f = math.Float64frombits(0x8000000000000000) // Negative zero.
		}
		return f, true
	}
	pow, exp2, ok := pow10(exp10)
	if !ok {
		return 0, false
	}

	// Normalization.
	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	retExp2 := uint64(exp2+63-float64Bias) - uint64(clz)

	// Multiplication.
	xHi, xLo := bits.Mul64(man, pow.Hi)

	// Wider Approximation.
	if xHi&0x1FF == 0x1FF && xLo+man < man {
		yHi, yLo := bits.Mul64(man, pow.Lo)
		mergedHi, mergedLo := xHi, xLo+yHi
		if mergedLo < xLo {
			mergedHi++
		}
		if mergedHi&0x1FF == 0x1FF && mergedLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		xHi, xLo = mergedHi, mergedLo
	}

	// Shifting to 54 Bits.
	msb := xHi >> 63
	retMantissa := xHi >> (msb + 9)
	retExp2 -= 1 ^ msb

	// Half-way Ambiguity.
	if xLo == 0 && xHi&0x1FF == 0 && retMantissa&3 == 1 {
		return 0, false
	}

	// From 54 to 53 Bits.
	retMantissa += retMantissa & 1
	retMantissa >>= 1
	if retMantissa>>53 > 0 {
		retMantissa >>= 1
		retExp2 += 1
	}
	// retExp2 is a uint64. Zero or underflow means that we're in subnormal
	// float64 space. 0x7FF or above means that we're in Inf/NaN float64 space.
	//
	// The if block is equivalent to (but has fewer branches than):
	//   if retExp2 <= 0 || retExp2 >= 0x7FF { etc }
	if retExp2-1 >= 0x7FF-1 {
		return 0, false
	}
	retBits := retExp2<<float64MantBits | retMantissa&(1<<float64MantBits-1)
	if neg {
		retBits |= 0x8000000000000000
	}
	return math.Float64frombits(retBits), true
}
