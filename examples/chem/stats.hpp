// Statistics in C++: plain functions over standard containers.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

struct summary_t {
    double mean;
    double sd;
};

inline summary_t summarize(const std::vector<double>& xs) {
    if (xs.empty()) {
        throw std::invalid_argument("summarize needs at least one number");
    }
    double sum = 0;
    for (double x : xs) sum += x;
    const double mean = sum / xs.size();
    double ss = 0;
    for (double x : xs) ss += (x - mean) * (x - mean);
    return {mean, xs.size() > 1 ? std::sqrt(ss / (xs.size() - 1)) : 0.0};
}

inline std::vector<double> scale(double factor, std::vector<double> xs) {
    for (double& x : xs) x *= factor;
    return xs;
}

inline double scale_one(double factor, double x) { return factor * x; }

inline std::string join(const std::vector<std::string>& parts, const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i) out += sep;
        out += parts[i];
    }
    return out;
}
