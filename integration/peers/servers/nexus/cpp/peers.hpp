// The peer benchmark's three functions, as nexus's C++ pool runs them.
#pragma once
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

inline int64_t trivial(int64_t x) { return x; }

// Reversed and upper-cased byte by byte: the benchmark's strings are ASCII.
inline std::string shout(const std::string& s) {
    std::string r(s.rbegin(), s.rend());
    std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return r;
}

inline double total(const std::vector<double>& xs) { return std::accumulate(xs.begin(), xs.end(), 0.0); }
