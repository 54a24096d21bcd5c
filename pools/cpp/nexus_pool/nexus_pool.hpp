// nexus_pool.hpp: the runtime of nexus's C++ pools, as generated code sees it.
//
// `nexus make` generates a main.cpp that includes the user's headers and
// this one, and calls nexus::serve with one nexus::function(...) per sourced
// function. Everything else is here and in nexus_pool.cpp (the gRPC server,
// which only the runtime sees, so generated code compiles without gRPC's
// headers).
//
// Values cross as msgpack (see manifest/types/msgpack.go for the form of
// each type). Reading goes straight from the request's bytes into the
// declared C++ types with Reader, without an intermediate tree of objects:
// a list of a million numbers becomes a std::vector<double> in one pass.
// Writing uses msgpack-cxx's packer.
//
// How an argument reaches the user's function: nexus::function tries, in
// order,
//   1. the parameter types the function declares, when its name denotes
//      exactly one function (not an overload set, not a template): each
//      argument is read as that type, whether taken by value, by const
//      reference or by reference;
//   2. the natural C++ types of the .loc signature (std::int64_t, double,
//      std::string, std::vector, ...), for templates and overload sets;
//   3. an Arg proxy whose conversion operator lets overload resolution pick
//      among types that fit the signature (int or long for an Int);
// and fails to compile with a message naming the function otherwise.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <msgpack/pack.hpp>

namespace nexus {

// ValueError is a msgpack value that does not fit the type it is read as.
// Its message names where in the value the problem is ("argument 2[3].mean:
// expected a number, got a string").
class ValueError : public std::runtime_error {
 public:
  ValueError(std::string path, const std::string& problem)
      : std::runtime_error(path.empty() ? problem : path + ": " + problem),
        path_(std::move(path)),
        problem_(problem) {}

  // within returns this error one step further out: step is "[3]",
  // ".name" or "argument 2".
  ValueError within(const std::string& step) const {
    bool index = !path_.empty() && (path_[0] == '[' || path_[0] == '.');
    return ValueError(step + (index || path_.empty() ? "" : " ") + path_, problem_);
  }

 private:
  std::string path_;
  std::string problem_;
};

// Reader reads msgpack values one after the other from a byte range it
// does not own. Copies of a Reader read independently.
class Reader {
 public:
  Reader(const char* data, std::size_t size)
      : p_(reinterpret_cast<const unsigned char*>(data)), end_(p_ + size) {}

  bool at_end() const { return p_ == end_; }

  // Whether the next value is nil, without reading it.
  bool next_is_nil() const { return p_ < end_ && *p_ == 0xc0; }

  void read_nil() {
    if (!next_is_nil()) throw mismatch("nil");
    ++p_;
  }

  bool read_bool() {
    if (p_ < end_ && (*p_ == 0xc2 || *p_ == 0xc3)) return *p_++ == 0xc3;
    throw mismatch("a boolean");
  }

  // read_integer reads an integer that must fit in T.
  template <class T>
  T read_integer() {
    static_assert(std::is_integral_v<T>, "read_integer reads integral types");
    bool negative = false;
    std::uint64_t u = 0;
    std::int64_t i = 0;
    if (!read_raw_integer(negative, u, i)) throw mismatch("an integer");
    if (negative) {
      if constexpr (std::is_signed_v<T>) {
        if (i >= static_cast<std::int64_t>(std::numeric_limits<T>::min())) return static_cast<T>(i);
      }
      throw ValueError("", "the integer " + std::to_string(i) + " does not fit in " + integer_name<T>());
    }
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(u);
    throw ValueError("", "the integer " + std::to_string(u) + " does not fit in " + integer_name<T>());
  }

  // read_double reads a number: a float, or an integer.
  double read_double() {
    if (end_ - p_ >= 9 && *p_ == 0xcb) {
      double d = bits_to_double(load_be64(p_ + 1));
      p_ += 9;
      return d;
    }
    return read_double_slow();
  }

  // read_string reads a string (or binary data); the view points into the
  // bytes being read.
  std::string_view read_string() {
    std::size_t n = 0;
    if (p_ < end_) {
      unsigned char c = *p_;
      if (c >= 0xa0 && c <= 0xbf) {
        n = c & 0x1f;
        ++p_;
      } else if (c == 0xd9 || c == 0xc4) {
        n = take_length(1);
      } else if (c == 0xda || c == 0xc5) {
        n = take_length(2);
      } else if (c == 0xdb || c == 0xc6) {
        n = take_length(4);
      } else {
        throw mismatch("a string");
      }
    } else {
      throw mismatch("a string");
    }
    need(n);
    std::string_view s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }

  // read_array reads the header of an array and returns its length.
  std::size_t read_array() {
    if (p_ < end_) {
      unsigned char c = *p_;
      if (c >= 0x90 && c <= 0x9f) {
        ++p_;
        return c & 0x0f;
      }
      if (c == 0xdc) return take_length(2);
      if (c == 0xdd) return take_length(4);
    }
    throw mismatch("a list");
  }

  // read_map reads the header of a map and returns its number of entries.
  std::size_t read_map() {
    if (p_ < end_) {
      unsigned char c = *p_;
      if (c >= 0x80 && c <= 0x8f) {
        ++p_;
        return c & 0x0f;
      }
      if (c == 0xde) return take_length(2);
      if (c == 0xdf) return take_length(4);
    }
    throw mismatch("a map");
  }

  bool next_is_map() const {
    return p_ < end_ && ((*p_ >= 0x80 && *p_ <= 0x8f) || *p_ == 0xde || *p_ == 0xdf);
  }

  // skip reads past one whole value, however nested.
  void skip() {
    std::size_t pending = 1;
    while (pending > 0) {
      // Runs of doubles, the bulk of large values, in a tight loop.
      while (pending > 0 && end_ - p_ >= 9 && *p_ == 0xcb) {
        p_ += 9;
        --pending;
      }
      if (pending == 0) break;
      --pending;
      need(1);
      unsigned char c = *p_++;
      if (c <= 0x7f || c >= 0xe0 || (c >= 0xc0 && c <= 0xc3)) continue;
      if (c >= 0x80 && c <= 0x8f) {
        pending += 2 * static_cast<std::size_t>(c & 0x0f);
      } else if (c >= 0x90 && c <= 0x9f) {
        pending += c & 0x0f;
      } else if (c >= 0xa0 && c <= 0xbf) {
        advance(c & 0x1f);
      } else {
        switch (c) {
          case 0xcb: case 0xcf: case 0xd3: advance(8); break;
          case 0xca: case 0xce: case 0xd2: advance(4); break;
          case 0xcd: case 0xd1: advance(2); break;
          case 0xcc: case 0xd0: advance(1); break;
          case 0xc4: case 0xd9: advance(length(1)); break;
          case 0xc5: case 0xda: advance(length(2)); break;
          case 0xc6: case 0xdb: advance(length(4)); break;
          case 0xdc: pending += length(2); break;
          case 0xdd: pending += length(4); break;
          case 0xde: pending += 2 * length(2); break;
          case 0xdf: pending += 2 * length(4); break;
          case 0xd4: advance(2); break;
          case 0xd5: advance(3); break;
          case 0xd6: advance(5); break;
          case 0xd7: advance(9); break;
          case 0xd8: advance(17); break;
          case 0xc7: advance(length(1) + 1); break;
          case 0xc8: advance(length(2) + 1); break;
          case 0xc9: advance(length(4) + 1); break;
          default: throw ValueError("", "malformed msgpack (byte 0xc1)");
        }
      }
    }
  }

  // remaining is how many bytes are left: an upper bound on the number of
  // values, to reserve space without trusting a length header.
  // position is where the next value starts: with skip, it gives a value's
  // msgpack bytes.
  const char* position() const { return reinterpret_cast<const char*>(p_); }

  std::size_t remaining() const { return static_cast<std::size_t>(end_ - p_); }

  // what_next describes the next value for error messages.
  std::string what_next() const {
    if (p_ >= end_) return "the end of the data";
    unsigned char c = *p_;
    if (c <= 0x7f || c >= 0xe0 || (c >= 0xcc && c <= 0xd3)) return "an integer";
    if (c <= 0x8f || c == 0xde || c == 0xdf) return "a map";
    if (c <= 0x9f || c == 0xdc || c == 0xdd) return "a list";
    if (c <= 0xbf || (c >= 0xd9 && c <= 0xdb)) return "a string";
    if (c == 0xc0) return "nil";
    if (c == 0xc2 || c == 0xc3) return "a boolean";
    if (c == 0xca || c == 0xcb) return "a number";
    if (c >= 0xc4 && c <= 0xc6) return "binary data";
    return "an extension value";
  }

 private:
  ValueError mismatch(const char* expected) const {
    if (p_ >= end_) return ValueError("", std::string("truncated msgpack data: expected ") + expected);
    return ValueError("", std::string("expected ") + expected + ", got " + what_next());
  }

  void need(std::size_t n) const {
    if (static_cast<std::size_t>(end_ - p_) < n) throw ValueError("", "truncated msgpack data");
  }
  void advance(std::size_t n) {
    need(n);
    p_ += n;
  }
  // length reads a big-endian length of width bytes at the cursor.
  std::size_t length(int width) {
    need(width);
    std::uint64_t n = 0;
    for (int i = 0; i < width; ++i) n = (n << 8) | *p_++;
    return static_cast<std::size_t>(n);
  }
  // take_length skips the type byte, then reads a length of width bytes.
  std::size_t take_length(int width) {
    ++p_;
    return length(width);
  }

  static std::uint64_t load_be64(const unsigned char* b) {
    return (std::uint64_t{b[0]} << 56) | (std::uint64_t{b[1]} << 48) | (std::uint64_t{b[2]} << 40) |
           (std::uint64_t{b[3]} << 32) | (std::uint64_t{b[4]} << 24) | (std::uint64_t{b[5]} << 16) |
           (std::uint64_t{b[6]} << 8) | std::uint64_t{b[7]};
  }
  static double bits_to_double(std::uint64_t bits) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }

  bool read_raw_integer(bool& negative, std::uint64_t& u, std::int64_t& i) {
    if (p_ >= end_) return false;
    unsigned char c = *p_;
    if (c <= 0x7f) {
      ++p_;
      u = c;
      return true;
    }
    if (c >= 0xe0) {
      ++p_;
      negative = true;
      i = static_cast<std::int8_t>(c);
      return true;
    }
    int width = 0;
    bool is_signed = false;
    switch (c) {
      case 0xcc: width = 1; break;
      case 0xcd: width = 2; break;
      case 0xce: width = 4; break;
      case 0xcf: width = 8; break;
      case 0xd0: width = 1; is_signed = true; break;
      case 0xd1: width = 2; is_signed = true; break;
      case 0xd2: width = 4; is_signed = true; break;
      case 0xd3: width = 8; is_signed = true; break;
      default: return false;
    }
    ++p_;
    need(width);
    std::uint64_t bits = 0;
    for (int k = 0; k < width; ++k) bits = (bits << 8) | *p_++;
    if (!is_signed) {
      u = bits;
      return true;
    }
    // Sign-extend from width bytes.
    int shift = 64 - 8 * width;
    std::int64_t v = static_cast<std::int64_t>(bits << shift) >> shift;
    if (v < 0) {
      negative = true;
      i = v;
    } else {
      u = static_cast<std::uint64_t>(v);
    }
    return true;
  }

  double read_double_slow() {
    if (p_ < end_ && *p_ == 0xca) {
      need(5);
      std::uint32_t bits = (std::uint32_t{p_[1]} << 24) | (std::uint32_t{p_[2]} << 16) |
                           (std::uint32_t{p_[3]} << 8) | std::uint32_t{p_[4]};
      float f;
      std::memcpy(&f, &bits, sizeof f);
      p_ += 5;
      return f;
    }
    if (p_ < end_ && *p_ == 0xcb) need(9);
    bool negative = false;
    std::uint64_t u = 0;
    std::int64_t i = 0;
    if (read_raw_integer(negative, u, i)) return negative ? static_cast<double>(i) : static_cast<double>(u);
    throw mismatch("a number");
  }

  template <class T>
  static std::string integer_name() {
    return std::string(std::is_signed_v<T> ? "a signed " : "an unsigned ") +
           std::to_string(8 * sizeof(T)) + "-bit integer";
  }

  const unsigned char* p_;
  const unsigned char* end_;
};

// Buffer is where msgpack-cxx's packer writes a result: straight into the
// bytes the reply is sent from, growing them geometrically.
class Buffer {
 public:
  // Buffer writes into out after offset bytes kept free for the caller.
  explicit Buffer(std::string& out, std::size_t offset = 0) : out_(out), len_(offset) { out_.assign(offset, '\0'); }

  void write(const char* data, std::size_t n) {
    if (n > out_.size() - len_) grow(n);
    std::memcpy(&out_[len_], data, n);
    len_ += n;
  }
  // reserve makes room for n more bytes, so a large list is written
  // without regrowing.
  void reserve(std::size_t n) {
    if (n > out_.size() - len_) grow(n);
  }
  // finish trims the bytes to what was written.
  void finish() { out_.resize(len_); }

 private:
  void grow(std::size_t n) { out_.resize(std::max({out_.size() * 2, len_ + n, std::size_t{64}})); }

  std::string& out_;
  std::size_t len_;
};

// Writer writes one msgpack value (a function's result).
class Writer {
 public:
  explicit Writer(std::string& out, std::size_t offset = 0) : buffer_(out, offset), packer_(buffer_) {}
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  msgpack::packer<Buffer>& pack() { return packer_; }
  // write_double writes d as a float 64, always, as the protocol says a
  // Real is sent: msgpack-c's pack_double writes a whole number as an
  // integer, which turns -0.0 into 0.
  void write_double(double d) {
    std::uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    char b[9];
    b[0] = static_cast<char>(0xcb);
    for (int i = 0; i < 8; ++i) b[1 + i] = static_cast<char>(bits >> (56 - 8 * i));
    buffer_.write(b, sizeof b);
  }
  void reserve(std::size_t n) { buffer_.reserve(n); }
  void finish() { buffer_.finish(); }

 private:
  Buffer buffer_;
  msgpack::packer<Buffer> packer_;
};

// Unit is the value of (): nil in msgpack.
struct Unit {};

// Record describes a struct that a .loc record maps to (record Cpp =>
// Name = "type"): generated code specializes it with the record's name and
// its fields, each a field("name", &type::name).
template <class T>
struct Record;

template <class S, class M>
struct Field {
  const char* name;
  M S::*member;
};

template <class S, class M>
constexpr Field<S, M> field(const char* name, M S::*member) {
  return {name, member};
}

// Codec<T> reads a T from msgpack and writes one back. It is defined for
// the C++ types of language.md's table and for records.
template <class T, class Enable = void>
struct Codec;

template <class T, class = void>
struct has_codec : std::false_type {};
template <class T>
struct has_codec<T, std::void_t<decltype(Codec<T>::read(std::declval<Reader&>()))>> : std::true_type {};
template <class T>
constexpr bool has_codec_v = has_codec<T>::value;

template <class T, class = void>
struct is_record : std::false_type {};
template <class T>
struct is_record<T, std::void_t<decltype(Record<T>::fields)>> : std::true_type {};

template <class T>
constexpr bool always_false = false;

template <>
struct Codec<bool> {
  static bool read(Reader& r) { return r.read_bool(); }
  static void write(Writer& w, bool v) {
    if (v) {
      w.pack().pack_true();
    } else {
      w.pack().pack_false();
    }
  }
};

template <class T>
struct Codec<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  static T read(Reader& r) { return r.read_integer<T>(); }
  static void write(Writer& w, T v) {
    if constexpr (std::is_signed_v<T>) {
      w.pack().pack_int64(static_cast<std::int64_t>(v));
    } else {
      w.pack().pack_uint64(static_cast<std::uint64_t>(v));
    }
  }
};

template <class T>
struct Codec<T, std::enable_if_t<std::is_floating_point_v<T>>> {
  static T read(Reader& r) { return static_cast<T>(r.read_double()); }
  static void write(Writer& w, T v) { w.write_double(static_cast<double>(v)); }
};

inline void write_string(Writer& w, std::string_view s) {
  w.pack().pack_str(static_cast<std::uint32_t>(s.size()));
  w.pack().pack_str_body(s.data(), static_cast<std::uint32_t>(s.size()));
}

// A std::string also holds a Json: its compact JSON text, as it crosses in
// msgpack. The function parses it with the JSON library it likes; a result
// must be valid JSON text, which the nexus checks.
template <>
struct Codec<std::string> {
  static std::string read(Reader& r) { return std::string(r.read_string()); }
  static void write(Writer& w, const std::string& s) { write_string(w, s); }
};

// A std::string_view argument points into the request, which outlives the
// call.
template <>
struct Codec<std::string_view> {
  static std::string_view read(Reader& r) { return r.read_string(); }
  static void write(Writer& w, std::string_view s) { write_string(w, s); }
};

template <>
struct Codec<Unit> {
  static Unit read(Reader& r) {
    r.skip();
    return {};
  }
  static void write(Writer& w, Unit) { w.pack().pack_nil(); }
};

template <class U>
struct Codec<std::optional<U>, std::enable_if_t<has_codec_v<U>>> {
  static std::optional<U> read(Reader& r) {
    if (r.next_is_nil()) {
      r.read_nil();
      return std::nullopt;
    }
    return Codec<U>::read(r);
  }
  static void write(Writer& w, const std::optional<U>& v) {
    if (v) {
      Codec<U>::write(w, *v);
    } else {
      w.pack().pack_nil();
    }
  }
};

// Sequences: the containers a list ([a]) reads into.
template <class T>
struct sequence : std::false_type {};
template <class U, class A>
struct sequence<std::vector<U, A>> : std::true_type {
  using elem = U;
  static constexpr bool ordered = true;
};
template <class U, class A>
struct sequence<std::deque<U, A>> : std::true_type {
  using elem = U;
  static constexpr bool ordered = true;
};
template <class U, class A>
struct sequence<std::list<U, A>> : std::true_type {
  using elem = U;
  static constexpr bool ordered = true;
};
template <class U, class C, class A>
struct sequence<std::set<U, C, A>> : std::true_type {
  using elem = U;
  static constexpr bool ordered = false;
};
template <class U, class H, class E, class A>
struct sequence<std::unordered_set<U, H, E, A>> : std::true_type {
  using elem = U;
  static constexpr bool ordered = false;
};

// read_items reads n items of a list or map with read_one(i), adding
// "[i]" to the path of an error.
template <class F>
void read_items(std::size_t n, F&& read_one) {
  std::size_t i = 0;
  try {
    for (; i < n; ++i) read_one(i);
  } catch (const ValueError& e) {
    throw e.within("[" + std::to_string(i) + "]");
  }
}

template <class T>
struct Codec<T, std::enable_if_t<sequence<T>::value && has_codec_v<typename sequence<T>::elem>>> {
  using U = typename sequence<T>::elem;

  static T read(Reader& r) {
    std::size_t n = r.read_array();
    T out;
    if constexpr (std::is_same_v<T, std::vector<U, typename T::allocator_type>>) {
      out.reserve(std::min(n, r.remaining()));
    }
    read_items(n, [&](std::size_t) {
      if constexpr (sequence<T>::ordered) {
        out.push_back(Codec<U>::read(r));
      } else {
        out.insert(Codec<U>::read(r));
      }
    });
    return out;
  }

  static void write(Writer& w, const T& v) {
    w.pack().pack_array(static_cast<std::uint32_t>(v.size()));
    if constexpr (std::is_arithmetic_v<U>) w.reserve(9 * v.size());
    for (const auto& x : v) Codec<U>::write(w, x);
  }
};

template <class U, std::size_t N>
struct Codec<std::array<U, N>, std::enable_if_t<has_codec_v<U>>> {
  static std::array<U, N> read(Reader& r) {
    std::size_t n = r.read_array();
    if (n != N) throw ValueError("", "expected a list of " + std::to_string(N) + " items, got " + std::to_string(n));
    std::array<U, N> out{};
    read_items(n, [&](std::size_t i) { out[i] = Codec<U>::read(r); });
    return out;
  }
  static void write(Writer& w, const std::array<U, N>& v) {
    w.pack().pack_array(static_cast<std::uint32_t>(N));
    for (const auto& x : v) Codec<U>::write(w, x);
  }
};

// Maps: Map k v. The nexus sends a msgpack map; a list of [key, value]
// pairs is read too.
template <class T>
struct mapping : std::false_type {};
template <class K, class V, class C, class A>
struct mapping<std::map<K, V, C, A>> : std::true_type {
  using key = K;
  using mapped = V;
};
template <class K, class V, class H, class E, class A>
struct mapping<std::unordered_map<K, V, H, E, A>> : std::true_type {
  using key = K;
  using mapped = V;
};

template <class T>
struct Codec<T, std::enable_if_t<mapping<T>::value && has_codec_v<typename mapping<T>::key> &&
                                 has_codec_v<typename mapping<T>::mapped>>> {
  using K = typename mapping<T>::key;
  using V = typename mapping<T>::mapped;

  static T read(Reader& r) {
    T out;
    if (r.next_is_map()) {
      std::size_t n = r.read_map();
      read_items(n, [&](std::size_t) {
        K k = Codec<K>::read(r);
        out.insert_or_assign(std::move(k), Codec<V>::read(r));
      });
      return out;
    }
    std::size_t n = r.read_array();
    read_items(n, [&](std::size_t) {
      if (std::size_t m = r.read_array(); m != 2) {
        throw ValueError("", "expected a [key, value] pair, got a list of " + std::to_string(m) + " items");
      }
      K k = Codec<K>::read(r);
      out.insert_or_assign(std::move(k), Codec<V>::read(r));
    });
    return out;
  }

  static void write(Writer& w, const T& v) {
    w.pack().pack_map(static_cast<std::uint32_t>(v.size()));
    for (const auto& [k, x] : v) {
      Codec<K>::write(w, k);
      Codec<V>::write(w, x);
    }
  }
};

// Tuples: (a, b, ...) as std::tuple or std::pair.
template <class T>
struct tuple_like : std::false_type {};
template <class... U>
struct tuple_like<std::tuple<U...>> : std::true_type {};
template <class A, class B>
struct tuple_like<std::pair<A, B>> : std::true_type {};

template <class T>
struct tuple_items_have_codecs : std::false_type {};
template <class... U>
struct tuple_items_have_codecs<std::tuple<U...>> : std::bool_constant<(has_codec_v<U> && ...)> {};
template <class A, class B>
struct tuple_items_have_codecs<std::pair<A, B>> : std::bool_constant<has_codec_v<A> && has_codec_v<B>> {};

template <class T>
struct Codec<T, std::enable_if_t<tuple_items_have_codecs<T>::value>> {
  static constexpr std::size_t N = std::tuple_size<T>::value;

  static T read(Reader& r) {
    std::size_t n = r.read_array();
    if (n != N) {
      throw ValueError("", "expected a tuple of " + std::to_string(N) + " items, got a list of " + std::to_string(n));
    }
    return read_all(r, std::make_index_sequence<N>{});
  }

  static void write(Writer& w, const T& v) {
    w.pack().pack_array(static_cast<std::uint32_t>(N));
    std::apply([&](const auto&... x) { (Codec<std::decay_t<decltype(x)>>::write(w, x), ...); }, v);
  }

 private:
  template <std::size_t I>
  static std::tuple_element_t<I, T> read_item(Reader& r) {
    try {
      return Codec<std::tuple_element_t<I, T>>::read(r);
    } catch (const ValueError& e) {
      throw e.within("[" + std::to_string(I) + "]");
    }
  }
  template <std::size_t... I>
  static T read_all(Reader& r, std::index_sequence<I...>) {
    // A braced list is evaluated left to right, in the order of the bytes.
    return T{read_item<I>(r)...};
  }
};

// Records: a msgpack map keyed by field name, read into and written from
// the struct's members.
template <class T>
struct Codec<T, std::enable_if_t<is_record<T>::value>> {
  static constexpr auto& fields = Record<T>::fields;
  static constexpr std::size_t N = std::tuple_size<std::decay_t<decltype(Record<T>::fields)>>::value;

  static T read(Reader& r) {
    std::size_t n = r.read_map();
    T out{};
    std::array<bool, N> seen{};
    for (std::size_t i = 0; i < n; ++i) {
      std::string_view key = r.read_string();
      if (!read_field(r, key, out, seen, std::make_index_sequence<N>{})) r.skip();
    }
    check_seen(seen, std::make_index_sequence<N>{});
    return out;
  }

  static void write(Writer& w, const T& v) {
    w.pack().pack_map(static_cast<std::uint32_t>(N));
    std::apply(
        [&](const auto&... f) {
          ((write_string(w, f.name), Codec<std::decay_t<decltype(v.*(f.member))>>::write(w, v.*(f.member))), ...);
        },
        fields);
  }

 private:
  template <std::size_t... I>
  static bool read_field(Reader& r, std::string_view key, T& out, std::array<bool, N>& seen,
                         std::index_sequence<I...>) {
    return (read_one<I>(r, key, out, seen) || ...);
  }

  template <std::size_t I>
  static bool read_one(Reader& r, std::string_view key, T& out, std::array<bool, N>& seen) {
    const auto& f = std::get<I>(fields);
    if (key != f.name) return false;
    using M = std::decay_t<decltype(out.*(f.member))>;
    static_assert(has_codec_v<M>, "nexus: a field of this record struct has a type with no msgpack conversion");
    try {
      out.*(f.member) = Codec<M>::read(r);
    } catch (const ValueError& e) {
      throw e.within(std::string(".") + f.name);
    }
    seen[I] = true;
    return true;
  }

  template <std::size_t... I>
  static void check_seen(const std::array<bool, N>& seen, std::index_sequence<I...>) {
    (check_one<I>(seen[I]), ...);
  }

  template <std::size_t I>
  static void check_one(bool seen) {
    const auto& f = std::get<I>(fields);
    using M = std::decay_t<decltype(std::declval<T&>().*(f.member))>;
    if (!seen && !is_optional<M>::value) {
      throw ValueError("", std::string("record ") + Record<T>::name + " is missing field " + f.name);
    }
  }

  template <class M>
  struct is_optional : std::false_type {};
  template <class M>
  struct is_optional<std::optional<M>> : std::true_type {};
};

// fits tells whether the C++ type T can hold values of the natural type N
// of a .loc type (std::int64_t for Int, double for Real, std::vector for
// lists...). Strict fitting, used to pick among overloads, takes only
// integers for Int; loose fitting, used to check declared types, also
// floating point.
template <class T>
struct optional_of : std::false_type {};
template <class T>
struct fixed_array : std::false_type {};
template <class U, std::size_t N>
struct fixed_array<std::array<U, N>> : std::true_type {
  using elem = U;
};
template <class U>
struct optional_of<std::optional<U>> : std::true_type {
  using elem = U;
};
// function_of tells a std::function's result and parameters: the natural
// type of a function argument (a .loc `(A -> R)`) is std::function<R(A)>.
template <class T>
struct function_of : std::false_type {};
template <class R, class... A>
struct function_of<std::function<R(A...)>> : std::true_type {
  using result = R;
  using params = std::tuple<std::decay_t<A>...>;
  static constexpr std::size_t arity = sizeof...(A);
};

template <class T, class N, bool Strict, std::size_t... I>
constexpr bool items_fit(std::index_sequence<I...>);

template <class T, class N, bool Strict>
constexpr bool fits() {
  if constexpr (std::is_same_v<N, std::int64_t>) {
    return (std::is_integral_v<T> && !std::is_same_v<T, bool>) || (!Strict && std::is_floating_point_v<T>);
  } else if constexpr (std::is_same_v<N, double>) {
    return std::is_floating_point_v<T>;
  } else if constexpr (std::is_same_v<N, bool>) {
    return std::is_same_v<T, bool>;
  } else if constexpr (std::is_same_v<N, std::string>) {
    return std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>;
  } else if constexpr (sequence<N>::value) {
    if constexpr (sequence<T>::value) {
      return fits<typename sequence<T>::elem, typename sequence<N>::elem, Strict>();
    } else if constexpr (fixed_array<T>::value) {
      return fits<typename fixed_array<T>::elem, typename sequence<N>::elem, Strict>();
    } else {
      return false;
    }
  } else if constexpr (optional_of<N>::value) {
    if constexpr (optional_of<T>::value) {
      return fits<typename optional_of<T>::elem, typename optional_of<N>::elem, Strict>();
    } else {
      return false;
    }
  } else if constexpr (mapping<N>::value) {
    if constexpr (mapping<T>::value) {
      return fits<typename mapping<T>::key, typename mapping<N>::key, Strict>() &&
             fits<typename mapping<T>::mapped, typename mapping<N>::mapped, Strict>();
    } else {
      return false;
    }
  } else if constexpr (function_of<N>::value) {
    if constexpr (function_of<T>::value) {
      if constexpr (function_of<T>::arity == function_of<N>::arity) {
        return fits<typename function_of<T>::result, typename function_of<N>::result, Strict>() &&
               items_fit<typename function_of<T>::params, typename function_of<N>::params, Strict>(
                   std::make_index_sequence<function_of<N>::arity>{});
      } else {
        return false;
      }
    } else {
      return false;
    }
  } else if constexpr (tuple_like<N>::value) {
    if constexpr (tuple_like<T>::value) {
      if constexpr (std::tuple_size<T>::value == std::tuple_size<N>::value) {
        return items_fit<T, N, Strict>(std::make_index_sequence<std::tuple_size<N>::value>{});
      } else {
        return false;
      }
    } else {
      return false;
    }
  } else {
    return std::is_same_v<T, N>;
  }
}

template <class T, class N, bool Strict, std::size_t... I>
constexpr bool items_fit(std::index_sequence<I...>) {
  return (fits<std::tuple_element_t<I, T>, std::tuple_element_t<I, N>, Strict>() && ...);
}

// readable tells whether a parameter of type P (as declared, maybe a
// reference) can be read from a value of natural type N.
template <class P, class N>
constexpr bool readable() {
  using T = std::remove_cv_t<std::remove_reference_t<P>>;
  if constexpr (has_codec_v<T>) {
    return fits<T, N, false>();
  } else {
    return false;
  }
}

// Param<I, N> is the argument at position I of a call, of natural type N.
// Arguments of type () are not passed to C++ functions, so positions may
// skip.
template <std::size_t I, class N>
struct Param {
  static constexpr std::size_t index = I;
  using natural = N;
};

// Result<N> is the natural type of a function's result (Unit for ()).
template <class N>
struct Result {
  using natural = N;
};

// Signature<R, A...> is a function's declared type; signature<D>(&f)
// deduces it when f names exactly one function. D is only there to make
// the expression dependent, so that an overload set or a template is a
// substitution failure rather than an error.
template <class R, class... A>
struct Signature {
  using params = std::tuple<A...>;
  static constexpr std::size_t arity = sizeof...(A);
};
template <class D, class R, class... A>
Signature<R, A...> signature(R (*)(A...));

// read_arg reads argument index (0-based) as a T.
template <class T>
T read_arg(Reader r, std::size_t index) {
  try {
    return Codec<T>::read(r);
  } catch (const ValueError& e) {
    throw e.within("argument " + std::to_string(index + 1));
  }
}

// Arg is an argument that becomes whichever type fitting its natural type
// N the function's parameter asks for.
template <class N>
class Arg {
 public:
  Arg(const Reader& r, std::size_t index) : r_(r), index_(index) {}

  template <class T, std::enable_if_t<has_codec_v<T> && fits<T, N, true>(), int> = 0>
  operator T() const {
    return read_arg<T>(r_, index_);
  }

 private:
  Reader r_;
  std::size_t index_;
};

// produce calls f and writes its result, of natural type N.
template <class N, class F>
void produce(Writer& out, F&& f) {
  using R = decltype(f());
  if constexpr (std::is_void_v<R>) {
    static_assert(std::is_same_v<N, Unit>,
                  "nexus: this C++ function returns void, but its .loc signature has a result");
    f();
    out.pack().pack_nil();
  } else if constexpr (std::is_same_v<N, Unit>) {
    f();
    out.pack().pack_nil();
  } else {
    using T = std::decay_t<R>;
    if constexpr (has_codec_v<T> && fits<T, N, false>()) {
      decltype(auto) r = f();
      Codec<T>::write(out, r);
    } else if constexpr (std::is_convertible_v<R, N>) {
      Codec<N>::write(out, static_cast<N>(f()));
    } else {
      static_assert(always_false<F>,
                    "nexus: the result type of this C++ function does not fit the result of its .loc signature");
    }
  }
}

// write_unpacked writes v, what the unpack function of a Packable newtype
// returned, as the newtype's wire form, of natural type W. main.cpp
// specializes Codec for each such newtype's C++ type:
//
//   template <>
//   struct Codec<::std::filesystem::path> {
//     static ::std::filesystem::path read(Reader& r) { return ... (::to_path)(Codec<::std::string>::read(r)) ...; }
//     static void write(Writer& w, const ::std::filesystem::path& v) { write_unpacked<::std::string>(w, (::from_path)(v)); }
//   };
//
// runtime_converts tells the types the runtime converts itself, which a
// Packable newtype cannot be: main.cpp's Codec would replace theirs.
template <class T>
constexpr bool runtime_converts =
    std::is_arithmetic_v<T> || std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> ||
    std::is_same_v<T, Unit> || sequence<T>::value || mapping<T>::value || optional_of<T>::value ||
    tuple_like<T>::value || fixed_array<T>::value || function_of<T>::value || is_record<T>::value;

template <class W, class T>
void write_unpacked(Writer& w, const T& v) {
  if constexpr (has_codec_v<T> && fits<T, W, false>()) {
    Codec<T>::write(w, v);
  } else {
    static_assert(std::is_convertible_v<const T&, W>,
                  "nexus: the unpack function of a Packable newtype does not return the newtype's wire form");
    Codec<W>::write(w, static_cast<W>(v));
  }
}

// Invoker runs a function on its arguments (one Reader each, in .loc
// order) and writes its result.
using Invoker = std::function<void(const Reader* args, Writer& out)>;

// Function is one function the pool serves.
struct Function {
  std::uint32_t id;     // the manifest's function id
  std::string name;     // the function's name in the program, for messages
  std::string origin;   // its C++ name and header, "summarize (stats.hpp)"
  std::size_t arity;    // arguments in a call, () included
  Invoker invoke;
};

// FunctionRef is a function of this pool given as an argument (a .loc
// function type; types.FuncRef in the nexus): function id, called with its
// arguments laid out by slots, one per argument: -1 for the next of
// captured (a value the nexus computed, msgpack-encoded as that argument),
// else the index of the caller's argument that goes there. `map (add 3) xs`
// passes add as {id, {-1, 0}, {3}}.
struct FunctionRef {
  std::uint32_t id = 0;
  std::vector<int> slots;
  std::vector<std::string> captured;

  // call runs the function with args, the caller's n arguments each
  // msgpack-encoded, and writes its msgpack result into out. A failure of
  // the function is rethrown with the function's name.
  void call(const std::string* args, std::size_t n, std::string& out) const;
};

// read_function_ref reads a function reference, [id, [slots], [captured]].
FunctionRef read_function_ref(Reader& r);

// encode_value writes v, a T, into out as msgpack.
template <class T>
void encode_value(std::string& out, const T& v) {
  Writer w(out);
  Codec<T>::write(w, v);
  w.finish();
}

// A function argument becomes a std::function that calls the function
// inside this pool: its arguments and result cross as msgpack, as they do
// from the nexus, so any function of the pool can be passed whatever C++
// types it declares, and no call leaves the process.
template <class R, class... A>
struct Codec<std::function<R(A...)>, std::enable_if_t<has_codec_v<R> && (has_codec_v<std::decay_t<A>> && ...)>> {
  static std::function<R(A...)> read(Reader& r) {
    auto ref = std::make_shared<const FunctionRef>(read_function_ref(r));
    return [ref](A... args) -> R {
      std::array<std::string, sizeof...(A)> encoded;
      std::size_t i = 0;
      (encode_value<std::decay_t<A>>(encoded[i++], args), ...);
      std::string out;
      ref->call(encoded.data(), encoded.size(), out);
      Reader result(out.data(), out.size());
      return Codec<R>::read(result);
    };
  }
  static void write(Writer&, const std::function<R(A...)>&) {
    throw ValueError("", "a function cannot be a result: no .loc type returns one");
  }
};

template <class Address, std::size_t Arity, class = void>
struct plain_function : std::false_type {};
template <class Address, std::size_t Arity>
struct plain_function<Address, Arity, std::enable_if_t<std::is_invocable_v<Address, int>>>
    : std::bool_constant<std::invoke_result_t<Address, int>::arity == Arity> {};

template <class Params, class... P, std::size_t... I>
constexpr bool declared_readable(std::index_sequence<I...>) {
  return (readable<std::tuple_element_t<I, Params>, typename P::natural>() && ...);
}

// exact_call tells whether a function can be called with its declared
// parameter types (Params): it names one function, of the right arity,
// whose parameters are all readable from the .loc types (a tuple of
// Param<I, N>).
template <class Address, class ParamList, class = void>
struct exact_call : std::false_type {};
template <class Address, class... P>
struct exact_call<Address, std::tuple<P...>, std::enable_if_t<plain_function<Address, sizeof...(P)>::value>>
    : std::bool_constant<declared_readable<typename std::invoke_result_t<Address, int>::params, P...>(
          std::index_sequence_for<P...>{})> {
  using params = typename std::invoke_result_t<Address, int>::params;
};

template <class N, class Params, class... P, class Call, std::size_t... I>
Invoker exact_invoker(Call call, std::index_sequence<I...>) {
  return [call](const Reader* args [[maybe_unused]], Writer& out) mutable {
    std::tuple<std::remove_cv_t<std::remove_reference_t<std::tuple_element_t<I, Params>>>...> values{
        read_arg<std::remove_cv_t<std::remove_reference_t<std::tuple_element_t<I, Params>>>>(args[P::index],
                                                                                            P::index)...};
    produce<N>(out, [&]() -> decltype(auto) {
      return call(static_cast<std::tuple_element_t<I, Params>&&>(std::get<I>(values))...);
    });
  };
}

template <class N, bool Lvalues, class... P, class Call, std::size_t... I>
Invoker natural_invoker(Call call, std::index_sequence<I...>) {
  return [call](const Reader* args [[maybe_unused]], Writer& out) mutable {
    std::tuple<typename P::natural...> values{read_arg<typename P::natural>(args[P::index], P::index)...};
    produce<N>(out, [&]() -> decltype(auto) {
      if constexpr (Lvalues) {
        return call(std::get<I>(values)...);
      } else {
        return call(std::move(std::get<I>(values))...);
      }
    });
  };
}

template <class N, class... P, class Call>
Invoker proxy_invoker(Call call) {
  return [call](const Reader* args [[maybe_unused]], Writer& out) mutable {
    produce<N>(out, [&]() -> decltype(auto) { return call(Arg<typename P::natural>(args[P::index], P::index)...); });
  };
}

// function describes a sourced function for serve. Generated code passes
// its result and parameters as Result<N> and Param<I, N>..., call (a
// generic lambda forwarding to the function) and address (a generic lambda
// whose return type is signature<D>(&f), when that is well formed).
template <class R, class... P, class Call, class Address>
Function function(std::uint32_t id, std::string name, std::string origin, std::size_t arity, Call call, Address) {
  using N = typename R::natural;
  using Seq = std::index_sequence_for<P...>;
  Invoker invoke;
  if constexpr (exact_call<Address, std::tuple<P...>>::value) {
    invoke = exact_invoker<N, typename exact_call<Address, std::tuple<P...>>::params, P...>(call, Seq{});
  } else if constexpr (std::is_invocable_v<Call&, typename P::natural&&...>) {
    invoke = natural_invoker<N, false, P...>(call, Seq{});
  } else if constexpr (std::is_invocable_v<Call&, typename P::natural&...>) {
    invoke = natural_invoker<N, true, P...>(call, Seq{});
  } else if constexpr (std::is_invocable_v<Call&, Arg<typename P::natural>...>) {
    invoke = proxy_invoker<N, P...>(call);
  } else {
    static_assert(always_false<Call>,
                  "nexus: this C++ function cannot be called with the argument types of its .loc signature");
  }
  return Function{id, std::move(name), std::move(origin), arity, std::move(invoke)};
}

// serve runs the pool: it answers the nexus's handshake, serves the
// functions until the nexus asks it to shut down, and exits. It returns
// only on failure, with the exit status for main.
int serve(std::vector<Function> functions);

// progress reports the progress of the call the calling thread runs: done
// of total (std::nullopt: not known), and what the function is doing
// (message, may be empty):
//
//   std::int64_t crunch(std::int64_t n) {
//     for (std::int64_t i = 0; i < n; ++i) {
//       nexus::progress(i + 1, n, "crunching");
//       ...
//     }
//   }
//
// The report reaches the caller when it asked for progress (an MCP client
// that sent a progressToken); otherwise, and on a thread that runs no call,
// it does nothing. Reports should grow: the nexus drops a report whose done
// is not above the last one's. While one report is on its way, a newer one
// replaces the one waiting, so progress never blocks for long.
void progress(double done, std::optional<double> total = std::nullopt, std::string_view message = {});

// cancelled tells whether the nexus has cancelled the call the calling
// thread runs (its caller gave up: a timeout, an MCP cancellation). No
// thread can be stopped from outside, so a long function that wants to
// stop early checks it now and then and returns (any value) or throws:
//
//   for (std::int64_t i = 0; i < n && !nexus::cancelled(); ++i) work(i);
//
// The nexus discards what a cancelled call returns: once it was cancelled,
// its reply is an error saying so. cancelled is false on a thread that runs
// no call, and for calls a nexus sent without the call stream (Calls) of
// proto/pool.proto, which has no way to cancel them.
bool cancelled();

}  // namespace nexus
