package source

import (
	"testing"

	"github.com/nexus-run/nexus/manifest"
)

const pySource = `"""A module."""
import numpy as np
import os.path, json
from math import sqrt, pi as PI
from collections import (
    OrderedDict,
    defaultdict as dd,  # a comment
)

SCALE = 2.0
limit: int = 10

def molecular_weight(smiles: str) -> float:
    inner = 3
    return 1.0

async def fetch(url):
    pass

def generic[T](x: T) -> T:
    return x

class Config(dict):
    def method(self):
        pass

class Plain:
    pass

# def commented_out(x):
if SCALE == 2.0:
    pass

try:
    from fastlib import speedy
except ImportError:
    def speedy(x):
        nested = 1
        return x

def outer():
    def inner_fn():
        pass
    global_looking = 2
`

func TestPython(t *testing.T) {
	tests := map[string]bool{
		"molecular_weight": true, "fetch": true, "generic": true, "Config": true, "Plain": true,
		"SCALE": true, "limit": true, "np": true, "os": true, "json": true, "sqrt": true,
		"PI": true, "OrderedDict": true, "dd": true, "np.mean": true,
		"inner": false, "method": false, "commented_out": false, "pi": false,
		"defaultdict": false, "numpy": false, "molecular": false, "weight": false,
		"speedy": true, "outer": true, "nested": false, "inner_fn": false, "global_looking": false,
	}
	for name, want := range tests {
		if got := Defines(manifest.Python, pySource, name); got != want {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	if !Defines(manifest.Python, "from helpers import *\n", "anything") {
		t.Error("a star import may define any name")
	}
}

const cppSource = `#pragma once
#include <vector>
#include <string>

// double commented(double x);
/* double blocked(double x) { return x; } */

struct summary_t { double mean; double sd; };

inline summary_t summarize(const std::vector<double>& xs) {
    return summary_t{helper(xs), 0.0};
}

template <typename T>
std::vector<T> scale(T f, const std::vector<T>& xs) {
    std::vector<T> out;
    out.push_back(obj.member(f));
    return out;
}

static int64_t
count_atoms(const std::string &s);

const std::string& name_of(int i);
std::string *ptr_of(int i);

double uses() {
    auto s = "fake_in_string(1)";
    return sqrt(2.0) + other(3) * 2;
}
`

func TestCpp(t *testing.T) {
	tests := map[string]bool{
		"summarize": true, "scale": true, "count_atoms": true, "name_of": true, "ptr_of": true,
		"uses": true, "ns::summarize": true,
		"commented": false, "blocked": false, "helper": false, "member": false,
		"fake_in_string": false, "sqrt": false, "other": false, "summary_t": false,
	}
	for name, want := range tests {
		if got := Defines(manifest.Cpp, cppSource, name); got != want {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
}

const goSource = `package mathx

// Clamp limits x.
func Clamp(lo, hi, x float64) float64 { return helper(x) }

func Map[T any](xs []T, f func(T) T) []T { return nil }

var Table = map[string]int{}

func (r *Thing) Method() {}

func lower(x int) int { return x }
`

func TestGo(t *testing.T) {
	tests := map[string]bool{
		"Clamp": true, "Map": true, "Table": true, "lower": true,
		"Method": false, "helper": false, "Clam": false, "Thing": false,
	}
	for name, want := range tests {
		if got := Defines(manifest.Go, goSource, name); got != want {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
}

func TestUnknownLanguage(t *testing.T) {
	if Defines("r", "f <- function(x) x", "f") {
		t.Error("unknown language defines names")
	}
}
