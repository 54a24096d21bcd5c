// Unit tests of nexus_pool.hpp: msgpack reading and writing, and how a
// function's arguments reach its declared parameter types. `go test
// ./pools/cpp` compiles and runs this program; it prints each failure and
// exits 1 if there is any.
#include "nexus_pool.hpp"

#include <cstdint>
#include <iostream>
#include <limits>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

// A record struct, in a namespace, with an optional field.
namespace geo {
struct point {
  double x = 0;
  std::optional<std::string> label;
  std::vector<int> tags;
  bool operator==(const point& o) const { return x == o.x && label == o.label && tags == o.tags; }
};
}  // namespace geo

namespace nexus {
template <>
struct Record<::geo::point> {
  static constexpr const char* name = "Point";
  static constexpr auto fields =
      std::make_tuple(field("x", &::geo::point::x), field("label", &::geo::point::label), field("tags", &::geo::point::tags));
};
}  // namespace nexus

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::cerr << "FAIL: " << what << "\n";
  }
}

template <class T>
std::string encode(const T& v) {
  std::string out;
  nexus::Writer w(out);
  nexus::Codec<T>::write(w, v);
  w.finish();
  return out;
}

template <class T>
T decode(const std::string& bytes) {
  nexus::Reader r(bytes.data(), bytes.size());
  T v = nexus::Codec<T>::read(r);
  if (!r.at_end()) throw std::runtime_error("bytes left after the value");
  return v;
}

template <class T>
void round_trip(const T& v, const std::string& name) {
  try {
    expect(decode<T>(encode(v)) == v, "round trip of " + name);
  } catch (const std::exception& e) {
    expect(false, "round trip of " + name + ": " + e.what());
  }
}

// error_of returns the message of what f throws, or "" when it does not.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& got, const std::string& want, const std::string& name) {
  expect(got.find(want) != std::string::npos, name + ": error \"" + got + "\" lacks \"" + want + "\"");
}

std::string bytes(std::initializer_list<int> bs) {
  std::string out;
  for (int b : bs) out += static_cast<char>(b);
  return out;
}

void test_integers() {
  // Every msgpack integer encoding, read as int64_t.
  struct {
    std::string bytes;
    std::int64_t want;
  } cases[] = {
      {bytes({0x07}), 7},
      {bytes({0x7f}), 127},
      {bytes({0xff}), -1},
      {bytes({0xe0}), -32},
      {bytes({0xcc, 0xff}), 255},
      {bytes({0xcd, 0x01, 0x00}), 256},
      {bytes({0xce, 0x00, 0x01, 0x00, 0x00}), 65536},
      {bytes({0xcf, 0, 0, 0, 1, 0, 0, 0, 0}), std::int64_t{1} << 32},
      {bytes({0xd0, 0x80}), -128},
      {bytes({0xd1, 0xff, 0x7f}), -129},
      {bytes({0xd2, 0xff, 0xff, 0x7f, 0xff}), -32769},
      {bytes({0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0}), std::numeric_limits<std::int64_t>::min()},
  };
  for (const auto& c : cases) {
    expect(decode<std::int64_t>(c.bytes) == c.want, "read integer " + std::to_string(c.want));
  }
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{-33}, std::int64_t{128}, std::int64_t{-40000},
                         std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
    round_trip(v, "int64 " + std::to_string(v));
  }
  expect(encode(std::int64_t{-1}) == bytes({0xff}), "-1 is a negative fixint");
  expect(encode(std::uint64_t{200}) == bytes({0xcc, 200}), "200 is a uint8");

  // Narrow types take what fits and refuse the rest.
  expect(decode<int>(encode(std::int64_t{2147483647})) == 2147483647, "int max");
  expect(decode<short>(encode(std::int64_t{-32768})) == -32768, "short min");
  expect_error(error_of([] { decode<int>(encode(std::int64_t{3000000000})); }),
               "the integer 3000000000 does not fit in a signed 32-bit integer", "int overflow");
  expect_error(error_of([] { decode<unsigned>(encode(std::int64_t{-1})); }), "does not fit in an unsigned", "unsigned");
  expect_error(error_of([] { decode<std::int64_t>(bytes({0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})); }),
               "does not fit", "uint64 max as int64");
  expect_error(error_of([] { decode<std::int64_t>(encode(1.5)); }), "expected an integer, got a number", "float as int");
}

void test_numbers_strings_bools() {
  round_trip(1.5, "double");
  round_trip(-0.0, "negative zero");
  round_trip(1e300, "large double");
  expect(encode(1.5) == bytes({0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0}), "1.5 is a float64");
  expect(decode<double>(bytes({0xca, 0x3f, 0xc0, 0x00, 0x00})) == 1.5, "float32");
  expect(decode<double>(encode(std::int64_t{3})) == 3.0, "integer as double");
  expect(decode<float>(encode(2.5)) == 2.5f, "float parameter");

  round_trip(std::string(""), "empty string");
  round_trip(std::string("héllo \"wörld\"\n✓"), "non-ASCII string");
  round_trip(std::string(70000, 'x'), "str32");
  expect(encode(std::string("abc")) == bytes({0xa3, 'a', 'b', 'c'}), "abc is a fixstr");
  expect(decode<std::string_view>(encode(std::string("view"))) == "view", "string_view");
  expect(decode<std::string>(bytes({0xc4, 2, 'h', 'i'})) == "hi", "bin as string");

  round_trip(true, "true");
  round_trip(false, "false");
  expect_error(error_of([] { decode<bool>(encode(std::int64_t{1})); }), "expected a boolean, got an integer", "int as bool");
}

void test_containers() {
  round_trip(std::vector<double>{}, "empty vector");
  round_trip(std::vector<double>{1.5, -2, 3e10}, "vector<double>");
  round_trip(std::vector<std::int64_t>{1, -2, 300}, "vector<int64_t>");
  round_trip(std::vector<bool>{true, false}, "vector<bool>");
  round_trip(std::list<std::string>{"a", "b"}, "list<string>");
  round_trip(std::set<int>{3, 1, 2}, "set<int>");
  round_trip(std::array<int, 3>{1, 2, 3}, "array<int, 3>");
  round_trip(std::vector<std::vector<int>>{{1}, {}, {2, 3}}, "nested vectors");
  round_trip(std::optional<int>{}, "unset optional");
  round_trip(std::optional<int>{5}, "set optional");
  round_trip(std::map<std::string, std::int64_t>{{"a", 1}, {"b", 2}}, "map<string, int64_t>");
  round_trip(std::map<std::int64_t, std::string>{{-1, "x"}, {2, "y"}}, "map<int64_t, string>");
  round_trip(std::unordered_map<std::string, double>{{"a", 1.5}}, "unordered_map");
  round_trip(std::map<std::tuple<int, std::string>, double>{{{1, "a"}, 0.5}}, "tuple keys");
  round_trip(std::tuple<std::int64_t, std::string, bool>{1, "x", true}, "tuple");
  round_trip(std::pair<int, double>{1, 2.5}, "pair");
  round_trip(std::vector<std::tuple<std::string, std::optional<std::vector<std::map<std::string, double>>>>>{
                 {"a", std::nullopt}, {"b", std::vector<std::map<std::string, double>>{{{"x", 1.5}}, {}}}},
             "nested");

  // A map also reads from a list of [key, value] pairs.
  std::string pairs = bytes({0x91, 0x92, 0x01, 0xa1, 'a'});
  expect((decode<std::map<int, std::string>>(pairs) == std::map<int, std::string>{{1, "a"}}), "map from pairs");

  expect_error(error_of([] { decode<std::vector<double>>(encode(std::vector<std::string>{"a"})); }),
               "[0]: expected a number, got a string", "path of a list item");
  expect_error(error_of([] { decode<std::tuple<int, int>>(encode(std::vector<int>{1, 2, 3})); }),
               "expected a tuple of 2 items, got a list of 3", "tuple length");
  expect_error(error_of([] { decode<std::vector<double>>(bytes({0xdd, 0xff, 0xff, 0xff, 0xff})); }),
               "truncated", "a length larger than the data");
}

void test_records() {
  round_trip(geo::point{1.5, std::string("p"), {1, 2}}, "record");
  round_trip(geo::point{-1, std::nullopt, {}}, "record with an unset optional");
  round_trip(std::vector<geo::point>{{1, std::nullopt, {}}, {2, std::string("b"), {3}}}, "list of records");

  // Fields come by name, in any order; unknown fields are skipped; an
  // optional field may be missing.
  std::string reordered;
  {
    nexus::Writer w(reordered);
    w.pack().pack_map(3);
    nexus::write_string(w, "tags");
    nexus::Codec<std::vector<int>>::write(w, {7});
    nexus::write_string(w, "extra");
    nexus::Codec<std::vector<std::string>>::write(w, {"ignored"});
    nexus::write_string(w, "x");
    nexus::Codec<double>::write(w, 2.0);
    w.finish();
  }
  expect(decode<geo::point>(reordered) == geo::point{2.0, std::nullopt, {7}}, "fields by name");

  std::string missing;
  {
    nexus::Writer w(missing);
    w.pack().pack_map(1);
    nexus::write_string(w, "label");
    nexus::Codec<std::string>::write(w, "no x");
    w.finish();
  }
  expect_error(error_of([&] { decode<geo::point>(missing); }), "record Point is missing field x", "missing field");

  std::string wrong = encode(std::map<std::string, std::string>{{"x", "not a number"}});
  expect_error(error_of([&] { decode<geo::point>(wrong); }), ".x: expected a number, got a string", "path of a field");
}

void test_skip() {
  std::string all;
  {
    nexus::Writer w(all);
    w.pack().pack_array(9);
    nexus::Codec<std::int64_t>::write(w, -70000);
    nexus::Codec<double>::write(w, 1.5);
    nexus::Codec<std::string>::write(w, std::string(300, 'y'));
    nexus::Codec<geo::point>::write(w, {1, std::string("l"), {1, 2, 3}});
    w.pack().pack_nil();
    w.pack().pack_true();
    w.pack().pack_bin(3);
    w.pack().pack_bin_body("abc", 3);
    w.pack().pack_ext(2, 5);
    w.pack().pack_ext_body("xy", 2);
    nexus::Codec<std::int64_t>::write(w, 42);
    w.finish();
  }
  nexus::Reader r(all.data(), all.size());
  expect(r.read_array() == 9, "array header");
  for (int i = 0; i < 8; ++i) r.skip();
  expect(nexus::Codec<std::int64_t>::read(r) == 42 && r.at_end(), "skip over every kind of value");
}

// Functions of every shape the pool meets.
int f_int(int x) { return x + 1; }
long f_long(const long& x) { return x + 1; }
std::optional<int> f_opt(std::optional<int> x) { return x; }
double mean(const std::vector<double>& xs) {
  double s = 0;
  for (double x : xs) s += x;
  return xs.empty() ? 0 : s / static_cast<double>(xs.size());
}
template <class T>
T same(T x) {
  return x;
}
int over(int) { return 1; }
int over(const std::string&) { return 2; }
void append(std::vector<int>& xs) { xs.push_back(1); }
int with_default(int a, int b = 10) { return a + b; }
double sum3(std::array<double, 3> xs) { return xs[0] + xs[1] + xs[2]; }
void nothing(int) {}
int answer() { return 42; }
inline auto lambda_fn = [](int x) { return 3 * x; };
double throws(double) { throw std::domain_error("bad"); }

// call runs f on args (each encoded with its Codec) and decodes the result.
template <class R, class... A>
R call(const nexus::Function& f, const A&... args) {
  std::string request;
  {
    nexus::Writer w(request);
    w.pack().pack_array(sizeof...(A));
    (nexus::Codec<A>::write(w, args), ...);
    w.finish();
  }
  nexus::Reader r(request.data(), request.size());
  std::size_t n = r.read_array();
  std::vector<nexus::Reader> readers;
  for (std::size_t i = 0; i < n; ++i) {
    readers.push_back(r);
    r.skip();
  }
  std::string result;
  nexus::Writer w(result, 3);
  f.invoke(readers.data(), w);
  w.finish();
  expect(result.compare(0, 3, std::string(3, '\0')) == 0, "the room before the result is kept");
  return decode<R>(result.substr(3));
}

void test_functions() {
  using nexus::Param;
  using nexus::Result;
  using std::int64_t;
  // What generated code passes for each function: the wrapper that calls
  // it, and the one that takes its address.
  auto f1 = nexus::function<Result<int64_t>, Param<0, int64_t>>(
      0, "f_int", "f_int (test)", 1,
      [](auto&&... a) -> decltype((f_int)(static_cast<decltype(a)&&>(a)...)) { return (f_int)(static_cast<decltype(a)&&>(a)...); },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&f_int)) { return {}; });
  expect(call<int64_t>(f1, int64_t{41}) == 42, "int parameter");
  expect_error(error_of([&] { call<int64_t>(f1, int64_t{1} << 40); }), "argument 1: the integer 1099511627776 does not fit",
               "int parameter overflow");

  auto f2 = nexus::function<Result<int64_t>, Param<0, int64_t>>(
      0, "f_long", "", 1,
      [](auto&&... a) -> decltype((f_long)(static_cast<decltype(a)&&>(a)...)) { return (f_long)(static_cast<decltype(a)&&>(a)...); },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&f_long)) { return {}; });
  expect(call<int64_t>(f2, int64_t{1} << 40) == (int64_t{1} << 40) + 1, "const long& parameter");

  auto f3 = nexus::function<Result<std::optional<int64_t>>, Param<0, std::optional<int64_t>>>(
      0, "f_opt", "", 1,
      [](auto&&... a) -> decltype((f_opt)(static_cast<decltype(a)&&>(a)...)) { return (f_opt)(static_cast<decltype(a)&&>(a)...); },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&f_opt)) { return {}; });
  expect(!call<std::optional<int64_t>>(f3, std::optional<int64_t>{}).has_value(), "unset optional<int> parameter");
  expect(call<std::optional<int64_t>>(f3, std::optional<int64_t>{5}) == 5, "set optional<int> parameter");

  auto f4 = nexus::function<Result<double>, Param<0, std::vector<double>>>(
      0, "mean", "", 1,
      [](auto&&... a) -> decltype((mean)(static_cast<decltype(a)&&>(a)...)) { return (mean)(static_cast<decltype(a)&&>(a)...); },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&mean)) { return {}; });
  expect(call<double>(f4, std::vector<double>{1, 2, 6}) == 3, "const vector& parameter");

  // A template: the natural types.
  auto f5 = nexus::function<Result<geo::point>, Param<0, geo::point>>(
      0, "same", "", 1,
      [](auto&&... a) -> decltype((same)(static_cast<decltype(a)&&>(a)...)) { return (same)(static_cast<decltype(a)&&>(a)...); },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&same)) { return {}; });
  expect(call<geo::point>(f5, geo::point{1, std::nullopt, {2}}) == geo::point{1, std::nullopt, {2}}, "template");

  // Overloads: the one whose parameter fits the signature.
  auto f6 = nexus::function<Result<int64_t>, Param<0, int64_t>>(
      0, "over", "", 1,
      [](auto&&... a) -> decltype((over)(static_cast<decltype(a)&&>(a)...)) { return (over)(static_cast<decltype(a)&&>(a)...); },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&over)) { return {}; });
  expect(call<int64_t>(f6, int64_t{0}) == 1, "overload for Int");
  auto f7 = nexus::function<Result<int64_t>, Param<0, std::string>>(
      0, "over", "", 1,
      [](auto&&... a) -> decltype((over)(static_cast<decltype(a)&&>(a)...)) { return (over)(static_cast<decltype(a)&&>(a)...); },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&over)) { return {}; });
  expect(call<int64_t>(f7, std::string("s")) == 2, "overload for Str");

  auto f8 = nexus::function<Result<nexus::Unit>, Param<0, std::vector<int64_t>>>(
      0, "append", "", 1,
      [](auto&&... a) -> decltype((append)(static_cast<decltype(a)&&>(a)...)) { return (append)(static_cast<decltype(a)&&>(a)...); },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&append)) { return {}; });
  call<nexus::Unit>(f8, std::vector<int64_t>{1});

  auto f9 = nexus::function<Result<int64_t>, Param<0, int64_t>>(
      0, "with_default", "", 1,
      [](auto&&... a) -> decltype((with_default)(static_cast<decltype(a)&&>(a)...)) {
        return (with_default)(static_cast<decltype(a)&&>(a)...);
      },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&with_default)) { return {}; });
  expect(call<int64_t>(f9, int64_t{1}) == 11, "default argument");

  auto f10 = nexus::function<Result<double>, Param<0, std::vector<double>>>(
      0, "sum3", "", 1,
      [](auto&&... a) -> decltype((sum3)(static_cast<decltype(a)&&>(a)...)) { return (sum3)(static_cast<decltype(a)&&>(a)...); },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&sum3)) { return {}; });
  expect(call<double>(f10, std::vector<double>{1, 2, 3}) == 6, "std::array parameter");
  expect_error(error_of([&] { call<double>(f10, std::vector<double>{1}); }), "expected a list of 3 items", "std::array size");

  auto f11 = nexus::function<Result<nexus::Unit>, Param<0, int64_t>>(
      0, "nothing", "", 1,
      [](auto&&... a) -> decltype((nothing)(static_cast<decltype(a)&&>(a)...)) { return (nothing)(static_cast<decltype(a)&&>(a)...); },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&nothing)) { return {}; });
  call<nexus::Unit>(f11, int64_t{1});

  // () arguments are not passed: Param positions skip them.
  auto f12 = nexus::function<Result<int64_t>>(
      0, "answer", "", 1,
      [](auto&&... a) -> decltype((answer)(static_cast<decltype(a)&&>(a)...)) { return (answer)(static_cast<decltype(a)&&>(a)...); },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&answer)) { return {}; });
  expect(call<int64_t>(f12, nexus::Unit{}) == 42, "a () argument");

  auto f13 = nexus::function<Result<int64_t>, Param<0, int64_t>>(
      0, "lambda_fn", "", 1,
      [](auto&&... a) -> decltype((lambda_fn)(static_cast<decltype(a)&&>(a)...)) {
        return (lambda_fn)(static_cast<decltype(a)&&>(a)...);
      },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&lambda_fn)) { return {}; });
  expect(call<int64_t>(f13, int64_t{3}) == 9, "a lambda");

  auto f14 = nexus::function<Result<double>, Param<0, double>>(
      0, "throws", "", 1,
      [](auto&&... a) -> decltype((throws)(static_cast<decltype(a)&&>(a)...)) { return (throws)(static_cast<decltype(a)&&>(a)...); },
      [](auto d) -> decltype(nexus::signature<decltype(d)>(&throws)) { return {}; });
  expect_error(error_of([&] { call<double>(f14, 1.0); }), "bad", "an exception passes through");
}

}  // namespace

int main() {
  test_integers();
  test_numbers_strings_bools();
  test_containers();
  test_records();
  test_skip();
  test_functions();
  if (failures > 0) {
    std::cerr << failures << " failures\n";
    return 1;
  }
  return 0;
}

// serve is the runtime's, in nexus_pool.cpp, which these tests do not need.
int nexus::serve(std::vector<nexus::Function>) { return 0; }
