// The C++ side of the fault program (integration/fault_test.go): each
// function misbehaves in one way a user's code can.
#pragma once
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

inline std::int64_t ok_cpp(std::int64_t x) { return 2 * x; }

inline std::string nap_cpp(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  return "slept";
}

inline std::int64_t crash_cpp(const std::string& how) {
  if (how == "segv") {
    volatile int* volatile p = nullptr;
    *p = 1;
  } else if (how == "abort") {
    std::abort();
  } else if (how == "kill") {
    kill(getpid(), SIGKILL);
  } else if (how == "exit") {
    std::_Exit(3);
  }
  std::this_thread::sleep_for(std::chrono::seconds(5));
  return 0;
}

inline std::int64_t alloc_cpp(std::int64_t mb) {
  std::vector<char> block(static_cast<std::size_t>(mb) << 20, 'x');
  return static_cast<std::int64_t>(block.size() >> 20) + (block.back() == 'x' ? 0 : 1);
}

inline std::string huge_cpp(std::int64_t mb) { return std::string(static_cast<std::size_t>(mb) << 20, 'x'); }

// Each frame holds a buffer the compiler must keep, so the recursion
// overflows the stack rather than becoming a loop.
inline std::int64_t recurse_cpp(std::int64_t n) {
  volatile char frame[512];
  frame[n % 512] = 1;
  if (n == 0) return frame[0];
  return recurse_cpp(n - 1) + frame[n % 512];
}

inline std::int64_t chatty_cpp(std::int64_t x) {
  std::cout << "chatty on cout " << x << std::endl;
  std::printf("chatty on printf\n");
  std::fflush(stdout);
  ::write(1, "chatty write to fd 1\n", 21);
  return x;
}

inline double nonfinite_cpp(const std::string& kind) {
  if (kind == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (kind == "inf") return std::numeric_limits<double>::infinity();
  return -std::numeric_limits<double>::infinity();
}

inline std::vector<double> nonfinites_cpp(const std::string& kind) { return {1.0, nonfinite_cpp(kind)}; }
