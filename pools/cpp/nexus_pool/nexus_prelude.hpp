// nexus_prelude.hpp: the prelude's higher-order functions, run in the C++
// pool. When a program maps (filters, folds, ...) a C++ function over a
// list, the nexus calls one of these once with a reference to that function
// (a std::function, see FunctionRef in nexus_pool.hpp), and the whole loop
// runs here instead of one pool call per element.
//
// Each is a template: main.cpp registers one instance per use, at the
// natural C++ types of the .loc types the program uses it at (Int is
// std::int64_t, [a] std::vector, ?a std::optional, (a, b) std::tuple). The
// semantics are those of the nexus's own builtins and of the Python pool's
// prelude.py.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <tuple>
#include <vector>

#include "nexus_pool.hpp"

namespace nexus::prelude {

template <class A, class B>
std::vector<B> morloc_map(const std::function<B(A)>& f, const std::vector<A>& xs) {
  std::vector<B> out;
  out.reserve(xs.size());
  for (const auto& x : xs) out.push_back(f(x));
  return out;
}

template <class A>
std::vector<A> morloc_filter(const std::function<bool(A)>& keep, const std::vector<A>& xs) {
  std::vector<A> out;
  for (const auto& x : xs) {
    if (keep(x)) out.push_back(x);
  }
  return out;
}

template <class A, class B>
B morloc_fold(const std::function<B(B, A)>& f, B acc, const std::vector<A>& xs) {
  for (const auto& x : xs) acc = f(std::move(acc), x);
  return acc;
}

// morloc_zipWith stops at the end of the shorter list.
template <class A, class B, class C>
std::vector<C> morloc_zipWith(const std::function<C(A, B)>& f, const std::vector<A>& xs, const std::vector<B>& ys) {
  std::size_t n = std::min(xs.size(), ys.size());
  std::vector<C> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(f(xs[i], ys[i]));
  return out;
}

template <class A>
bool morloc_any(const std::function<bool(A)>& p, const std::vector<A>& xs) {
  for (const auto& x : xs) {
    if (p(x)) return true;
  }
  return false;
}

template <class A>
bool morloc_all(const std::function<bool(A)>& p, const std::vector<A>& xs) {
  for (const auto& x : xs) {
    if (!p(x)) return false;
  }
  return true;
}

template <class A>
std::optional<A> morloc_find(const std::function<bool(A)>& p, const std::vector<A>& xs) {
  for (const auto& x : xs) {
    if (p(x)) return x;
  }
  return std::nullopt;
}

template <class A, class B>
std::vector<B> morloc_concatMap(const std::function<std::vector<B>(A)>& f, const std::vector<A>& xs) {
  std::vector<B> out;
  for (const auto& x : xs) {
    std::vector<B> ys = f(x);
    out.insert(out.end(), std::make_move_iterator(ys.begin()), std::make_move_iterator(ys.end()));
  }
  return out;
}

template <class A>
std::tuple<std::vector<A>, std::vector<A>> morloc_partition(const std::function<bool(A)>& p,
                                                            const std::vector<A>& xs) {
  std::tuple<std::vector<A>, std::vector<A>> out;
  for (const auto& x : xs) {
    if (p(x)) {
      std::get<0>(out).push_back(x);
    } else {
      std::get<1>(out).push_back(x);
    }
  }
  return out;
}

template <class A>
std::vector<A> morloc_takeWhile(const std::function<bool(A)>& p, const std::vector<A>& xs) {
  std::vector<A> out;
  for (const auto& x : xs) {
    if (!p(x)) break;
    out.push_back(x);
  }
  return out;
}

template <class A>
std::vector<A> morloc_dropWhile(const std::function<bool(A)>& p, const std::vector<A>& xs) {
  std::size_t i = 0;
  while (i < xs.size() && p(xs[i])) ++i;
  return std::vector<A>(xs.begin() + static_cast<std::ptrdiff_t>(i), xs.end());
}

template <class A, class B>
std::vector<B> morloc_scanl(const std::function<B(B, A)>& f, B acc, const std::vector<A>& xs) {
  std::vector<B> out;
  out.reserve(xs.size() + 1);
  out.push_back(acc);
  for (const auto& x : xs) {
    acc = f(std::move(acc), x);
    out.push_back(acc);
  }
  return out;
}

// morloc_sortBy sorts by lt, a "less than", keeping equal items in order.
template <class A>
std::vector<A> morloc_sortBy(const std::function<bool(A, A)>& lt, std::vector<A> xs) {
  std::stable_sort(xs.begin(), xs.end(), [&](const A& a, const A& b) { return lt(a, b); });
  return xs;
}

// morloc_groupBy puts each item in the group of the item before it when eq
// says they are equal, else starts a new group.
template <class A>
std::vector<std::vector<A>> morloc_groupBy(const std::function<bool(A, A)>& eq, const std::vector<A>& xs) {
  std::vector<std::vector<A>> out;
  for (const auto& x : xs) {
    if (!out.empty() && eq(out.back().back(), x)) {
      out.back().push_back(x);
    } else {
      out.push_back({x});
    }
  }
  return out;
}

}  // namespace nexus::prelude
